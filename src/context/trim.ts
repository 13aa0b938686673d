/**
 * Progressive trim: when the messages exceed the budget, apply the strategies in
 * order, re-estimating after each, and stop as soon as the estimate fits.
 * The working list keeps a token count per message and a running total, so a
 * step only estimates the messages it replaces.
 */
import type { Message, Part } from '../llm/types.js';
import { dropResultImages, isPlaceholder, placeholderResults, repairPairs } from './l1.js';
import type { LastMessageCut, MessageEstimator, TrimStep } from './types.js';

/** Texts and tool outputs longer than this are cut by the `cut-long-text` step. */
export const LONG_TEXT_MAX = 4096;
/** The `drop-old-turns` step keeps this many user turns. */
export const KEEP_TURNS = 5;

/** Which layer a message belongs to; L2 entries may be dropped whole. */
export type Layer = 'system' | 'summary' | 'pair-full' | 'pair-digest' | 'recent';

export interface Slot {
  message: Message;
  tokens: number;
  layer: Layer;
  /** Messages of one L2 entry share a group number (unique per entry); -1 elsewhere. */
  group: number;
}

export interface Work {
  slots: Slot[];
  total: number;
  limit: number;
  estimate: MessageEstimator;
  /** Set by the `cut-last-message` step: what it cut. */
  cut?: LastMessageCut;
}

/** The working list of `entries`, then the `recent` messages (layer `recent`). */
export function makeWork(
  entries: Array<{ message: Message; layer: Layer; group?: number }>,
  limit: number,
  estimate: MessageEstimator,
  recent: readonly Message[] = [],
): Work {
  let total = 0;
  const slots: Slot[] = [];
  for (const e of entries) {
    const tokens = estimate(e.message);
    total += tokens;
    slots.push({ message: e.message, tokens, layer: e.layer, group: e.group ?? -1 });
  }
  for (const message of recent) {
    const tokens = estimate(message);
    total += tokens;
    slots.push({ message, tokens, layer: 'recent', group: -1 });
  }
  return { slots, total, limit, estimate };
}

const fits = (w: Work): boolean => w.total <= w.limit;

/** The strategies in the order they are tried. Each returns whether it changed anything. */
const STEPS: Array<[TrimStep, (w: Work) => boolean]> = [
  ['drop-pairs', dropPairs],
  ['placeholder-tool-output', placeholderOldOutput],
  ['drop-tool-images', dropOldImages],
  ['drop-reasoning', dropReasoning],
  ['cut-long-text', cutLongTexts],
  ['drop-old-turns', dropOldTurns],
  ['cut-last-message', cutLastMessage],
];

/** Trim `w` in place until it fits or every step was tried; returns the steps that changed something. */
export function progressiveTrim(w: Work): TrimStep[] {
  const applied: TrimStep[] = [];
  for (const [name, step] of STEPS) {
    if (fits(w)) break;
    if (step(w)) applied.push(name);
  }
  return applied;
}

function replace(w: Work, index: number, message: Message): void {
  const slot = w.slots[index];
  if (slot === undefined || slot.message === message) return;
  const tokens = w.estimate(message);
  w.total += tokens - slot.tokens;
  w.slots[index] = { ...slot, message, tokens };
}

function lastIndex(w: Work, test: (s: Slot) => boolean): number {
  for (let i = w.slots.length - 1; i >= 0; i--) {
    const slot = w.slots[i];
    if (slot !== undefined && test(slot)) return i;
  }
  return -1;
}

/** The new input: the last user message of L1. */
function newInputIndex(w: Work): number {
  return lastIndex(w, (s) => s.layer === 'recent' && s.message.role === 'user');
}

/** Remove the slots at `drop` (a set of indices) in one pass. */
function removeSlots(w: Work, drop: ReadonlySet<number>): void {
  if (drop.size === 0) return;
  w.slots = w.slots.filter((slot, i) => {
    if (!drop.has(i)) return true;
    w.total -= slot.tokens;
    return false;
  });
}

/** Step 1: drop L2 entries one at a time, the digests first, then full pairs oldest first. */
function dropPairs(w: Work): boolean {
  const groups = new Map<number, { indices: number[]; tokens: number; digest: boolean }>();
  w.slots.forEach((slot, i) => {
    if (slot.layer !== 'pair-full' && slot.layer !== 'pair-digest') return;
    const g = groups.get(slot.group) ?? { indices: [], tokens: 0, digest: slot.layer === 'pair-digest' };
    g.indices.push(i);
    g.tokens += slot.tokens;
    groups.set(slot.group, g);
  });
  const order = [...groups.values()].sort((a, b) => Number(b.digest) - Number(a.digest));
  const drop = new Set<number>();
  let total = w.total;
  for (const g of order) {
    if (total <= w.limit) break;
    for (const i of g.indices) drop.add(i);
    total -= g.tokens;
  }
  removeSlots(w, drop);
  return drop.size > 0;
}

