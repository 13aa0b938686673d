/**
 * One MCP client per configured server: connects on first use (the SDK is loaded
 * only then), applies a per-call timeout, restarts a crashed stdio server once,
 * and reports the next crash instead of looping.
 */

import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { formatSeconds } from '../abort.js';
import type { Sandbox } from '../sandbox/index.js';
import { type ToolContext, ToolError } from '../types.js';
import { clientCapabilities, installClientHandlers } from './client-handlers.js';
import type { Unattended } from './elicitation.js';
import {
  errorCode,
  errorText,
  MCP_CONNECTION_CLOSED,
  MCP_REQUEST_TIMEOUT,
  McpRequestError,
  startError,
  stderrHint,
} from './errors.js';
import type { LoginUi } from './oauth.js';
import { offersRoots } from './roots.js';
import { DEFAULT_SAMPLING_LIMITS, SamplingBudget } from './sampling.js';
import type { RemoteOptions } from './transports.js';
import { isStdioServer, type McpHttpServerConfig, type McpServerConfig, type McpToolInfo } from './types.js';

export interface ConnectionOptions {
  name: string;
  server: McpServerConfig;
  /** The workspace: a relative `cwd` of a stdio server resolves against it; the server's first root. */
  workspace: string;
  /** Directories added to the workspace (`--add-dir`, config): the server's other roots. */
  extraRoots?: readonly string[];
  /** Per-call time limit when the server sets none. */
  defaultTimeoutMs: number;
  /** Time limit of start-up (spawn, handshake, first tool list); at least the call limit. */
  connectTimeoutMs: number;
  clientInfo: { name: string; version: string };
  /** Where a stdio server that opts in (`sandbox`) runs. */
  sandbox?: Sandbox;
  /** Called with the server's tool list after every successful connection, and when the server says it changed. */
  onTools?: (tools: McpToolInfo[]) => void;
  /** The data home: OAuth state of remote servers lives in `<home>/mcp-auth/`. */
  home?: string;
  /** Present when this run may log in to a remote server in a browser. */
  login?: LoginUi;
  /** The sampling budget (shared by the manager's servers); default: the default limits. */
  budget?: SamplingBudget;
  /** Elicitation where nobody can answer (config `mcp_elicitation.unattended`; default decline). */
  unattended?: Unattended;
}

const STDERR_TAIL_CHARS = 2_000;
const MAX_TOOL_PAGES = 50;
/** How long a stdio server gets to exit on its own after its stdin closes. */
const CLOSE_GRACE_MS = 300;

export type State = 'idle' | 'connected' | 'crashed' | 'closed';

export class McpConnection {
  private client: Client | undefined;
  private transport: Transport | undefined;
  private connecting: Promise<Client> | undefined;
  private state: State = 'idle';
  /** A crash was already answered with a restart, and no call has succeeded since. */
  private restarted = false;
  private stderrTail = '';
  /** The pid of the last stdio server started, kept even after the SDK lets go of it. */
  private startedPid: number | undefined;
  /** The tool calls running now, latest last: the server's sampling and elicitation go to the latest. */
  private readonly callers: ToolContext[] = [];
  private readonly budget: SamplingBudget;
  /** A tool list being fetched after the server said it changed; a call that ends waits for it. */
  private refreshing: Promise<void> | undefined;

  constructor(private readonly opts: ConnectionOptions) {
    this.budget = opts.budget ?? new SamplingBudget(DEFAULT_SAMPLING_LIMITS);
  }

  get name(): string {
    return this.opts.name;
  }

  get timeoutMs(): number {
    return this.opts.server.timeoutMs ?? this.opts.defaultTimeoutMs;
  }

  private get connectTimeoutMs(): number {
    return Math.max(this.opts.connectTimeoutMs, this.timeoutMs);
  }

  /** The child process id of a running stdio server. */
  get pid(): number | undefined {
    const pid = (this.transport as { pid?: number | null } | undefined)?.pid;
    return typeof pid === 'number' ? pid : undefined;
  }

