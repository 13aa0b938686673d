/**
 * The session an OpenAI-endpoint request (chat completions, responses) runs its turn
 * in: a stored one it continues, or a new one primed with the earlier messages. The
 * session is claimed in the turn gate before the turn starts (one turn per session,
 * shown as busy in the session API); the claim ends when the request's events end.
 */
import type { AgentEvent } from '../agent/events.js';
import type { Agent, Session } from '../agent/index.js';
import type { Message } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import { apiError } from './errors.js';
import { type IdleSessions, keptAfter } from './idle-sessions.js';
import { sessionNotFound } from './live.js';
import type { AppContext } from './routes.js';
import type { Release } from './turn-gate.js';

/** What to do when the session already runs a turn (the Tea request field `if_busy`). */
export type IfBusy = 'error' | 'queue';

export interface SessionRequest {
  model?: string | undefined;
  profile?: string | undefined;
  config_path?: string | undefined;
  /** Continue this stored session. */
  session_id?: string | undefined;
  if_busy?: IfBusy | undefined;
}

export interface OpenedSession {
  agent: Agent;
  session: Session;
  /** Ends the claim on the session; `events()` calls it when the turn's events end. */
  release: Release;
}

/** The agent for the request's profile (`profile`, `config_path`, else `model`). */
export async function requestAgent(ctx: AppContext, body: SessionRequest): Promise<Agent> {
  const named = body.profile ?? body.config_path;
  const param = body.profile ? 'profile' : body.config_path ? 'config_path' : 'model';
  const profile = await ctx.deps.agents.resolve(named ?? body.model, param);
  return ctx.deps.agents.agent(profile, 'deny');
}

/**
 * Claims stored session `id` for a turn: at once, or (if_busy: queue) after the turns
 * before it; 409 `session_busy` when it is busy and the client did not ask to wait.
 */
export async function claimStored(
  ctx: AppContext,
  id: string,
  ifBusy: IfBusy | undefined,
  signal: AbortSignal,
  param = 'session_id',
): Promise<Release> {
  const { live } = ctx;
  const now = live.busy(id) ? undefined : live.gate.tryClaim(id, 'api');
  if (now) return now;
  if (ifBusy !== 'queue') {
    throw apiError(
      409,
      `session ${id} is busy: a turn is running (wait for it, cancel it with POST /v1/sessions/${id}/cancel, or send "if_busy": "queue" to run after it)`,
      { param, code: 'session_busy' },
    );
  }
  return live.gate.claim(id, signal);
}

/** Continues stored session `id` (claimed by the caller), importing `history` first when given. */
export async function continueStored(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  id: string,
  history: readonly Message[] = [],
): Promise<Session> {
  if (history.length > 0) {
    idle.drop(id); // its in-memory transcript would miss the imported messages
    await ctx.deps.sessions.importHistory(id, history, `t_ctx_${randomUUID().slice(0, 8)}`);
  }
  return idle.take(id, agent) ?? agent.resumeSession(id);
}

/** A new session primed with `history`, titled after the first user message (or the input). */
export async function newPrimed(
  ctx: AppContext,
  agent: Agent,
  history: readonly Message[],
  input: string,
): Promise<Session> {
  const firstUser = history.find((m) => m.role === 'user');
  // With no earlier user message the turn's input names the session, as the first prompt would.
  const title = (firstUser ? firstUser.parts.find((p) => p.type === 'text')?.text : input)
    ?.slice(0, 1000) // the first words: a pasted megabyte is not flattened whole for them
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 80);
  const session = agent.newSession(title ? { title } : {});
  if (history.length === 0) return session;
  await ctx.deps.sessions.importHistory(session.id, history, `t_ctx_${randomUUID().slice(0, 8)}`);
  return agent.resumeSession(session.id);
}

/**
 * The chat-completions session for `agent` (the request's, its client turn already
 * checked: a refused request opens no session): a stored one (`session_id`, earlier
 * messages ignored) or a new one primed with the earlier messages; claimed for the turn.
 */
export async function openSession(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  body: SessionRequest,
  { history, input }: { history: Message[]; input: string },
  signal: AbortSignal,
): Promise<OpenedSession> {
  if (body.session_id) {
    const id = body.session_id;
    if (!ctx.deps.sessions.get(id)) {
      idle.drop(id);
      throw sessionNotFound(id);
    }
    const release = await claimStored(ctx, id, body.if_busy, signal);
    try {
      return { agent, session: await continueStored(ctx, idle, agent, id), release };
    } catch (e) {
      release();
      throw e;
    }
  }
  const session = await newPrimed(ctx, agent, history, input);
  const release = ctx.live.gate.tryClaim(session.id, 'api') ?? (() => undefined);
  return { agent, session, release };
}

/**
 * The turn's events; afterwards the session goes back to `idle` and its claim ends
 * (also when the client stops reading), `after` runs, and the claim ends. `abort`
 * cancels it from the session API.
 */
export async function* turnEvents(
  ctx: AppContext,
  idle: IdleSessions,
  opened: OpenedSession,
  events: AsyncGenerator<AgentEvent>,
  abort: AbortController,
  after?: () => void,
): AsyncGenerator<AgentEvent> {
  ctx.live.gate.onCancel(opened.session.id, () => abort.abort());
  try {
    yield* keptAfter(events, idle, opened.agent, opened.session);
  } finally {
    try {
      after?.();
    } finally {
      opened.release();
    }
  }
}