/** Step 2: placeholders for every tool result outside the last user turn. */
function placeholderOldOutput(w: Work): boolean {
  const before = newInputIndex(w);
  let changed = false;
  for (let i = 0; i < before; i++) {
    const slot = w.slots[i];
    if (slot?.layer !== 'recent') continue;
    const next = placeholderResults(slot.message);
    if (next !== slot.message) {
      replace(w, i, next);
      changed = true;
    }
  }
  return changed;
}

/** Step 2b: leave out the images of every tool result but the latest ones (the model has seen them). */
function dropOldImages(w: Work): boolean {
  const last = lastIndex(w, (s) => s.message.parts.some((p) => p.type === 'tool-result' && p.images));
  let changed = false;
  for (let i = 0; i < last; i++) {
    const slot = w.slots[i];
    if (slot?.layer !== 'recent') continue;
    const next = dropResultImages(slot.message);
    if (next !== slot.message) {
      replace(w, i, next);
      changed = true;
    }
  }
  return changed;
}

/** Step 3: drop thinking parts from every assistant message but the last. */
function dropReasoning(w: Work): boolean {
  const last = lastIndex(w, (s) => s.message.role === 'assistant');
  const empty = new Set<number>();
  let changed = false;
  for (let i = 0; i < last; i++) {
    const slot = w.slots[i];
    if (slot?.message.role !== 'assistant' || !slot.message.parts.some((p) => p.type === 'thinking')) {
      continue;
    }
    changed = true;
    const parts = slot.message.parts.filter((p) => p.type !== 'thinking');
    if (parts.length === 0) empty.add(i);
    else replace(w, i, { ...slot.message, parts });
  }
  removeSlots(w, empty);
  return changed;
}

/** `text` cut to its first `max` characters with a note of how much went. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
  return `${text.slice(0, end)}\n… [cut ${text.length - end} chars]`;
}

function cutParts(message: Message, max: number): Message {
  let changed = false;
  const parts = message.parts.map((p): Part => {
    if (p.type === 'text' && p.text.length > max) {
      changed = true;
      return { ...p, text: cutText(p.text, max) };
    }
    if (p.type === 'tool-result' && p.output.length > max && !isPlaceholder(p.output)) {
      changed = true;
      return { ...p, output: cutText(p.output, max) };
    }
    return p;
  });
  return changed ? { ...message, parts } : message;
}

/** Step 4: cut long text parts and tool outputs (not the system message, not the new input). */
function cutLongTexts(w: Work): boolean {
  const input = newInputIndex(w);
  let changed = false;
  w.slots.forEach((slot, i) => {
    if (slot.layer === 'system' || i === input) return;
    const next = cutParts(slot.message, LONG_TEXT_MAX);
    if (next !== slot.message) {
      replace(w, i, next);
      changed = true;
    }
  });
  return changed;
}

/**
 * Step 5: drop L1 turns older than the last `KEEP_TURNS` user turns, oldest first,
 * until it fits. A turn runs from a user message to the next one, so a call and
 * its result go together; a final consistency pass catches odd inputs.
 */
function dropOldTurns(w: Work): boolean {
  let seen = 0;
  let keepFrom = -1;
  for (let i = w.slots.length - 1; i >= 0; i--) {
    const slot = w.slots[i];
    if (slot?.layer === 'recent' && slot.message.role === 'user' && ++seen === KEEP_TURNS) {
      keepFrom = i;
      break;
    }
  }
  if (keepFrom <= 0) return false;
  const drop = new Set<number>();
  let total = w.total;
  for (let i = 0; i < keepFrom && total > w.limit; ) {
    // one turn: this message and everything up to the next user message of L1
    let j = i;
    do {
      const slot = w.slots[j];
      if (slot?.layer === 'recent') {
        drop.add(j);
        total -= slot.tokens;
      }
      j++;
    } while (j < keepFrom && !(w.slots[j]?.layer === 'recent' && w.slots[j]?.message.role === 'user'));
    i = j;
  }
  if (drop.size === 0) return false;
  removeSlots(w, drop);
  repairSlots(w);
  return true;
}

/** Re-run call/result consistency over the L1 slots, keeping unchanged slots as they are. */
function repairSlots(w: Work): void {
  const first = w.slots.findIndex((s) => s.layer === 'recent');
  if (first < 0) return;
  const head = w.slots.slice(0, first);
  const recent = w.slots.slice(first);
  const bySlot = new Map(recent.map((s) => [s.message, s] as const));
  const repaired = repairPairs(recent.map((s) => s.message));
  if (repaired.length === recent.length && repaired.every((m, i) => m === recent[i]?.message)) return;
  const rebuilt = repaired.map(
    (m): Slot => bySlot.get(m) ?? { message: m, tokens: w.estimate(m), layer: 'recent', group: -1 },
  );
  w.slots = [...head, ...rebuilt];
  w.total = w.slots.reduce((sum, s) => sum + s.tokens, 0);
}

