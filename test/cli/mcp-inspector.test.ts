/**
 * The MCP inspector's CLI (`mcp-inspector-cli --cli`, 1.0.3) against the built
 * `tea mcp serve`, over stdio, streamable HTTP and the legacy SSE transport: tools,
 * resources and prompts, listed and used.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, TEA_BIN } from '../support/cli.js';
import { installFixtures } from './mcp-fixtures.js';
import { startMcpHttp } from './mcp-http.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const INSPECTOR = path.join(ROOT, 'node_modules', '.bin', 'mcp-inspector-cli');

let ctx: CliEnv;
let server: Awaited<ReturnType<typeof startMcpHttp>>;
beforeAll(async () => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\n');
  await installFixtures(ctx.home, ctx.work);
  server = await startMcpHttp(ctx.env, ['--cwd', ctx.work, '--permission-mode', 'read-only']);
}, 60_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  ctx.cleanup();
});

type Target = () => string[];
const TARGETS: Array<[string, Target]> = [
  [
    'stdio',
    () => [
      '-e',
      `TEA_HOME=${ctx.home}`,
      '-e',
      'OLLAMA_HOST=http://127.0.0.1:9',
      '--cli',
      process.execPath,
      TEA_BIN,
      'mcp',
      'serve',
      '--cwd',
      ctx.work,
      '--permission-mode',
      'read-only',
    ],
  ],
  ['streamable HTTP', () => ['--cli', server.url, '--transport', 'http']],
  ['legacy SSE', () => ['--cli', server.url.replace(/\/mcp$/, '/sse'), '--transport', 'sse']],
];

async function inspect(target: Target, args: string[]): Promise<Record<string, unknown>> {
  // The inspector finds its own package.json through "../package.json" of the working
  // directory (a quirk of 1.0.3): run it one level below the repository root.
  const { stdout } = await run(INSPECTOR, [...target(), ...args], {
    cwd: path.join(ROOT, 'test'),
    env: { PATH: process.env.PATH, HOME: ctx.env.HOME, NO_COLOR: '1' },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.each(TARGETS)('the MCP inspector CLI over %s', (_name, target) => {
  it('lists and calls tools', async () => {
    const listed = (await inspect(target, ['--method', 'tools/list'])) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['read_file', 'test_simple_text']),
    );
    const called = await inspect(target, [
      '--method',
      'tools/call',
      '--tool-name',
      'read_file',
      '--tool-arg',
      'path=notes.txt',
    ]);
    expect(called).toMatchObject({ isError: false, content: [{ type: 'text' }] });
    expect(JSON.stringify(called)).toContain('first line');
  });

  it('lists and reads resources', async () => {
    const listed = (await inspect(target, ['--method', 'resources/list'])) as {
      resources: Array<{ uri: string }>;
    };
    const notes = pathToFileURL(path.join(ctx.work, 'notes.txt')).href;
    expect(listed.resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['tea://memories', notes]));
    const read = await inspect(target, ['--method', 'resources/read', '--uri', notes]);
    expect(read).toEqual({ contents: [{ uri: notes, mimeType: 'text/plain', text: 'first line\n' }] });
  });

  it('lists and gets prompts', async () => {
    const listed = (await inspect(target, ['--method', 'prompts/list'])) as {
      prompts: Array<{ name: string }>;
    };
    expect(listed.prompts.map((p) => p.name)).toEqual([
      'test_prompt_with_arguments',
      'test_prompt_with_embedded_resource',
      'test_prompt_with_image',
      'test_simple_prompt',
    ]);
    const got = await inspect(target, [
      '--method',
      'prompts/get',
      '--prompt-name',
      'test_prompt_with_arguments',
      '--prompt-args',
      'arg1=hello',
      'arg2=world',
    ]);
    expect(got).toMatchObject({
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: "Prompt with arguments: arg1='hello', arg2='world'" },
        },
      ],
    });
  });
});
