/**
 * What `buildContext` can keep from one call to the next of the same session, so a
 * step of a long turn costs what the step added, not the whole transcript again. The
 * output is exactly what the builder gives without it; a message that changes must be
 * a new object (as for the token estimates).
 *
 * L1: `prepareRecent` for a transcript that grows between calls (every step of a turn
 * adds an assistant message and its results), its work kept for the part of the
 * transcript that cannot change any more.
 * A prefix of L1 is settled when every tool call in it has its result in it too:
 * results later in the transcript cannot change it (a later result for one of its
 * calls is a repeat, and repeats are dropped where they are), so its prepared form is
 * final as long as the messages are the same objects and the placeholder cut-off
 * (the third-last user message) has not moved. Anything else starts over.
 */
import type { Message, Part } from '../llm/types.js';
import { renderSystem } from './format.js';
import { KEEP_TOOL_OUTPUT_TURNS, placeholderResults, startOfLastTurns } from './l1.js';
import type { ContextInput } from './types.js';

/** One session's memo for `buildContext` (see the top of this file). */
export class BuildMemo {
  readonly recent = new RecentMemo();
  private system: { key: SystemKey; message: Message } | undefined;

  /** `renderSystem(input)`, the same object while its inputs are the same. */
  systemMessage(input: ContextInput): Message {
    const key = systemKey(input);
    if (this.system && sameKey(this.system.key, key)) return this.system.message;
    const message = renderSystem(input);
    this.system = { key, message };
    return message;
  }
}

type SystemKey = readonly (string | undefined)[];

function systemKey(input: ContextInput): SystemKey {
  return [input.system, input.resume, input.memories, input.skills, ...input.instructions];
}

function sameKey(a: SystemKey, b: SystemKey): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

export class RecentMemo {
  /** The input messages of the settled prefix, and their prepared form. */
  private settledIn: Message[] = [];
  private settledOut: Message[] = [];
  /** The call ids of the settled prefix: each called once before and answered there. */
  private settledIds = new Set<string>();
  private cutoff = -1;

  constructor(private readonly keepTurns = KEEP_TOOL_OUTPUT_TURNS) {}

  /** `prepareRecent(recent, keepTurns)`, from where the settled prefix ends. */
  prepare(recent: readonly Message[]): Message[] {
    const cutoff = startOfLastTurns(recent, this.keepTurns);
    if (cutoff !== this.cutoff || !this.stillSettled(recent)) this.reset(cutoff);
    const called = new Set<string>();
    const answered = new Set<string>();
    const tail: Array<Message | null> = [];
    let from = this.settledIn.length;
    for (let i = from; i < recent.length; i++) {
      const original = recent[i]!;
      tail.push(this.firstPass(i < cutoff ? placeholderResults(original) : original, called, answered));
      if (called.size !== answered.size) continue;
      // Everything called so far is answered: messages from..i are settled.
      for (let j = from; j <= i; j++) {
        this.settledIn.push(recent[j]!);
        const m = tail[j - from];
        if (m) this.settledOut.push(m);
      }
      for (const id of called) this.settledIds.add(id);
      called.clear();
      answered.clear();
      tail.length = 0;
      from = i + 1;
    }
    const out = this.settledOut.slice();
    for (const m of tail) {
      if (m === null) continue;
      if (!m.parts.some((p) => p.type === 'tool-call' && !this.isAnswered(p.id, answered))) {
        out.push(m);
        continue;
      }
      const parts = m.parts.filter((p) => p.type !== 'tool-call' || this.isAnswered(p.id, answered));
      if (parts.some((p) => p.type === 'text' || p.type === 'tool-call' || p.type === 'image')) {
        out.push({ ...m, parts });
      }
    }
    return out;
  }

  /** `repairPairs`' first pass over one message, the settled prefix counting as seen before it. */
  private firstPass(m: Message, called: Set<string>, answered: Set<string>): Message | null {
    let parts: Part[] | undefined;
    for (let k = 0; k < m.parts.length; k++) {
      const p = m.parts[k]!;
      let keep = true;
      if (p.type === 'tool-call') {
        if (!this.settledIds.has(p.id)) called.add(p.id);
      } else if (p.type === 'tool-result') {
        keep = called.has(p.callId) && !answered.has(p.callId); // never a settled id: those are not in `called`
        if (keep) answered.add(p.callId);
      }
      if (!keep) parts ??= m.parts.slice(0, k);
      else parts?.push(p);
    }
    if (parts === undefined) return m;
    return parts.length === 0 ? null : { ...m, parts };
  }

  private isAnswered(id: string, answered: ReadonlySet<string>): boolean {
    return this.settledIds.has(id) || answered.has(id);
  }

  /** Whether `recent` starts with the settled prefix, message for message. */
  private stillSettled(recent: readonly Message[]): boolean {
    const settled = this.settledIn;
    if (recent.length < settled.length) return false;
    for (let i = settled.length - 1; i >= 0; i--) if (recent[i] !== settled[i]) return false;
    return true;
  }

  private reset(cutoff: number): void {
    this.settledIn = [];
    this.settledOut = [];
    this.settledIds = new Set();
    this.cutoff = cutoff;
  }
}
