import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../../src/config/read.js';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const SECRET = 'sk-live-abcdefghijklmnop-9876';
const t = useScriptedCli(SECRET);

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

async function newSession(prompt: string, answer: string): Promise<string> {
  t.server.script(reply().text(answer));
  const r = await tea(['-p', prompt, '--output-format', 'json']);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).session_id as string;
}

describe('tea sessions', () => {
  it('lists, shows and removes sessions', async () => {
    expect((await tea(['sessions', 'list'])).stdout).toMatch(/No sessions yet/);
    const a = await newSession('first task', 'answer one');
    const b = await newSession('second task', 'answer two');

    const list = await tea(['sessions', 'list']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(b.slice(0, 8));
    expect(lines[0]).toContain('second task');
    expect(lines[1]).toContain(a.slice(0, 8));

    const json = JSON.parse((await tea(['sessions', 'list', '--json'])).stdout);
    expect(json.sessions.map((s: { id: string }) => s.id)).toEqual([b, a]);
    expect(json).toMatchObject({ total: 2, more: 0 });

    const shown = await tea(['sessions', 'show', a.slice(0, 8)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`session ${a}`);
    expect(shown.stdout).toMatch(/\[1\] user:\nfirst task/);
    expect(shown.stdout).toMatch(/\[2\] assistant:\nanswer one/);

    const rm = await tea(['sessions', 'rm', a]);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toContain(`removed ${a}`);
    const after = JSON.parse((await tea(['sessions', 'list', '--json'])).stdout);
    expect(after.sessions.map((s: { id: string }) => s.id)).toEqual([b]);
  });

  it('says how many older sessions the limit left out, and the command that shows them', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4]) ids.push(await newSession(`task ${n}`, `answer ${n}`));
    const list = await tea(['sessions', 'list', '-n', '2']);
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('task 4');
    expect(lines[1]).toContain('task 3');
    expect(lines[2]).toBe('… 2 more, older (4 in all): tea sessions list -n 4');
    const all = await tea(['sessions', 'list', '-n', '4']);
    expect(all.stdout).not.toMatch(/more, older/);
    expect(all.stdout.trimEnd().split('\n')).toHaveLength(4);

    const json = JSON.parse((await tea(['sessions', 'list', '-n', '2', '--json'])).stdout);
    expect(json.sessions.map((s: { id: string }) => s.id)).toEqual([ids[3], ids[2]]);
    expect(json).toMatchObject({ total: 4, more: 2 });
    const here = await tea(['sessions', 'list', '--here', '-n', '3']);
    expect(here.stdout).toMatch(/^… 1 more, older \(4 in all\): tea sessions list --here -n 4$/m);
  });

  it('an unknown session id is a clear usage error', async () => {
    const r = await tea(['sessions', 'show', 'ffffffff']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/session not found/);
    const resume = await tea(['-p', 'x', '--resume', 'ffffffff']);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(/session not found/);
  });
});

describe('bad flags', () => {
  it('a bad value is one line naming the flag, the value and the allowed values (exit 2), without the help', async () => {
    const line = (command: string) =>
      `tea: option '--sandbox <mode>' argument 'bogus' is invalid: expected auto, on or off (see ${command} --help)\n`;
    for (const [args, command] of [
      [['--sandbox', 'bogus'], 'tea'],
      [['-p', 'hi', '--sandbox', 'bogus'], 'tea'],
      [['serve', '--sandbox', 'bogus'], 'tea serve'],
      [['acp', '--sandbox', 'bogus'], 'tea acp'],
      [['mcp', 'serve', '--sandbox', 'bogus'], 'tea mcp serve'],
    ] as const) {
      const r = await tea([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(line(command));
      expect(r.stdout, args.join(' ')).toBe('');
    }
    const mode = await tea(['-p', 'hi', '--permission-mode', 'nope']);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toBe(
      "tea: option '--permission-mode <mode>' argument 'nope' is invalid: expected read-only, ask, auto-edit or yolo (see tea --help)\n",
    );
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('tea config', () => {
  it('prints the effective config with the secret masked', async () => {
    const r = await tea(['config']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('scripted-model');
    expect(r.stdout).toContain(t.server.openaiBaseUrl);
    expect(r.stdout).not.toContain(SECRET);
    expect(r.stdout).toMatch(/9876/);
  });

  it('check validates and pings the model', async () => {
    t.server.script(reply().text('ok'));
    const r = await tea(['config', 'check']);
    expect(r.stdout).toMatch(/config: valid/);
    expect(r.stdout).toMatch(/main_model: ok \(scripted-model/);
    expect(r.code).toBe(0);
    expect(t.server.requests).toHaveLength(1);
  });

  it('check reports a model that does not answer and exits 1', async () => {
    t.server.script(reply().error(401, { message: 'invalid api key' }));
    const r = await tea(['config', 'check']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/main_model: FAILED/);
    expect(r.stdout).toMatch(/401/);
    expect(r.stdout).not.toContain(SECRET);
  });

  it('check on an invalid file names the file, the key and a fix', async () => {
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), 'agent:\n  max_iteratoins: 5\n');
    const r = await tea(['config', 'check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('tea-home/config.yaml');
    expect(r.stderr).toMatch(/max_iteratoins/);
    expect(r.stderr).toMatch(/max_iterations/);
  });

  // The built CLI reads YAML with the yaml package's ES module build and validates with
  // zod/mini (scripts/build.mjs): it must report what the sources report.
  it.each([
    ['a repeated key', 'agent:\n  max_iterations: 5\n  max_iterations: 6\n'],
    ['bad indentation', 'agent:\n  max_iterations: 5\n   auto_title: true\n'],
    ['a tab for indentation', 'agent:\n\tmax_iterations: 5\n'],
    ['a wrong type', 'agent:\n  max_iterations: many\n'],
    ['a value that fails a check', 'llm:\n  max_retries: -1\n'],
    ['an MCP server with both command and url', 'mcp_servers:\n  x:\n    command: a\n    url: http://h/\n'],
    ['a list at the top', '- a\n- b\n'],
  ])('check on %s reports what the sources report', async (_what, text) => {
    const file = path.join(t.ctx.home, 'config.yaml');
    writeFileSync(file, text);
    let expected = '';
    try {
      readConfigFile(file);
    } catch (err) {
      // From the file name on: the CLI writes the home as ~.
      expected = (err as Error).message.slice((err as Error).message.indexOf('config.yaml: '));
    }
    expect(expected).not.toBe('');
    const r = await tea(['config', 'check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(expected);
  });

  it('reads YAML values as the sources do (hex numbers, booleans)', async () => {
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      'agent:\n  max_iterations: 0x10\n  auto_title: false\n',
    );
    const r = await tea(['config']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/max_iterations: 16\n/);
    expect(r.stdout).toMatch(/auto_title: false\n/);
  });
});
