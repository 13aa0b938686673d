/**
 * Lazy registry entries: a tool known by its facts and JSON schema is offered, listed,
 * found and shown without loading it; validating, authorising and running a call load
 * it once; a loader that fails is a model-readable `[ERROR]` naming the tool.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  type CatalogueEntry,
  catalogueEntry,
  listedEntries,
  registerFamily,
} from '../../src/tools/builtin/catalogue.js';
import type { Family } from '../../src/tools/builtin/families.js';
import { loadForTitles, toolKind, toolTitle } from '../../src/tools/call-info.js';
import { rankTools } from '../../src/tools/loading.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import { buildSpec } from '../../src/tools/schema.js';
import { defineTool, type Tool, type ToolInfo } from '../../src/tools/types.js';
import { call, makeCtx } from './helpers.js';

function noteTool(name = 'note_write', description = 'Write a note to the notes file.'): Tool {
  return defineTool({
    name,
    description,
    parameters: z.object({ path: z.string().min(1).describe('Note file'), text: z.string() }),
    category: 'files',
    keywords: ['note', 'jot'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    subject: (args) => args.path,
    execute: async (args) => `wrote ${args.text.length} chars to ${args.path}`,
  });
}

const facts = (tool: Tool): ToolInfo => ({
  name: tool.name,
  description: tool.description,
  category: tool.category,
  ...(tool.keywords ? { keywords: tool.keywords } : {}),
  readOnly: tool.readOnly,
  concurrencySafe: tool.concurrencySafe,
  approval: tool.approval,
});

/** A registry with `tool` registered lazily; `loads` counts the loader's calls. */
function lazyRegistry(tool: Tool, load: () => Promise<Tool> = async () => tool) {
  const registry = new ToolRegistry();
  const counter = { loads: 0 };
  registry.registerLazy({
    info: facts(tool),
    parameters: () => buildSpec(tool).parameters,
    load: () => {
      counter.loads++;
      return load();
    },
  });
  return { registry, counter };
}

describe('a lazy tool', () => {
  it('is offered, listed, found and shown without loading it', () => {
    const tool = noteTool();
    const { registry, counter } = lazyRegistry(tool);
    expect(registry.specs()).toEqual([buildSpec(tool)]);
    expect(registry.names()).toEqual(['note_write']);
    expect(registry.list()).toEqual([facts(tool)]);
    expect(registry.get('note_write')?.approval).toBe('write');
    expect(registry.closest('write_note')).toEqual(['note_write']);
    expect(rankTools(registry, 'jot a note').map((t) => t.name)).toEqual(['note_write']);
    expect(toolKind(registry, 'note_write')).toBe('edit');
    expect(registry.loaded('note_write')).toBeUndefined();
    expect(counter.loads).toBe(0);
  });

  it('is loaded by its first call, validated and run as the tool itself; later calls reuse it', async () => {
    const tool = noteTool();
    const { registry, counter } = lazyRegistry(tool);
    const bad = await runTool(registry, call('note_write', { path: 'a.txt' }), makeCtx('/tmp'));
    expect(bad.output).toMatch(/^\[ERROR\] Invalid arguments for note_write: text: required/);
    expect(counter.loads).toBe(1);
    const ok = await runTool(registry, call('note_write', { path: 'a.txt', text: 'hi' }), makeCtx('/tmp'));
    expect(ok).toMatchObject({ output: 'wrote 2 chars to a.txt', status: 'ok' });
    expect(registry.loaded('note_write')).toBe(tool);
    expect(counter.loads).toBe(1);
  });

  it('is authorised as the tool itself, with the validated arguments', async () => {
    const { registry } = lazyRegistry(noteTool());
    const seen: Array<{ tool: Tool; args: unknown }> = [];
    const r = await runTool(registry, call('note_write', { path: 'a.txt', text: 'hi' }), makeCtx('/tmp'), {
      authorize: async (tool, args) => {
        seen.push({ tool, args });
        return { allowed: false, output: '[DENIED] no', status: 'denied' };
      },
    });
    expect(r.status).toBe('denied');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.tool.subject?.({ path: 'a.txt', text: 'hi' })).toBe('a.txt');
    expect(seen[0]!.args).toEqual({ path: 'a.txt', text: 'hi' });
  });

  it('loads once for concurrent first calls', async () => {
    const tool = noteTool();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { registry, counter } = lazyRegistry(tool, async () => {
      await gate;
      return tool;
    });
    const runs = [1, 2, 3].map((i) =>
      runTool(registry, call('note_write', { path: `${i}.txt`, text: 'x' }), makeCtx('/tmp')),
    );
    release();
    const results = await Promise.all(runs);
    expect(results.map((r) => r.status)).toEqual(['ok', 'ok', 'ok']);
    expect(counter.loads).toBe(1);
  });

  it('whose loader fails answers the call with an [ERROR] naming it, and is tried again by the next call', async () => {
    const tool = noteTool();
    let fail = true;
    const { registry, counter } = lazyRegistry(tool, async () => {
      if (fail) throw new Error("Cannot find module './notes.js'");
      return tool;
    });
    const r = await runTool(registry, call('note_write', { path: 'a.txt', text: 'hi' }), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(
      /^\[ERROR\] the tool "note_write" could not be loaded: Cannot find module '\.\/notes\.js'\nHint: /,
    );
    // The title falls back to the name; nothing throws.
    await loadForTitles(registry, ['note_write']);
    expect(toolTitle(registry, 'note_write', { path: 'a.txt' })).toBe('note_write');
    fail = false;
    const again = await runTool(registry, call('note_write', { path: 'a.txt', text: 'hi' }), makeCtx('/tmp'));
    expect(again.status).toBe('ok');
    expect(counter.loads).toBe(3);
  });

  it('whose loader gives another tool is refused', async () => {
    const { registry } = lazyRegistry(noteTool(), async () => noteTool('other_tool'));
    await expect(registry.load('note_write')).rejects.toThrow(
      /the tool "note_write" could not be loaded: its loader gave the tool "other_tool"/,
    );
  });

  it('gets its subject into titles once loaded', async () => {
    const { registry } = lazyRegistry(noteTool());
    expect(toolTitle(registry, 'note_write', { path: 'notes/today.md' })).toBe('note_write');
    await loadForTitles(registry, ['note_write', 'no_such_tool']);
    expect(toolTitle(registry, 'note_write', { path: 'notes/today.md' })).toBe('note_write: notes/today.md');
  });
});

