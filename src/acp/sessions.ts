/**
 * Session management over ACP, on the runtime's sessions service: `session/list`
 * (cwd filter, cursor pages), `session/load` and `session/resume` (the same reopening,
 * with and without the transcript replayed), `session/delete`, `session/fork` and
 * `session/set_title` (both unstable in ACP v1: registered as extension methods on
 * the stable app, with their own parsers), `session/set_config_option`, and
 * `session_info_update` when Tea titles a session.
 */
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { Agent, Session } from '../agent/index.js';
import type { ClientFs, ClientShell } from '../tools/types.js';
import type { AcpBackend } from './backend.js';
import { configOptions, configValues, setConfigOption } from './config-options.js';
import type { LiveSession } from './live-session.js';
import type { SessionMcp } from './mcp.js';
import { modeState } from './modes.js';

/** `session/fork` params (ACP v1 unstable `ForkSessionRequest`; stdio and http MCP servers). */
export interface ForkSessionRequest {
  sessionId: string;
  cwd: string;
  mcpServers: acp.McpServer[];
}

/** `session/set_title` params (ACP v1 unstable `SetSessionTitleRequest`). */
export interface SetSessionTitleRequest {
  sessionId: string;
  title: string;
}

/** Sessions per `session/list` page. */
export const LIST_PAGE = 50;
/** Longest title `session/set_title` stores (longer ones are cut). */
export const MAX_TITLE = 200;

/** What the handlers need from the server's connection state (server.ts). */
/** What the client does for a session's tools: its files and its terminals, when it offers them. */
export type ClientSide = { fs?: ClientFs; shell?: ClientShell };

export interface SessionHost {
  live: Map<string, LiveSession>;
  backend: AcpBackend | undefined;
  /** The agent of sessions with no backend (or none of their own profile). */
  agent: Agent;
  find(sessionId: string): LiveSession;
  checkCwd(cwd: string): string;
  sessionTools(servers: readonly acp.McpServer[], cwd: string): Promise<SessionMcp>;
  open(client: acp.AgentContext, mcp: SessionMcp, make: (side: ClientSide) => Session): LiveSession;
}

/** The state a session answer carries: the legacy modes and the config options. */
export function sessionSetup(
  s: LiveSession,
  backend: AcpBackend | undefined,
): { modes: acp.SessionModeState; configOptions: acp.SessionConfigOption[] } {
  return { modes: modeState(s.session.permissionMode), configOptions: configOptions(s, backend) };
}

/** Tells the client about the session's automatic title when it is stored. */
export function watchTitle(s: LiveSession): void {
  s.session.onTitle = (e) =>
    s.send({ sessionUpdate: 'session_info_update', title: e.title, updatedAt: new Date().toISOString() });
}

/** Sends `config_option_update` (and `current_mode_update` for the legacy picker) when `before` no longer holds. */
export function announceConfigChange(
  s: LiveSession,
  backend: AcpBackend | undefined,
  before: { values: string; mode: string },
  opts: { tellMode: boolean } = { tellMode: true },
): void {
  const options = configOptions(s, backend);
  if (configValues(options) === before.values) return;
  s.send({ sessionUpdate: 'config_option_update', configOptions: options });
  if (opts.tellMode && s.session.permissionMode !== before.mode)
    s.send({ sessionUpdate: 'current_mode_update', currentModeId: s.session.permissionMode });
}

/** The values now, for `announceConfigChange` after something that may change them. */
export function configSnapshot(
  s: LiveSession,
  backend: AcpBackend | undefined,
): { values: string; mode: string } {
  return { values: configValues(configOptions(s, backend)), mode: s.session.permissionMode };
}

/** -32002 naming the session (the SDK's own says only "Resource not found"). */
function noSession(sessionId: string): acp.RequestError {
  return new acp.RequestError(-32002, `there is no session ${sessionId}`, { sessionId });
}

function notBusy(s: LiveSession | undefined, what: string): void {
  if (s?.busy)
    throw acp.RequestError.invalidRequest(
      { sessionId: s.id },
      `session ${s.id} is running a prompt; cancel it (session/cancel) before ${what}`,
    );
}

/**
 * Reopens a stored session on this connection (`session/load` replays its transcript,
 * `session/resume` does not). A live copy here is replaced, with its MCP servers.
 */
