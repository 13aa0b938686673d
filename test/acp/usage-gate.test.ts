/**
 * `usage_update` (and the other update kinds ACP v1 gained later) only for clients
 * that understand them: an older client, here a raw JSON-RPC peer that parses the
 * update union as the first v1 clients did and rejects any other kind, never sees
 * one; the ACP SDK client does. The table of what the client says → what it gets,
 * then both kinds of client against the built `tea acp`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { allows, type UsageUpdatesSetting, updateGate } from '../../src/acp/usage-gate.js';
import { TEA_BIN } from '../support/cli.js';
import { reply } from '../support/script.js';
import { type AcpPeer, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

/** The update kinds of the first ACP v1 release: all an older client accepts. */
const FIRST_V1_KINDS = new Set([
  'user_message_chunk',
  'agent_message_chunk',
  'agent_thought_chunk',
  'tool_call',
  'tool_call_update',
  'plan',
  'available_commands_update',
  'current_mode_update',
]);

describe('which clients get the later update kinds', () => {
  const info = { name: 'editor', version: '1.0.0' };
  const rows: Array<
    [string, acp.InitializeRequest, UsageUpdatesSetting, { usage: boolean; later: boolean }]
  > = [
    ['an old client (no clientInfo)', { protocolVersion: 1 }, 'auto', { usage: false, later: false }],
    [
      'a client with clientInfo',
      { protocolVersion: 1, clientInfo: info },
      'auto',
      { usage: true, later: true },
    ],
    [
      'an old client asking in _meta',
      { protocolVersion: 1, clientCapabilities: { _meta: { usageUpdate: true } } },
      'auto',
      { usage: true, later: true },
    ],
    [
      'a new client refusing in _meta',
      { protocolVersion: 1, clientInfo: info, clientCapabilities: { _meta: { usageUpdate: false } } },
      'auto',
      { usage: false, later: true },
    ],
    ['--usage-updates on, old client', { protocolVersion: 1 }, 'on', { usage: true, later: false }],
    [
      '--usage-updates off, new client',
      { protocolVersion: 1, clientInfo: info },
      'off',
      { usage: false, later: true },
    ],
  ];
  it.each(rows)('%s', (_name, init, setting, expected) => {
    const gate = updateGate(init, setting);
    expect(gate).toEqual(expected);
    expect(allows(gate, 'usage_update')).toBe(expected.usage);
    expect(allows(gate, 'session_info_update')).toBe(expected.later);
    expect(allows(gate, 'config_option_update')).toBe(expected.later);
    for (const kind of FIRST_V1_KINDS)
      expect(allows(gate, kind as acp.SessionUpdate['sessionUpdate'])).toBe(true);
  });
});

/** An older client: newline-delimited JSON-RPC by hand, strict about update kinds. */
interface OldClient {
  child: ChildProcess;
  kinds: string[];
  rejected: string[];
  request(method: string, params: unknown): Promise<Record<string, unknown>>;
  close(): Promise<number | null>;
}

function oldClient(env: NodeJS.ProcessEnv, cwd: string, args: string[] = []): OldClient {
  const child = spawn(process.execPath, [TEA_BIN, 'acp', '--cwd', cwd, ...args], {
    env,
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const pending = new Map<number, { resolve(v: Record<string, unknown>): void; reject(e: Error): void }>();
  let nextId = 0;
  const client: OldClient = {
    child,
    kinds: [],
    rejected: [],
    request(method, params) {
      const id = ++nextId;
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => {
      child.stdin!.end();
      return exited;
    },
  };
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines.filter((l) => l.trim() !== '')) {
      const msg = JSON.parse(line) as {
        id?: number;
        method?: string;
        params?: { update?: { sessionUpdate: string } };
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      if (msg.method === 'session/update') {
        const kind = msg.params!.update!.sessionUpdate;
        client.kinds.push(kind);
        if (!FIRST_V1_KINDS.has(kind)) client.rejected.push(kind);
      } else if (msg.id !== undefined && pending.has(msg.id)) {
        const p = pending.get(msg.id)!;
        pending.delete(msg.id);
        if (msg.error) p.reject(new Error(msg.error.message));
        else p.resolve(msg.result ?? {});
      }
    }
  });
  return client;
}

const setup = useAcp({ autoTitle: true });
const { t } = setup;
/** The raw clients' closers (the SDK peers are setup's). */
const closers: Array<() => Promise<unknown>> = [];

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const sdkPeer = (args: string[] = []): AcpPeer => setup.start(args);

function init(p: AcpPeer, meta?: Record<string, unknown>): Promise<acp.InitializeResponse> {
  return p.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: {
      fs: { readTextFile: false, writeTextFile: false },
      ...(meta ? { _meta: meta } : {}),
    },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  });
}

