/**
 * Images in tool results reach the model: `tea -p` with the model reading a PNG
 * (read_file) or calling an MCP tool that returns an image, on both wires; a
 * text-only model gets the text description instead; a resumed session sends the
 * image again.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, NO_MEMORY_JOBS, runTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { type WireMessage, wireMessages } from '../support/wire.js';
import { EVERYTHING_JS } from '../tools/mcp/peers.js';

/** A real 1x1 red PNG (70 bytes). */
const RED_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

let server: ModelServer;
let ctx: CliEnv;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());
afterEach(() => ctx.cleanup());

/** A fresh home and workspace (with red.png) for `tea` on the OpenAI wire, or on Anthropic's. */
function setUp(model: string, opts: { wire?: 'openai' | 'anthropic'; config?: string } = {}): void {
  const wire =
    opts.wire === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseUrl }
      : { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.openaiBaseUrl };
  ctx = cliEnv({ ...wire, TEA_MODEL: model });
  writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}${opts.config ?? ''}`);
  writeFileSync(path.join(ctx.work, 'red.png'), Buffer.from(RED_PNG, 'base64'));
}

const tea = (...args: string[]) => runTea(args, { env: ctx.env, cwd: ctx.work });

/** The messages of the i-th recorded request on the OpenAI wire. */
const sent = (i: number): WireMessage[] => wireMessages(server.requests[i]!.body);

/** The user message right after the tool message of `callId` (OpenAI wire). */
function afterTool(messages: WireMessage[], callId: string): WireMessage | undefined {
  const at = messages.findIndex((m) => m.role === 'tool' && m.tool_call_id === callId);
  expect(at, `a tool message for ${callId}`).toBeGreaterThanOrEqual(0);
  return messages[at + 1];
}

describe('tea -p: an image read by read_file reaches the model', () => {
  it('OpenAI wire: a user message with the image right after the tool message; again after --continue', async () => {
    setUp('gpt-4o');
    server.script(
      reply().toolCall('read_file', { path: 'red.png' }, { id: 'call_png' }),
      reply().text('A red pixel.'),
      reply().text('Still red.'),
    );
    const r = await tea('-p', 'what is in red.png?');
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('A red pixel.\n');
    const tool = sent(1).find((m) => m.role === 'tool');
    expect(tool).toEqual({
      role: 'tool',
      tool_call_id: 'call_png',
      content: 'image red.png (1x1, 70 bytes)',
    });
    expect(afterTool(sent(1), 'call_png')).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[Image returned by the read_file call call_png]' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${RED_PNG}` } },
      ],
    });

    // The stored session keeps the image: the next turn sends it again.
    const next = await tea('-p', 'and now?', '--continue');
    expect(next.stdout).toBe('Still red.\n');
    expect(afterTool(sent(2), 'call_png')?.content).toContainEqual({
      type: 'image_url',
      image_url: { url: `data:image/png;base64,${RED_PNG}` },
    });
  });

  it('Anthropic wire: the tool_result holds the text and an image block', async () => {
    setUp('claude-sonnet-4-5', { wire: 'anthropic' });
    server.script(
      reply().toolCall('read_file', { path: 'red.png' }, { id: 'toolu_png' }),
      reply().text('A red pixel.'),
    );
    const r = await tea('-p', 'what is in red.png?');
    expect(r.stdout).toBe('A red pixel.\n');
    const req = server.requests[1]!;
    expect(req.wire).toBe('anthropic');
    const messages = req.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const results = messages.flatMap((m) => m.content.filter((b) => b.type === 'tool_result'));
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_png',
        is_error: false,
        content: [
          { type: 'text', text: 'image red.png (1x1, 70 bytes)' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: RED_PNG } },
        ],
      },
    ]);
  });

  it('a text-only model gets the text description, not the image; config can say it takes images', async () => {
    // An unknown model behind an OpenAI-compatible server is taken for text-only.
    setUp('scripted-model');
    server.script(
      reply().toolCall('read_file', { path: 'red.png' }, { id: 'call_txt' }),
      reply().text('I cannot see it.'),
    );
    expect((await tea('-p', 'what is in red.png?')).code).toBe(0);
    const body = JSON.stringify(server.requests[1]!.body);
    expect(body).not.toContain(RED_PNG);
    expect(body).not.toContain('image_url');
    const tool = sent(1).find((m) => m.role === 'tool');
    expect(tool?.content).toBe(
      'image red.png (1x1, 70 bytes)\n[1 image not shown: scripted-model does not take images]',
    );
    expect(afterTool(sent(1), 'call_txt')).toBeUndefined();

    ctx.cleanup();
    server.reset();
    setUp('scripted-model', { config: 'models:\n  scripted-model: { images: true }\n' });
    server.script(
      reply().toolCall('read_file', { path: 'red.png' }, { id: 'call_vis' }),
      reply().text('A red pixel.'),
    );
    expect((await tea('-p', 'what is in red.png?')).code).toBe(0);
    expect(JSON.stringify(afterTool(sent(1), 'call_vis'))).toContain(`data:image/png;base64,${RED_PNG}`);
  });
});

describe('tea -p: an image from an MCP tool reaches the model', () => {
  it('server-everything get-tiny-image: the image follows the tool message', async () => {
    const config = [
      'mcp_servers:',
      `  everything: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_JS)}, stdio] }`,
      '',
    ].join('\n');
    setUp('gpt-4o', { config });
    // Lists (and caches) the server's tools, so the bridge tools exist from the start.
    expect((await tea('mcp', 'tools', 'everything')).stdout).toMatch(/^get-tiny-image\s/m);
    server.script(
      reply().toolCall('mcp__everything__get-tiny-image', {}, { id: 'call_mcp' }),
      reply().text('The MCP logo.'),
    );
    const r = await tea('-p', 'show me the tiny image');
    expect(r.stdout).toBe('The MCP logo.\n');
    const tool = sent(1).find((m) => m.role === 'tool');
    expect(tool?.content).toContain("Here's the image you requested:");
    const follow = afterTool(sent(1), 'call_mcp');
    expect(follow?.role).toBe('user');
    const parts = follow?.content as Array<{ type: string; text?: string; image_url?: { url: string } }>;
    expect(parts[0]).toEqual({
      type: 'text',
      text: '[Image returned by the mcp__everything__get-tiny-image call call_mcp]',
    });
    expect(parts[1]?.image_url?.url).toMatch(/^data:image\/png;base64,iVBORw0KGgo[A-Za-z0-9+/]+=*$/);
  });
});
