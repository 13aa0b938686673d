/**
 * A chat-completions conversation that a client resends whole each turn, without
 * `session_id` (what standard chat clients do), continues its stored session instead
 * of starting a new one per turn. After each turn the session notes a hash of the
 * conversation as the client now holds it: the request's messages plus Tea's answer
 * (its text as sent, or its calls to the client's tools). A request whose messages
 * before the last user message hash the same continues that session, under the same
 * rules as `session_id` (busy: 409 `session_busy`, or `if_busy: "queue"`).
 *
 * The hash covers every message with its role (developer counts as system), its text,
 * its images' URLs, an assistant's tool calls (id, name, arguments as JSON) and a tool
 * message's call id: system messages included, so a client that changes its system
 * prompt, or edits or drops an earlier message, starts a new session primed with the
 * history it sent (a branch), as does a session that went on elsewhere since (the
 * session API, the web UI, another client: its last message is no longer the noted one).
 */
import type { AgentEvent } from '../agent/events.js';
import type { Agent, Session } from '../agent/index.js';
import { claimStored, continueStored, type IfBusy, type OpenedSession } from './api-session.js';
import type { IdleSessions } from './idle-sessions.js';
import type { ChatMessage } from './openai-request.js';
import type { AppContext } from './routes.js';
import type { Release } from './turn-gate.js';

/** The answer as the client appends it to its conversation. */
export interface AnswerMessage {
  content: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

/** Arguments as canonical JSON (a client may re-serialise them); text that is not JSON as is. */
export function canonicalArgs(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function normalised(m: Pick<ChatMessage, 'role' | 'content' | 'tool_calls' | 'tool_call_id'>): unknown[] {
  const role = m.role === 'developer' ? 'system' : m.role;
  let text = '';
  const images: string[] = [];
  if (typeof m.content === 'string') text = m.content;
  else
    for (const p of m.content ?? []) {
      if (p.type === 'text') text += p.text;
      else images.push(p.image_url.url);
    }
  const calls = (m.tool_calls ?? []).map((c) => [c.id, c.function.name, canonicalArgs(c.function.arguments)]);
  return [role, text, images, calls, m.tool_call_id ?? null];
}

/** SHA-256 over normalised entries, one JSON line each (`domain` first: chat and Responses hashes never meet). */
export async function hashEntries(domain: string, entries: readonly unknown[]): Promise<string> {
  // node:crypto is loaded only when a conversation is hashed.
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256');
  hash.update(`${domain}\n`);
  for (const e of entries) hash.update(`${JSON.stringify(e)}\n`);
  return hash.digest('hex');
}

/** The hash of a conversation (SHA-256 over its normalised messages). */
export function conversationHash(
  messages: readonly Pick<ChatMessage, 'role' | 'content' | 'tool_calls' | 'tool_call_id'>[],
): Promise<string> {
  return hashEntries('chat', messages.map(normalised));
}

/** Notes the conversation the client holds after the turn: its messages and Tea's answer. */
export async function noteConversation(
  ctx: AppContext,
  sessionId: string,
  messages: readonly ChatMessage[],
  answer: AnswerMessage,
): Promise<void> {
  const reply: ChatMessage = {
    role: 'assistant',
    content: answer.content ?? '',
    ...(answer.tool_calls?.length ? { tool_calls: answer.tool_calls } : {}),
  };
  ctx.deps.sessions.setConversation(sessionId, await conversationHash([...messages, reply]));
}

/**
 * The stored session whose conversation the request's earlier messages continue,
 * claimed for the turn; undefined when none does (or it went on while this request
 * waited for it: the request then branches off into a new session).
 */
export async function continuedConversation(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  earlier: readonly ChatMessage[],
  ifBusy: IfBusy | undefined,
  signal: AbortSignal,
): Promise<OpenedSession | undefined> {
  if (earlier.length === 0) return undefined;
  return continuedAt(ctx, idle, agent, await conversationHash(earlier), {
    ifBusy,
    signal,
    param: 'messages',
  });
}

/** How a request waits for a busy session, and the parameter a 409 names. */
export interface Lookup {
  ifBusy: IfBusy | undefined;
  signal: AbortSignal;
  param: string;
}

/** The stored session whose noted conversation hashes to `hash`, claimed (as `continuedConversation`). */
export async function continuedAt(
  ctx: AppContext,
  idle: IdleSessions,
  agent: Agent,
  hash: string,
  opts: Lookup,
): Promise<OpenedSession | undefined> {
  const found = ctx.deps.sessions.byConversation(hash);
  if (!found) return undefined;
  const release: Release = await claimStored(ctx, found.id, opts.ifBusy, opts.signal, opts.param);
  try {
    // Queued behind another turn, the session may have gone on: this request is then a branch.
    if ((ctx.deps.sessions.lastMessages(found.id, 1)[0]?.id ?? 0) !== found.last) {
      release();
      return undefined;
    }
    return { agent, session: await continueStored(ctx, idle, agent, found.id), release };
  } catch (e) {
    release();
    throw e;
  }
}

/**
 * Passes a turn's events on; a turn that ends without an answer (the model failed, it
 * was cancelled) first notes `hash`, the conversation as the request sent it, so the
 * same request sent again (an SDK's retry, a user's) runs that turn again in this session
 * (`retryAt`) instead of starting another session with the same message.
 */
export async function* notingFailure(
  ctx: AppContext,
  session: Session,
  events: AsyncGenerator<AgentEvent>,
  hash: string,
): AsyncGenerator<AgentEvent> {
  for await (const e of events) {
    // Only a turn that kept no part of an answer (a model that broke off mid-answer keeps
    // what it wrote) can run again in its session.
    if (e.type === 'done' && (e.reason === 'error' || e.reason === 'cancelled') && session.canRetry)
      ctx.deps.sessions.setConversation(session.id, hash);
    yield e;
  }
}

/**
 * The session whose last turn failed on exactly this request (`hash` of everything it
 * sends), claimed: the request runs that turn again there (`Session.retry`: its message
 * is not stored twice). Undefined when there is none, or it has nothing to retry.
 */
export async function retryAt(...args: Parameters<typeof continuedAt>): Promise<OpenedSession | undefined> {
  const opened = await continuedAt(...args);
  if (!opened || opened.session.canRetry) return opened;
  opened.release();
  return undefined;
}
