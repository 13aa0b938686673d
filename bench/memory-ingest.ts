/**
 * Memory ingest benchmark, loaded the way users load: the generated corpus of
 * bench/memory-ingest-corpus.ts goes in one statement at a time, oldest first,
 * through `MemoryService.remember` (what `tea memory add`, the memory tool and
 * `POST /v1/memory` call) — offline, and with a judge model scripted at the wire
 * (an OpenAI-compatible server that answers from the corpus labels, with some
 * replies malformed) — and, for comparison, through `importAll` (what `tea memory
 * import` does: no ingest decisions). Questions go through `MemoryService.search`
 * (what `tea memory search` and the API call).
 *
 * Prints per mode: recall@5 and MRR (all, per question kind, per family), the
 * stale rate (an older version of the asked fact ranked above the right one) and
 * lost facts (statements never contradicted that are no longer active, or that
 * were judged duplicates of another fact). Asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createModelChain } from '../src/llm/factory.js';
import { modelJudge } from '../src/memory/judge.js';
import { MemoryService } from '../src/memory/service.js';
import { Store } from '../src/store/index.js';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';
import {
  buildIngestCorpus,
  CORPUS_END,
  type IngestCorpus,
  type IngestEvent,
} from './memory-ingest-corpus.js';

type Mode = 'import' | 'add offline' | 'add + judge' | 'add + judge, 10% garbage';
const DAY = 86_400_000;
/** In the garbage mode, every this-many judge replies is prose (the service must fall back to the offline rule). */
const MALFORMED_EVERY = 10;

interface Loaded {
  /** Event key → the memory id that holds it (its own row, or the row it was judged a duplicate of). */
  idOf: Map<string, number>;
  /** Memory id → the event it was written for. */
  eventOf: Map<number, IngestEvent>;
  seconds: number;
  judgeCalls: number;
}

/** A judge that plays from the labels: same fact and version → duplicate, same fact newer → update. */
function oracle(byContent: Map<string, IngestEvent>, garbage: boolean) {
  let calls = 0;
  const answer = (body: Record<string, unknown>) => {
    calls += 1;
    const messages = body.messages as Array<{ content: string }>;
    const user = messages.at(-1)?.content ?? '';
    if (garbage && calls % MALFORMED_EVERY === 0)
      return reply().text('I think this one is probably an update of the first one.');
    const statement = /NEW \([a-z]+\): (.*)$/m.exec(user)?.[1] ?? '';
    const mine = byContent.get(statement.trim());
    for (const m of user.matchAll(/^\[id=(\d+)\] \([a-z]+, since [\d-]+\) (.*)$/gm)) {
      const theirs = byContent.get((m[2] ?? '').trim());
      if (!mine || !theirs || theirs.fact !== mine.fact) continue;
      const decision =
        theirs.version === mine.version ? 'duplicate' : theirs.version < mine.version ? 'update' : 'add';
      return reply().text(
        JSON.stringify({
          decision,
          id: Number(m[1]),
          subject: mine.fact,
          attribute: 'value',
          value: mine.value,
        }),
      );
    }
    return reply().text('{"decision": "add", "id": null}');
  };
  return { answer, calls: () => calls };
}

async function load(service: MemoryService, clock: { t: number }, corpus: IngestCorpus, mode: Mode) {
  const idOf = new Map<string, number>();
  const eventOf = new Map<number, IngestEvent>();
  const t0 = performance.now();
  if (mode === 'import') {
    service.importAll(
      corpus.events.map((e) => ({ content: e.content, category: e.category, createdAt: e.at })),
    );
    for (const m of service.exportAll()) {
      const e = corpus.events.find((x) => x.content === m.content);
      if (e) {
        idOf.set(e.key, m.id);
        eventOf.set(m.id, e);
      }
    }
  } else {
    for (const e of corpus.events) {
      clock.t = e.at;
      const r = await service.remember({ content: e.content, category: e.category }, { at: e.at });
      idOf.set(e.key, r.memory.id);
      if (r.outcome !== 'duplicate') eventOf.set(r.memory.id, e);
    }
  }
  return { idOf, eventOf, seconds: (performance.now() - t0) / 1000 };
}

/** Lost: never contradicted, yet not active — or folded into a memory of another fact or value. */
function lostFacts(service: MemoryService, corpus: IngestCorpus, loaded: Loaded): IngestEvent[] {
  return corpus.events.filter((e) => {
    if (!e.latest) return false;
    const id = loaded.idOf.get(e.key);
    const row = id === undefined ? undefined : service.repo.get(id);
    if (row === undefined || row.validTo !== null || row.deletedAt !== null) return true;
    const holder = loaded.eventOf.get(row.id);
    return holder === undefined || holder.fact !== e.fact || holder.version !== e.version;
  });
}

interface Tally {
  n: number;
  hit5: number;
  rr: number;
}
const tally = (): Tally => ({ n: 0, hit5: 0, rr: 0 });

