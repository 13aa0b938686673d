/**
 * The ACP agent in-process: a real Agent over a temp SQLite store and the scripted
 * model, connected directly to an SDK client app (no transport).
 */
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mcpConnector } from '../../src/acp/mcp.js';
import { type AcpServerOptions, createAcpAgent } from '../../src/acp/server.js';
import type { AgentOptions } from '../../src/agent/index.js';
import { MemoryService } from '../../src/memory/service.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { EVERYTHING_JS } from '../tools/mcp/peers.js';
import { waitFor } from './peer.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

interface Wired {
  client: acp.ClientContext;
  updates: acp.SessionUpdate[];
  asks: acp.RequestPermissionRequest[];
  logs: string[];
  sessionId: string;
  close(): Promise<void>;
}

interface WireOptions {
  agent?: Partial<AgentOptions>;
  memory?: MemoryService;
  mcp?: AcpServerOptions['mcp'];
  mcpServers?: acp.McpServer[];
}

async function wire(o: WireOptions = {}): Promise<Wired> {
  const updates: acp.SessionUpdate[] = [];
  const asks: acp.RequestPermissionRequest[] = [];
  const logs: string[] = [];
  const { app, shutdown } = createAcpAgent({
    agent: h.agent({ ...o.agent, settings: { permissionMode: 'ask', ...o.agent?.settings } }),
    tools: h.tools,
    ...(o.memory ? { memory: o.memory } : {}),
    ...(o.mcp ? { mcp: o.mcp } : {}),
    contextWindow: 32_000,
    version: '9.9.9',
    log: (l) => logs.push(l),
    // Longer than the test timeout: a shutdown that does not wind down fails the test.
    shutdownGraceMs: 60_000,
  });
  const clientApp = acp
    .client({ name: 'test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      asks.push(params);
      return { outcome: { outcome: 'selected', optionId: 'allow_always' } };
    });
  const conn = clientApp.connect(app);
  const client = conn.agent;
  const init = await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  expect(init.agentInfo).toMatchObject({ name: 'tea', version: '9.9.9' });
  const { sessionId } = await client.request('session/new', {
    cwd: h.workspace,
    mcpServers: o.mcpServers ?? [],
  });
  return {
    client,
    updates,
    asks,
    logs,
    sessionId,
    close: async () => {
      conn.close();
      await shutdown();
    },
  };
}

const textOf = (updates: acp.SessionUpdate[], kind: 'agent_message_chunk' | 'agent_thought_chunk'): string =>
  updates
    .map((u) =>
      (u.sessionUpdate === 'agent_message_chunk' || u.sessionUpdate === 'agent_thought_chunk') &&
      u.sessionUpdate === kind &&
      u.content.type === 'text'
        ? u.content.text
        : '',
    )
    .join('');

