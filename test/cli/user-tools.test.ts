/**
 * User tools through the built `tea`: `tea -p … --yolo` has the model write a tool in
 * one step and call it in the next; `tea tools user list|show|rm` and `tea tools list`
 * show it; a new process calls it (registered from its manifest). A turn that calls
 * no tool loads none of the user-tool code, and without --yolo, saving is refused
 * with the flags that would allow it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleCoverage } from '../support/bundle-coverage.js';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { toolSource } from '../tools/user/helpers.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const BUNDLE = path.resolve(path.dirname(TEA_BIN), '..', 'dist', 'tea.cjs');

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const lastToolResult = (i: number): string =>
  wireMessages(t.server.requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map(wireText)
    .at(-1)!;

async function createEchoWords(): Promise<void> {
  t.server.script(
    reply().toolCall('tool_create', { name: 'echo_words', code: toolSource({ keywords: ['words'] }) }),
    reply().toolCall('echo_words', { text: 'one two three' }),
    reply().text('Three words.'),
  );
  const r = await tea(['-p', 'count the words of "one two three" with a tool you write', '--yolo']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Three words.');
}

describe('tea and the tools the agent writes', () => {
  it('tea -p --yolo: created in step 1, called in step 2, listed, and called by a new process', async () => {
    await createEchoWords();
    expect(lastToolResult(1)).toMatch(/^Created echo_words 1\.0\.0 \(approval none\)/);
    expect(lastToolResult(2)).toBe('words: 3');

    const list = await tea(['tools', 'user', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^echo_words {2}1\.0\.0 {4}none {5}1 version {3}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {2}Counts the words of a text\.$/m,
    );
    const json = JSON.parse((await tea(['tools', 'user', 'list', '--json'])).stdout);
    expect(json).toEqual([
      expect.objectContaining({ name: 'echo_words', current: '1.0.0', versions: ['1.0.0'] }),
    ]);

    const all = await tea(['tools', 'list']);
    expect(all.stdout).toMatch(/^user\n {2}u echo_words +none +Counts the words of a text\.$/m);
    expect(all.stdout).toMatch(/u = a tool the agent wrote \(tea tools user list\)/);
    expect(all.stdout).toMatch(/^ {4}tool_create +exec +Write a new tool for yourself/m);

    const show = await tea(['tools', 'user', 'show', 'echo_words']);
    expect(show.stdout).toMatch(
      /^echo_words 1\.0\.0 \(current\)\nCounts the words of a text\.\n\napproval: none {3}code needs: none\n/,
    );
    expect(show.stdout).toContain(toolSource({ keywords: ['words'] }));

    t.server.reset();
    t.server.script(reply().toolCall('echo_words', { text: 'a b' }), reply().text('Two.'));
    const again = await tea(['-p', 'count a b with echo_words', '--yolo']);
    expect(again.code).toBe(0);
    expect(lastToolResult(1)).toBe('words: 2');
  });

  it('a turn that calls no tool evaluates none of the user-tool code, with a user tool installed', async () => {
    await createEchoWords();
    t.server.reset();
    t.server.script(reply().text('Hello!'));
    const cov = mkdtempSync(path.join(os.tmpdir(), 'tea-cov-'));
    dirs.push(cov);
    const r = await runTea(['-p', 'hello'], {
      env: { ...t.ctx.env, NODE_V8_COVERAGE: cov },
      cwd: t.ctx.work,
    });
    expect(r.code).toBe(0);
    const c = bundleCoverage(cov, BUNDLE);
    const user = (set: Set<string>) => [...set].filter((s) => s.startsWith('src/tools/user/')).sort();
    expect(user(c.present)).toContain('src/tools/user/load.ts');
    // Registered by its manifest only: no loader, checker, compiler or node:vm.
    expect(user(c.ran).filter((s) => !/(register|entries|manifest|info|classes)\.ts$/.test(s))).toEqual([]);
    expect(c.builtins).not.toContain('node:crypto');
    // The first request still holds the core tools alone as schemas, user tools by name.
    const body = t.server.requests[0]!.body as { tools: unknown[] };
    expect(body.tools).toHaveLength(7);
    expect(JSON.stringify(body)).toContain('echo_words');
  });

  it('rm removes a tool with every version; show and rm name a tool that is not there', async () => {
    await createEchoWords();
    const home = t.ctx.home;
    const rm = await tea(['tools', 'user', 'rm', 'echo_words']);
    expect(rm.stdout).toBe('Removed echo_words (1 version).\n');
    expect(existsSync(path.join(home, 'tools', 'echo_words'))).toBe(false);
    expect((await tea(['tools', 'user', 'list'])).stdout).toMatch(/^No user tools in /);
    // A damaged tool is listed as a problem and can still be removed.
    mkdirSync(path.join(home, 'tools', 'broken_one'), { recursive: true });
    writeFileSync(path.join(home, 'tools', 'broken_one', 'manifest.json'), '{');
    const listed = await tea(['tools', 'user', 'list']);
    expect(listed.stderr).toMatch(
      /tea: warning: the tool broken_one cannot be read: its manifest is not JSON/,
    );
    const gone = await tea(['tools', 'user', 'rm', 'broken_one']);
    expect(gone.stdout).toMatch(/^Removed broken_one \(it could not be read: .*its manifest is not JSON/);
    expect(existsSync(path.join(home, 'tools', 'broken_one'))).toBe(false);
    for (const args of [
      ['show', 'echo_words'],
      ['rm', '../tea.db'],
      ['show', '../../etc'],
    ]) {
      const r = await tea(['tools', 'user', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/no user tool ".*" \(tea tools user list shows them\)/);
    }
  });

  it('show --version shows an older version; an unknown one lists the saved ones; rollback makes one current', async () => {
    t.server.script(
      reply().toolCall('tool_create', { name: 'echo_words', code: toolSource() }),
      reply().toolCall('tool_update', { name: 'echo_words', code: toolSource({ body: "return 'v2';" }) }),
      reply().text('ok'),
    );
    expect((await tea(['-p', 'go', '--yolo'])).code).toBe(0);
    const v1 = await tea(['tools', 'user', 'show', 'echo_words', '--version', '1.0.0']);
    expect(v1.stdout).toMatch(/^echo_words 1\.0\.0 \(current: 1\.0\.1\)/);
    expect(v1.stdout).toContain("return 'words: '");
    const bad = await tea(['tools', 'user', 'show', 'echo_words', '--version', '9.9.9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/echo_words has no version "9\.9\.9" \(saved: 1\.0\.0, 1\.0\.1\)/);

    // The person can roll back too: the next run calls 1.0.0's code.
    const back = await tea(['tools', 'user', 'rollback', 'echo_words', '1.0.0']);
    expect(back.stdout).toMatch(/^echo_words 1\.0\.0 is current \(was 1\.0\.1\)/);
    expect((await tea(['tools', 'user', 'show', 'echo_words'])).stdout).toMatch(
      /^echo_words 1\.0\.0 \(current\)/,
    );
    t.server.script(reply().toolCall('echo_words', { text: 'a b' }), reply().text('done'));
    expect((await tea(['-p', 'count', '--yolo'])).code).toBe(0);
    expect(JSON.stringify(t.server.requests.at(-1)!.body)).toContain('words: 2');
    for (const [args, message] of [
      [['rollback', 'echo_words', '9.9.9'], /has no version 9\.9\.9 \(saved: 1\.0\.0, 1\.0\.1\)/],
      [['rollback', 'echo_words', '../x'], /is not a version/],
      [['rollback', 'nope', '1.0.0'], /no user tool "nope"/],
    ] as const) {
      const r = await tea(['tools', 'user', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('without --yolo, tea -p refuses to save a tool and says which flags would allow it', async () => {
    t.server.script(
      reply().toolCall('tool_create', { name: 'echo_words', code: toolSource() }),
      reply().text('I could not save it.'),
    );
    const r = await tea(['-p', 'write a tool']);
    // 5: the turn finished, but tool calls were refused.
    expect(r.code).toBe(5);
    expect(lastToolResult(1)).toMatch(
      /^\[DENIED\] tool_create \(echo_words\) needs the user's approval, and nobody can approve in this run\.\nHint: .*--allow 'tool_create:echo_words\*' or --yolo\./,
    );
    expect(existsSync(path.join(t.ctx.home, 'tools'))).toBe(false);
    expect(readFileSync(path.join(t.ctx.home, 'config.yaml'), 'utf8')).toBe(NO_MEMORY_JOBS);
  });
});
