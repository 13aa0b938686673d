/**
 * The Agent Client Protocol agent: JSON-RPC over newline-delimited stdio. Editors
 * (Zed, JetBrains, Neovim) create and load sessions, send prompts, cancel them and
 * switch permission modes; Tea streams back what happens.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '../agent/index.js';
import type { LongTermMemory } from '../memory/api.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { AcpBackend } from './backend.js';
import { clientFsFor } from './client-fs.js';
import { sessionCommands } from './commands.js';
import { canElicit } from './elicitation.js';
import { LiveSession } from './live-session.js';
import type { McpConnector, SessionMcp } from './mcp.js';
import { parseMode } from './modes.js';
import {
  announceConfigChange,
  type ClientSide,
  configSnapshot,
  reopen,
  type SessionHost,
  sessionSetup,
  watchTitle,
  withSessionMethods,
} from './sessions.js';
import { clientTerminalsFor } from './terminal.js';
import { type UpdateGate, type UsageUpdatesSetting, updateGate } from './usage-gate.js';

export interface AcpServerOptions {
  agent: Agent;
  tools: ToolRegistry;
  memory?: LongTermMemory;
  /** The main model's context window (usage updates report it as `size`). */
  contextWindow: number;
  version: string;
  /** Diagnostics; stdout carries protocol traffic only, so this goes to stderr. */
  log: (line: string) => void;
  /**
   * Connects the MCP servers a client passes with `session/new` / `session/load`, for
   * that session alone (see mcp.ts). Absent: they are ignored with a warning on the log.
   */
  mcp?: Pick<McpConnector, 'connect'>;
  /** On disconnect, how long to wait for cancelled prompts and background jobs (default 5 s). */
  shutdownGraceMs?: number;
  /**
   * The Tea home: its `commands/*.md` and each session's workspace `.tea/commands/*.md`
   * are offered as slash commands (absent: no user commands).
   */
  home?: string;
  /** The runtime's sessions, profiles and agents by profile (sessions.ts); absent: this connection's sessions only. */
  backend?: AcpBackend;
  /** Which clients get `usage_update` (usage-gate.ts; default auto). */
  usageUpdates?: UsageUpdatesSetting;
}

/** Checks the workspace the client sends: an absolute path to an existing directory. */
function checkCwd(cwd: string): string {
  if (!path.isAbsolute(cwd))
    throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw acp.RequestError.invalidParams({ cwd }, `cwd is not an existing directory: ${cwd}`);
  return cwd;
}

/** The answer to `initialize`: what Tea can do, in the client's protocol version or the newest it knows. */
export function initializeResponse(
  params: acp.InitializeRequest,
  version: string,
  managed = false,
): acp.InitializeResponse {
  // Over the runtime's sessions: list, resume, delete, and the unstable fork and set_title.
  const sessionCapabilities = managed
    ? { close: {}, resume: {}, list: {}, delete: {}, fork: {}, title: {} }
    : { close: {}, resume: {} };
  return {
    protocolVersion: Math.min(params.protocolVersion, acp.PROTOCOL_VERSION),
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities,
    },
    authMethods: [],
    agentInfo: { name: 'tea', title: 'Tea Agent', version },
  };
}

