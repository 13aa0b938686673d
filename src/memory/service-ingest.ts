/**
 * One memory through ingest: find the stored memories near it, read the offline
 * decision, let the judge (a cheap model, when configured) settle the close
 * pairs, then write the outcome. The write re-checks what it depends on, since
 * the judge is awaited in between. Split from service.ts to keep files small.
 */
import type Database from 'better-sqlite3';
import { versionAt } from './history.js';
import {
  acceptJudgement,
  hashContent,
  type IngestCandidate,
  type IngestDecision,
  readIngest,
  type SimilarMemory,
} from './ingest.js';
import type { IngestJudge } from './judge.js';
import { namesIn } from './names.js';
import type { MemoryRepo } from './repo.js';
import { namedMemories, searchMemories } from './search.js';
import { INGEST_NEIGHBOURS, JUDGE_MAX_CANDIDATES, sameKeyMemories } from './service-queries.js';
import { readStatement } from './statement.js';
import type { Memory, NewMemory } from './types.js';

export type IngestOutcome = 'duplicate' | 'update' | 'new' | 'history';

export interface RememberResult {
  /**
   * `history`: the statement is older than the stored version of the same fact
   * (an import of old statements); it is kept as that version's predecessor.
   */
  outcome: IngestOutcome;
  memory: Memory;
  /** The memory this one replaced (outcome `update`), now with `validTo` and `supersededBy` set. */
  superseded?: Memory;
  /** The newer stored version (outcome `history`). */
  supersededBy?: Memory;
  /** The judge model decided (rather than the offline rule). */
  judged?: boolean;
}

export interface IngestContext {
  db: Database.Database;
  repo: MemoryRepo;
  embedderId: string;
  judge?: IngestJudge | undefined;
  signal?: AbortSignal | undefined;
}

export type IngestInput = NewMemory & { value?: string };

/** The stored memories the decision compares with: search neighbours, same hash, same key. */
function similarTo(ctx: IngestContext, candidate: IngestCandidate, scope: string): SimilarMemory[] {
  const found = new Map<number, Memory>();
  const names = namesIn(readStatement(candidate.content));
  const hits = searchMemories(ctx.repo, candidate.content, {
    names,
    limit: INGEST_NEIGHBOURS,
    scopes: [scope],
    ...(candidate.vector === undefined ? {} : { queryVector: candidate.vector }),
    embedder: ctx.embedderId,
  });
  for (const hit of hits) found.set(hit.memory.id, hit.memory);
  // A judge can tell versions worded apart: show it what else is said about the same names.
  if (ctx.judge !== undefined) {
    for (const m of namedMemories(ctx.repo, names, { scopes: [scope], limit: NAMED_NEIGHBOURS }))
      found.set(m.id, m);
  }
  const byHash = ctx.repo.findByHash(candidate.hash, scope);
  if (byHash !== undefined) found.set(byHash.id, byHash);
  if (candidate.subject && candidate.attribute) {
    for (const m of sameKeyMemories(ctx.repo, candidate.subject, candidate.attribute, scope))
      found.set(m.id, m);
  }
  return [...found.values()].map((memory) => {
    const stored = ctx.repo.getEmbedding(memory.id);
    return stored !== undefined && stored.embedder === ctx.embedderId
      ? { memory, vector: stored.vector }
      : { memory };
  });
}

/** Memories naming the same things looked at, besides the search neighbours, when a judge is set. */
const NAMED_NEIGHBOURS = 30;

const isActive = (m: Memory | undefined): m is Memory =>
  m !== undefined && m.deletedAt === null && m.validTo === null;

/** Decides (offline, then the judge when there is one and `useJudge`) and writes one memory. */
export async function ingestOne(
  ctx: IngestContext,
  input: IngestInput,
  vector: Float32Array | undefined,
  opts: { useJudge: boolean; at?: number | undefined },
): Promise<RememberResult> {
  const scope = input.scope ?? 'user';
  const content = input.content.trim();
  const m: IngestInput = { ...input, content, scope };
  const candidate: IngestCandidate = {
    content,
    category: m.category,
    hash: hashContent(content),
    ...(m.subject ? { subject: m.subject } : {}),
    ...(m.attribute ? { attribute: m.attribute } : {}),
    ...(m.value ? { value: m.value } : {}),
    ...(vector === undefined ? {} : { vector }),
  };
  // A dated statement already on record for its time (a re-import): nothing to add.
  const known = opts.at === undefined ? undefined : versionAt(ctx.repo, candidate.hash, scope, opts.at);
  if (known !== undefined) {
    ctx.repo.touch([known.id]);
    return { outcome: 'duplicate', memory: ctx.repo.get(known.id) as Memory };
  }
  const similar = similarTo(ctx, candidate, scope);
  const reading = readIngest(candidate, similar);
  let decision: IngestDecision = reading.decision;
  let judged = false;
  if (ctx.judge !== undefined && opts.useJudge && reading.close.length > 0) {
    const byId = new Map(similar.map((s) => [s.memory.id, s.memory]));
    const shown = reading.close.slice(0, JUDGE_MAX_CANDIDATES).flatMap((id) => byId.get(id) ?? []);
    const verdict = await ctx.judge.judge(
      { statement: content, category: m.category, candidates: shown },
      ctx.signal,
    );
    const accepted = verdict === undefined ? undefined : acceptJudgement(verdict, candidate, shown);
    if (verdict !== undefined && accepted !== undefined) {
      decision = accepted;
      judged = true;
      if (!m.subject && verdict.subject && verdict.attribute) {
        m.subject = verdict.subject;
        m.attribute = verdict.attribute;
      }
    }
  }
  return write(ctx, m, vector, decision, opts.at, judged);
}

/** Applies a decision in one transaction; a target that changed meanwhile makes the memory new. */
function write(
  ctx: IngestContext,
  m: IngestInput,
  vector: Float32Array | undefined,
  decision: IngestDecision,
  at: number | undefined,
  judged: boolean,
): RememberResult {
  const { value: _value, ...fields } = m;
  const input = {
    ...fields,
    ...(at === undefined ? {} : { at }),
    ...(vector === undefined ? {} : { embedding: vector, embedder: ctx.embedderId }),
  };
  const flag = judged ? { judged: true } : {};
  return ctx.db.transaction((): RememberResult => {
    if (decision.outcome === 'duplicate') {
      const target = ctx.repo.get(decision.id);
      if (isActive(target)) {
        ctx.repo.touch([target.id]);
        return { outcome: 'duplicate', memory: ctx.repo.get(target.id) as Memory, ...flag };
      }
    }
    const target = decision.outcome === 'update' ? ctx.repo.get(decision.supersedes) : undefined;
    const memory = ctx.repo.add(input);
    if (!isActive(target)) return { outcome: 'new', memory, ...flag };
    if (at !== undefined && at < target.validFrom) {
      // An older statement of a fact already stored in a newer version: history, not news.
      const kept = ctx.repo.supersede(memory.id, target.id, target.validFrom);
      return { outcome: 'history', memory: kept, supersededBy: target, ...flag };
    }
    const superseded = ctx.repo.supersede(target.id, memory.id, at ?? memory.validFrom);
    return { outcome: 'update', memory, superseded, ...flag };
  })();
}