describe('ACP agent (in-process)', () => {
  it('without the runtime behind it: resume and close only, the permission and work modes as config options', async () => {
    const w = await wire();
    const { sessionId } = w;
    const closed = await w.client.request('session/close', { sessionId });
    expect(closed).toEqual({});
    const resumed = await w.client.request('session/resume', { sessionId, cwd: h.workspace, mcpServers: [] });
    expect(resumed.configOptions?.map((o) => o.id)).toEqual(['mode', 'work_mode']);
    await expect(w.client.request('session/list', {})).rejects.toMatchObject({ code: -32601 });
    await expect(
      w.client.request('session/set_config_option', { sessionId, configId: 'model', value: 'x' }),
    ).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('this session has mode, work_mode'),
    });
    await w.close();
  });

  it('says clearly when client MCP servers cannot be connected', async () => {
    const w = await wire({ mcpServers: [{ name: 'files', command: 'mcp-files', args: [], env: [] }] });
    expect(w.logs.join('\n')).toMatch(/ignoring 1 MCP server\(s\) from the client \(files\)/);
    await w.close();
  });

  it('connects the MCP servers the client passes and runs their tools', async () => {
    const warnings: string[] = [];
    const mcp = mcpConnector({ home: h.workspace, warn: (m) => warnings.push(m) });
    const w = await wire({
      agent: { settings: { permissionMode: 'yolo' } },
      mcp,
      mcpServers: [
        { name: 'everything', command: process.execPath, args: [EVERYTHING_JS, 'stdio'], env: [] },
        { type: 'sse', name: 'old', url: 'http://127.0.0.1:9/sse', headers: [] },
      ],
    });
    expect(warnings.join('\n')).toContain('MCP server "old" uses SSE');
    // Connected for this session only: the shared registry does not have them.
    expect(h.tools.has('mcp__everything__echo')).toBe(false);
    h.server.script(reply().toolCall('mcp__everything__echo', { message: 'ping' }), reply().text('Echoed.'));
    const r = await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [{ type: 'text', text: 'echo ping' }],
    });
    expect(r.stopReason).toBe('end_turn');
    const toolMsg = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    expect(wireText(toolMsg)).toContain('ping');
    expect(w.updates).toContainEqual(
      expect.objectContaining({ sessionUpdate: 'tool_call_update', status: 'in_progress' }),
    );
    await w.close();
    await mcp.close();
  });

  it('publishes todo lists as plan updates', async () => {
    const w = await wire();
    h.server.script(
      reply().toolCall('todo_write', {
        todos: [
          { content: 'Read the code', status: 'completed' },
          { content: 'Fix the bug', status: 'in_progress' },
        ],
      }),
      reply().text('Working on it.'),
    );
    const r = await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [{ type: 'text', text: 'plan it' }],
    });
    expect(r.stopReason).toBe('end_turn');
    const plan = w.updates.find((u) => u.sessionUpdate === 'plan');
    expect(plan).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read the code', status: 'completed', priority: 'medium' },
        { content: 'Fix the bug', status: 'in_progress', priority: 'medium' },
      ],
    });
    const call = w.updates.find((u) => u.sessionUpdate === 'tool_call');
    expect(call).toMatchObject({ kind: 'think', status: 'pending', title: 'todo_write' });
    expect(w.updates).toContainEqual({
      sessionUpdate: 'tool_call_update',
      toolCallId: call!.toolCallId,
      status: 'in_progress',
    });
    await w.close();
  });

  it('stops at the iteration cap with max_turn_requests', async () => {
    const w = await wire({ agent: { settings: { maxIterations: 1 } } });
    h.server.script(reply().toolCall('list_dir', {}));
    const r = await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [{ type: 'text', text: 'look around' }],
    });
    expect(r.stopReason).toBe('max_turn_requests');
    await w.close();
  });

  it('passes images and embedded resources to the model', async () => {
    const w = await wire();
    h.server.script(reply().text('Seen.'));
    const png = 'iVBORw0KGgo=';
    await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image', mimeType: 'image/png', data: png },
        { type: 'resource', resource: { uri: 'file:///proj/a.ts', text: 'export const a = 1;\n' } },
        { type: 'resource_link', uri: 'file:///proj/b.ts', name: 'b.ts' },
      ],
    });
    const last = wireMessages(h.server.requests[0]!.body).at(-1)!;
    const text = wireText(last);
    expect(text).toContain('What is in these?');
    expect(text).toContain('[Contents of /proj/a.ts]\n```\nexport const a = 1;\n```');
    expect(text).toContain('[Referenced: /proj/b.ts');
    expect(JSON.stringify(last.content)).toContain(`data:image/png;base64,${png}`);
    await w.close();
  });

  it('answers a question tool with a note, since ACP cannot ask', async () => {
    const w = await wire();
    h.server.script(reply().toolCall('ask_user', { question: 'Which color?' }), reply().text('Blue, then.'));
    await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [{ type: 'text', text: 'paint it' }],
    });
    const toolMsg = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    expect(wireText(toolMsg)).toContain('The editor cannot answer questions');
    expect(textOf(w.updates, 'agent_message_chunk')).toBe('Blue, then.');
    await w.close();
  });

  it('allow_always is remembered for the rest of the session', async () => {
    const w = await wire();
    h.server.script(
      reply().toolCall('write_file', { path: 'a.txt', content: '1' }),
      reply().toolCall('write_file', { path: 'a.txt', content: '2' }),
      reply().text('ok'),
    );
    await w.client.request('session/prompt', {
      sessionId: w.sessionId,
      prompt: [{ type: 'text', text: 'write twice' }],
    });
    const finished = w.updates.filter(
      (u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed',
    );
    expect(finished).toHaveLength(2);
    expect(w.asks).toHaveLength(1);
    // The second call runs without asking: the grant covers it.
    const calls = w.updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((u) => (u.sessionUpdate === 'tool_call' ? u.status : ''))).toEqual([
      'pending',
      'pending',
    ]);
    const second = calls[1]!.sessionUpdate === 'tool_call' ? calls[1]!.toolCallId : '';
    const updates = w.updates.filter(
      (u) => u.sessionUpdate === 'tool_call_update' && u.toolCallId === second,
    );
    expect(updates.map((u) => (u.sessionUpdate === 'tool_call_update' ? u.status : ''))).toEqual([
      'in_progress',
      'completed',
    ]);
    await w.close();
  });

  it('a closed connection cancels the running prompt and waits for it to end', async () => {
    const w = await wire();
    h.server.script(reply().hang());
    const running = w.client
      .request('session/prompt', { sessionId: w.sessionId, prompt: [{ type: 'text', text: 'wait' }] })
      .then(
        () => 'answered',
        () => 'rejected',
      );
    await waitFor(() => h.server.requests.length === 1, 'the model request');
    await w.close();
    expect(await running).toBe('rejected');
    const stored = h.store.messages.list(w.sessionId);
    expect(stored.map((m) => m.role)).toEqual(['user']);
  });

  it('slash commands: /help, /mode, /memory', async () => {
    const memory = new MemoryService({ db: h.store.db });
    await memory.remember({
      content: 'The user prefers tabs over spaces',
      category: 'preference',
      scope: 'user',
    });
    const w = await wire({ memory });
    const run = async (text: string): Promise<string> => {
      const before = w.updates.length;
      const r = await w.client.request('session/prompt', {
        sessionId: w.sessionId,
        prompt: [{ type: 'text', text }],
      });
      expect(r.stopReason).toBe('end_turn');
      return textOf(w.updates.slice(before), 'agent_message_chunk');
    };
    expect(await run('/help')).toMatch(/\/mode <work mode \| permission mode>: /);
    expect(await run('/mode')).toBe(
      'Work mode: develop (design, develop, test, review, docs, devops)\nPermission mode: ask (read-only, ask, auto-edit, yolo)',
    );
    expect(await run('/mode sideways')).toMatch(/Unknown mode "sideways"/);
    expect(await run('/memory')).toContain('The user prefers tabs over spaces');
    expect(await run('/memory tabs')).toContain('prefers tabs');
    expect(await run('/tools nothing')).toMatch(/No tools in category "nothing"/);
    expect(h.server.requests).toHaveLength(0);
    await w.close();
  });

  it('/mode switches work modes (and their permission mode) and permission modes; session/set_mode stays permission modes', async () => {
    const w = await wire();
    const run = async (text: string): Promise<string> => {
      const before = w.updates.length;
      await w.client.request('session/prompt', { sessionId: w.sessionId, prompt: [{ type: 'text', text }] });
      return textOf(w.updates.slice(before), 'agent_message_chunk');
    };
    const lastMode = () =>
      w.updates
        .filter((u) => u.sessionUpdate === 'current_mode_update')
        .map((u) => u.currentModeId)
        .at(-1);
    expect(await run('/mode review')).toBe('Work mode set to review (permission mode: read-only).');
    expect(lastMode()).toBe('read-only');
    expect(await run('/mode ask')).toBe('Permission mode set to ask.');
    expect(lastMode()).toBe('ask');
    expect(await run('/mode')).toBe(
      'Work mode: review (design, develop, test, review, docs, devops)\nPermission mode: ask (read-only, ask, auto-edit, yolo)',
    );
    expect(await run('/mode shipping')).toBe(
      'Unknown mode "shipping". Work modes: design, develop, test, review, docs, devops. Permission modes: read-only, ask, auto-edit, yolo.',
    );
    expect(h.server.requests).toHaveLength(0);
    // The next prompt runs in review: its line, no writing tools.
    h.server.script(reply().text('looked'));
    await run('look at it');
    const body = h.server.requests[0]!.body;
    expect(wireText(wireMessages(body)[0]!)).toContain('\nWork mode: review — ');
    const names = (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(names).not.toContain('write_file');
    // Editors' session modes are permission modes only.
    await expect(
      w.client.request('session/set_mode', { sessionId: w.sessionId, modeId: 'review' }),
    ).rejects.toThrow(/unknown mode "review": use one of read-only, ask, auto-edit, yolo/);
    await w.close();
  });
});