/** Builds the agent side of one connection (its sessions live as long as the connection). */
export function createAcpAgent(opts: AcpServerOptions): {
  app: acp.AgentApp;
  /** Aborts every running prompt and waits (a bounded time) for them and background jobs to end. */
  shutdown(): Promise<void>;
} {
  const live = new Map<string, LiveSession>();
  // A bad user-command file is reported once per connection, not at every session/new.
  const reported = new Set<string>();
  const logOnce = (line: string): void => {
    if (reported.has(line)) return;
    reported.add(line);
    opts.log(line);
  };
  let clientCaps: acp.ClientCapabilities | undefined;
  let updates: UpdateGate = { usage: false, later: false };

  const find = (sessionId: string): LiveSession => {
    const s = live.get(sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  };

  /**
   * The tools of a session with these MCP servers: connected before the session is
   * answered; one that cannot be connected fails the request, naming it.
   */
  const sessionTools = async (servers: readonly acp.McpServer[], cwd: string): Promise<SessionMcp> => {
    const none: SessionMcp = { tools: opts.tools, close: async () => undefined };
    if (servers.length === 0) return none;
    if (!opts.mcp) {
      opts.log(
        `tea acp: warning: ignoring ${servers.length} MCP server(s) from the client (${servers.map((s) => s.name).join(', ')}): MCP servers are not supported here`,
      );
      return none;
    }
    return opts.mcp.connect(opts.tools, servers, cwd);
  };

  /** Opens a live session with its own tools; the servers are stopped when opening fails. */
  const open = (
    client: acp.AgentContext,
    mcp: SessionMcp,
    make: (side: ClientSide) => LiveSession['session'],
  ): LiveSession => {
    let id = '';
    const fs = clientFsFor(client, () => id, clientCaps);
    const terminals = clientTerminalsFor(client, () => id, clientCaps);
    let session: LiveSession['session'];
    try {
      session = make({ ...(fs ? { fs } : {}), ...(terminals ? { shell: terminals } : {}) });
    } catch (error) {
      void mcp.close();
      throw error;
    }
    id = session.id;
    const userCommands = opts.home
      ? sessionCommands(session.row.cwd, opts.home, logOnce).catch(() => [])
      : Promise.resolve([]);
    const journal = opts.agent.services.journal;
    const deps = {
      ...opts,
      updates,
      client,
      tools: mcp.tools,
      closeTools: mcp.close,
      userCommands,
      ...(journal ? { journal } : {}),
      ...(terminals ? { terminals } : {}),
      elicit: canElicit(clientCaps),
    };
    const s = new LiveSession(session, deps, fs);
    watchTitle(s);
    live.set(id, s);
    return s;
  };
  const host: SessionHost = {
    live,
    backend: opts.backend,
    agent: opts.agent,
    find,
    checkCwd,
    sessionTools,
    open,
  };

  const app = acp
    .agent({ name: 'tea' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => {
      clientCaps = params.clientCapabilities;
      updates = updateGate(params, opts.usageUpdates);
      return initializeResponse(params, opts.version, opts.backend !== undefined);
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const cwd = checkCwd(params.cwd);
      const mcp = await sessionTools(params.mcpServers, cwd);
      const s = open(client, mcp, (side) => opts.agent.newSession({ cwd, tools: mcp.tools, ...side }));
      setImmediate(() => void s.announceCommands());
      return { sessionId: s.id, ...sessionSetup(s, opts.backend) };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
      const s = await reopen(host, client, params, { replay: true });
      return sessionSetup(s, opts.backend);
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const s = find(params.sessionId);
      // A command (`/mode`) may change the settings the config options show (it tells the mode itself).
      const before = configSnapshot(s, opts.backend);
      const stopReason = await s.prompt(params.prompt);
      announceConfigChange(s, opts.backend, before, { tellMode: false });
      return { stopReason };
    })
    .onRequest(acp.methods.agent.session.close, async ({ params }) => {
      const s = find(params.sessionId);
      live.delete(params.sessionId);
      await s.close();
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      live.get(params.sessionId)?.cancel();
    })
    .onRequest(acp.methods.agent.session.setMode, ({ params }) => {
      const s = find(params.sessionId);
      const before = configSnapshot(s, opts.backend);
      s.session.setPermissionMode(parseMode(params.modeId));
      // The client picked the mode: it is told the config options only.
      announceConfigChange(s, opts.backend, before, { tellMode: false });
      return {};
    });
  withSessionMethods(app, host);

  return {
    app,
    shutdown: async () => {
      for (const s of live.values()) s.cancel();
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, opts.shutdownGraceMs ?? 5000);
      });
      await Promise.race([Promise.all([...live.values()].map((s) => s.idle())), grace]);
      clearTimeout(timer);
      await Promise.all([...live.values()].map((s) => s.closeTools()));
      live.clear();
    },
  };
}

/** Serves one client over the given byte streams; resolves when the connection closes. */
export async function serveAcp(
  opts: AcpServerOptions & { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> },
): Promise<void> {
  const { app, shutdown } = createAcpAgent(opts);
  const connection = app.connect(acp.ndJsonStream(opts.output, opts.input));
  try {
    await connection.closed;
  } finally {
    await shutdown();
  }
}
