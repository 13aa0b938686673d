/**
 * Chat-completion sessions between requests. A client that continues a session
 * (`session_id`) gets the `Session` its last request left, history and context
 * state already in memory, instead of a fresh resume that reads and parses the
 * whole transcript again (a cost that grows with every turn, and garbage that
 * outlives the turn). A session is taken out while its turn runs; a second request
 * on it meanwhile is refused or queued by the turn gate (turn-gate.ts), and `Session`
 * itself reloads when another runner (another process, the session API) wrote in between.
 */
import type { Agent, Session } from '../agent/index.js';

/** Idle sessions kept; the least recently used go first. */
export const IDLE_CHAT_SESSIONS = 16;

export class IdleSessions {
  private readonly idle = new Map<string, { agent: Agent; session: Session }>();

  constructor(private readonly max = IDLE_CHAT_SESSIONS) {}

  /** The idle session `id` if `agent` (the same profile and settings) left it; it is no longer idle. */
  take(id: string, agent: Agent): Session | undefined {
    const entry = this.idle.get(id);
    if (!entry) return undefined;
    this.idle.delete(id);
    return entry.agent === agent ? entry.session : undefined;
  }

  /** Keeps `session` for the next request on it. */
  keep(agent: Agent, session: Session): void {
    this.idle.delete(session.id);
    this.idle.set(session.id, { agent, session });
    while (this.idle.size > this.max) this.idle.delete(this.idle.keys().next().value as string);
  }

  drop(id: string): void {
    this.idle.delete(id);
  }

  get size(): number {
    return this.idle.size;
  }
}

/** `events`, then `session` goes back to `idle` (also when the client stops reading). */
export async function* keptAfter<T>(
  events: AsyncGenerator<T>,
  idle: IdleSessions,
  agent: Agent,
  session: Session,
): AsyncGenerator<T> {
  try {
    yield* events;
  } finally {
    idle.keep(agent, session);
  }
}