export async function reopen(
  host: SessionHost,
  client: acp.AgentContext,
  params: { sessionId: string; cwd: string; mcpServers?: readonly acp.McpServer[] | null },
  opts: { replay: boolean },
): Promise<LiveSession> {
  const existing = host.live.get(params.sessionId);
  notBusy(existing, opts.replay ? 'loading it again' : 'resuming it again');
  const servers = params.mcpServers ?? [];
  // The servers start in the workspace the client names (the stored session keeps its own).
  const mcp = await host.sessionTools(servers, servers.length > 0 ? host.checkCwd(params.cwd) : params.cwd);
  const row = host.backend?.sessions.get(params.sessionId);
  const cannot = (message: string): acp.RequestError =>
    new acp.RequestError(
      -32002,
      `cannot ${opts.replay ? 'load' : 'resume'} session ${params.sessionId}: ${message}`,
      { sessionId: params.sessionId },
    );
  if (host.backend && !row) {
    void mcp.close();
    throw cannot('no stored session has this id');
  }
  const agent = row && host.backend ? host.backend.sessions.agentOf(row) : host.agent;
  let s: LiveSession;
  try {
    // `open` stops the servers when this throws.
    s = host.open(client, mcp, (side) =>
      agent.resumeSession(params.sessionId, { tools: mcp.tools, ...side }),
    );
  } catch (error) {
    throw cannot(error instanceof Error ? error.message : String(error));
  }
  if (existing && existing !== s) void existing.close();
  if (opts.replay) await s.replay();
  setImmediate(() => void s.announceCommands());
  return s;
}

function requireBackend(host: SessionHost, method: string): AcpBackend {
  if (!host.backend) throw acp.RequestError.methodNotFound(method);
  return host.backend;
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString('base64url');
}

function decodeCursor(cursor: string): number {
  try {
    const v: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    const offset = (v as { offset?: unknown }).offset;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0) return offset;
  } catch {
    // falls through to the error below
  }
  throw acp.RequestError.invalidParams(
    { cursor },
    'cursor is not one this agent gave: pass a nextCursor back as it came',
  );
}

/** `session/list`: top-level sessions with messages (or open on this connection), newest first. */
export function listSessions(host: SessionHost, params: acp.ListSessionsRequest): acp.ListSessionsResponse {
  const backend = requireBackend(host, 'session/list');
  const cwd = params.cwd ?? undefined;
  if (cwd !== undefined && !path.isAbsolute(cwd))
    throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  const offset = params.cursor == null ? 0 : decodeCursor(params.cursor);
  const rows = backend.sessions.list({ limit: LIST_PAGE + 1, offset, ...(cwd ? { cwd } : {}) });
  const sessions = rows
    .slice(0, LIST_PAGE)
    .filter((r) => r.messageCount > 0 || host.live.has(r.id))
    .map(
      (r): acp.SessionInfo => ({
        sessionId: r.id,
        cwd: r.cwd,
        title: r.title,
        updatedAt: new Date(r.updatedAt).toISOString(),
        _meta: { tea: { messageCount: r.messageCount, model: r.model, profile: r.profile } },
      }),
    );
  return { sessions, ...(rows.length > LIST_PAGE ? { nextCursor: encodeCursor(offset + LIST_PAGE) } : {}) };
}

/** `session/delete`: refused while a prompt runs in it here; a live copy is closed first. */
export async function deleteSession(host: SessionHost, params: acp.DeleteSessionRequest): Promise<void> {
  const backend = requireBackend(host, 'session/delete');
  if (!backend.sessions.get(params.sessionId)) throw noSession(params.sessionId);
  const s = host.live.get(params.sessionId);
  notBusy(s, 'deleting it');
  const runner = backend.sessions.runner(params.sessionId);
  if (runner && runner.pid !== process.pid)
    throw acp.RequestError.invalidRequest(
      { sessionId: params.sessionId, pid: runner.pid, host: runner.host },
      `session ${params.sessionId} is running a prompt in another tea process (pid ${runner.pid} on ${runner.host}); let it finish or cancel it there before deleting it`,
    );
  if (s) {
    host.live.delete(s.id);
    await s.close();
  }
  backend.sessions.delete(params.sessionId);
}

