/**
 * The ingest decision for one new memory against similar stored ones: a
 * duplicate (nothing to add), an update (the old memory is superseded and kept
 * for history) or new. Pure: the caller finds the similar memories, may ask the
 * judge about the close ones, and applies the outcome.
 *
 * An update needs the same subject and the same attribute with another value:
 * the same subject/attribute key, or (from the text) the same subject phrase and
 * sentence frame with one value swapped, on an attribute that holds one value at
 * a time. Statements about different subjects are never one fact, however alike
 * their frames; anything unclear is new. A wrong "new" costs a little ranking, a
 * wrong "update" would hide a fact.
 */
import { nodeCrypto } from '../util/node-crypto.js';
import { cosine } from './embed.js';
import type { ExtractedMemory } from './extract.js';
import type { Judgement } from './judge.js';
import { overlap, relate, sharedNames } from './relate.js';
import { isValueToken, readStatement, type Statement } from './statement.js';
import type { Memory } from './types.js';

export type IngestCandidate = ExtractedMemory & { hash: string; vector?: Float32Array };
export interface SimilarMemory {
  memory: Memory;
  vector?: Float32Array;
}
export type IngestDecision =
  | { outcome: 'duplicate'; id: number }
  | { outcome: 'update'; supersedes: number }
  | { outcome: 'new' };

/** Vectors at least this similar make a pair close enough to show the judge. */
export const JUDGE_COSINE = 0.8;

