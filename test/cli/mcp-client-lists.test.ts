/**
 * A small MCP server built with the SDK (test/fixtures/mcp-features-server.mjs) driven
 * through `tea -p`: a tool that changes the server's tool list (list_changed), and
 * its resources and prompts through the model's mcp_resource and mcp_prompt tools.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'mcp-features-server.mjs');
const SERVER = `mcp_servers:\n  feat: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}] }\n`;
const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS + SERVER });

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work, input: '' });

function toolResults(i: number): string[] {
  return wireMessages(t.server.requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map((m) => wireText(m));
}

beforeEach(async () => {
  const r = await tea(['mcp', 'tools', 'feat']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toContain('doomed');
  expect(r.stdout).not.toMatch(/^grown/m);
});

describe('tools/list_changed', () => {
  it('a tool added during the turn can be called next; a removed one is gone, and the cache follows', async () => {
    t.server.script(
      reply().toolCall('mcp__feat__grow', {}),
      reply().toolCall('mcp__feat__grown', {}),
      reply().toolCall('mcp__feat__doomed', {}),
      reply().text('done'),
    );
    const r = await tea(['-p', 'grow it', '--yolo']);
    expect(r.code, r.stderr).toBe(0);
    expect(toolResults(1)).toEqual(['grew']);
    expect(toolResults(2)[1]).toBe('grown works');
    expect(toolResults(3)[2]).toMatch(/unknown tool.*mcp__feat__doomed/i);
    const list = await tea(['mcp', 'list']);
    expect(list.stdout).toMatch(/^feat\s+stdio\s+enabled\s+tools: 6\b/m);
  });
});

describe('elicitation where nobody can answer', () => {
  it('declines by default; mcp_elicitation.unattended: defaults accepts a form whose required fields all have defaults', async () => {
    const script = () =>
      t.server.script(
        reply().toolCall('mcp__feat__confirm_defaults', {}),
        reply().toolCall('mcp__feat__ask_defaults', {}),
        reply().text('done'),
      );
    script();
    const declined = await tea(['-p', 'confirm', '--yolo']);
    expect(declined.code, declined.stderr).toBe(0);
    expect(toolResults(2)).toEqual([
      'elicitation: {"action":"decline"}',
      'elicitation: {"action":"decline"}',
    ]);
    expect(declined.stderr).toContain('MCP server "feat" asked for input');

    t.server.reset();
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      `${NO_MEMORY_JOBS}${SERVER}mcp_elicitation:\n  unattended: defaults\n`,
    );
    script();
    const accepted = await tea(['-p', 'confirm', '--yolo']);
    expect(accepted.code, accepted.stderr).toBe(0);
    const [first, second] = toolResults(2);
    expect(JSON.parse(first!.replace(/^elicitation: /, ''))).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
    // `name` is required and has no default: still declined.
    expect(second).toBe('elicitation: {"action":"decline"}');
  });
});

describe('resources and prompts for the model', () => {
  it('mcp_resource lists and reads; mcp_prompt lists and fills in', async () => {
    t.server.script(
      reply().toolCall('mcp_resource', { action: 'list' }),
      reply().toolCall('mcp_resource', { action: 'read', server: 'feat', uri: 'note://topics/tea' }),
      reply().toolCall('mcp_prompt', { action: 'list', server: 'feat' }),
      reply().toolCall('mcp_prompt', {
        action: 'get',
        server: 'feat',
        name: 'review',
        arguments: { file: 'src/a.ts' },
      }),
      reply().toolCall('mcp_resource', { action: 'read', server: 'nope', uri: 'x://y' }),
      reply().text('done'),
    );
    const r = await tea(['-p', 'what do the servers offer?']);
    expect(r.code, r.stderr).toBe(0);
    const results = toolResults(5);
    expect(results[0]).toContain('- note://hello (hello, text/plain): A greeting note');
    expect(results[0]).toContain('- template note://topics/{name} (topic): A note about one topic');
    expect(results[1]).toBe('all about tea');
    expect(results[2]).toContain('- review(file): Review a file');
    expect(results[3]).toBe('user: Please review src/a.ts carefully.');
    expect(results[4]).toContain('no MCP server named "nope"');
  });
});
