/**
 * The pure context builder: stored session state in, the messages of one model
 * call out. No I/O, no clock; the same input always gives the same output.
 *
 * Layers, in message order:
 * - L0 one system message (prompt, instructions, resume, memories, skills);
 * - L3 the session summaries as a user message plus an acknowledgement;
 * - L2 older turns relevant to the new message: a digest block, then full pairs;
 * - L1 the recent turns, with placeholders for old tool output and consistent
 *   call/result pairs.
 * When the estimate exceeds the budget, `progressiveTrim` cuts it down.
 */
import type { Message } from '../llm/types.js';
import { renderDigests, renderFullPair, renderSummaries, renderSystem } from './format.js';
import { messageText, prepareRecent } from './l1.js';
import type { BuildMemo } from './memo.js';
import { digestOf, selectPairs } from './relevance.js';
import { type Layer, makeWork, progressiveTrim } from './trim.js';
import type { Budget, BuildResult, ContextInput, HistoryPair, MessageEstimator } from './types.js';

/** The token limit a budget holds the estimate to. */
export function budgetLimit(budget: Budget): number {
  const room = Math.max(0, budget.contextWindow - budget.maxOutput);
  return Math.floor(room * (budget.trimAt ?? 0.8));
}

interface Entry {
  message: Message;
  layer: Layer;
  group?: number;
}

/**
 * The messages of one model call. `memo` (one per session) keeps work from the
 * previous call of the same session; the result is the same with or without it.
 */
export function buildContext(
  input: ContextInput,
  budget: Budget,
  estimate: MessageEstimator,
  memo?: BuildMemo,
): BuildResult {
  const system = memo ? memo.systemMessage(input) : renderSystem(input);
  const entries: Entry[] = [{ message: system, layer: 'system' }];
  for (const message of renderSummaries(input.summaries)) entries.push({ message, layer: 'summary' });
  const recent = memo ? memo.recent.prepare(input.recent) : prepareRecent(input.recent);
  const history = historyEntries(lastUserText(recent), input.pairs);
  entries.push(...history.entries);

  const limit = budgetLimit(budget);
  let total = 0;
  for (const e of entries) total += estimate(e.message);
  for (const message of recent) total += estimate(message);
  if (total <= limit) {
    // Within the budget (the usual request): the messages as they are, no working list.
    return {
      messages: entries.map((e) => e.message).concat(recent),
      tokens: total,
      tokensBefore: total,
      limit,
      trimmed: [],
      ...pairCounts(entries, history.digests),
    };
  }
  const work = makeWork(entries, limit, estimate, recent);
  const tokensBefore = work.total;
  const trimmed = progressiveTrim(work);
  return {
    messages: work.slots.map((s) => s.message),
    tokens: work.total,
    tokensBefore,
    limit,
    trimmed,
    ...(work.cut ? { cut: work.cut } : {}),
    ...pairCounts(work.slots, history.digests),
  };
}

/** L2 in the request: full pairs count their user messages; the digest block is kept or dropped whole. */
function pairCounts(
  items: ReadonlyArray<{ message: Message; layer: Layer }>,
  digests: number,
): { pairsFull: number; pairsDigest: number } {
  let pairsFull = 0;
  let pairsDigest = 0;
  for (const item of items) {
    if (item.layer === 'recent') break; // L1 comes last
    if (item.message.role !== 'user') continue;
    if (item.layer === 'pair-full') pairsFull++;
    if (item.layer === 'pair-digest') pairsDigest = digests;
  }
  return { pairsFull, pairsDigest };
}

function lastUserText(recent: readonly Message[]): string {
  for (let i = recent.length - 1; i >= 0; i--) {
    const m = recent[i];
    if (m?.role === 'user') return messageText(m);
  }
  return '';
}

/**
 * L2 entries for the pairs relevant to `query`: one digest block (group 0) first,
 * then the full pairs oldest first (groups 1…), so the most relevant detail sits
 * nearest the recent turns and trimming drops digests, then the oldest pairs.
 */
function historyEntries(query: string, pairs: readonly HistoryPair[]): { entries: Entry[]; digests: number } {
  if (pairs.length === 0) return { entries: [], digests: 0 };
  const chosen = selectPairs(query, pairs); // in chronological order
  const entries: Entry[] = [];
  const digests = chosen.filter((c) => c.mode === 'digest').map((c) => digestOf(c.pair));
  if (digests.length > 0) {
    for (const message of renderDigests(digests)) entries.push({ message, layer: 'pair-digest', group: 0 });
  }
  let group = 1;
  for (const c of chosen) {
    if (c.mode !== 'full') continue;
    for (const message of renderFullPair(c.pair)) entries.push({ message, layer: 'pair-full', group });
    group++;
  }
  return { entries, digests: digests.length };
}
