/**
 * One runner per session: a turn runs only while its Session holds the session's
 * lease (a row in the store, so it works across processes). A second runner waits,
 * up to `waitMs`, and then refuses with a message that names the session, the
 * process holding it and what to do; a lease whose process is gone is taken over.
 */

import { duration } from '../llm/timers.js';
import { type Lease, type LeaseOwner, type Store, thisProcess } from '../store/index.js';
import { randomUUID } from '../util/random-id.js';
import type { AgentEvent } from './events.js';

export interface LeaseSettings {
  /** How long a turn waits for a session another runner holds before refusing (0: refuse at once). */
  waitMs: number;
  /** A lease not renewed for this long may be taken over by a runner on another host. */
  ttlMs: number;
  /** How often a waiting turn looks again. */
  pollMs: number;
}

export const DEFAULT_LEASE: LeaseSettings = { waitMs: 60_000, ttlMs: 60_000, pollMs: 250 };

export type TakeResult = { ok: true } | { ok: false; cancelled: true } | { ok: false; message: string };

function clock(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

function holderText(sessionId: string, holder: Lease): string {
  return (
    `session ${sessionId} is in use by another tea process (pid ${holder.pid} on ${holder.host}, ` +
    `running since ${clock(holder.acquiredAt)})`
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

export class SessionLease {
  private readonly owner: LeaseOwner;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly settings: LeaseSettings,
  ) {
    this.owner = { id: randomUUID(), ...thisProcess() };
  }

  /** Takes the lease, waiting while a live runner holds it; yields one notice when it has to wait. */
  async *take(signal: AbortSignal): AsyncGenerator<AgentEvent, TakeResult> {
    const { waitMs, ttlMs, pollMs } = this.settings;
    const deadline = Date.now() + waitMs;
    let waiting = false;
    for (;;) {
      const got = this.store.leases.acquire(this.sessionId, this.owner, ttlMs);
      if (got.ok) return { ok: true };
      if (signal.aborted) return { ok: false, cancelled: true };
      const left = deadline - Date.now();
      if (left <= 0) {
        const waited = waiting ? ` and stayed busy for ${duration(waitMs)}` : '';
        return {
          ok: false,
          message:
            `${holderText(this.sessionId, got.holder)}${waited}: wait for it to finish and run this again, ` +
            `stop that process (kill ${got.holder.pid}) if it hangs, or start a new session ` +
            '(tea -p without --continue or --resume).',
        };
      }
      if (!waiting) {
        waiting = true;
        yield {
          type: 'notice',
          title: 'session busy',
          body: `${holderText(this.sessionId, got.holder)}; waiting up to ${duration(left)} for it to finish`,
        };
      }
      await sleep(Math.min(pollMs, left), signal);
    }
  }

  /** Renews the lease while the turn runs; `onLost` when another runner has taken it over. */
  hold(onLost: (message: string) => void): void {
    const every = Math.max(1000, Math.floor(this.settings.ttlMs / 3));
    this.heartbeat = setInterval(() => {
      let mine = false;
      try {
        mine = this.store.leases.renew(this.sessionId, this.owner.id, this.settings.ttlMs);
      } catch {
        return; // busy database: try again at the next beat
      }
      if (mine) return;
      clearInterval(this.heartbeat);
      const holder = this.store.leases.get(this.sessionId);
      onLost(
        holder
          ? `another runner took session ${this.sessionId} over (pid ${holder.pid} on ${holder.host}) while this turn ran`
          : `the lease on session ${this.sessionId} was lost while this turn ran`,
      );
    }, every);
    this.heartbeat.unref();
  }

  /** Gives the session up for the next runner. */
  release(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    try {
      this.store.leases.release(this.sessionId, this.owner.id);
    } catch {
      // The store is closed or gone: a dead lease is taken over by the next runner anyway.
    }
  }
}