function objectParams(params: unknown, method: string): Record<string, unknown> {
  if (params === null || typeof params !== 'object' || Array.isArray(params))
    throw acp.RequestError.invalidParams({ method }, `${method} takes an object of params`);
  return params as Record<string, unknown>;
}

function stringParam(p: Record<string, unknown>, key: string, method: string): string {
  const v = p[key];
  if (typeof v !== 'string' || v === '')
    throw acp.RequestError.invalidParams(
      { [key]: v ?? null },
      `${method}: ${key} must be a non-empty string`,
    );
  return v;
}

export function parseForkParams(params: unknown): ForkSessionRequest {
  const p = objectParams(params, 'session/fork');
  const servers = p.mcpServers ?? [];
  if (!Array.isArray(servers))
    throw acp.RequestError.invalidParams(
      { mcpServers: servers },
      'session/fork: mcpServers must be an array',
    );
  return {
    sessionId: stringParam(p, 'sessionId', 'session/fork'),
    cwd: stringParam(p, 'cwd', 'session/fork'),
    mcpServers: servers as ForkSessionRequest['mcpServers'],
  };
}

export function parseTitleParams(params: unknown): SetSessionTitleRequest {
  const p = objectParams(params, 'session/set_title');
  const title = p.title;
  if (typeof title !== 'string')
    throw acp.RequestError.invalidParams(
      { title: title ?? null },
      'session/set_title: title must be a string',
    );
  return { sessionId: stringParam(p, 'sessionId', 'session/set_title'), title };
}

/** `session/fork`: a new session with a copy of the stored one's transcript, open on this connection. */
export async function forkSession(
  host: SessionHost,
  client: acp.AgentContext,
  params: ForkSessionRequest,
): Promise<{ sessionId: string } & ReturnType<typeof sessionSetup>> {
  const backend = requireBackend(host, 'session/fork');
  const from = backend.sessions.get(params.sessionId);
  if (!from) throw noSession(params.sessionId);
  const cwd = host.checkCwd(params.cwd);
  const mcp = await host.sessionTools(params.mcpServers, cwd);
  const row = backend.sessions.fork(from.id, { cwd });
  let s: LiveSession;
  try {
    s = host.open(client, mcp, (side) =>
      backend.sessions.agentOf(row).resumeSession(row.id, { tools: mcp.tools, ...side }),
    );
  } catch (error) {
    backend.sessions.delete(row.id);
    throw error;
  }
  setImmediate(() => void s.announceCommands());
  return { sessionId: s.id, ...sessionSetup(s, backend) };
}

/** `session/set_title`: stored (kept from the automatic title) and told to the live copy. */
export function setTitle(host: SessionHost, params: SetSessionTitleRequest): void {
  const backend = requireBackend(host, 'session/set_title');
  const title = params.title.replace(/\s+/g, ' ').trim().slice(0, MAX_TITLE);
  if (title === '')
    throw acp.RequestError.invalidParams({ title: params.title }, 'session/set_title: the title is empty');
  if (!backend.sessions.get(params.sessionId)) throw noSession(params.sessionId);
  backend.sessions.rename(params.sessionId, title, { keep: true });
  host.live
    .get(params.sessionId)
    ?.send({ sessionUpdate: 'session_info_update', title, updatedAt: new Date().toISOString() });
}

/** Registers the session-management methods on the agent app. */
export function withSessionMethods(app: acp.AgentApp, host: SessionHost): acp.AgentApp {
  return app
    .onRequest(acp.methods.agent.session.list, ({ params }) => listSessions(host, params))
    .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
      const s = await reopen(host, client, params, { replay: false });
      return sessionSetup(s, host.backend);
    })
    .onRequest(acp.methods.agent.session.delete, async ({ params }) => {
      await deleteSession(host, params);
      return {};
    })
    .onRequest(acp.methods.agent.session.setConfigOption, ({ params }) => {
      const s = host.find(params.sessionId);
      const { modeChanged } = setConfigOption(s, params, host.backend);
      if (modeChanged)
        s.send({ sessionUpdate: 'current_mode_update', currentModeId: s.session.permissionMode });
      return { configOptions: configOptions(s, host.backend) };
    })
    .onRequest('session/fork', parseForkParams, ({ params, client }) => forkSession(host, client, params))
    .onRequest('session/set_title', parseTitleParams, ({ params }) => {
      setTitle(host, params);
      return {};
    });
}