  /** idle (not started yet), connected, crashed (restarts on the next call) or closed. */
  get status(): State {
    return this.state;
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  /** How the server is reached, for messages: the command line or the URL. */
  describe(): string {
    const s = this.opts.server;
    return isStdioServer(s) ? `command "${[s.command, ...(s.args ?? [])].join(' ')}"` : s.url;
  }

  /** Connects (once; concurrent callers share the attempt) and resolves to the client. */
  async connect(): Promise<Client> {
    if (this.state === 'connected' && this.client) return this.client;
    if (this.state === 'closed') throw new ToolError(`MCP server "${this.name}" is shut down`);
    if (this.connecting) return this.connecting;
    if (this.state === 'crashed') {
      if (this.restarted) {
        throw new ToolError(
          `MCP server "${this.name}" crashed again after a restart; not restarting it`,
          `run ${this.describe()} by hand to see why${stderrHint(this.stderrTail)}`,
        );
      }
      this.restarted = true;
    }
    this.connecting = this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const server = this.opts.server;
    const cwd = path.resolve(this.opts.workspace, isStdioServer(server) ? (server.cwd ?? '.') : '.');
    const roots = await offersRoots(server, cwd);
    const newClient = async () => {
      const client = new Client(this.opts.clientInfo, { capabilities: clientCapabilities(roots) });
      await installClientHandlers(client, {
        server: this.name,
        ...(roots ? { roots: [this.opts.workspace, ...(this.opts.extraRoots ?? [])] } : {}),
        budget: this.budget,
        ...(this.opts.unattended ? { unattended: this.opts.unattended } : {}),
        caller: () => this.callers.at(-1),
        onToolsChanged: () => {
          if (this.client !== client) return;
          const refresh: Promise<void> = this.fetchTools(client)
            .then((tools) => this.opts.onTools?.(tools))
            .catch(() => undefined)
            .finally(() => {
              if (this.refreshing === refresh) this.refreshing = undefined;
            });
          this.refreshing = refresh;
        },
      });
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.transport = undefined;
        if (this.state === 'connected') this.state = 'crashed';
      };
      return client;
    };
    let client: Client;
    let transport: Transport;
    if (isStdioServer(this.opts.server)) {
      transport = await this.makeTransport();
      client = await newClient();
      try {
        await client.connect(transport, { timeout: this.connectTimeoutMs });
      } catch (error) {
        // The SDK may already have closed the transport (and forgotten the pid) here.
        await closeQuickly(this.startedPid, () => transport.close());
        throw startError(this.name, this.describe(), error, this.stderrTail, this.opts.server.from);
      }
    } else {
      const { connectRemote } = await import('./transports.js');
      ({ client, transport } = await connectRemote(newClient, this.remoteOptions(this.opts.server)));
    }
    if (this.state === 'closed') {
      await client.close().catch(() => undefined);
      throw new ToolError(`MCP server "${this.name}" is shut down`);
    }
    this.client = client;
    this.transport = transport;
    this.state = 'connected';
    try {
      const tools = await this.fetchTools(client, this.connectTimeoutMs);
      this.opts.onTools?.(tools);
    } catch (error) {
      throw this.callError(error, 'tools/list');
    }
    return client;
  }

  private remoteOptions(server: McpHttpServerConfig): RemoteOptions {
    return {
      name: this.name,
      server,
      home: this.opts.home ?? this.opts.workspace,
      timeoutMs: this.connectTimeoutMs,
      clientName: this.opts.clientInfo.name,
      ...(this.opts.server.from ? { from: this.opts.server.from } : {}),
      ...(this.opts.login ? { login: this.opts.login } : {}),
    };
  }

  private async makeTransport(): Promise<Transport> {
    const server = this.opts.server;
    if (!isStdioServer(server)) throw new Error('not a stdio server');
    const { getDefaultEnvironment, StdioClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/stdio.js'
    );
    const cwd = path.resolve(this.opts.workspace, server.cwd ?? '.');
    let command = server.command;
    let args = server.args ?? [];
    let env = server.env;
    if (server.sandbox && this.opts.sandbox) {
      const launch = await this.opts.sandbox.launch({
        command,
        args,
        cwd,
        writable: [this.opts.workspace],
        env: { ...getDefaultEnvironment(), ...server.env },
        network: server.sandbox.network,
        // The SDK does not start servers in a session of their own.
        newSession: true,
      });
      command = launch.file;
      args = launch.args;
      env = launch.sandbox ? (launch.env as Record<string, string>) : env;
    }
    const transport = new StdioClientTransport({
      command,
      args,
      ...(env ? { env } : {}),
      cwd,
      stderr: 'pipe',
    });
    this.stderrTail = '';
    this.startedPid = undefined;
    const start = transport.start.bind(transport);
    transport.start = async () => {
      await start();
      this.startedPid = transport.pid ?? undefined;
    };
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    return transport;
  }