describe('tea acp: usage updates by client', () => {
  it('an older client gets none of the later kinds; the turn, the title and set_mode still work', async () => {
    const c = oldClient(t.ctx.env, setup.work);
    closers.push(() => c.close());
    await c.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false } },
    });
    const { sessionId } = (await c.request('session/new', { cwd: setup.work, mcpServers: [] })) as {
      sessionId: string;
    };
    t.server.script(reply().text('Hello from Tea!').usage(40, 6), reply().text('Greetings'));
    const r = await c.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'say hello' }] });
    expect(r.stopReason).toBe('end_turn');
    await c.request('session/set_mode', { sessionId, modeId: 'read-only' });
    expect(await c.close()).toBe(0); // after the title job
    expect(t.server.requests).toHaveLength(2); // the turn and the title
    expect(c.kinds).toContain('agent_message_chunk');
    expect(c.rejected).toEqual([]);
  });

  it('the ACP SDK client gets usage and title updates; one that refuses usage in _meta gets none', async () => {
    const p = sdkPeer();
    await init(p);
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().text('Hello!').usage(40, 6), reply().text('Greetings'));
    await prompt(p, sessionId, 'say hello');
    expect(updatesOf(p, 'usage_update').at(-1)).toMatchObject({ used: 46 });
    await waitFor(() => updatesOf(p, 'session_info_update').length > 0, 'the title update');
    expect(updatesOf(p, 'session_info_update').map((u) => u.title)).toEqual(['Greetings']);

    const refusing = sdkPeer();
    await init(refusing, { usageUpdate: false });
    const s2 = await newSession(refusing, setup.work);
    t.server.script(reply().text('Hello again!').usage(40, 6), reply().text('Title'));
    await prompt(refusing, s2.sessionId, 'say it again');
    expect(updatesOf(refusing, 'agent_message_chunk').length).toBeGreaterThan(0);
    expect(updatesOf(refusing, 'usage_update')).toEqual([]);
  });

  it('--usage-updates on sends them to an older client; off keeps them from the SDK client', async () => {
    const c = oldClient(t.ctx.env, setup.work, ['--usage-updates', 'on']);
    closers.push(() => c.close());
    await c.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = (await c.request('session/new', { cwd: setup.work, mcpServers: [] })) as {
      sessionId: string;
    };
    t.server.script(reply().text('Hi.').usage(10, 2), reply().text('Title'));
    await c.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(c.kinds).toContain('usage_update');

    const p = sdkPeer(['--usage-updates', 'off']);
    await init(p);
    const s = await newSession(p, setup.work);
    t.server.script(reply().text('Hi.').usage(10, 2), reply().text('Title'));
    await prompt(p, s.sessionId, 'hi');
    expect(updatesOf(p, 'agent_message_chunk').length).toBeGreaterThan(0);
    expect(updatesOf(p, 'usage_update')).toEqual([]);

    const bad = oldClient(t.ctx.env, setup.work, ['--usage-updates', 'sometimes']);
    let stderr = '';
    bad.child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    expect(await bad.close()).toBe(2);
    expect(stderr).toContain('--usage-updates must be one of auto, on, off, got "sometimes"');
  });
});
