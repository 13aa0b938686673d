/**
 * Memory retrieval benchmark: recall@5 and MRR of hybrid search (full-text + offline
 * vectors, RRF) against two baselines on a generated labeled corpus: BM25-only
 * (BM25 over the word index, the textbook baseline the target is measured against)
 * and the lexical fusion (trigram + word BM25 fused by RRF, i.e. hybrid search
 * without vectors and priors); the stale rate on update chains; and search latency
 * at 10k and 100k memories.
 * Prints figures; asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OfflineEmbedder, RemoteEmbedder } from '../src/memory/embed.js';
import { MemoryRepo } from '../src/memory/repo.js';
import { bm25Only, lexicalOnly, type MemoryHit, searchMemories } from '../src/memory/search.js';
import { MemoryService } from '../src/memory/service.js';
import type { Embedder } from '../src/memory/types.js';
import { Store } from '../src/store/index.js';
import { buildCorpus, type CorpusMemory, type CorpusQuery, fillerMemory } from './memory-corpus.js';

const NOW = 1_750_000_000_000;
const DAY_MS = 86_400_000;
const BATCH = 2000;
const SIZES = [10_000, 100_000] as const;
const TARGETS = { recallGain: 0.1, p50: { 10000: 5, 100000: 30 } as Record<number, number> };

interface Scores {
  recall5: number;
  mrr: number;
  stale: number;
  staleChains: number;
  staleNear: number;
}

function percentile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN;
}

/** Inserts memories with their vectors in one transaction per batch; returns [embed ms, insert ms]. */
async function ingest(
  repo: MemoryRepo,
  clock: { t: number },
  embedder: Embedder,
  items: CorpusMemory[],
  ids: Map<string, number>,
): Promise<[number, number]> {
  let embedMs = 0;
  let insertMs = 0;
  for (let i = 0; i < items.length; i += BATCH) {
    const batch = items.slice(i, i + BATCH);
    const t0 = performance.now();
    const vectors = await embedder.embed(batch.map((m) => m.content));
    const t1 = performance.now();
    repo.db.transaction(() => {
      batch.forEach((m, j) => {
        clock.t = NOW - m.ageDays * DAY_MS;
        const row = repo.add({
          content: m.content,
          category: m.category,
          subject: m.subject,
          attribute: m.attribute,
          embedding: vectors[j],
          embedder: embedder.id,
        });
        ids.set(m.key, row.id);
      });
    })();
    embedMs += t1 - t0;
    insertMs += performance.now() - t1;
  }
  return [embedMs, insertMs];
}

/** 1-based rank of `id` in hits, or 0. */
const rankOf = (hits: MemoryHit[], id: number | undefined): number =>
  id === undefined ? 0 : hits.findIndex((h) => h.memory.id === id) + 1;

function score(results: MemoryHit[][], queries: CorpusQuery[], ids: Map<string, number>): Scores {
  let found = 0;
  let rr = 0;
  const stale = { chain: [0, 0], near: [0, 0] };
  queries.forEach((q, i) => {
    const hits = results[i] ?? [];
    const rank = rankOf(hits, ids.get(q.expect));
    if (rank >= 1 && rank <= 5) found++;
    if (rank >= 1) rr += 1 / rank;
    if (q.older !== undefined) {
      const old = rankOf(hits, ids.get(q.older));
      const isStale = old > 0 && (rank === 0 || old < rank);
      const bucket = q.kind === 'chain' ? stale.chain : stale.near;
      bucket[0] = (bucket[0] ?? 0) + (isStale ? 1 : 0);
      bucket[1] = (bucket[1] ?? 0) + 1;
    }
  });
  const ratio = ([a, b]: number[]): number => ((b ?? 0) === 0 ? 0 : (a ?? 0) / (b ?? 1));
  const all = [(stale.chain[0] ?? 0) + (stale.near[0] ?? 0), (stale.chain[1] ?? 0) + (stale.near[1] ?? 0)];
  return {
    recall5: found / queries.length,
    mrr: rr / queries.length,
    stale: ratio(all),
    staleChains: ratio(stale.chain),
    staleNear: ratio(stale.near),
  };
}