  private async fetchTools(client: Client, timeout = this.timeoutMs): Promise<McpToolInfo[]> {
    const tools: McpToolInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { timeout });
      for (const t of result.tools) {
        const info: McpToolInfo = { name: t.name, inputSchema: t.inputSchema };
        if (t.description) info.description = t.description;
        if (t.annotations) info.annotations = t.annotations;
        tools.push(info);
      }
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Connects if needed and lists the server's tools (fresh, not cached). */
  async listTools(): Promise<McpToolInfo[]> {
    const client = await this.connect();
    try {
      return await this.fetchTools(client);
    } catch (error) {
      throw this.callError(error, 'tools/list');
    }
  }

  /** What the server offers (resources, prompts, …), once connected. */
  get capabilities(): Record<string, unknown> | undefined {
    return this.client?.getServerCapabilities();
  }

  /** Connects if needed and runs one request of `what` (resources/list, prompts/get, …) with the call limit. */
  async use<T>(what: string, request: (client: Client, timeout: number) => Promise<T>): Promise<T> {
    const client = await this.connect();
    try {
      return await request(client, this.timeoutMs);
    } catch (error) {
      throw this.callError(error, what);
    }
  }

  /** Calls one tool; resolves to the raw `tools/call` result. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
    caller?: ToolContext,
  ): Promise<unknown> {
    const client = await this.connect();
    if (caller) this.callers.push(caller);
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.timeoutMs,
        ...(signal ? { signal } : {}),
      });
      this.restarted = false;
      // A tool that changed the server's tool list: the next model call sees the new list.
      await this.refreshing;
      return result;
    } catch (error) {
      throw this.callError(error, tool);
    } finally {
      if (caller) this.callers.splice(this.callers.lastIndexOf(caller), 1);
    }
  }

  private callError(error: unknown, what: string): Error {
    if (error instanceof ToolError) return error;
    const code = errorCode(error);
    if (code === MCP_REQUEST_TIMEOUT) {
      return new ToolError(
        `MCP server "${this.name}": ${what} timed out after ${formatSeconds(this.timeoutMs)}`,
        this.opts.server.from === 'client'
          ? 'ask for less work'
          : `ask for less work, or raise mcp_servers.${this.name}.timeout_s`,
      );
    }
    if (code === MCP_CONNECTION_CLOSED || this.state === 'crashed') {
      return new ToolError(
        `MCP server "${this.name}" closed the connection during ${what}`,
        `it is restarted on the next call (once)${stderrHint(this.stderrTail)}`,
      );
    }
    return new McpRequestError(`MCP server "${this.name}": ${what} failed: ${errorText(error)}`, code);
  }

  /** Closes the client and stops a stdio server; later calls fail. */
  async close(): Promise<void> {
    this.state = 'closed';
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    const pid = this.pid;
    this.client = undefined;
    this.transport = undefined;
    if (!client) return;
    await closeQuickly(pid, () => client.close());
  }
}

/**
 * Closes a client or transport. The SDK ends a stdio server's stdin and waits up to
 * 2 s before SIGTERM; most servers exit at once, and the others should not hold up
 * shutdown that long.
 */
async function closeQuickly(pid: number | undefined, close: () => Promise<void>): Promise<void> {
  const started = Date.now();
  const term = pid === undefined ? undefined : setTimeout(() => signal(pid, 'SIGTERM'), CLOSE_GRACE_MS);
  await close().catch(() => undefined);
  clearTimeout(term);
  if (pid === undefined) return;
  // close() may return before the process is gone (the SDK had already let go of it).
  while (signal(pid, 0)) {
    if (Date.now() - started >= CLOSE_GRACE_MS) {
      signal(pid, 'SIGTERM');
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sends a signal; false when there is no such process. */
function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
