/**
 * Live sessions: the `Session` objects the session routes drive, each with its
 * event hub and the abort controller of the running turn. A turn runs in the
 * background and pumps its events into the hub; stored sessions are resumed on
 * demand. Idle sessions nobody listens to are dropped when there are too many.
 */
import type { AgentEvent } from '../agent/events.js';
import type { Session } from '../agent/index.js';
import type { ImagePart } from '../llm/types.js';
import { withProposedDiff } from './approval-diff.js';
import { apiError } from './errors.js';
import { DEFAULT_EVENT_BUFFER, EventHub } from './events.js';
import { TurnGate } from './turn-gate.js';
import type { ServerDeps } from './types.js';

export interface LiveSession {
  session: Session;
  hub: EventHub;
  /** Set while a turn runs. */
  turn?: { abort: AbortController; done: Promise<void> };
  lastUsed: number;
  /** The running turn's approval requests and questions (by request id), with their seq. */
  asked: Map<string, { seq: number; event: AgentEvent }>;
}

/** An approval request or a question: the events that wait for the user. */
type Ask = Extract<AgentEvent, { type: 'approval_request' | 'question' }>;

export type PromptMode = 'prompt' | 'steer' | 'follow_up';

export class LiveSessions {
  private readonly live = new Map<string, LiveSession>();
  /** Every face's turns claim their session here (one turn per session). */
  readonly gate = new TurnGate();

  constructor(private readonly deps: ServerDeps) {}

  /** The live session, resuming a stored one on demand; 404 when there is none. */
  async open(id: string): Promise<LiveSession> {
    const found = this.live.get(id);
    if (found) {
      found.lastUsed = Date.now();
      return found;
    }
    const row = this.deps.sessions.get(id);
    if (!row) throw sessionNotFound(id);
    const known = this.deps.agents.profiles().some((p) => p.name === row.profile);
    const profile = known && row.profile ? row.profile : this.deps.agents.active;
    const session = this.deps.agents.agent(profile, 'ask').resumeSession(row.id);
    return this.add(session);
  }

  /** The live entry if the session is loaded (no resume). */
  peek(id: string): LiveSession | undefined {
    return this.live.get(id);
  }

  /** A turn runs on the session: the session API's or an OpenAI request's. */
  busy(id: string): boolean {
    return this.live.get(id)?.turn !== undefined || this.gate.busy(id);
  }

  async create(opts: { title?: string; profile?: string }): Promise<LiveSession> {
    const profile = await this.deps.agents.resolve(opts.profile, 'profile');
    const agent = this.deps.agents.agent(profile, 'ask');
    return this.add(agent.newSession(opts.title ? { title: opts.title } : {}));
  }

  /** Starts a turn (or queues the input into the running one). */
  prompt(
    live: LiveSession,
    input: string,
    images: ImagePart[] | undefined,
    mode: PromptMode,
  ): 'started' | 'queued' {
    if (!live.turn) this.refuseApiTurn(live.session.id);
    if (live.turn) {
      if (mode === 'steer' && live.session.steer(input)) return 'queued';
      if (mode === 'follow_up' && live.session.followUp(input)) return 'queued';
      if (mode === 'prompt') {
        throw apiError(
          409,
          `session ${live.session.id} is busy: a turn is running (use mode "steer" or "follow_up", or cancel it)`,
          {
            param: 'mode',
            code: 'session_busy',
          },
        );
      }
    }
    this.start(live, (signal) => live.session.prompt(input, { signal, ...(images ? { images } : {}) }));
    return 'started';
  }

  /**
   * Runs the session's last message again (its turn failed before an answer): 409 while
   * a turn runs, and when the last turn has an answer (nothing to retry).
   */
  retry(live: LiveSession): void {
    this.refuseApiTurn(live.session.id);
    if (live.turn) {
      throw apiError(409, `session ${live.session.id} is busy: a turn is running (cancel it first)`, {
        code: 'session_busy',
      });
    }
    if (!live.session.canRetry) {
      throw apiError(409, 'nothing to retry: the last turn of this session was answered; send a new prompt', {
        code: 'nothing_to_retry',
      });
    }
    this.start(live, (signal) => live.session.retry({ signal }));
  }

  /**
   * The approval requests and questions of the running turn still waiting for an
   * answer, with the seq they were pushed as (a client that opens the session later
   * has not seen them).
   */
  waiting(live: LiveSession): Array<{ seq: number; event: AgentEvent }> {
    const open = new Set(live.session.waiting);
    return [...live.asked.values()].filter((a) => open.has((a.event as Ask).requestId));
  }

