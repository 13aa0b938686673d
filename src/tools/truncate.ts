/**
 * Head-and-tail truncation: the start of an output says what ran, the end says how
 * it finished, the middle is usually the least useful part.
 */

import path from 'node:path';

/**
 * Where the full text of a call's long output is saved: the runner's truncation and a
 * tool saving its own output (bash) use the same file.
 */
export function savedOutputPath(outputDir: string, callId: string): string {
  return path.join(outputDir, `${callId.replace(/[^\w.-]/g, '_')}.txt`);
}

/** Room kept for the middle marker when splitting a budget between head and tail. */
const MARKER_RESERVE = 64;

export function omittedMarker(lines: number, chars: number): string {
  return `… [${lines} lines / ${chars} chars omitted] …`;
}

function countNewlines(text: string, from = 0, to = text.length): number {
  let count = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) count++;
  return count;
}

/**
 * End index of the head: just after the last newline within `budget`; falls back to a
 * plain character cut when the line boundary would waste more than half the budget.
 */
function headEnd(text: string, budget: number): number {
  if (text.length <= budget) return text.length;
  const newline = text.lastIndexOf('\n', budget - 1);
  return newline + 1 >= budget / 2 ? newline + 1 : budget;
}

/** Start index of the tail: just after the first newline that leaves at most `budget` chars. */
function tailStart(text: string, budget: number): number {
  if (text.length <= budget) return 0;
  const earliest = text.length - budget;
  const newline = text.indexOf('\n', earliest === 0 ? 0 : earliest - 1);
  const start = newline === -1 ? text.length : newline + 1;
  return text.length - start >= budget / 2 ? start : earliest;
}

function compose(head: string, tail: string, lines: number, chars: number): string {
  const marker = omittedMarker(lines, chars);
  const sep = head.length === 0 || head.endsWith('\n') ? '' : '\n';
  return `${head}${sep}${marker}\n${tail}`;
}

function budgets(maxChars: number): { head: number; tail: number } {
  const usable = Math.max(0, maxChars - MARKER_RESERVE);
  const head = Math.floor(usable / 2);
  return { head, tail: usable - head };
}

/**
 * Keeps the head and tail of `text` within about `maxChars`, cutting on line
 * boundaries where it can, with `… [N lines / M chars omitted] …` in the middle.
 */
export function truncateHeadTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const { head, tail } = budgets(maxChars);
  const end = headEnd(text, head);
  const start = Math.max(end, tailStart(text, tail));
  return compose(text.slice(0, end), text.slice(start), countNewlines(text, end, start), start - end);
}

/**
 * Collects a stream of text while holding at most about `keepChars * 2` characters:
 * the first `keepChars` and a rolling window of the last `keepChars`. Whatever falls
 * out of the middle is only counted.
 */
export class HeadTailBuffer {
  private head = '';
  private tailChunks: string[] = [];
  private tailLength = 0;
  private droppedChars = 0;
  private droppedLines = 0;

  constructor(private readonly keepChars: number) {}

  get totalChars(): number {
    return this.head.length + this.tailLength + this.droppedChars;
  }

  push(chunk: string): void {
    let rest = chunk;
    if (this.head.length < this.keepChars) {
      const take = this.keepChars - this.head.length;
      this.head += rest.slice(0, take);
      rest = rest.slice(take);
    }
    if (rest.length === 0) return;
    this.tailChunks.push(rest);
    this.tailLength += rest.length;
    while (this.tailLength > this.keepChars) {
      const first = this.tailChunks[0] ?? '';
      const excess = this.tailLength - this.keepChars;
      const drop = first.length <= excess ? first : first.slice(0, excess);
      this.droppedChars += drop.length;
      this.droppedLines += countNewlines(drop);
      this.tailLength -= drop.length;
      if (drop === first) this.tailChunks.shift();
      else this.tailChunks[0] = first.slice(drop.length);
    }
  }

  /** The collected text, head+tail truncated to about `maxChars`. */
  toString(maxChars: number = this.keepChars * 2): string {
    const tail = this.tailChunks.join('');
    if (this.droppedChars === 0) return truncateHeadTail(this.head + tail, maxChars);
    const b = budgets(maxChars);
    const end = headEnd(this.head, b.head);
    const start = tailStart(tail, b.tail);
    const lines = countNewlines(this.head, end) + this.droppedLines + countNewlines(tail, 0, start);
    const chars = this.head.length - end + this.droppedChars + start;
    return compose(this.head.slice(0, end), tail.slice(start), lines, chars);
  }
}
