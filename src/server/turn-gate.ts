/**
 * One turn at a time per session, whichever face started it: the session API's turns
 * (live.ts) and the OpenAI endpoints' (chat completions, responses) claim the session
 * here before they run. A claim is taken synchronously, so of two requests that arrive
 * together exactly one runs; the other is refused (409 `session_busy`) or, when the
 * client asked to queue (`if_busy: "queue"`), waits its turn, first come first served.
 */
import { apiError } from './errors.js';

/** Requests that may wait on one session; more are refused. */
export const MAX_QUEUED_TURNS = 16;

/** Ends a claim: the next queued request gets the session, or it is free. Safe to call twice. */
export type Release = () => void;

interface Slot {
  /** Who runs now: `api` (an OpenAI endpoint) or `session` (the session API). */
  owner: 'api' | 'session';
  /** Stops the running turn (`POST /v1/sessions/{id}/cancel`). */
  cancel?: () => void;
  queue: Array<() => void>;
}

export class TurnGate {
  private readonly slots = new Map<string, Slot>();

  busy(id: string): boolean {
    return this.slots.has(id);
  }

  /** Who runs a turn on the session now, if anyone. */
  owner(id: string): 'api' | 'session' | undefined {
    return this.slots.get(id)?.owner;
  }

  /** Claims the session now; undefined when a turn runs on it. */
  tryClaim(id: string, owner: Slot['owner'], cancel?: () => void): Release | undefined {
    if (this.slots.has(id)) return undefined;
    this.slots.set(id, { owner, ...(cancel ? { cancel } : {}), queue: [] });
    return this.releaser(id);
  }

  /**
   * Claims the session, waiting behind the running turn and the requests queued before
   * this one. Rejects with a 409 when too many wait, and with `signal`'s reason when the
   * client goes away while waiting.
   */
  claim(id: string, signal: AbortSignal, cancel?: () => void): Promise<Release> {
    const now = this.tryClaim(id, 'api', cancel);
    if (now) return Promise.resolve(now);
    const slot = this.slots.get(id)!;
    if (slot.queue.length >= MAX_QUEUED_TURNS) {
      return Promise.reject(
        apiError(409, `session ${id} is busy and ${MAX_QUEUED_TURNS} requests already wait for it`, {
          param: 'if_busy',
          code: 'session_busy',
        }),
      );
    }
    return new Promise((resolve, reject) => {
      const go = (): void => {
        signal.removeEventListener('abort', onAbort);
        const next = this.slots.get(id)!;
        next.owner = 'api';
        if (cancel) next.cancel = cancel;
        else delete next.cancel;
        resolve(this.releaser(id));
      };
      const onAbort = (): void => {
        const waiting = this.slots.get(id)?.queue;
        const at = waiting?.indexOf(go) ?? -1;
        if (at >= 0) waiting!.splice(at, 1);
        reject(apiError(400, 'the client went away while waiting for the session', { code: 'cancelled' }));
      };
      slot.queue.push(go);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Stops the turn an OpenAI request runs on the session; false when none runs. */
  cancel(id: string): boolean {
    const cancel = this.slots.get(id)?.cancel;
    if (!cancel) return false;
    cancel();
    return true;
  }

  /** Sets how the running turn is stopped (known once it started). */
  onCancel(id: string, cancel: () => void): void {
    const slot = this.slots.get(id);
    if (slot) slot.cancel = cancel;
  }

  private releaser(id: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const slot = this.slots.get(id);
      if (!slot) return;
      delete slot.cancel;
      const next = slot.queue.shift();
      if (next) next();
      else this.slots.delete(id);
    };
  }
}
