/**
 * End to end: a real Agent with intent loading, a scripted model and a real MCP
 * server. The model finds the MCP tool with tool_search, then calls it.
 */
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { collect, endedCalls } from '../../support/collect.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { reply } from '../../support/script.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { EVERYTHING_JS, tempDir } from './peers.js';

let h: Harness;
let manager: McpManager;
const tmp = tempDir();
beforeEach(async () => {
  h = await createHarness();
  manager = await attachMcp(
    h.tools,
    { everything: { command: process.execPath, args: [EVERYTHING_JS, 'stdio'] } },
    { home: path.join(tmp.dir, `home-${Date.now()}`), cwd: h.workspace },
  );
});
afterEach(async () => {
  await manager.close();
  await h.close();
});
afterAll(() => tmp.cleanup());

const offered = (i: number) =>
  (h.server.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);

describe('an MCP tool in a real agent turn', () => {
  it('is found with tool_search (connecting the uncached server) and then called', async () => {
    h.server.script(
      reply().toolCall('tool_search', { query: 'echo a message back' }),
      reply().toolCall('mcp__everything__echo', { message: 'hello through MCP' }),
      reply().text('The server said hello.'),
    );
    const agent = h.agent({ settings: { toolLoading: 'intent', permissionMode: 'ask' } });
    const events = await collect(agent.newSession().prompt('please test the echo server'));

    expect(offered(0)).not.toContain('mcp__everything__echo');
    expect(offered(1)).toContain('mcp__everything__echo');
    // The schema the model got is the server's JSON schema.
    const tools = h.server.requests[1]!.body.tools as Array<{
      function: { name: string; parameters: { required?: string[] } };
    }>;
    const echo = tools.find((t) => t.function.name === 'mcp__everything__echo')!;
    expect(echo.function.parameters.required).toEqual(['message']);

    expect(endedCalls(events).map((r) => [r.name, r.state])).toEqual([
      ['tool_search', 'completed'],
      ['mcp__everything__echo', 'completed'],
    ]);
    const results = wireMessages(h.server.requests[2]!.body).filter((m) => m.role === 'tool');
    expect(wireText(results[1]!)).toBe('Echo: hello through MCP');
    expect(events.at(-1)).toMatchObject({
      type: 'done',
      reason: 'completed',
      text: 'The server said hello.',
    });
  });

  it('a write-capable MCP tool needs approval; with nobody to approve it is denied', async () => {
    await manager.refresh('everything');
    h.server.script(
      reply().toolCall('mcp__everything__toggle-simulated-logging', {}),
      reply().text('I could not.'),
    );
    const agent = h.agent({ settings: { toolLoading: 'all', permissionMode: 'ask', approvals: 'deny' } });
    const events = await collect(agent.newSession().prompt('turn on logging'));
    expect(endedCalls(events)[0]).toMatchObject({
      name: 'mcp__everything__toggle-simulated-logging',
      state: 'denied',
    });
  });
});