/** Trim, collapse whitespace, lower-case: the rule behind `contentHash`. */
export function normalizeForHash(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** First 16 hex chars of SHA-256 of the normalised text (the store uses the same rule). */
export function hashContent(text: string): string {
  return nodeCrypto().createHash('sha256').update(normalizeForHash(text)).digest('hex').slice(0, 16);
}

const same = (x: string | null | undefined, y: string | null | undefined): boolean =>
  !!x && !!y && normalizeForHash(x) === normalizeForHash(y);

function isActive(m: Memory): boolean {
  return m.deletedAt === null && m.validTo === null && m.supersededBy === null;
}

/** Does `content` state `value` (case- and space-insensitively)? */
function mentions(content: string, value: string): boolean {
  return normalizeForHash(content).includes(normalizeForHash(value));
}

/** What the offline rule decided, and which stored memories a judge should look at. */
export interface IngestReading {
  decision: IngestDecision;
  /** Ids of close stored memories (the decision's own target first); empty when the hash matched. */
  close: number[];
}

interface Proposal {
  id: number;
  score: number;
  structured: boolean;
  /** Tie-breaks: an update replaces the latest version, and a pinned one only when it must. */
  pinned: boolean;
  validFrom: number;
}

function better(current: Proposal | undefined, next: Proposal): boolean {
  if (current === undefined) return true;
  if (next.structured !== current.structured) return next.structured;
  if (next.score !== current.score) return next.score > current.score;
  if (next.pinned !== current.pinned) return !next.pinned;
  return next.validFrom > current.validFrom;
}

/**
 * Reads `candidate` against `similar` stored memories (inactive ones are ignored):
 * - duplicate: same hash; same subject + attribute + value; or a restatement that
 *   adds nothing (same category);
 * - update: same subject + attribute with another value; or the same subject and
 *   frame with one value swapped on a one-value attribute (same category):
 *   "lives in Paris" → "lives in Berlin", "port 9090" → "now runs on port 9191";
 * - new otherwise, including every pair the text cannot settle. Those, and the
 *   decision's own target, are listed in `close` for a judge.
 */
const ties = (m: SimilarMemory['memory']) => ({ id: m.id, pinned: m.pinned, validFrom: m.validFrom });

export function readIngest(candidate: IngestCandidate, similar: SimilarMemory[]): IngestReading {
  const active = similar.filter((s) => isActive(s.memory));
  const exact = active.find((s) => s.memory.contentHash === candidate.hash);
  if (exact) return { decision: { outcome: 'duplicate', id: exact.memory.id }, close: [] };

  const mine = readStatement(candidate.content);
  let update: Proposal | undefined;
  let duplicate: Proposal | undefined;
  const close: Array<{ id: number; score: number }> = [];

  for (const { memory, vector } of active) {
    const theirs = readStatement(memory.content);
    const score = overlap(theirs, mine);
    const cos =
      candidate.vector && vector?.length === candidate.vector.length ? cosine(candidate.vector, vector) : 0;
    if (same(candidate.subject, memory.subject) && same(candidate.attribute, memory.attribute)) {
      const sameValue = candidate.value
        ? mentions(memory.content, candidate.value)
        : relate(theirs, mine).kind === 'same';
      const proposal = { ...ties(memory), score: Math.max(score, cos), structured: true };
      if (sameValue && better(duplicate, proposal)) duplicate = proposal;
      if (!sameValue && better(update, proposal)) update = proposal;
      close.push(proposal);
      continue;
    }
    // Both name their subject and attribute, and they differ: different things.
    if (candidate.subject && candidate.attribute && memory.subject && memory.attribute) continue;
    const relation = relate(theirs, mine);
    if (relation.kind === 'apart') continue;
    // Worded apart but about the same named thing: only a judge can tell ("Tundra is
    // maintained by Anika" / "Tundra has a new maintainer: Bruno"). The judge sees
    // first what shares the most names with the statement, then the closest wording.
    const names = sharedNames(theirs, mine);
    if (relation.kind !== 'unrelated' || names > 0 || cos >= JUDGE_COSINE) {
      close.push({ id: memory.id, score: names + Math.max(score, cos) + (relation.kind === 'slot' ? 1 : 0) });
    }
    if (memory.category !== candidate.category) continue;
    const proposal = { ...ties(memory), score, structured: false };
    if (relation.kind === 'same' && better(duplicate, proposal)) duplicate = proposal;
    if (relation.kind === 'slot' && relation.single && better(update, proposal)) update = proposal;
  }

  const decision: IngestDecision = duplicate
    ? { outcome: 'duplicate', id: duplicate.id }
    : update
      ? { outcome: 'update', supersedes: update.id }
      : { outcome: 'new' };
  const target =
    decision.outcome === 'duplicate'
      ? decision.id
      : decision.outcome === 'update'
        ? decision.supersedes
        : undefined;
  const ids = close
    .sort((a, b) => (b.id === target ? 1 : 0) - (a.id === target ? 1 : 0) || b.score - a.score)
    .map((c) => c.id);
  return { decision, close: [...new Set(ids)] };
}

/** The offline decision alone (see `readIngest`). */
export function decideIngest(candidate: IngestCandidate, similar: SimilarMemory[]): IngestDecision {
  return readIngest(candidate, similar).decision;
}

/** Names, identifiers and numbers `statement` has that `stored` lacks. */
function newValues(stored: Statement, statement: Statement): string[] {
  const have = new Set(stored.content.map((t) => t.key));
  return statement.content.filter((t) => isValueToken(t) && !have.has(t.key)).map((t) => t.key);
}

/**
 * The judge's answer as a decision, unless the text contradicts it: no update of
 * a memory about another subject, no duplicate that would drop a name or number
 * the new statement adds. Undefined: keep the offline decision.
 */
export function acceptJudgement(
  judgement: Judgement,
  candidate: IngestCandidate,
  shown: readonly Memory[],
): IngestDecision | undefined {
  if (judgement.decision === 'add') return { outcome: 'new' };
  const target = shown.find((m) => m.id === judgement.id);
  if (target === undefined) return undefined;
  const theirs = readStatement(target.content);
  const mine = readStatement(candidate.content);
  if (relate(theirs, mine).kind === 'apart') return { outcome: 'new' };
  if (judgement.decision === 'duplicate') {
    return newValues(theirs, mine).length > 0 ? { outcome: 'new' } : { outcome: 'duplicate', id: target.id };
  }
  return { outcome: 'update', supersedes: target.id };
}
