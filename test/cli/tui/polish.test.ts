/**
 * Findings of a new user's trial of the terminal UI, driven in a real pseudo-terminal
 * against the scripted model server: commands run mid-answer, the last frame on exit,
 * empty sessions left behind, Enter on a unique prefix, and some wording.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notOneOf } from '../../../src/cli/tui/commands/format.js';
import { loadConfig } from '../../../src/config/load.js';
import { createRuntime, type Runtime } from '../../../src/runtime/runtime.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const open = (args: string[] = [], size: { cols?: number; rows?: number } = {}) =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args, ...size });

/** The workspace's sessions as `tea sessions list --json` gives them, newest first. */
async function sessions(): Promise<Array<{ id: string; message_count: number }>> {
  const r = await runTea(['sessions', 'list', '--json'], { env: t.ctx.env, cwd: t.ctx.work });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sessions: Array<{ id: string; message_count: number }> }).sessions;
}

/** The store, through a runtime of this test's home and workspace. */
async function withRuntime<T>(use: (rt: Runtime) => T): Promise<T> {
  const config = await loadConfig({ home: t.ctx.home, cwd: t.ctx.work, env: t.ctx.env, detectOllama: false });
  const rt = await createRuntime({ config, cwd: t.ctx.work, warn: () => {} });
  try {
    return use(rt);
  } finally {
    await rt.close();
  }
}

/** A session stored by `tea -p` (titled with its prompt). */
async function printed(prompt: string): Promise<string> {
  t.server.script(reply().text('Noted.'));
  const r = await runTea(['-p', prompt], { env: t.ctx.env, cwd: t.ctx.work });
  expect(r.code, r.stderr).toBe(0);
  return (await sessions())[0]!.id;
}

const rowOf = (rows: string[], text: string): number => rows.findIndex((r) => r.includes(text));

describe('commands while a turn streams', () => {
  it('their output waits above the input box and follows the answer once the turn ends', async () => {
    const lines = Array.from(
      { length: 12 },
      (_, i) => `Sentence ${i + 1}: the quick brown fox jumps over the lazy dog.`,
    );
    t.server.script(
      reply().text('Ready.').usage(120, 30),
      reply().text(lines.join('\n\n')).chunkSize(8).chunkDelay(25),
    );
    const tui = open([], { rows: 60 });
    await tui.waitForText('scripted-model');
    tui.type('warm up');
    tui.press('enter');
    await tui.waitForText('Ready.');
    tui.type('stream it');
    tui.press('enter');
    await tui.waitForText('Sentence 2:');
    tui.type('/cost');
    tui.press('enter');
    await tui.waitForText('│ total');
    tui.type('/undo');
    tui.press('enter');
    await tui.waitForText('/undo waits for the turn to end');
    // Both ran while the answer was still streaming…
    expect(tui.screen()).not.toContain('Sentence 12:');
    await tui.waitForText(lines.at(-1)!);
    await tui.waitForGone('working…');
    // …and the answer is whole: every sentence on one line, the outputs after it.
    const rows = tui.screen().split('\n');
    for (const line of lines) expect(rows.map((r) => r.trim())).toContain(line);
    const last = rowOf(rows, lines.at(-1)!);
    expect(rowOf(rows, '│ total')).toBeGreaterThan(last);
    expect(rowOf(rows, '/undo waits')).toBeGreaterThan(rowOf(rows, '│ total'));
    await tui.finish('busy-commands');
  });
});

