/**
 * Sessions of `tea mcp serve --http` (streamable HTTP and the legacy SSE transport):
 * each client's `initialize` gets its own MCP server and transport under a random
 * session id (122 bits, `Mcp-Session-Id`), so a later `notifications/cancelled` reaches
 * the server running the call and aborts it. A session is bound to the credentials
 * that opened it: the same id with another `Authorization` header is unknown (404), as
 * is a guessed id. Sessions end on DELETE, when idle longer than `idleMs` (with no
 * request in flight), or when the server closes. At most `maxSessions` live at once:
 * a new one takes the place of the session idle the longest (clients rarely say
 * goodbye with DELETE), and is refused with 503 only while every session has a request
 * or stream open.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface SessionLimits {
  /** Live sessions at most (default 32). */
  maxSessions?: number;
  /** A session idle this long is closed (default 30 minutes). */
  idleMs?: number;
}

interface Live {
  id: string;
  kind: 'streamable' | 'sse';
  server: Server;
  transport: Transport & { handleRequest?: unknown };
  credential: string;
  inFlight: number;
  idleTimer: NodeJS.Timeout | undefined;
  /** Ordinal of its last activity (a request or stream ending, or opening): larger is more recent. */
  lastActive: number;
}

export type SessionFailure = { status: number; message: string };

export const DEFAULT_MAX_SESSIONS = 32;
export const DEFAULT_IDLE_MS = 30 * 60_000;

export function sameCredential(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class SessionTable {
  private readonly live = new Map<string, Live>();
  private pending = 0;
  private activity = 0;
  readonly maxSessions: number;
  readonly idleMs: number;

  constructor(
    limits: SessionLimits,
    private readonly onEvent: (message: string) => void = () => {},
  ) {
    this.maxSessions = limits.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleMs = limits.idleMs ?? DEFAULT_IDLE_MS;
  }

  get size(): number {
    return this.live.size;
  }

  /**
   * Makes room for one more session (counting those being opened): ends the session
   * idle the longest when the table is full; a failure when none is idle.
   */
  full(): SessionFailure | undefined {
    if (this.live.size + this.pending < this.maxSessions) return undefined;
    const idle = [...this.live.values()]
      .filter((s) => s.inFlight === 0)
      .sort((a, b) => a.lastActive - b.lastActive);
    if (idle[0]) {
      void this.end(idle[0].id, 'ended to make room (idle the longest)');
      return undefined;
    }
    return {
      status: 503,
      message: `too many busy MCP sessions (${this.maxSessions} open, each with a request or stream open); try again when one finishes`,
    };
  }

  /** The session `id` when it exists and was opened with `credential`. */
  find(id: string | undefined, credential: string, kind: Live['kind']): Live | undefined {
    if (!id) return undefined;
    const s = this.live.get(id);
    if (!s || s.kind !== kind || !sameCredential(s.credential, credential)) return undefined;
    return s;
  }

  /** Reserves a place while a session opens; call the returned function when it opened or failed. */
  reserve(): () => void {
    this.pending += 1;
    let done = false;
    return () => {
      if (!done) this.pending -= 1;
      done = true;
    };
  }

  add(id: string, kind: Live['kind'], server: Server, transport: Transport, credential: string): Live {
    const s: Live = {
      id,
      kind,
      server,
      transport,
      credential,
      inFlight: 0,
      idleTimer: undefined,
      lastActive: ++this.activity,
    };
    this.live.set(id, s);
    this.onEvent(`session ${id.slice(0, 8)}… opened (${kind}, ${this.live.size} open)`);
    this.arm(s);
    return s;
  }

  /** Marks a request on `s` as running until `res` closes (an idle session is one with none). */
  track(s: Live, res: ServerResponse): void {
    s.inFlight += 1;
    if (s.idleTimer) clearTimeout(s.idleTimer);
    s.idleTimer = undefined;
    res.once('close', () => {
      s.inFlight -= 1;
      s.lastActive = ++this.activity;
      this.arm(s);
    });
  }

  private arm(s: Live): void {
    if (s.inFlight > 0 || !this.live.has(s.id)) return;
    if (s.idleTimer) clearTimeout(s.idleTimer);
    s.idleTimer = setTimeout(() => void this.end(s.id, 'expired (idle)'), this.idleMs);
    s.idleTimer.unref();
  }

  /** Ends a session: its server closes (running calls are aborted). */
  async end(id: string, why: string): Promise<void> {
    const s = this.live.get(id);
    if (!s) return;
    this.live.delete(id);
    if (s.idleTimer) clearTimeout(s.idleTimer);
    this.onEvent(`session ${id.slice(0, 8)}… ${why} (${this.live.size} open)`);
    await s.server.close().catch(() => {});
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.live.keys()].map((id) => this.end(id, 'closed (server stopping)')));
  }
}

/** The credentials a request carries (the whole Authorization header; empty when none). */
export function credentialOf(req: IncomingMessage): string {
  return req.headers.authorization ?? '';
}

/** A new session id: a random UUID (v4, 122 random bits). */
export const newSessionId = (): string => randomUUID();
