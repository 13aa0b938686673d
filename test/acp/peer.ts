/**
 * A real ACP client (the SDK's client side) driving the built `tea acp` in a child
 * process over its stdio, recording everything the agent sends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { TEA_BIN } from '../support/cli.js';
import { TestTerminals } from './terminal-client.js';

export type PermissionHandler = (
  req: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse> | acp.RequestPermissionResponse;

export type ElicitHandler = (
  req: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse> | acp.CreateElicitationResponse;

export interface AcpPeer {
  agent: acp.ClientContext;
  child: ChildProcess;
  updates: acp.SessionNotification[];
  permissions: acp.RequestPermissionRequest[];
  reads: acp.ReadTextFileRequest[];
  writes: acp.WriteTextFileRequest[];
  /** The editor's unsaved buffers by absolute path (read before the disk; writes land here). */
  buffers: Map<string, string>;
  /** Answers permission requests (default: allow once). */
  onPermission: PermissionHandler;
  /** The editor's terminals: `terminal/*` requests run real commands (see terminal-client.ts). */
  terminals: TestTerminals;
  elicitations: acp.CreateElicitationRequest[];
  /** Answers `elicitation/create` (default: cancel). */
  onElicit: ElicitHandler;
  /** Every line the agent wrote to stdout. */
  stdoutLines: string[];
  stderr(): string;
  /** Closes stdin and resolves with the exit code. */
  close(): Promise<number | null>;
}

export const allowOnce: PermissionHandler = () => ({
  outcome: { outcome: 'selected', optionId: 'allow_once' },
});

/** Spawns `tea acp` and connects a client; `fs` advertises the client's file system. */
export function startPeer(opts: { env: NodeJS.ProcessEnv; cwd: string; args?: string[] }): AcpPeer {
  const child = spawn(process.execPath, [TEA_BIN, 'acp', '--cwd', opts.cwd, ...(opts.args ?? [])], {
    env: opts.env,
    cwd: opts.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const stdoutLines: string[] = [];
  let partial = '';
  child.stdout?.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop() ?? '';
    stdoutLines.push(...parts.filter((l) => l.trim() !== ''));
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));

  const peer: Omit<AcpPeer, 'agent'> & { agent?: acp.ClientContext } = {
    child,
    updates: [],
    permissions: [],
    reads: [],
    writes: [],
    buffers: new Map(),
    onPermission: allowOnce,
    terminals: new TestTerminals(opts.env),
    elicitations: [],
    onElicit: () => ({ action: 'cancel' }),
    stdoutLines,
    stderr: () => stderr,
    close: async () => {
      peer.terminals.dispose();
      child.stdin?.end();
      return exited;
    },
  };
  const app = acp
    .client({ name: 'test-editor' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      peer.updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => {
      peer.permissions.push(params);
      return peer.onPermission(params, signal);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      peer.reads.push(params);
      const text = peer.buffers.get(params.path) ?? readDisk(params.path);
      return { content: text };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      peer.writes.push(params);
      peer.buffers.set(params.path, params.content);
      return {};
    })
    .onRequest(acp.methods.client.terminal.create, ({ params }) => peer.terminals.create(params))
    .onRequest(acp.methods.client.terminal.output, ({ params }) => peer.terminals.output(params))
    .onRequest(acp.methods.client.terminal.waitForExit, ({ params }) => peer.terminals.waitForExit(params))
    .onRequest(acp.methods.client.terminal.kill, ({ params }) => peer.terminals.kill(params))
    .onRequest(acp.methods.client.terminal.release, ({ params }) => peer.terminals.release(params))
    .onRequest(acp.methods.client.elicitation.create, ({ params, signal }) => {
      peer.elicitations.push(params);
      return peer.onElicit(params, signal);
    });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  peer.agent = app.connect(stream).agent;
  return peer as AcpPeer;
}

function readDisk(p: string): string {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    throw acp.RequestError.resourceNotFound(p);
  }
}

/**
 * `initialize`, advertising the client's file system when `fs` is set, and any other
 * capabilities in `caps` (`terminal: true`, `elicitation: { form: {} }`).
 */
export function initialize(
  peer: AcpPeer,
  fs = false,
  caps: Omit<acp.ClientCapabilities, 'fs'> = {},
): Promise<acp.InitializeResponse> {
  return peer.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, ...caps },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  });
}

export async function newSession(peer: AcpPeer, cwd: string): Promise<acp.NewSessionResponse> {
  return peer.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
}

export function prompt(
  peer: AcpPeer,
  sessionId: string,
  content: string | acp.ContentBlock[],
): Promise<acp.PromptResponse> {
  const blocks: acp.ContentBlock[] =
    typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return peer.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: blocks });
}

/** The updates of one kind, in order. */
export function updatesOf<K extends acp.SessionUpdate['sessionUpdate']>(
  peer: AcpPeer,
  kind: K,
): Array<Extract<acp.SessionUpdate, { sessionUpdate: K }>> {
  return peer.updates
    .map((n) => n.update)
    .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: K }> => u.sessionUpdate === kind);
}

/** Joined text of the message or thought chunks. */
export function chunkText(
  peer: AcpPeer,
  kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk',
): string {
  return updatesOf(peer, kind)
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

export async function waitFor(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