  /** 409 while an OpenAI request's turn runs on the session (its events go to that request). */
  private refuseApiTurn(id: string): void {
    if (this.gate.owner(id) !== 'api') return;
    throw apiError(
      409,
      `session ${id} is busy: a turn from an OpenAI API request (chat completions or responses) is running; wait for it or cancel it`,
      { code: 'session_busy' },
    );
  }

  private start(live: LiveSession, run: (signal: AbortSignal) => AsyncIterable<AgentEvent>): void {
    const abort = new AbortController();
    const release = this.gate.tryClaim(live.session.id, 'session', () => abort.abort());
    if (!release) this.refuseApiTurn(live.session.id);
    const done = this.pump(live, run(abort.signal)).finally(() => {
      release?.();
      live.turn = undefined;
      live.asked.clear();
      live.lastUsed = Date.now();
    });
    live.turn = { abort, done };
  }

  /** Cancels the running turn; false when none runs. */
  cancel(id: string): boolean {
    const turn = this.live.get(id)?.turn;
    if (!turn) return this.gate.cancel(id);
    turn.abort.abort();
    return true;
  }

  /** Deletes a stored session (409 while busy unless forced, which cancels and waits first). */
  async delete(id: string, force: boolean): Promise<void> {
    if (!this.deps.sessions.get(id)) throw sessionNotFound(id);
    const turn = this.live.get(id)?.turn;
    if (!turn) this.refuseApiTurn(id);
    if (turn) {
      if (!force) {
        throw apiError(409, `session ${id} is busy: cancel the turn first or pass ?force=true`, {
          code: 'session_busy',
        });
      }
      turn.abort.abort();
      await Promise.race([
        turn.done,
        new Promise((r) => setTimeout(r, this.deps.cancelWaitMs ?? 5000).unref()),
      ]);
    }
    this.live.delete(id);
    this.deps.sessions.delete(id);
  }

  /** Cancels every running turn (server shutdown). */
  async closeAll(waitMs = 2000): Promise<void> {
    const running = [...this.live.values()].flatMap((l) => (l.turn ? [l.turn] : []));
    for (const t of running) t.abort.abort();
    await Promise.race([
      Promise.allSettled(running.map((t) => t.done)),
      new Promise((r) => setTimeout(r, waitMs).unref()),
    ]);
  }

  private add(session: Session): LiveSession {
    const live: LiveSession = {
      session,
      hub: new EventHub(this.deps.eventBufferSize ?? DEFAULT_EVENT_BUFFER),
      lastUsed: Date.now(),
      asked: new Map(),
    };
    // The title arrives after the first turn's `done`: clients following the session see it.
    session.onTitle = (event) => live.hub.push(event);
    this.live.set(session.id, live);
    this.evict();
    return live;
  }

  /** Drops the least recently used idle sessions without listeners beyond the cap. */
  private evict(): void {
    const max = this.deps.maxLiveSessions ?? 200;
    if (this.live.size <= max) return;
    const idle = [...this.live.entries()]
      .filter(([, l]) => !l.turn && l.hub.subscriberCount === 0)
      .sort(([, a], [, b]) => a.lastUsed - b.lastUsed);
    for (const [id] of idle.slice(0, this.live.size - max)) this.live.delete(id);
  }

  private async pump(live: LiveSession, events: AsyncIterable<AgentEvent>): Promise<void> {
    const { session, hub } = live;
    const roots = [...this.deps.allowedRoots];
    let sawDone = false;
    try {
      for await (const next of events) {
        const event = await withProposedDiff(next, { cwd: session.row.cwd, allowedRoots: roots });
        if (event.type === 'done') sawDone = true;
        const seq = hub.push(event);
        if (event.type === 'approval_request' || event.type === 'question')
          live.asked.set(event.requestId, { seq, event });
        else if (event.type === 'approval_result') live.asked.delete(event.requestId);
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      hub.push({ type: 'error', message, kind: 'server' });
      if (!sawDone) hub.push(failedDone(session.id, message));
    }
  }
}

function failedDone(sessionId: string, message: string): AgentEvent {
  return {
    type: 'done',
    sessionId,
    reason: 'error',
    text: '',
    message,
    usage: { inputTokens: 0, outputTokens: 0 },
    costUsd: 0,
  };
}

export function sessionNotFound(id: string) {
  return apiError(404, `session not found: ${id}`, { param: 'id', code: 'session_not_found' });
}