describe('lazy tools and overlays', () => {
  it('loads a base tool once for the base and every overlay, and subsets share it', async () => {
    const tool = noteTool();
    const { registry: base, counter } = lazyRegistry(tool);
    const one = base.overlay();
    const two = base.overlay();
    const served = base.subset(() => true);
    expect(await one.load('note_write')).toBe(tool);
    expect(await two.load('note_write')).toBe(tool);
    expect(base.loaded('note_write')).toBe(tool);
    expect(served.loaded('note_write')).toBe(tool);
    expect(counter.loads).toBe(1);
    expect(served.specs()).toEqual(base.specs());
  });

  it('lets an overlay shadow a lazy base tool without loading it', async () => {
    const { registry: base, counter } = lazyRegistry(noteTool());
    const overlay = base.overlay();
    const own = noteTool('note_write', 'The session’s own notes.');
    overlay.register(own);
    expect(overlay.specs()[0]!.description).toBe('The session’s own notes.');
    expect(base.specs()[0]!.description).toBe('Write a note to the notes file.');
    expect(await overlay.load('note_write')).toBe(own);
    expect(counter.loads).toBe(0);
  });
});

/** A family of two tools whose facts may differ from its catalogue entries. */
function fakeFamily(tools: () => Tool[]): { family: Family; builds: { count: number } } {
  const builds = { count: 0 };
  return {
    builds,
    family: {
      name: 'notes',
      shaped: () => false,
      build: async () => {
        builds.count++;
        return tools();
      },
    },
  };
}

describe('a lazily registered family', () => {
  const entries: CatalogueEntry[] = [
    catalogueEntry(noteTool(), 'notes'),
    catalogueEntry(noteTool('note_read', 'Read the notes.'), 'notes'),
  ];

  it('is built once when its first tool loads, and not before', async () => {
    const { family, builds } = fakeFamily(() => [noteTool(), noteTool('note_read', 'Read the notes.')]);
    const registry = new ToolRegistry();
    registerFamily(registry, family, {}, listedEntries(entries));
    expect(registry.specs().map((s) => s.name)).toEqual(['note_write', 'note_read']);
    expect(builds.count).toBe(0);
    await Promise.all([registry.load('note_write'), registry.load('note_read'), registry.load('note_write')]);
    expect(builds.count).toBe(1);
  });

  it('whose code no longer matches its catalogue entries is refused, saying how to fix it', async () => {
    const changed = { ...noteTool(), approval: 'exec' as const };
    const { family } = fakeFamily(() => [changed, noteTool('note_read', 'Read the notes.')]);
    const registry = new ToolRegistry();
    registerFamily(registry, family, {}, listedEntries(entries));
    const r = await runTool(registry, call('note_write', { path: 'a', text: 'b' }), makeCtx('/tmp'));
    expect(r.output).toMatch(
      /^\[ERROR\] the tool "note_write" could not be loaded: the tool catalogue is out of date \(note_write\.approval differs\); regenerate it with npm run catalogue/,
    );
  });
});
