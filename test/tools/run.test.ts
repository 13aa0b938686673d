import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { builtinTools } from '../../src/tools/builtin/all.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../../src/tools/types.js';
import { call, makeCtx, tempDir } from './helpers.js';

/** Tiny test tools, each exercising one path through the runner. */
function testTools(seen: { signal?: AbortSignal; stopped?: boolean }): Tool[] {
  const waitForAbort = (ctx: ToolContext): Promise<string> =>
    new Promise((resolve) => {
      seen.signal = ctx.signal;
      ctx.signal.addEventListener('abort', () => {
        seen.stopped = true;
        resolve('partial work');
      });
    });
  return [
    defineTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({ text: z.string(), times: z.number().int().min(1).optional() }),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async (args) => args.text.repeat(args.times ?? 1),
    }),
    defineTool({
      name: 'fail_hint',
      description: 'throws a ToolError',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async () => {
        throw new ToolError('the widget is jammed', 'unjam it with the lever');
      },
    }),
    defineTool({
      name: 'read_missing',
      description: 'reads a file that does not exist with plain fs',
      parameters: z.object({ path: z.string() }),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async (args, ctx) => readFile(join(ctx.cwd, args.path), 'utf8'),
    }),
    defineTool({
      name: 'throw_string',
      description: 'throws a non-Error',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async () => {
        throw 'plain string failure';
      },
    }),
    defineTool({
      name: 'soft_error',
      description: 'returns isError and an image',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async () => ({
        output: 'the thing failed softly',
        isError: true,
        images: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }],
      }),
    }),
    defineTool({
      name: 'slow',
      description: 'waits until aborted',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      timeoutMs: 50,
      execute: async (_args, ctx) => waitForAbort(ctx),
    }),
    defineTool({
      name: 'stubborn',
      description: 'ignores its signal and never finishes',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      timeoutMs: 30,
      execute: () => new Promise<string>(() => {}),
    }),
    defineTool({
      name: 'cancellable',
      description: 'waits for the user to cancel',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async (_args, ctx) => waitForAbort(ctx),
    }),
  ];
}

function setup(): { registry: ToolRegistry; seen: { signal?: AbortSignal; stopped?: boolean } } {
  const seen: { signal?: AbortSignal; stopped?: boolean } = {};
  const registry = new ToolRegistry();
  registry.registerAll([...builtinTools(), ...testTools(seen)]);
  return { registry, seen };
}

