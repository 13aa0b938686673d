/**
 * Response ids and the sessions behind them. A response id names its session and the
 * last message stored before its turn (`resp_<session>.<message>.<random>`), so
 * `previous_response_id` finds the conversation after a restart too: the turn's
 * messages follow that message. A follow-up on the session's latest response continues
 * the session; one on an earlier response forks the session there (a branch), as the
 * Responses API allows. `store: false` runs the turn in a fresh session (new, or a fork)
 * that is deleted afterwards, so it changes nothing stored. Function call outputs go to
 * the session whose turn waits for them (never a fork: the calls wait there).
 */
import type { Agent, Session } from '../agent/index.js';
import type { Message } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import { claimStored, continueStored, newPrimed, type OpenedSession } from './api-session.js';
import { apiError } from './errors.js';
import type { IdleSessions } from './idle-sessions.js';
import { sessionNotFound } from './live.js';
import { resolveResults, type WireResult } from './openai-tools.js';
import type { ResponsesRequest } from './responses-request.js';

/** What of a request decides its session. */
type SessionParams = Pick<ResponsesRequest, 'store' | 'previous_response_id' | 'session_id' | 'if_busy'>;

import { requireEveryOutput } from './responses-tools.js';
import type { AppContext } from './routes.js';

export interface ResponseRef {
  sessionId: string;
  /** The last message stored before the turn (0: none). */
  before: number;
}

export function responseId(ref: ResponseRef): string {
  const session = Buffer.from(ref.sessionId, 'utf8').toString('base64url');
  return `resp_${session}.${ref.before.toString(36)}.${randomUUID().slice(0, 8)}`;
}

export function parseResponseId(id: string): ResponseRef | undefined {
  const m = /^resp_([A-Za-z0-9_-]+)\.([0-9a-z]+)\.[0-9a-f]{8}$/.exec(id);
  if (!m) return undefined;
  const sessionId = Buffer.from(m[1]!, 'base64url').toString('utf8');
  return sessionId ? { sessionId, before: Number.parseInt(m[2]!, 36) } : undefined;
}

function notFound(id: string) {
  return apiError(404, `Previous response with id '${id}' not found.`, {
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  });
}

/** The id of the session's last stored message (0: none). */
export function lastMessageId(ctx: AppContext, sessionId: string): number {
  return ctx.deps.sessions.lastMessages(sessionId, 1)[0]?.id ?? 0;
}

/** Where the turn of response `ref` ended: its last message (the messages of the turn after `before`). */
function turnEnd(ctx: AppContext, ref: ResponseRef, known: Map<string, number>, id: string): number {
  const cached = known.get(id);
  if (cached !== undefined) return cached;
  const messages = ctx.deps.sessions.messages(ref.sessionId);
  const first = messages.find((m) => m.id > ref.before);
  if (!first) return ref.before;
  let end = first.id;
  for (const m of messages) if (m.id > ref.before && m.turnId === first.turnId) end = m.id;
  return end;
}

export interface ResponseSession extends OpenedSession {
  /** Delete the session after the turn (`store: false`). */
  temporary: boolean;
}

/** A copy of `sessionId` through message `upTo` (all when undefined), claimed for this request. */
function forked(ctx: AppContext, sessionId: string, upTo: number | undefined): string {
  if (upTo === 0) return '';
  return ctx.deps.sessions.fork(sessionId, upTo === undefined ? {} : { upTo }).id;
}

/**
 * The session this request's turn runs in, claimed: after `previous_response_id` (the
 * session, or a fork at an earlier response), `session_id`, or a new one. `history`
 * (the input items before the last, and earlier `input` messages) is stored first.
 */
export async function responseSession(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  body: SessionParams,
  turn: { history: Message[]; input: string; toolResults?: WireResult[] | undefined },
  known: Map<string, number>,
  signal: AbortSignal,
): Promise<ResponseSession> {
  if (turn.toolResults) return waitingSession(ctx, idle, agent, body, turn.toolResults, signal);
  const temporary = body.store === false;
  const prev = body.previous_response_id;
  let target: { id: string; upTo: number | undefined } | undefined;
  if (prev) {
    const ref = parseResponseId(prev);
    if (!ref || !ctx.deps.sessions.get(ref.sessionId)) throw notFound(prev);
    target = { id: ref.sessionId, upTo: turnEnd(ctx, ref, known, prev) };
  } else if (body.session_id) {
    if (!ctx.deps.sessions.get(body.session_id)) throw sessionNotFound(body.session_id);
    target = { id: body.session_id, upTo: undefined };
  }
  if (!target) {
    const session = await newPrimed(ctx, agent, turn.history, turn.input);
    return { agent, session, release: claimNew(ctx, session.id), temporary };
  }
  const param = prev ? 'previous_response_id' : 'session_id';
  if (!temporary) {
    const release = await claimStored(ctx, target.id, body.if_busy, signal, param);
    try {
      // Claimed: the session is at that response still (no turn since), or it branches off there.
      if (target.upTo === undefined || target.upTo === lastMessageId(ctx, target.id)) {
        const session = await continueStored(ctx, idle, agent, target.id, turn.history);
        return { agent, session, release, temporary };
      }
    } catch (e) {
      release();
      throw e;
    }
    release();
  }
  let copy: string;
  try {
    copy = forked(ctx, target.id, target.upTo);
  } catch {
    throw prev ? notFound(prev) : sessionNotFound(target.id);
  }
  if (copy === '') {
    const session = await newPrimed(ctx, agent, turn.history, turn.input);
    return { agent, session, release: claimNew(ctx, session.id), temporary };
  }
  const release = claimNew(ctx, copy);
  try {
    const session: Session = await continueStored(ctx, idle, agent, copy, turn.history);
    return { agent, session, release, temporary };
  } catch (e) {
    release();
    throw e;
  }
}

/** A session this request made: nobody else knows it yet, the claim always succeeds. */
function claimNew(ctx: AppContext, id: string) {
  return ctx.live.gate.tryClaim(id, 'api') ?? (() => undefined);
}

/**
 * The session whose turn waits for the `results`, claimed: the one `previous_response_id`
 * or `session_id` names, else the one that issued the calls (as chat completions finds
 * it). Checked again once claimed: every waiting call answered, no other.
 */
async function waitingSession(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  body: SessionParams,
  results: WireResult[],
  signal: AbortSignal,
): Promise<ResponseSession> {
  const { sessions } = ctx.deps;
  const prev = body.previous_response_id;
  let named = body.session_id;
  if (prev) {
    const ref = parseResponseId(prev);
    if (!ref || !sessions.get(ref.sessionId)) throw notFound(prev);
    named = ref.sessionId;
  } else if (named && !sessions.get(named)) throw sessionNotFound(named);
  const id = resolveResults(sessions, results, named);
  const param = prev ? 'previous_response_id' : body.session_id ? 'session_id' : 'input';
  const release = await claimStored(ctx, id, body.if_busy, signal, param);
  try {
    requireEveryOutput(sessions, id, results);
    const session = await continueStored(ctx, idle, agent, id);
    return { agent, session, release, temporary: body.store === false };
  } catch (e) {
    release();
    throw e;
  }
}