describe('leaving', () => {
  it('/quit: the last frame has no completion menu and an empty input; exit code 0', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/quit');
    await tui.waitForText('Leave Tea');
    tui.press('enter');
    expect(await tui.exited()).toBe(0);
    const screen = tui.screen();
    expect(screen).not.toContain('Leave Tea');
    expect(screen).not.toMatch(/^\/quit/m);
    await tui.finish('quit-frame');
  });

  it('Ctrl-C twice: no "again to exit" left on the screen; the kept session is named below the frame', async () => {
    t.server.script(reply().text('Hello there.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('hi');
    tui.press('enter');
    await tui.waitForText('Hello there.');
    tui.press('ctrlC');
    await tui.waitForText('Ctrl-C again to exit');
    tui.press('ctrlC');
    expect(await tui.exited()).toBe(0);
    const rows = tui.screen().split('\n');
    expect(rows.join('\n')).not.toContain('again to exit');
    const kept = rows.findIndex((r) =>
      /^Session [0-9a-f]{8} is kept: tea -r [0-9a-f]{8} continues it\.$/.test(r),
    );
    expect(kept).toBeGreaterThan(rowOf(rows, 'scripted-model ·'));
    await tui.finish('ctrl-c-frame');
  });
});

describe('empty sessions', () => {
  it('starting tea and leaving without a prompt leaves no session', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.press('ctrlD');
    expect(await tui.exited()).toBe(0);
    expect(tui.all()).not.toContain('is kept');
    expect(await sessions()).toEqual([]);
    await tui.finish('empty-exit');
  });

  it('/new, /new and /resume delete the empty sessions the TUI made; one with messages and one resumed stay', async () => {
    // An empty session made elsewhere: resumed here, it is the user's and stays.
    const config = await loadConfig({
      home: t.ctx.home,
      cwd: t.ctx.work,
      env: t.ctx.env,
      detectOllama: false,
    });
    const rt = await createRuntime({ config, cwd: t.ctx.work, warn: () => {} });
    const empty = rt.sessions.create({ cwd: t.ctx.work }).id;
    await rt.close();
    t.server.script(reply().text('Hi.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/new');
    tui.press('enter');
    await tui.waitForText(/New session [0-9a-f]{8}\./);
    const first = /New session ([0-9a-f]{8})\./.exec(tui.screen())![1]!;
    tui.type('/new');
    tui.press('enter');
    await tui.waitForText(new RegExp(`New session (?!${first})[0-9a-f]{8}\\.`));
    tui.type('hello');
    tui.press('enter');
    await tui.waitForText('Hi.');
    const used = (await sessions()).find((s) => s.message_count > 0)!.id;
    tui.type(`/resume ${empty.slice(0, 8)}`);
    tui.press('enter');
    await tui.waitForText('Resumed Untitled');
    tui.press('ctrlD');
    expect(await tui.exited()).toBe(0);
    expect((await sessions()).map((s) => s.id).sort()).toEqual([empty, used].sort());
    await tui.finish('empty-sessions');
  });
});

describe('Enter on a unique argument', () => {
  it('/resume <unique prefix> + Enter resumes at once (the completion list was open)', async () => {
    const id = await printed('remember me');
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type(`/resume ${id.slice(0, 4)}`);
    // The list shows the session (its 8-character id), only 4 are typed.
    await tui.waitForText(id.slice(0, 8));
    tui.press('enter');
    await tui.waitForText(`Resumed remember me (${id.slice(0, 8)})`);
    await tui.finish('resume-prefix');
  });
});

describe('wording', () => {
  it('/skills with none installed says where a skill goes', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/skills');
    tui.press('enter');
    await tui.waitForText('No skills are installed. To add one');
    expect(tui.all()).toContain('.tea/skills');
    expect(tui.all()).not.toContain('is not a command');
    await tui.finish('skills-none');
  });

  it('/profile with an unknown name: one sentence, the profiles listed once', async () => {
    writeFileSync(
      path.join(t.ctx.home, 'config.yaml'),
      [
        NO_MEMORY_JOBS,
        'agent: { auto_title: false }',
        `main_model: { base_url: ${t.server.openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
        'profiles:',
        `  alpha: { base_url: ${t.server.openaiBaseUrl}, api_key: sk-test, model: alpha-model }`,
        `  beta: { base_url: ${t.server.openaiBaseUrl}, api_key: sk-test, model: beta-model }`,
      ].join('\n'),
    );
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/profile nosuch');
    tui.press('enter');
    await tui.waitForText('There is no profile "nosuch"');
    const line = tui
      .screen()
      .split('\n')
      .find((r) => r.startsWith('There is no profile'))!;
    expect(line).toMatch(/^There is no profile "nosuch"; the profiles are [\w, ]+\.$/);
    expect(line.match(/alpha/g)).toHaveLength(1);
    await tui.finish('profile-unknown');
  });

  it('names not known: a near one is asked about, else all are listed, in one sentence', () => {
    expect(notOneOf('There is no profile "alpah"', 'alpah', ['alpha', 'beta'], 'the profiles are')).toBe(
      'There is no profile "alpah"; did you mean alpha?',
    );
    expect(notOneOf('No tool category "x"', 'x', ['file', 'web'], 'the categories are')).toBe(
      'No tool category "x"; the categories are file, web.',
    );
    expect(notOneOf('There is no profile "x"', 'x', [], 'the profiles are')).toBe('There is no profile "x".');
  });

  it("/sessions search finds a session by its first message; the search line has no stray '...'", async () => {
    const id = await printed('hello from session two');
    // Titled otherwise, as a title the cheap model makes would be.
    await withRuntime((rt) => rt.sessions.rename(id, 'Trial session'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/sessions');
    tui.press('enter');
    await tui.waitForText('Sessions (type to search)');
    tui.type('hello');
    await tui.waitForText('search: > hello');
    // Found by its first message; the current session (no messages) is not.
    expect(tui.screen()).toContain(id.slice(0, 8));
    expect(tui.screen()).not.toContain('● ');
    const search = tui
      .screen()
      .split('\n')
      .find((r) => r.startsWith('search:'))!;
    expect(search).not.toMatch(/\.\.\.$|…$/);
    tui.press('enter');
    await tui.waitForText(`Resumed Trial session (${id.slice(0, 8)})`);
    await tui.finish('sessions-search');
  });
});
