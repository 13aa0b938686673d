/**
 * The "done when" scenarios that cross parts, in a real pseudo-terminal against the
 * scripted model server: /undo and /redo of a file `bash` edited, /diff, the /sessions
 * picker, `!ls` and `/read` answered by rules with no request to the model (an error
 * shown once), /mode and Shift+Tab.
 * Each test keeps its last screen in test-artifacts/tui/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, NO_MEMORY_JOBS, runTea, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const open = (args: string[] = []) =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args, cols: 110, rows: 36 });

describe('undo in the terminal UI', () => {
  it('/undo restores a file bash edited and removes one it created; /redo puts them back; a later edit of mine is not overwritten', async () => {
    const notes = path.join(t.ctx.work, 'notes.txt');
    const made = path.join(t.ctx.work, 'made.txt');
    writeFileSync(notes, 'old\n');
    t.server.script(
      reply().toolCall('bash', { command: "printf 'new\\n' > notes.txt && echo x > made.txt" }),
      reply().text('Edited.'),
    );
    const tui = open(['--yolo']);
    await tui.waitForText('scripted-model');
    tui.type('edit the notes');
    tui.press('enter');
    await tui.waitForText('Edited.');
    await tui.waitForText('2 files changed · /undo');
    expect(readFileSync(notes, 'utf8')).toBe('new\n');

    tui.type('/undo');
    tui.press('enter');
    await tui.waitForText("Undid the last turn's changes: 2 files changed");
    expect(readFileSync(notes, 'utf8')).toBe('old\n');
    expect(() => readFileSync(made)).toThrow();

    tui.type('/redo');
    tui.press('enter');
    await tui.waitForText('Redid the changes the last /undo reverted: 2 files changed');
    expect(readFileSync(notes, 'utf8')).toBe('new\n');
    expect(readFileSync(made, 'utf8')).toBe('x\n');

    tui.type('/diff');
    tui.press('enter');
    await tui.waitForText('+new');
    expect(tui.screen()).toContain('-old');
    // An unknown round: the session's rounds are listed (their ids, files and state).
    tui.type('/diff 99999');
    tui.press('enter');
    await tui.waitForText('No round 99999 in this session. Its rounds');
    await tui.waitForText(/\d+ · 2 files \((made|notes)\.txt, (made|notes)\.txt\) · applied/);

    writeFileSync(notes, 'mine\n');
    tui.type('/undo');
    tui.press('enter');
    await tui.waitForText("Cannot undo the last turn's changes: this file has changed since: notes.txt");
    expect(readFileSync(notes, 'utf8')).toBe('mine\n');
    expect(readFileSync(made, 'utf8')).toBe('x\n');
    // The model was asked twice (the call, then the answer); undo and redo asked it nothing.
    expect(t.server.requests).toHaveLength(2);
    await tui.finish('undo');

    // Resumed, the transcript shows what undo and redo told the model as notes, not as typed lines.
    const again = open(['--continue']);
    await again.waitForText('scripted-model');
    await again.waitForText('The user redid the file changes');
    const rows = again.all().split('\n');
    expect(rows.filter((r) => r.startsWith('› '))).toEqual(['› edit the notes']);
    expect(rows.some((r) => r.startsWith('[Journal note] The user undid'))).toBe(true);
    await again.finish('undo-resumed');
  });
});

describe('sessions in the terminal UI', () => {
  it('/sessions opens a picker with search; choosing one shows its transcript', async () => {
    t.server.script(reply().text('Fixed the parser.'), reply().text('Wrote the docs.'));
    for (const p of ['fix the parser', 'write the docs']) {
      const r = await runTea(['-p', p], { env: t.ctx.env, cwd: t.ctx.work });
      expect(r.code, r.stderr).toBe(0);
    }
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/sessions');
    tui.press('enter');
    await tui.waitForText('write the docs');
    expect(tui.screen()).toContain('fix the parser');
    tui.type('parser');
    await tui.waitForGone('write the docs');
    tui.press('enter');
    await tui.waitForText('Fixed the parser.');
    expect(tui.screen()).toContain('› fix the parser');
    await tui.finish('sessions');
  });
});

describe('rules in the terminal UI', () => {
  it('!ls and /read run without a request to the model, and the next prompt carries them', async () => {
    writeFileSync(path.join(t.ctx.work, 'hello-rule.txt'), 'greetings from a file\n');
    const tui = open(['--yolo']);
    await tui.waitForText('scripted-model');
    tui.type('!ls');
    tui.press('enter');
    await tui.waitForText('hello-rule.txt');
    // The answer is what the command printed; a failing one says its exit code.
    tui.type('!exit 3');
    tui.press('enter');
    await tui.waitForText('The command exited with code 3.');
    expect(tui.all()).not.toContain('exit code: 0');
    // A rule's error shows once, under its tool line.
    tui.type('/read nosuch.txt');
    tui.press('enter');
    await tui.waitForText('No such file or directory: nosuch.txt');
    tui.type('/read hello-rule.txt');
    tui.press('enter');
    await tui.waitForText('greetings from a file');
    expect(tui.all().split('No such file or directory: nosuch.txt')).toHaveLength(2);
    expect(tui.all().split('Hint: the path does not exist')).toHaveLength(2);
    expect(t.server.requests).toHaveLength(0);
    t.server.script(reply().text('I saw the file.'));
    tui.type('what did you see?');
    tui.press('enter');
    await tui.waitForText('I saw the file.');
    expect(t.server.requests).toHaveLength(1);
    const sent = JSON.stringify(t.server.requests[0]!.body);
    expect(sent).toContain('greetings from a file');
    expect(sent).toContain('hello-rule.txt');
    await tui.finish('rules');
  });
});

describe('work modes in the terminal UI', () => {
  it('/mode review switches the work mode and the status line; Shift+Tab cycles to the next', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    expect(tui.screen()).toContain('mode develop');
    tui.type('/mode review');
    tui.press('enter');
    await tui.waitForText('Work mode: review');
    await tui.waitForText('mode review');
    tui.press('shiftTab');
    await tui.waitForText('mode docs');
    t.server.script(reply().text('Docs mode answer.'));
    tui.type('hello');
    tui.press('enter');
    await tui.waitForText('Docs mode answer.');
    expect(JSON.stringify(t.server.requests[0]!.body)).toContain('Work mode: docs');
    await tui.finish('modes');
  });
});

describe('the terminal UI with no model configured', () => {
  it('opens, runs rules, and answers another prompt with how to configure a model', async () => {
    const bare = cliEnv();
    try {
      writeFileSync(path.join(bare.work, 'plain.txt'), 'read without a model\n');
      const tui = startTui({
        env: { ...bare.env, TERM: 'xterm-256color' },
        cwd: bare.work,
        cols: 110,
        rows: 36,
      });
      await tui.waitForText('no model (rules only)');
      tui.type('/read plain.txt');
      tui.press('enter');
      await tui.waitForText('read without a model');
      tui.type('water the plants');
      tui.press('enter');
      await tui.waitForText('OPENAI_API_KEY');
      await tui.finish('no-model');
    } finally {
      bare.cleanup();
    }
  });
});
