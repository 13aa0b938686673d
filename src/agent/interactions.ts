import { randomUUID } from '../util/random-id.js';
import type { ApprovalDecision } from './events.js';

export type Reply =
  | { kind: 'approval'; decision: ApprovalDecision; message?: string }
  | { kind: 'answer'; text: string };

/** Thrown to a waiting tool when the turn is cancelled before the user answered. */
export class InteractionCancelled extends Error {
  constructor() {
    super('cancelled before the user answered');
    this.name = 'InteractionCancelled';
  }
}

/**
 * Requests that wait for the user (approvals, questions). A face answers through
 * `Session.approve` / `Session.answer`, which resolve the matching request.
 * With `mode: 'deny'` nobody can answer (e.g. `tea -p`), so callers do not ask.
 */
export class Interactions {
  private readonly pending = new Map<string, { kind: Reply['kind']; resolve: (r: Reply) => void }>();

  constructor(readonly mode: 'ask' | 'deny') {}

  get canAsk(): boolean {
    return this.mode === 'ask';
  }

  /** Registers a request; `announce` emits its event. Resolves with the user's reply. */
  wait(kind: Reply['kind'], announce: (requestId: string) => void, signal: AbortSignal): Promise<Reply> {
    const requestId = `r_${randomUUID().slice(0, 12)}`;
    return new Promise<Reply>((resolve, reject) => {
      if (signal.aborted) {
        reject(new InteractionCancelled());
        return;
      }
      const onAbort = (): void => {
        this.pending.delete(requestId);
        reject(new InteractionCancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, {
        kind,
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          this.pending.delete(requestId);
          resolve(r);
        },
      });
      announce(requestId);
    });
  }

  /** Delivers a reply; false when no such request is waiting (or it wants the other kind). */
  resolve(requestId: string, reply: Reply): boolean {
    const p = this.pending.get(requestId);
    if (!p || p.kind !== reply.kind) return false;
    p.resolve(reply);
    return true;
  }

  get waiting(): string[] {
    return [...this.pending.keys()];
  }
}
