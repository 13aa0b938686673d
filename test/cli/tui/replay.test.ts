/**
 * Reopening a session in the terminal UI (`tea -c`, `tea -r`, /resume): the stored
 * turns are drawn as they looked live (tool lines in their final states, answers as
 * Markdown), a long session shows its last whole turns under a line counting the rest,
 * a first line names the session continued, and the status line shows its context use.
 * The sessions are made by `tea -p` runs against the scripted model.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const open = (args: string[]) =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args, rows: 40 });

async function tea(args: string[], code = 0): Promise<string> {
  const r = await runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
  if (r.code !== code) throw new Error(`tea ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

/**
 * One turn of 8 + 2 × `extra` messages: text and a write_file call, a bash call, a
 * read_file call that fails, `extra` more bash calls, and a Markdown answer. The last
 * model call used `input` tokens.
 */
async function toolTurn(
  n: number,
  opts: { continue: boolean; input?: number; extra?: number },
): Promise<void> {
  const more = Array.from({ length: opts.extra ?? 0 }, (_, i) =>
    reply().toolCall('bash', { command: `echo more-${n}-${i}` }),
  );
  t.server.script(
    reply()
      .text(`Writing file ${n}.`)
      .toolCall('write_file', { path: `f${n}.txt`, content: `body ${n}\n` }),
    reply().toolCall('bash', { command: `echo bash-output-${n}` }),
    reply().toolCall('read_file', { path: `missing-${n}.txt` }),
    ...more,
    reply()
      .text(`## Turn ${n} done\n\nAll **good** here.`)
      .usage(opts.input ?? 1000, 300),
  );
  await tea([...(opts.continue ? ['-c'] : []), '-p', `task number ${n}`, '--permission-mode', 'yolo']);
}

async function sessionId(): Promise<string> {
  const { sessions } = JSON.parse(await tea(['sessions', 'list', '--json'])) as {
    sessions: Array<{ id: string }>;
  };
  expect(sessions).toHaveLength(1);
  return sessions[0]!.id;
}

describe('reopening a session in the terminal UI', () => {
  it('tea -c: the continuing line, the left-out count, the last whole turns with tool lines, ctx', async () => {
    // 2 + 2 × 20 = 42 messages: the first turn is left out, the two tool turns (40) are drawn.
    t.server.script(reply().text('OLD ANSWER'));
    await tea(['-p', 'old question']);
    await toolTurn(1, { continue: true, extra: 6 });
    await toolTurn(2, { continue: true, extra: 6, input: 12_000 });
    const id = await sessionId();
    const short = id.slice(0, 8);

    const tui = open(['-c']);
    await tui.waitForText('Turn 2 done');
    await tui.waitForText(/ctx 12k\//);
    const all = tui.all();
    expect(all).toContain(`Continuing session ${short} · old question · 42 messages`);
    expect(all).toContain(`… 2 earlier messages (tea sessions show ${short} prints them all)`);
    // The continuing line comes first, then the note, then the oldest turn drawn.
    expect(all.indexOf('Continuing session')).toBeLessThan(all.indexOf('2 earlier messages'));
    expect(all.indexOf('2 earlier messages')).toBeLessThan(all.indexOf('› task number 1'));
    expect(all).not.toContain('OLD ANSWER');
    expect(all).not.toContain('› old question');
    for (const n of [1, 2]) {
      expect(all).toContain(`› task number ${n}`);
      expect(all).toMatch(new RegExp(`⏺ write_file: f${n}\\.txt · completed`));
      expect(all).toMatch(new RegExp(`⏺ bash: echo bash-output-${n} · completed`));
      expect(all).toMatch(new RegExp(`⏺ read_file: missing-${n}\\.txt · error`));
      for (let i = 0; i < 6; i++) expect(all).toMatch(new RegExp(`⏺ bash: echo more-${n}-${i} · completed`));
    }
    // A failed call shows its output; a completed one only when opened (Ctrl-O).
    expect(all).toContain('No such file or directory: missing-2.txt');
    expect(tui.screen()).not.toContain('│ bash-output-2');
    // Answers are Markdown: no raw markers.
    expect(all).toContain('All good here.');
    expect(all).not.toContain('**good**');
    expect(all).not.toContain('## Turn');
    expect(tui.screen()).not.toMatch(/ctx 0\//);
    tui.press('ctrlO');
    await tui.waitForText('│ bash-output-2');

    // The command the note names prints the whole session.
    const shown = await tea(['sessions', 'show', short]);
    expect(shown).toContain('OLD ANSWER');
    await tui.finish('replay-continue');
  }, 40_000);

  it('tea -r ID: a short session is drawn whole; a rule turn shows its output, a denied call its reason', async () => {
    await toolTurn(1, { continue: false, input: 2_000 });
    // Rule turns (no model call): the output of one that ran is shown under its tool line, as live.
    await tea(['-c', '-p', '!echo rule-said-hi', '--permission-mode', 'yolo']);
    // Nobody can approve in print mode: this one is denied.
    await tea(['-c', '-p', '!echo never-ran'], 5);
    const id = await sessionId();
    const tui = open(['-r', id.slice(0, 8)]);
    await tui.waitForText('⏺ bash: echo never-ran · denied');
    await tui.waitForText(/ctx 2\.3k\//);
    const all = tui.all();
    expect(all).toContain(`Continuing session ${id.slice(0, 8)} · task number 1 · 14 messages`);
    expect(all).not.toContain('earlier message');
    expect(all).toMatch(/⏺ bash: echo rule-said-hi · completed.*\nexit code: 0\nrule-said-hi\n/);
    expect(all).toMatch(/⏺ bash: echo never-ran · denied\n {2}│ \[DENIED\] bash \(echo never-ran\)/);
    expect(all).not.toMatch(/^never-ran$/m);
    expect(all).toMatch(/⏺ read_file: missing-1\.txt · error/);
    await tui.finish('replay-resume-flag');
  }, 40_000);

  it('/resume draws the session with its tool lines and its context use', async () => {
    await toolTurn(1, { continue: false, input: 5_000 });
    const id = await sessionId();
    // The file the call wrote is gone: the replay draws the stored call, no diff of the disk now.
    rmSync(path.join(t.ctx.work, 'f1.txt'));
    const tui = open([]);
    await tui.waitForText('scripted-model');
    expect(tui.screen()).toMatch(/ctx 0\//);
    tui.type(`/resume ${id.slice(0, 8)}`);
    tui.press('enter');
    await tui.waitForText('Resumed');
    await tui.waitForText(/ctx 5\.3k\//);
    const screen = tui.screen();
    expect(screen).toContain('› task number 1');
    expect(screen).toMatch(/⏺ write_file: f1\.txt · completed/);
    expect(screen).toMatch(/⏺ bash: echo bash-output-1 · completed/);
    expect(screen).toMatch(/⏺ read_file: missing-1\.txt · error/);
    expect(screen).toContain('Turn 1 done');
    expect(screen).not.toContain('Continuing session');
    await tui.finish('replay-slash-resume');
  }, 40_000);
});