describe('runTool', () => {
  it('runs a valid call', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('echo', { text: 'hi', times: 3 }), makeCtx('/tmp'));
    expect(r).toEqual({ output: 'hihihi', isError: false, status: 'ok' });
  });

  it('answers unparseable JSON arguments with the detail and the expected schema', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('echo', {}, 'Unexpected token } at 14'), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    expect(r.isError).toBe(true);
    expect(r.output).toBe(
      '[ERROR] Invalid JSON arguments for echo: Unexpected token } at 14\n' +
        "Hint: resend the call with arguments as one valid JSON object matching the tool's schema; " +
        'expected parameters: text (string, required), times (integer)',
    );
  });

  it('suggests real names for an unknown tool', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('read_fil', { path: 'x' }), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    expect(r.output.split('\n')[0]).toMatch(
      /^\[ERROR\] Unknown tool "read_fil"\. Did you mean: read_file(, [a-z_]+)*\?$/,
    );
  });

  it('suggests no far-off names: a few of the tools instead', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('nosuch', {}), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    const first = r.output.split('\n')[0]!;
    expect(first).toMatch(
      /^\[ERROR\] Unknown tool "nosuch"\. No tool has a similar name; the tools are: [a-z_]+(, [a-z_]+)*/,
    );
    expect(first).toMatch(/, … \(\d+ in all\)\.$/);
    expect(first).not.toContain('Did you mean');
  });

  it('reports every validation problem with its path and shows the parameters', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('echo', { text: 5, times: 0 }), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    const [first, hint] = r.output.split('\n');
    expect(first).toMatch(/^\[ERROR\] Invalid arguments for echo: text: .*expected string.*; times: .*>=1/);
    expect(hint).toBe('Hint: expected parameters: text (string, required), times (integer)');
    const missing = await runTool(registry, call('read_file', { file_path: 'a.txt' }), makeCtx('/tmp'));
    expect(missing.output).toMatch(
      /^\[ERROR\] Invalid arguments for read_file: path: required, expected string/,
    );
    expect(missing.output).toContain(
      'Hint: expected parameters: path (string, required), offset (integer), limit (integer)',
    );
  });

  it('turns a ToolError into message plus its hint', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('fail_hint'), makeCtx('/tmp'));
    expect(r).toEqual({
      output: '[ERROR] the widget is jammed\nHint: unjam it with the lever',
      isError: true,
      status: 'error',
    });
  });

  it('adds the ENOENT hint to a raw Node error and never leaks a stack', async () => {
    const { registry } = setup();
    const dir = await tempDir();
    const r = await runTool(registry, call('read_missing', { path: 'nope.txt' }), makeCtx(dir));
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^\[ERROR\] ENOENT: no such file or directory, open '.*nope\.txt'\n/);
    expect(r.output).toContain(
      'Hint: the path does not exist; list the directory or use glob to find the right path',
    );
    expect(r.output).not.toMatch(/\n\s+at /);
  });

  it('survives a thrown non-Error and prefixes soft errors, keeping images', async () => {
    const { registry } = setup();
    const thrown = await runTool(registry, call('throw_string'), makeCtx('/tmp'));
    expect(thrown.output).toBe('[ERROR] plain string failure');
    const soft = await runTool(registry, call('soft_error'), makeCtx('/tmp'));
    expect(soft.status).toBe('error');
    expect(soft.output).toBe('[ERROR] the thing failed softly');
    expect(soft.images).toEqual([{ type: 'image', mediaType: 'image/png', data: 'AAAA' }]);
  });

  it('times out using the tool timeoutMs and aborts the signal it passed', async () => {
    const { registry, seen } = setup();
    const r = await runTool(registry, call('slow'), makeCtx('/tmp'));
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^\[ERROR\] slow timed out after 0\.05s\nHint: the command took too long/);
    expect(r.output).toContain('partial work');
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.stopped).toBe(true);
  });

  it('gives up on a tool that ignores its signal after the grace period', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('stubborn'), makeCtx('/tmp'), { abortGraceMs: 20 });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(/^\[ERROR\] stubborn timed out after 0\.03s/);
  });

  it('reports cancellation by the user, before and during the call', async () => {
    const { registry, seen } = setup();
    const before = new AbortController();
    before.abort();
    const early = await runTool(
      registry,
      call('echo', { text: 'x' }),
      makeCtx('/tmp', { signal: before.signal }),
    );
    expect(early.status).toBe('cancelled');
    expect(early.output).toMatch(/^\[CANCELLED\] echo was cancelled before it started/);

    const during = new AbortController();
    const pending = runTool(registry, call('cancellable'), makeCtx('/tmp', { signal: during.signal }));
    setTimeout(() => during.abort(), 20);
    const r = await pending;
    expect(r.status).toBe('cancelled');
    expect(r.isError).toBe(true);
    expect(r.output).toBe('[CANCELLED] cancellable was cancelled by the user\npartial work');
    expect(seen.stopped).toBe(true);
    // The tool got a combined signal, not the caller's own.
    expect(seen.signal).not.toBe(during.signal);
  });

  it('truncates long output head+tail at maxOutputChars', async () => {
    const { registry } = setup();
    const r = await runTool(registry, call('echo', { text: 'abcdefghi\n', times: 10_000 }), makeCtx('/tmp'), {
      maxOutputChars: 1000,
    });
    expect(r.status).toBe('ok');
    expect(r.output.length).toBeLessThanOrEqual(1000);
    expect(r.output).toMatch(/^abcdefghi\n/);
    expect(r.output).toMatch(/… \[\d+ lines \/ \d+ chars omitted\] …/);
    const dflt = await runTool(
      registry,
      call('echo', { text: 'abcdefghi\n', times: 10_000 }),
      makeCtx('/tmp'),
    );
    expect(dflt.output.length).toBeLessThanOrEqual(30_000);
    expect(dflt.output.length).toBeGreaterThan(29_000);
  });
});
