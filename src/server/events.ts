/**
 * The per-session event hub: every AgentEvent gets the next sequence number, the
 * last `capacity` are kept in a ring buffer for reconnects, and live subscribers
 * receive each event as it is pushed.
 */
import type { AgentEvent } from '../agent/events.js';

export interface HubEvent {
  seq: number;
  event: AgentEvent;
}

export const DEFAULT_EVENT_BUFFER = 2000;

/**
 * What a reconnecting client missed beyond repair: `evicted` when events after its
 * Last-Event-ID were pushed out of the buffer (`first`..`last` are gone), `restarted`
 * when its id is ahead of this hub (the server restarted, or the session was
 * reloaded, and counts afresh). Sent as `event: gap`: reload the session.
 */
export interface GapEvent {
  type: 'gap';
  reason: 'evicted' | 'restarted';
  first: number;
  last: number | null;
}

export class EventHub {
  private readonly ring: Array<HubEvent | undefined>;
  private next = 1;
  private readonly subscribers = new Set<(e: HubEvent) => void>();

  constructor(readonly capacity: number = DEFAULT_EVENT_BUFFER) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new Error(`event buffer must be ≥ 1, got ${capacity}`);
    this.ring = new Array<HubEvent | undefined>(capacity);
  }

  /** The seq of the newest event (0 before any). */
  get lastSeq(): number {
    return this.next - 1;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  push(event: AgentEvent): number {
    const entry: HubEvent = { seq: this.next++, event };
    this.ring[entry.seq % this.capacity] = entry;
    for (const fn of this.subscribers) fn(entry);
    return entry.seq;
  }

  /** The oldest kept seq (the next one while none is kept). */
  get firstKept(): number {
    return Math.max(this.next - this.capacity, 1);
  }

  /**
   * The gap a client resuming after `after` would fall into, if any. `ahead` says
   * whether an id past the newest event means a restart (a Last-Event-ID) or just
   * "from now on" (`?after=`).
   */
  gapAfter(after: number, ahead: boolean): GapEvent | undefined {
    if (after + 1 < this.firstKept) {
      return { type: 'gap', reason: 'evicted', first: after + 1, last: this.firstKept - 1 };
    }
    if (ahead && after > this.lastSeq)
      return { type: 'gap', reason: 'restarted', first: after + 1, last: null };
    return undefined;
  }

  /** The kept events with seq > `after`, oldest first. */
  since(after: number): HubEvent[] {
    const first = Math.max(after + 1, this.next - this.capacity, 1);
    const out: HubEvent[] = [];
    for (let seq = first; seq < this.next; seq++) {
      const entry = this.ring[seq % this.capacity];
      if (entry && entry.seq === seq) out.push(entry);
    }
    return out;
  }

  /**
   * The kept events after `after` plus every later one, with no gap and no repeat
   * (both happen synchronously). Returns the backlog and an unsubscribe function.
   */
  follow(after: number, fn: (e: HubEvent) => void): { backlog: HubEvent[]; stop: () => void } {
    const backlog = this.since(after);
    this.subscribers.add(fn);
    return { backlog, stop: () => this.subscribers.delete(fn) };
  }
}
