/**
 * MCP in the terminal UI, against a small SDK server (test/fixtures/mcp-features-server.mjs):
 * `/mcp` lists servers with their tools, resources and prompts; `/mcp <server> <prompt>`
 * sends a filled-in prompt; a server's elicitation is asked like ask_user.
 */
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { startTui } from './harness.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'mcp-features-server.mjs');
const SERVER = `mcp_servers:\n  feat: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FIXTURE)}] }\n`;
const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n${SERVER}` });
const open = (args: string[] = []) =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args, rows: 40 });

beforeEach(async () => {
  const r = await runTea(['mcp', 'tools', 'feat'], { env: t.ctx.env, cwd: t.ctx.work });
  expect(r.code, r.stderr).toBe(0);
});

describe('/mcp', () => {
  it('lists the server, its tools, resources and prompts', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/mcp');
    tui.press('enter');
    await tui.waitForText('feat (stdio) — connected');
    const screen = tui.all();
    expect(screen).toMatch(/tools \(6\): .*grow/);
    expect(screen).toContain('note://hello hello — A greeting note');
    expect(screen).toContain('note://topics/{name} topic (template)');
    expect(screen).toContain('/mcp feat review file — Review a file');
    await tui.finish('mcp-list');
  });

  it('/mcp <server> <prompt> <args> sends the filled-in prompt; a missing argument is named', async () => {
    t.server.script(reply().text('Reviewed it.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/mcp feat review');
    tui.press('enter');
    await tui.waitForText('Prompt "review" needs file: /mcp feat review file=…');
    tui.type('/mcp feat review src/a.ts');
    tui.press('enter');
    await tui.waitForText('Reviewed it.');
    const sent = wireMessages(t.server.requests[0]!.body).filter((m) => m.role === 'user');
    expect(wireText(sent.at(-1)!)).toContain('Please review src/a.ts carefully.');
    await tui.finish('mcp-prompt');
  });
});

describe('elicitation in the terminal UI', () => {
  it("is asked field by field; a blank answer keeps the field's default", async () => {
    t.server.script(reply().toolCall('mcp__feat__ask_defaults', {}), reply().text('Thanks, Ada.'));
    const tui = open(['--yolo']);
    await tui.waitForText('scripted-model');
    tui.type('ask me');
    tui.press('enter');
    await tui.waitForText('MCP server "feat" asks: Tell me about you');
    expect(tui.screen()).toContain('Fill in');
    expect(tui.screen()).not.toContain('Accept defaults');
    tui.press('enter');
    await tui.waitForText('asks for name');
    tui.type('Ada');
    tui.press('enter');
    await tui.waitForText('asks for age');
    tui.press('enter');
    await tui.waitForText('asks for status');
    tui.press('down');
    tui.press('enter');
    await tui.waitForText('Thanks, Ada.');
    const results = wireMessages(t.server.requests[1]!.body).filter((m) => m.role === 'tool');
    const text = wireText(results[0]!);
    expect(text).toContain('"action":"accept"');
    expect(JSON.parse(text.replace(/^elicitation: /, '')).content).toEqual({
      name: 'Ada',
      age: 30,
      status: 'inactive',
    });
    await tui.finish('mcp-elicitation');
  });
});

describe('URL elicitation in the terminal UI', () => {
  it('asks the user to open the page; "Opened it" accepts, "Decline" declines', async () => {
    t.server.script(
      reply().toolCall('mcp__feat__open_page', {}),
      reply().toolCall('mcp__feat__open_page', {}),
      reply().text('Both asked.'),
    );
    const tui = open(['--yolo']);
    await tui.waitForText('scripted-model');
    tui.type('sign me in');
    tui.press('enter');
    await tui.waitForText('MCP server "feat" asks you to open https://example.com/login');
    tui.press('enter');
    await tui.waitForText('Opened it');
    await tui.waitForText(/asks you to open[\s\S]*asks you to open/);
    tui.press('down');
    tui.press('enter');
    await tui.waitForText('Both asked.');
    const results = wireMessages(t.server.requests[2]!.body)
      .filter((m) => m.role === 'tool')
      .map((m) => wireText(m));
    expect(results).toEqual(['url elicitation: accept', 'url elicitation: decline']);
    await tui.finish('mcp-url-elicitation');
  });
});

describe('sampling in the terminal UI', () => {
  it("asks for approval like a tool call; once allowed, the session's model answers the server", async () => {
    t.server.script(
      reply().toolCall('mcp__feat__summarize', {}),
      reply().text('Tea: a drink.'),
      reply().text('The server has its summary.'),
    );
    const tui = open(['--allow', 'mcp__feat__summarize']);
    await tui.waitForText('scripted-model');
    tui.type('summarize via the server');
    tui.press('enter');
    await tui.waitForText('Allow mcp_sampling');
    expect(tui.screen()).toContain('Summarize: tea is a drink.');
    tui.type('y');
    await tui.waitForText('The server has its summary.');
    const sampling = wireMessages(t.server.requests[1]!.body);
    expect(wireText(sampling.at(-1)!)).toBe('Summarize: tea is a drink.');
    const results = wireMessages(t.server.requests[2]!.body).filter((m) => m.role === 'tool');
    expect(wireText(results[0]!)).toBe('sampled: Tea: a drink. (scripted-model)');
    await tui.finish('mcp-sampling');
  });
});