async function evaluate(service: MemoryService, corpus: IngestCorpus, loaded: Loaded) {
  const all = tally();
  const byKind = new Map<string, Tally>();
  const byFamily = new Map<string, Tally>();
  let staleAsked = 0;
  let stale = 0;
  const factOf = new Map(corpus.events.map((e) => [e.key, e]));
  const latencies: number[] = [];
  for (const q of corpus.questions) {
    const ids = (keys: string[]) =>
      new Set(
        corpus.events
          .filter(
            (e) => keys.includes(e.key) || (e.paraphraseOf !== undefined && keys.includes(e.paraphraseOf)),
          )
          .flatMap((e) => loaded.idOf.get(e.key) ?? []),
      );
    const right = ids([q.expect]);
    const older = ids(q.older.filter((k) => factOf.get(k)?.version !== factOf.get(q.expect)?.version));
    for (const id of right) older.delete(id);
    const t0 = performance.now();
    const hits = await service.search(q.text, { limit: 10 });
    latencies.push(performance.now() - t0);
    const rank = hits.findIndex((h) => right.has(h.memory.id)) + 1;
    const kind = byKind.get(q.kind) ?? tally();
    const family = byFamily.get(q.family) ?? tally();
    byKind.set(q.kind, kind);
    byFamily.set(q.family, family);
    for (const t of [all, kind, family]) {
      t.n += 1;
      if (rank >= 1 && rank <= 5) t.hit5 += 1;
      if (rank >= 1) t.rr += 1 / rank;
    }
    if (q.kind !== 'past' && older.size > 0) {
      staleAsked += 1;
      const oldRank = hits.findIndex((h) => older.has(h.memory.id)) + 1;
      if (oldRank >= 1 && (rank === 0 || oldRank < rank)) stale += 1;
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    all,
    byKind,
    byFamily,
    stale: staleAsked === 0 ? 0 : stale / staleAsked,
    staleAsked,
    p50: latencies[latencies.length >> 1] ?? 0,
  };
}

const fmt = (t: Tally) =>
  `R@5 ${(t.hit5 / Math.max(1, t.n)).toFixed(2)} MRR ${(t.rr / Math.max(1, t.n)).toFixed(2)}`;

async function runMode(corpus: IngestCorpus, mode: Mode, label: string): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-ingest-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  const judged = mode.startsWith('add + judge');
  const server = judged ? await startModelServer() : undefined;
  const byContent = new Map(corpus.events.map((e) => [e.content, e]));
  const judge = oracle(byContent, mode.endsWith('garbage'));
  server?.respond(judge.answer);
  const clock = { t: corpus.events[0]?.at ?? 0 };
  try {
    // The judge as users get it: the cheap model's chain (one retry, breaker), on the OpenAI wire.
    const provider = server
      ? createModelChain(
          [
            {
              name: 'cheap_model',
              provider: 'openai',
              baseUrl: server.openaiBaseUrl,
              model: 'judge',
              apiKey: 'k',
            },
          ],
          { timeoutMs: 30_000, maxRetries: 1, baseDelayMs: 10 },
        )
      : undefined;
    const service = new MemoryService({
      db: store.db,
      now: () => clock.t,
      ...(provider ? { judge: modelJudge(provider) } : {}),
    });
    const loaded = { ...(await load(service, clock, corpus, mode)), judgeCalls: judge.calls() };
    clock.t = CORPUS_END + 30 * DAY;
    const lost = lostFacts(service, corpus, loaded);
    const score = await evaluate(service, corpus, loaded);
    const active = service.repo.count();
    console.log(
      `memory ingest ${label} ${mode.padEnd(24)}: ${fmt(score.all)} | stale ${(score.stale * 100).toFixed(1)}% of ${score.staleAsked} | ` +
        `lost facts ${lost.length} | ${active} active of ${corpus.events.length} | load ${loaded.seconds.toFixed(1)} s` +
        `${server ? ` (${loaded.judgeCalls} judge calls)` : ''} | search p50 ${score.p50.toFixed(1)} ms`,
    );
    console.log(`    by kind: ${[...score.byKind].map(([k, t]) => `${k} ${fmt(t)} (${t.n})`).join(' · ')}`);
    console.log(
      `    by family: ${[...score.byFamily]
        .sort()
        .map(([k, t]) => `${k} ${(t.hit5 / t.n).toFixed(2)}/${(t.rr / t.n).toFixed(2)}`)
        .join(' · ')}`,
    );
    for (const e of lost.slice(0, 5)) console.log(`    lost: ${e.key}: ${e.content}`);
    return score.all.hit5 / Math.max(1, score.all.n);
  } finally {
    await server?.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMemoryIngest(sizes: readonly number[] = [2000, 10_000]): Promise<void> {
  for (const size of sizes) {
    const corpus = buildIngestCorpus({ size });
    const label = `${size / 1000}k`;
    const imported = await runMode(corpus, 'import', label);
    // TEA_BENCH_QUICK=1: the import run only (seconds, for trying a ranking change).
    if (process.env.TEA_BENCH_QUICK === '1') continue;
    const added = await runMode(corpus, 'add offline', label);
    await runMode(corpus, 'add + judge', label);
    await runMode(corpus, 'add + judge, 10% garbage', label);
    console.log(`    recall@5 via add (offline) − via import: ${((added - imported) * 100).toFixed(1)} pts`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  await benchMemoryIngest(sizes.length > 0 ? sizes : undefined);
}