async function measure(
  label: string,
  size: number,
  repo: MemoryRepo,
  embedder: Embedder,
  queries: CorpusQuery[],
  ids: Map<string, number>,
): Promise<void> {
  const vectors = await embedder.embed(queries.map((q) => q.text));
  // One warm-up pass so statement compilation and page cache do not count.
  for (const [i, q] of queries.slice(0, 20).entries()) {
    searchMemories(repo, q.text, { limit: 10, queryVector: vectors[i], embedder: embedder.id, now: NOW });
  }
  const latencies: number[] = [];
  const hybrid = queries.map((q, i) => {
    const t0 = performance.now();
    const hits = searchMemories(repo, q.text, {
      limit: 10,
      queryVector: vectors[i],
      embedder: embedder.id,
      now: NOW,
    });
    latencies.push(performance.now() - t0);
    return hits;
  });
  const bmLatencies: number[] = [];
  const bm = queries.map((q) => {
    const t0 = performance.now();
    const hits = bm25Only(repo, q.text, { limit: 10, now: NOW });
    bmLatencies.push(performance.now() - t0);
    return hits;
  });
  const lex = queries.map((q) => lexicalOnly(repo, q.text, { limit: 10, now: NOW }));
  // The path users take (tea memory search, the API, the tool): cut-off, versions folded, newest first.
  const service = new MemoryService({ db: repo.db, embedder, now: () => NOW });
  const served: MemoryHit[][] = [];
  for (const q of queries) {
    served.push(
      (await service.search(q.text, { limit: 10 })).map((x) => ({
        memory: x.memory,
        score: x.score,
        ranks: {},
      })),
    );
  }
  const sv = score(served, queries, ids);
  const h = score(hybrid, queries, ids);
  const b = score(bm, queries, ids);
  const l = score(lex, queries, ids);
  const p50 = percentile(latencies, 0.5);
  const p95 = percentile(latencies, 0.95);
  const target = TARGETS.p50[size] ?? Number.NaN;
  console.log(
    `memory ${label}: hybrid recall@5 ${h.recall5.toFixed(2)} MRR ${h.mrr.toFixed(2)} | ` +
      `BM25-only recall@5 ${b.recall5.toFixed(2)} MRR ${b.mrr.toFixed(2)} | ` +
      `lexical fusion recall@5 ${l.recall5.toFixed(2)} MRR ${l.mrr.toFixed(2)} | stale ${h.stale.toFixed(2)} | ` +
      `search p50 ${p50.toFixed(1)} ms p95 ${p95.toFixed(1)} ms`,
  );
  console.log(
    `  through MemoryService.search (what users get): recall@5 ${sv.recall5.toFixed(2)} MRR ${sv.mrr.toFixed(2)} | stale ${sv.stale.toFixed(2)} (superseded ${sv.staleChains.toFixed(2)}, two active versions ${sv.staleNear.toFixed(2)})`,
  );
  const gain = (h.recall5 - b.recall5) * 100;
  const overLexical = (h.recall5 - l.recall5) * 100;
  const signed = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
  console.log(
    `  ${queries.length} queries · recall gain over BM25-only ${signed(gain)} pts (target ≥ +${TARGETS.recallGain * 100}), ` +
      `over the lexical fusion ${signed(overLexical)} pts · ` +
      `p50 target ≤ ${target} ms · stale: superseded ${h.staleChains.toFixed(2)}, near-stale hybrid ${h.staleNear.toFixed(2)} ` +
      `vs BM25-only ${b.staleNear.toFixed(2)} · BM25-only p50 ${percentile(bmLatencies, 0.5).toFixed(1)} ms`,
  );
  for (const kind of ['target', 'chain', 'near-stale'] as const) {
    for (const lang of ['en', 'zh'] as const) {
      const idx = queries.flatMap((q, i) => (q.kind === kind && q.lang === lang ? [i] : []));
      if (idx.length === 0) continue;
      const pick = (rs: MemoryHit[][]) => idx.map((i) => rs[i] ?? []);
      const sub = idx.map((i) => queries[i] as CorpusQuery);
      const hs = score(pick(hybrid), sub, ids);
      const bs = score(pick(bm), sub, ids);
      const ls = score(pick(lex), sub, ids);
      console.log(
        `    ${kind.padEnd(10)} ${lang} (${String(idx.length).padStart(3)}): hybrid R@5 ${hs.recall5.toFixed(2)} MRR ${hs.mrr.toFixed(2)} | BM25 R@5 ${bs.recall5.toFixed(2)} MRR ${bs.mrr.toFixed(2)} | lexical R@5 ${ls.recall5.toFixed(2)} MRR ${ls.mrr.toFixed(2)}`,
      );
    }
  }
}

/**
 * The built-in offline embedder, or a real embedding model when one is reachable:
 * TEA_BENCH_EMBED_URL (an OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1)
 * and TEA_BENCH_EMBED_MODEL (e.g. nomic-embed-text), optional TEA_BENCH_EMBED_KEY.
 */
function benchEmbedder(): Embedder {
  const baseUrl = process.env.TEA_BENCH_EMBED_URL;
  const model = process.env.TEA_BENCH_EMBED_MODEL;
  if (!baseUrl || !model) return new OfflineEmbedder();
  const apiKey = process.env.TEA_BENCH_EMBED_KEY;
  return new RemoteEmbedder({ baseUrl, model, ...(apiKey ? { apiKey } : {}) });
}

export async function benchMemory(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-memory-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  const clock = { t: NOW };
  const repo = new MemoryRepo(store.db, () => clock.t);
  const embedder = benchEmbedder();
  console.log(`memory: embedder ${embedder.id}`);
  const corpus = buildCorpus();
  const ids = new Map<string, number>();
  try {
    // Labeled memories in shuffled order so ids do not follow dates (the recency prior must do the work).
    const shuffled = [...corpus.memories];
    let s = 12345;
    for (let i = shuffled.length - 1; i > 0; i--) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      const j = s % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j] as CorpusMemory, shuffled[i] as CorpusMemory];
    }
    await ingest(repo, clock, embedder, shuffled, ids);
    clock.t = NOW;
    for (const [oldKey, newKey] of corpus.supersedes) {
      repo.supersede(ids.get(oldKey) as number, ids.get(newKey) as number);
    }
    let made = corpus.memories.length;
    for (const size of SIZES) {
      const fillers: CorpusMemory[] = [];
      for (; made < size; made++) fillers.push(fillerMemory(made));
      const t0 = performance.now();
      const [embedMs, insertMs] = await ingest(repo, clock, embedder, fillers, new Map());
      const total = performance.now() - t0;
      clock.t = NOW;
      const label = `${size / 1000}k`;
      console.log(
        `memory ${label}: ingest ${fillers.length} memories in ${(total / 1000).toFixed(1)} s ` +
          `(embedding ${(embedMs / 1000).toFixed(1)} s, insert ${(insertMs / 1000).toFixed(1)} s); ` +
          `${repo.count()} active, ${corpus.supersedes.length} superseded`,
      );
      await measure(label, size, repo, embedder, corpus.queries, ids);
    }
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
