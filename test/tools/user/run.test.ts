/**
 * A user tool runs like a built-in one: its arguments are validated by its own zod
 * schema, a thrown error or `{ isError: true }` becomes `[ERROR] …`, a long output is
 * cut, the time limit stops it, and a wrong return value is named.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { type RunToolOptions, runTool } from '../../../src/tools/run.js';
import { registerUserTools } from '../../../src/tools/user/register.js';
import { useTempDirs } from '../../store/helpers.js';
import { toolSource } from './helpers.js';

const tempDir = useTempDirs();
let registry: ToolRegistry;
let home: string;
let n = 0;

beforeEach(() => {
  home = path.join(tempDir(), 'home');
  mkdirSync(home);
  registry = new ToolRegistry();
  registerUserTools(registry, { home });
});

async function call(name: string, args: Record<string, unknown>, opts: RunToolOptions = {}): Promise<string> {
  const ctx = { cwd: home, sessionId: 's', callId: `c${++n}`, signal: new AbortController().signal };
  return (await runTool(registry, { type: 'tool-call', id: ctx.callId, name, args }, ctx, opts)).output;
}

async function make(body: string, parameters?: string): Promise<void> {
  const code = toolSource({ body, ...(parameters ? { parameters } : {}) });
  expect(await call('tool_create', { name: 'echo_words', code })).toMatch(/^Created/);
}

describe('creating a tool from a session with a fixed tool set (a sub-agent)', () => {
  it('registers it in the shared registry and says it is there for later sessions', async () => {
    const fixed = registry.subset(() => true);
    const ctx = {
      cwd: home,
      sessionId: 's',
      callId: 'sub1',
      signal: new AbortController().signal,
      tools: fixed,
    };
    const r = await runTool(
      fixed,
      {
        type: 'tool-call',
        id: 'sub1',
        name: 'tool_create',
        args: { name: 'echo_words', code: toolSource() },
      },
      ctx,
    );
    expect(r.output).toMatch(
      /\nIt is registered for sessions started from now on \(this session has a fixed set of tools\)\./,
    );
    expect(fixed.has('echo_words')).toBe(false);
    expect(registry.has('echo_words')).toBe(true);
  });
});

describe('running a user tool', () => {
  it('validates arguments with its own schema and hands run the context', async () => {
    await make("return ctx.cwd + ' ' + args.text;");
    expect(await call('echo_words', { text: 'hi' })).toBe(`${home} hi`);
    expect(await call('echo_words', { text: 3 })).toMatch(
      /^\[ERROR\] Invalid arguments for echo_words: text: expected string, received number\nHint: expected parameters: text \(string, required\)/,
    );
  });

  it('a thrown error, and { output, isError: true }, become [ERROR] results', async () => {
    await make(
      "if (args.text === 'throw') throw new Error('it broke'); return { output: 'bad input', isError: true };",
    );
    expect(await call('echo_words', { text: 'throw' })).toMatch(/^\[ERROR\] it broke/);
    expect(await call('echo_words', { text: 'x' })).toBe('[ERROR] bad input');
  });

  it('a return value that is neither a string nor { output } is named', async () => {
    await make('return 42 as any;');
    expect(await call('echo_words', { text: 'x' })).toBe(
      "[ERROR] echo_words returned number\nHint: a tool's run must return a string or { output, isError?, images?, audio?, resources? }",
    );
  });

  it('may return images; a bad one is refused with what is wrong', async () => {
    await make("return { output: 'a pixel', images: [{ data: 'iVBORw0KGgo=', mediaType: 'image/png' }] };");
    const ctx = { cwd: home, sessionId: 's', callId: `c${++n}`, signal: new AbortController().signal };
    const r = await runTool(
      registry,
      { type: 'tool-call', id: ctx.callId, name: 'echo_words', args: { text: 'x' } },
      ctx,
    );
    expect(r.output).toBe('a pixel');
    expect(r.images).toEqual([{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }]);
  });

  it.each([
    [
      "[{ data: 'AAAA', mediaType: 'text/html' }]",
      'images[0].mediaType must be image/png, image/jpeg, image/gif or image/webp',
    ],
    ["[{ data: 'not base64!', mediaType: 'image/png' }]", 'images[0].data must be base64'],
    ["'one'", 'not a list of at most 16 images'],
  ])('refuses images %s', async (images, why) => {
    await make(`return { output: 'x', images: ${images} } as any;`);
    expect(await call('echo_words', { text: 'x' })).toContain(
      `[ERROR] echo_words returned bad images: ${why}`,
    );
  });

  it('may return audio and embedded resources, kept in order as parts', async () => {
    await make(
      "return { output: 'both', audio: [{ data: 'UklGRg==', mediaType: 'audio/wav' }], resources: [{ uri: 'notes://a', mimeType: 'text/plain', text: 'A' }, { uri: 'notes://b', blob: 'AAE=' }] };",
    );
    const ctx = { cwd: home, sessionId: 's', callId: `c${++n}`, signal: new AbortController().signal };
    const r = await runTool(
      registry,
      { type: 'tool-call', id: ctx.callId, name: 'echo_words', args: { text: 'x' } },
      ctx,
    );
    expect(r.output).toBe('both');
    expect(r.audio).toEqual([{ type: 'audio', mediaType: 'audio/wav', data: 'UklGRg==' }]);
    expect(r.resources).toEqual([
      { type: 'resource', uri: 'notes://a', mimeType: 'text/plain', text: 'A' },
      { type: 'resource', uri: 'notes://b', blob: 'AAE=' },
    ]);
  });

  it.each([
    [
      "audio: [{ data: 'AAAA', mediaType: 'image/png' }]",
      'bad audio: audio[0].mediaType must be an audio type',
    ],
    ["audio: [{ data: '', mediaType: 'audio/wav' }]", 'bad audio: audio[0].data must be base64'],
    [
      "resources: [{ uri: 'no scheme', text: 'x' }]",
      'bad resources: resources[0] uri must be a URI with a scheme',
    ],
    [
      "resources: [{ uri: 'a://b', text: 'x', blob: 'AA==' }]",
      'bad resources: resources[0] has both text and blob',
    ],
    ["resources: [{ uri: 'a://b' }]", 'bad resources: resources[0] needs text (a string) or blob'],
    [
      "resources: [{ uri: 'a://b', mimeType: 'not a type', text: 'x' }]",
      'bad resources: resources[0] mimeType must be a media type',
    ],
    ["resources: 'x'", 'bad resources: not a list of at most 16 resources'],
  ])('refuses %s', async (field, why) => {
    await make(`return { output: 'x', ${field} } as any;`);
    expect(await call('echo_words', { text: 'x' })).toContain(`[ERROR] echo_words returned ${why}`);
  });

  it('a long output is cut head and tail like any tool', async () => {
    await make("return 'a'.repeat(50_000) + 'END';");
    const out = await call('echo_words', { text: 'x' }, { maxOutputChars: 1000 });
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out).toMatch(/^a+/);
    expect(out).toMatch(/END$/);
  });

  it('the time limit stops a tool that does not finish, through its signal', async () => {
    await make(
      "await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve)); return 'stopped';",
    );
    expect(await call('echo_words', { text: 'x' }, { defaultTimeoutMs: 20 })).toMatch(
      /^\[ERROR\] echo_words timed out after /,
    );
  });
});
