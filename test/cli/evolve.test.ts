/**
 * `tea evolve` through the built CLI: prompt versions reaching the first request of
 * `tea -p`, evolution on the scripted cheap model, refusals, the report on a seeded
 * store, and upkeep writing docs/TOOLS.md in (a copy of the shape of) Tea's repository.
 */

import { mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS } from '../../src/agent/prompt.js';
import { Store } from '../../src/store/index.js';
import { seedMemory, seedToolCall } from '../evolve/helpers.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { teaLayout } from '../support/tea-repo.js';
import { wireMessages, wireText } from '../support/wire.js';

const MINE = [
  'You are Tea Agent, from a file.',
  'Act with tools and verify every result.',
  'Never invent file contents, paths or results.',
].join('\n');
const DAY = 86_400_000;

describe('tea evolve', () => {
  const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
  const tea = (args: string[], input?: string) =>
    runTea(args, { env: t.ctx.env, cwd: t.ctx.work, ...(input === undefined ? {} : { input }) });

  /** The system message of `tea -p`'s first request. */
  async function firstSystem(): Promise<string> {
    t.server.script(reply().text('ok'));
    const before = t.server.requests.length;
    const r = await tea(['-p', 'hi']);
    expect(r.code, r.stderr).toBe(0);
    return wireText(wireMessages(t.server.requests[before]!.body)[0]!);
  }

  function seed(fn: (store: Store) => void): void {
    const store = Store.open(path.join(t.ctx.home, 'tea.db'));
    try {
      fn(store);
    } finally {
      store.close();
    }
  }

  it('set puts the text in the first request of tea -p; rollback brings the built-in text back', async () => {
    const list0 = await tea(['evolve', 'prompts', 'list', '--json']);
    expect(JSON.parse(list0.stdout)).toEqual([
      expect.objectContaining({ version: 1, status: 'active', source: 'builtin', stored: false }),
    ]);
    const file = path.join(t.ctx.work, 'prompt.md');
    writeFileSync(file, `${MINE}\n`);
    const set = await tea(['evolve', 'prompts', 'set', file, '--note', 'shorter']);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stderr).toMatch(/version 2 \(active, user, \d+ words\): shorter is now active/);
    const system = await firstSystem();
    expect(system.startsWith(`${MINE}\n\nWorking directory: `)).toBe(true);
    expect(system).not.toContain(BUILTIN_INSTRUCTIONS);

    const show = await tea(['evolve', 'prompts', 'show']);
    expect(show.stdout).toBe(`${MINE}\n`);
    expect(show.stderr).toMatch(/^version 2 \(active, user/);
    const diff = await tea(['evolve', 'prompts', 'diff', '1', '2']);
    expect(diff.stdout).toMatch(/^--- v1\n\+\+\+ v2\n@@/);
    expect(diff.stdout).toContain('+You are Tea Agent, from a file.');

    const back = await tea(['evolve', 'prompts', 'rollback']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toMatch(/version 1 \(active, builtin.*is active again \(was version 2\)/);
    expect(await firstSystem()).toContain(BUILTIN_INSTRUCTIONS);
    const list = await tea(['evolve', 'prompts', 'list']);
    expect(list.stdout).toMatch(/^\* 1 +active +builtin/m);
    expect(list.stdout).toMatch(/^ {2}2 +retired +user .* shorter$/m);
    // What goes back depends on the activated version's parent.
    const again = await tea(['evolve', 'prompts', 'set', '--promote', '2']);
    expect(again.stderr).toMatch(/was version 1; tea evolve prompts rollback goes back/);
    const first = await tea(['evolve', 'prompts', 'set', '--promote', '1']);
    expect(first.stderr).toMatch(/was version 2; tea evolve prompts set --promote 2 goes back/);
  });

  it('set reads piped stdin', async () => {
    const r = await tea(['evolve', 'prompts', 'set', '-'], MINE);
    expect(r.code, r.stderr).toBe(0);
    expect(await firstSystem()).toContain(MINE);
  });

  it('evolve stores the cheap model’s revision as a candidate that tea -p does not use until it is set', async () => {
    seed((s) =>
      seedMemory(s.db, {
        content: 'Said tests passed without running them.',
        category: 'lesson',
        at: Date.now() - DAY,
      }),
    );
    const revision = `${MINE}\nRun the tests before you say they pass.`;
    t.server.script(reply().text(revision));
    const r = await tea(['evolve', 'prompts', 'evolve']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+Run the tests before you say they pass.');
    expect(r.stderr).toMatch(/candidate version 2 \(candidate, evolve.*set --promote 2/);
    const asked = wireText(wireMessages(t.server.requests[0]!.body)[1]!);
    expect(asked).toContain('Said tests passed without running them.');

    expect(await firstSystem()).toContain(BUILTIN_INSTRUCTIONS);
    const promote = await tea(['evolve', 'prompts', 'set', '--promote', '2']);
    expect(promote.code, promote.stderr).toBe(0);
    expect(await firstSystem()).toContain('Run the tests before you say they pass.');
  });

  it('evolve with nothing to learn from asks no model', async () => {
    const r = await tea(['evolve', 'prompts', 'evolve']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/nothing to learn from yet/);
    expect(t.server.requests).toHaveLength(0);
  });

  it.each([
    [['show', 'abc'], 2, /"abc" is not a prompt version/],
    [['show', '99'], 2, /no prompt version 99: there is version 1/],
    [['diff', '1', 'x'], 2, /"x" is not a prompt version/],
    [['set', 'missing.md'], 2, /cannot read missing\.md: no such file/],
    [['set', 'p.md', '--promote', '2'], 2, /not both/],
    [['set', '--promote', 'two'], 2, /expected a prompt version number/],
    [['set', '--promote', '5'], 2, /no prompt version 5/],
    [['rollback'], 2, /built-in prompt and nothing came before it/],
    [['set', '-'], 1, /refused: .*tools/],
  ])('tea evolve prompts %j exits %i with a clear message', async (args, code, message) => {
    const r = await tea(['evolve', 'prompts', ...args], args[1] === '-' ? 'Just chat.' : undefined);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it('report shows tool usage, lessons, skills and prompt versions of a seeded store', async () => {
    const now = Date.now();
    seed((s) => {
      for (const ms of [5, 15, 10]) seedToolCall(s.db, { name: 'read_file', at: now - DAY, durationMs: ms });
      seedToolCall(s.db, { name: 'bash', at: now - DAY, status: 'error', durationMs: 2_500 });
      seedToolCall(s.db, { name: 'skill', at: now - DAY, args: { name: 'pdf-forms' } });
      seedToolCall(s.db, { name: 'bash', at: now - 60 * DAY });
      seedMemory(s.db, {
        content: 'Check the port is free before starting the server.',
        category: 'lesson',
        at: now - DAY,
      });
      seedMemory(s.db, { content: 'Not a lesson.', category: 'fact', at: now - DAY });
      // Task evaluations, as the experience job writes them after each prompt.
      s.sessions.create({ id: 'evaluated', cwd: t.ctx.work });
      for (const [seq, outcome] of [
        [1, 'succeeded'],
        [3, 'failed'],
        [5, 'succeeded'],
      ] as const)
        s.evaluations.add({ sessionId: 'evaluated', seq, input: `task ${seq}`, outcome, signals: {} });
    });
    const json = await tea(['evolve', 'report', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r.days).toBe(30);
    expect(r.tools).toEqual([
      expect.objectContaining({ name: 'read_file', calls: 3, errors: 0, median_ms: 10 }),
      expect.objectContaining({ name: 'bash', calls: 1, errors: 1, median_ms: 2500 }),
      expect.objectContaining({ name: 'skill', calls: 1 }),
    ]);
    expect(r.lessons.count).toBe(1);
    expect(r.skills).toEqual([expect.objectContaining({ name: 'pdf-forms', calls: 1 })]);
    expect(r.prompts.active).toMatchObject({ version: 1, source: 'builtin' });
    expect(r.evaluations).toEqual({ succeeded: 2, failed: 1, abandoned: 0 });
    expect(r.last_upkeep).toBeNull();

    const text = await tea(['evolve', 'report', '--days', '90']);
    expect(text.stdout).toMatch(/^Tea over the last 90 days/);
    expect(text.stdout).toMatch(/Tool usage: 6 calls, 1 errors, 0 denied/);
    expect(text.stdout).toMatch(/^ {2}bash +2 +1 +0 +1\.3 s$/m);
    expect(text.stdout).toMatch(/Failure lessons: 1\n {2}\d{4}-\d\d-\d\d {2}Check the port is free/);
    expect(text.stdout).toMatch(/Skills used: 1\n {2}pdf-forms: 1/);
    expect(text.stdout).toMatch(/Prompt: version 1 \(builtin, built in, \d+ words\)/);
    expect(text.stdout).toMatch(/Task evaluations: 2 succeeded, 1 failed, 0 abandoned/);
  });

  it("upkeep in Tea's repository writes docs/TOOLS.md, byte for byte the same next time, and flags unused tools and skills", async () => {
    const repo = t.ctx.work;
    mkdirSync(path.join(repo, '.git'));
    teaLayout(repo);
    writeFileSync(path.join(repo, 'package.json'), JSON.stringify({ name: 'tea-agent' }));
    const old = new Date(Date.now() - 60 * DAY);
    for (const [dir, file] of [
      ['tools/stale_tool', '1.ts'],
      ['tools/busy_tool', '1.ts'],
      ['skills/old-skill', 'SKILL.md'],
    ] as const) {
      const folder = path.join(t.ctx.home, dir);
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, file), 'x');
      utimesSync(path.join(folder, file), old, old);
      utimesSync(folder, old, old);
    }
    seed((s) => seedToolCall(s.db, { name: 'busy_tool', at: Date.now() - DAY }));

    const first = await tea(['evolve', 'upkeep']);
    expect(first.code, first.stderr).toBe(0);
    const file = path.join(repo, 'docs', 'TOOLS.md');
    expect(first.stdout).toContain(`tools reference ${file}: written`);
    expect(first.stdout).toMatch(/installed: 2 user tools, 1 skills; 2 unused:/);
    expect(first.stdout).toMatch(/^ {2}skill old-skill \(user, .*\): not loaded in the last 30 days/m);
    expect(first.stdout).toMatch(/^ {2}tool stale_tool \(user, .*\): not called in the last 30 days/m);
    expect(first.stdout).not.toMatch(/busy_tool \(/);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^# Tools\n/);
    for (const name of ['read_file', 'bash', 'memory', 'task', 'delegate_tasks'])
      expect(text).toContain(`### ${name}\n`);
    const mtime = statSync(file).mtimeMs;

    const second = await tea(['evolve', 'upkeep', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).reference).toMatchObject({ target: 'repo', status: 'unchanged' });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(statSync(file).mtimeMs).toBe(mtime);
    const report = await tea(['evolve', 'report']);
    expect(report.stdout).toMatch(/Last upkeep: .*; 2 unused/);
  });
});