/** Characters of text a message carries in text parts and tool outputs. */
function cuttableLength(message: Message): number {
  let n = 0;
  for (const p of message.parts) {
    if (p.type === 'text') n += p.text.length;
    else if (p.type === 'tool-result') n += p.output.length;
  }
  return n;
}

/** `message` keeping only its first `keep` characters of text, across its parts in order. */
export function cutHead(message: Message, keep: number): Message {
  let left = keep;
  const parts = message.parts.map((p): Part => {
    if (p.type !== 'text' && p.type !== 'tool-result') return p;
    const text = p.type === 'text' ? p.text : p.output;
    const kept = cutText(text, left);
    left = Math.max(0, left - text.length);
    return p.type === 'text' ? { ...p, text: kept } : { ...p, output: kept };
  });
  return { ...message, parts };
}

/**
 * `message` keeping `keep` characters of text across its parts in order: the first
 * half and the last half, so a long paste keeps both its start and the question
 * that usually ends it. Each cut part says how much was left out where.
 */
export function cutMiddle(message: Message, keep: number): Message {
  const total = cuttableLength(message);
  if (keep >= total) return message;
  const headEnd = Math.ceil(keep / 2);
  const tailStart = total - (keep - headEnd);
  let offset = 0;
  const parts = message.parts.map((p): Part => {
    if (p.type !== 'text' && p.type !== 'tool-result') return p;
    const text = p.type === 'text' ? p.text : p.output;
    const start = offset;
    offset += text.length;
    const head = Math.max(0, Math.min(text.length, headEnd - start));
    const tail = Math.max(0, Math.min(text.length - head, offset - tailStart));
    if (head + tail >= text.length) return p;
    const kept = middleCut(text, head, tail);
    return p.type === 'text' ? { ...p, text: kept } : { ...p, output: kept };
  });
  return { ...message, parts };
}

/** `text` keeping its first `head` and last `tail` characters (no surrogate pair split). */
function middleCut(text: string, head: number, tail: number): string {
  let end = head;
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  let start = text.length - tail;
  if (tail > 0 && isHighSurrogate(text.charCodeAt(start - 1))) start++;
  const marker = `\n… [cut ${start - end} chars]`;
  return start >= text.length
    ? `${text.slice(0, end)}${marker}`
    : `${text.slice(0, end)}${marker}\n${text.slice(start)}`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * Step 6: cut the last message's text to the most that fits, its start and end kept
 * (cutMiddle). Each try estimates the cut message, so the search starts from the
 * length the message's own estimate says fits (estimates grow about linearly with
 * the text) and, past 10,000 characters, stops within 1%: a pasted megabyte costs
 * two or three estimates of what fits (each up to a few hundred thousand characters),
 * not a dozen.
 */
function cutLastMessage(w: Work): boolean {
  const index = w.slots.length - 1;
  const slot = w.slots[index];
  if (slot === undefined || slot.layer === 'system') return false;
  const length = cuttableLength(slot.message);
  if (length === 0) return false;
  const room = w.limit - (w.total - slot.tokens);
  const fitsWith = (keep: number): boolean => w.estimate(cutMiddle(slot.message, keep)) <= room;
  let lo = 0;
  let hi = length - 1;
  const guess = Math.min(hi, Math.floor((length * Math.max(0, room)) / Math.max(1, slot.tokens)));
  if (guess > 0 && fitsWith(guess)) {
    lo = guess;
    const above = Math.min(hi, Math.ceil(guess * 1.02) + 16);
    if (above > guess) {
      if (fitsWith(above)) lo = above;
      else hi = above - 1;
    }
  } else if (guess > 0) {
    // just over (the cut marker, rounding): a little less usually fits
    const below = Math.floor(guess * 0.985);
    if (below > 0 && fitsWith(below)) {
      lo = below;
      hi = guess - 1;
    } else {
      hi = Math.max(0, below - 1);
    }
  } else {
    hi = 0;
  }
  let best = lo;
  // Exact up to 10,000 characters kept; within 1% of the most that fits beyond.
  while (lo <= hi && !(lo > 10_000 && hi - lo <= lo / 100)) {
    const mid = (lo + hi) >> 1;
    if (fitsWith(mid)) {
      best = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  replace(w, index, cutMiddle(slot.message, best));
  w.cut = { role: slot.message.role, chars: length, kept: Math.min(best, length), tokens: slot.tokens };
  return true;
}
