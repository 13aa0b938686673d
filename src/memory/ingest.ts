/**
 * The ingest decision for one new memory against similar stored ones: a
 * duplicate (nothing to add), an update (the old memory is superseded and kept
 * for history) or new. Pure: the caller finds the similar memories and applies
 * the outcome.
 *
 * Unlike a keyword-overlap merge, two memories that state different values of
 * the same thing ("lives in Paris" / "lives in Berlin") are never merged: the
 * newer one supersedes the older.
 */
import { createHash } from 'node:crypto';
import { cosine, isCjk, normalizeText, wordTokens } from './embed.js';
import type { ExtractedMemory } from './extract.js';
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

/** Thresholds, exported so tuning is visible in one place. */
export const INGEST_THRESHOLDS = {
  duplicateJaccard: 0.85,
  duplicateCosine: 0.95,
  paraphraseJaccard: 0.5,
  paraphraseCosine: 0.8,
  /** Share of the longer token sequence covered by a common prefix + suffix. */
  paraphraseFrame: 0.5,
} as const;

/** Trim, collapse whitespace, lower-case: the rule behind `contentHash`. */
export function normalizeForHash(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** First 16 hex chars of SHA-256 of the normalised text (the store uses the same rule). */
export function hashContent(text: string): string {
  return createHash('sha256').update(normalizeForHash(text)).digest('hex').slice(0, 16);
}

/** What the comparison needs of one text, computed once. */
interface TextView {
  /**
   * Content tokens in order (stopwords dropped): for the shared-frame test. Stopwords
   * would let "The user uses vim" and "The user likes tea" share half a frame.
   */
  sequence: string[];
  /** Content tokens (stopwords dropped): for overlap and value differences. */
  content: Set<string>;
  /** Tokens that name a value: numbers, proper nouns (capitalised words), CJK characters. */
  valueLike: Set<string>;
}

function view(text: string): TextView {
  const normalized = normalizeText(text);
  const valueLike = new Set<string>();
  // Capitalised words anywhere but the very start of a sentence, mixed-case words and numbers.
  const raw = text.normalize('NFKC');
  for (const m of raw.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = m[0];
    const at = m.index ?? 0;
    const before = raw.slice(0, at).trimEnd();
    const sentenceStart = before === '' || /[.!?。！？:：]$/.test(before);
    const capitalised = /^\p{Lu}/u.test(word) && !sentenceStart;
    const mixed = /\p{Ll}\p{Lu}/u.test(word) || /^\p{Lu}{2,}$/u.test(word);
    if (/\p{N}/u.test(word) || capitalised || mixed) {
      for (const t of wordTokens(normalizeText(word))) valueLike.add(t);
    }
  }
  const sequence = wordTokens(normalized, { dropStopwords: true });
  const content = new Set(sequence);
  for (const t of content) if (isCjk(t)) valueLike.add(t);
  return { sequence, content, valueLike };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Share of the longer sequence covered by the longest common prefix plus suffix. */
function frame(a: string[], b: string[]): number {
  const longer = Math.max(a.length, b.length);
  if (longer === 0) return 1;
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  return (prefix + suffix) / longer;
}

function only(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((t) => !b.has(t));
}

/** Both sides have content the other lacks: one value was swapped for another. */
function substitutes(a: TextView, b: TextView): boolean {
  return only(a.content, b.content).length > 0 && only(b.content, a.content).length > 0;
}

/** Both sides have value tokens (numbers, names, CJK nouns) the other lacks. */
function valuesDiffer(a: TextView, b: TextView): boolean {
  const aOnly = only(a.content, b.content).filter((t) => a.valueLike.has(t));
  const bOnly = only(b.content, a.content).filter((t) => b.valueLike.has(t));
  return aOnly.length > 0 && bOnly.length > 0;
}

const same = (x: string | null | undefined, y: string | null | undefined): boolean =>
  !!x && !!y && normalizeForHash(x) === normalizeForHash(y);

function isActive(m: Memory): boolean {
  return m.deletedAt === null && m.validTo === null && m.supersededBy === null;
}

function vectorSimilarity(a: Float32Array | undefined, b: Float32Array | undefined): number | undefined {
  if (!a || !b || a.length !== b.length) return undefined;
  return cosine(a, b);
}

/** Does `content` state `value` (case- and space-insensitively)? */
function mentions(content: string, value: string): boolean {
  return normalizeForHash(content).includes(normalizeForHash(value));
}

/**
 * Decides what to do with `candidate` given `similar` stored memories (inactive
 * ones are ignored):
 * - duplicate: same hash; same subject + attribute + value; or near-identical
 *   text in the same category with no value swapped (numbers, names, CJK nouns);
 * - update: same subject + attribute with a different value; or a close
 *   paraphrase in the same category where content words were swapped
 *   ("prefers tabs" → "prefers spaces", "port 3000" → "port 8080");
 * - new otherwise.
 */
export function decideIngest(candidate: IngestCandidate, similar: SimilarMemory[]): IngestDecision {
  const active = similar.filter((s) => isActive(s.memory));
  const exact = active.find((s) => s.memory.contentHash === candidate.hash);
  if (exact) return { outcome: 'duplicate', id: exact.memory.id };

  const mine = view(candidate.content);
  let update: { id: number; score: number; structured: boolean } | undefined;
  const propose = (id: number, score: number, structured: boolean): void => {
    const better =
      !update ||
      (structured && !update.structured) ||
      (structured === update.structured && score > update.score);
    if (better) update = { id, score, structured };
  };

  for (const { memory, vector } of active) {
    const theirs = view(memory.content);
    const jac = jaccard(mine.content, theirs.content);
    const cos = vectorSimilarity(candidate.vector, vector);
    const nearIdentical =
      jac >= INGEST_THRESHOLDS.duplicateJaccard ||
      (cos !== undefined && cos >= INGEST_THRESHOLDS.duplicateCosine);

    const sameKey = same(candidate.subject, memory.subject) && same(candidate.attribute, memory.attribute);
    if (sameKey) {
      const sameValue = candidate.value
        ? mentions(memory.content, candidate.value)
        : nearIdentical && !valuesDiffer(mine, theirs);
      if (sameValue) return { outcome: 'duplicate', id: memory.id };
      propose(memory.id, Math.max(jac, cos ?? 0), true);
      continue;
    }
    // Both sides name their subject and attribute, and they differ: different things.
    const bothKeyed = !!(candidate.subject && candidate.attribute && memory.subject && memory.attribute);
    if (memory.category !== candidate.category) continue;
    if (nearIdentical && !valuesDiffer(mine, theirs)) return { outcome: 'duplicate', id: memory.id };
    if (bothKeyed) continue;

    const fr = frame(mine.sequence, theirs.sequence);
    const close =
      jac >= INGEST_THRESHOLDS.paraphraseJaccard ||
      (cos !== undefined && cos >= INGEST_THRESHOLDS.paraphraseCosine) ||
      fr >= INGEST_THRESHOLDS.paraphraseFrame;
    if (close && substitutes(mine, theirs)) propose(memory.id, Math.max(jac, cos ?? 0, fr), false);
  }
  return update ? { outcome: 'update', supersedes: update.id } : { outcome: 'new' };
}
