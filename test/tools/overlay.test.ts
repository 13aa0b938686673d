/**
 * Per-session tool overlays: a registry view that adds tools for one session over the
 * shared registry, seen by everything that runs or offers tools for that session.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { toolsMentioned } from '../../src/tools/loading.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import { defineTool, type Tool } from '../../src/tools/types.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

function tool(name: string, answer = `${name} ran`, keywords: string[] = []): Tool {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    parameters: z.object({}),
    category: 'test',
    keywords,
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    execute: async () => answer,
  });
}

const run = (registry: ToolRegistry, name: string, args: Record<string, unknown> = {}) =>
  runTool(
    registry,
    { type: 'tool-call', id: `c-${name}`, name, args },
    { cwd: process.cwd(), sessionId: 's', callId: `c-${name}`, signal: new AbortController().signal },
  );

describe('ToolRegistry overlays', () => {
  it('resolve overlay-first, list base then overlay, and leave the base alone', () => {
    const base = new ToolRegistry();
    base.registerAll([tool('alpha', 'base alpha'), tool('beta')]);
    const overlay = base.overlay();
    overlay.registerAll([tool('gamma'), tool('alpha', 'session alpha')]);

    expect(overlay.base).toBe(base);
    expect(overlay.names()).toEqual(['alpha', 'beta', 'gamma']);
    expect(overlay.get('alpha')?.description).toBe('The alpha tool.');
    expect(overlay.has('gamma')).toBe(true);
    expect(base.names()).toEqual(['alpha', 'beta']);
    expect(base.has('gamma')).toBe(false);
    expect(overlay.closest('gama', 1)).toEqual(['gamma']);
    expect(base.closest('gama', 1)).not.toEqual(['gamma']);

    // A base tool's spec is shared (built once), an overlay tool's is its own.
    expect(overlay.specs(['beta'])[0]).toBe(base.specs(['beta'])[0]);
    expect(overlay.specs(['gamma'])[0]!.name).toBe('gamma');
    expect(() => base.specs(['gamma'])).toThrow(/Unknown tool "gamma"/);

    // Tools added to the base later show through; an overlay removes only its own.
    base.register(tool('delta'));
    expect(overlay.names()).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(overlay.unregister('beta')).toBe(false);
    expect(overlay.unregister('alpha')).toBe(true);
    expect(overlay.get('alpha')).toBe(base.get('alpha'));
    expect(() => overlay.register(tool('gamma'))).toThrow(/Duplicate tool name "gamma"/);
  });

  it('runs the overlay’s tool (a shadowing one first) and answers unknown names elsewhere', async () => {
    const base = new ToolRegistry();
    base.register(tool('alpha', 'base alpha'));
    const a = base.overlay();
    a.registerAll([tool('session_only', 'only in A'), tool('alpha', 'A alpha')]);
    const b = base.overlay();

    expect((await run(a, 'session_only')).output).toBe('only in A');
    expect((await run(a, 'alpha')).output).toBe('A alpha');
    expect((await run(b, 'alpha')).output).toBe('base alpha');
    const missing = await run(b, 'session_only');
    expect(missing.status).toBe('error');
    expect(missing.output).toMatch(/^\[ERROR\] Unknown tool "session_only"/);
  });

  it('tool_search and tool_list see the tools of the registry the call runs in', async () => {
    const base = await createToolRegistry();
    const overlay = base.overlay();
    overlay.register(tool('mcp__notes__lookup', 'found', ['notes']));

    const found = await run(overlay, 'tool_search', { query: 'notes' });
    expect(found.output).toContain('mcp__notes__lookup');
    const listed = await run(overlay, 'tool_list', { category: 'test' });
    expect(listed.output).toContain('mcp__notes__lookup');

    const elsewhere = await run(base, 'tool_search', { names: ['mcp__notes__lookup'] });
    expect(elsewhere.output).toMatch(/^\[ERROR\] no tool matches "mcp__notes__lookup"/);
  });

  it('keyword pre-loading indexes each overlay apart, and follows tools added later', async () => {
    const base = await createToolRegistry();
    const overlay = base.overlay();
    const text = 'look this up in my zettelkasten please';
    expect(toolsMentioned(overlay, text)).toEqual([]);
    overlay.register(tool('mcp__zettelkasten__search', 'hits', ['zettelkasten']));
    expect(toolsMentioned(overlay, text)).toEqual(['mcp__zettelkasten__search']);
    expect(toolsMentioned(base, text)).toEqual([]);
    expect(toolsMentioned(base.overlay(), text)).toEqual([]);
  });

  it('discovery runs the overlay’s discoverers and its base’s; the base runs only its own', async () => {
    const base = new ToolRegistry();
    const overlay = base.overlay();
    const ran: string[] = [];
    base.addDiscoverer(async () => {
      ran.push('base');
    });
    const remove = overlay.addDiscoverer(async () => {
      ran.push('overlay');
      throw new Error('a failing discoverer is ignored');
    });
    await overlay.discover();
    expect(ran.sort()).toEqual(['base', 'overlay']);
    ran.length = 0;
    await base.discover();
    expect(ran).toEqual(['base']);
    remove();
    ran.length = 0;
    await overlay.discover();
    expect(ran).toEqual(['base']);
  });
});

describe('sessions with their own tools', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await createHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('a session given an overlay offers and runs its tools; another session of the agent has none of them', async () => {
    const agent = h.agent({ settings: { toolLoading: 'intent' } });
    const tools = h.tools.overlay();
    tools.register(tool('session_probe', 'probed'));
    const mine = agent.newSession({ tools });
    const other = agent.newSession();

    h.server.script(reply().toolCall('session_probe', {}), reply().text('done'));
    for await (const _ of mine.prompt('probe it')) void _;
    h.server.script(reply().toolCall('session_probe', {}), reply().text('done'));
    for await (const _ of other.prompt('probe it')) void _;

    const system = (i: number) => wireText(wireMessages(h.server.requests[i]!.body)[0]!);
    const result = (i: number) => wireText(wireMessages(h.server.requests[i]!.body).at(-1)!);
    expect(system(0)).toContain('session_probe');
    expect(result(1)).toBe('probed');
    expect(system(2)).not.toContain('session_probe');
    expect(result(3)).toMatch(/^\[ERROR\] Unknown tool "session_probe"/);
    expect(h.tools.has('session_probe')).toBe(false);
  });
});
