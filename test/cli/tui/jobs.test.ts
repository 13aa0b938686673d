/**
 * Background processes on the status line, in a real pseudo-terminal against the scripted
 * model: the model starts two with bg_start, the status line counts them (green), and as
 * each ends on its own after the turn (the test creates the file it waits for) the count
 * drops and then goes. Every wait is on screen text.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

/** Runs until `file` exists in the workspace (or the workspace is gone, should the test fail). */
const until = (file: string): string => `while [ ! -f ${file} ] && [ -d "$PWD" ]; do sleep 0.05; done`;

/** The status line: the screen's line naming the model. */
const statusLine = (screen: string): string =>
  screen.split('\n').find((l) => l.includes('scripted-model')) ?? '';

describe('background jobs on the status line', () => {
  it('counts bg_start processes while they run and drops each as it ends between turns', async () => {
    t.server.script(
      reply().toolCall('bg_start', { command: until('stop1'), name: 'first' }),
      reply().toolCall('bg_start', { command: until('stop2'), name: 'second' }),
      reply().text('Both are running.'),
    );
    const tui = startTui({
      env: { ...t.ctx.env, TERM: 'xterm-256color' },
      cwd: t.ctx.work,
      args: ['--yolo'],
      cols: 110,
      rows: 30,
    });
    await tui.waitForText('scripted-model');
    expect(statusLine(tui.screen())).not.toMatch(/\bjobs?\b/);
    tui.type('start the watchers');
    tui.press('enter');
    await tui.waitForText('Both are running.');
    await tui.waitForText(/scripted-model.* · 2 jobs/);
    expect(tui.colourOf('2 jobs')).toBe(2);

    // The turn is over: each end alone updates the status line.
    writeFileSync(path.join(t.ctx.work, 'stop1'), '');
    await tui.waitForGone(/scripted-model.*2 jobs/);
    await tui.waitForText(/scripted-model.* · 1 job$/m);
    writeFileSync(path.join(t.ctx.work, 'stop2'), '');
    await tui.waitForGone(/scripted-model.*\bjob\b/);
    expect(statusLine(tui.screen())).toContain('yolo');
    expect(statusLine(tui.screen())).not.toMatch(/\bjobs?\b/);
    expect(t.server.requests).toHaveLength(3);
    await tui.finish('jobs');
  });
});
