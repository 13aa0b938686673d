/**
 * A turn's flow in the terminal UI: Esc at an approval stops the turn, an approval shows
 * its diff or command once and says what "always" allows, the status line says a turn
 * is working while its answer streams, a pasted block counts its lines.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const open = () =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args: [], cols: 120 });

/** How many times `text` occurs in `hay`. */
const count = (hay: string, text: string): number => hay.split(text).length - 1;

const writeNew = () =>
  reply().toolCall('write_file', { path: 'new.txt', content: 'created by write_file\nline 2\n' });

describe('Esc at an approval', () => {
  it('stops the turn: the file is not written and the model is not called again', async () => {
    t.server.script(writeNew(), reply().text('Asked the model again.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('write it');
    tui.press('enter');
    await tui.waitForText('Allow write_file');
    expect(tui.screen()).toContain('Esc stops the turn');
    tui.press('escape');
    await tui.waitForText('interrupted');
    await tui.waitForGone('working…');
    expect(tui.screen()).not.toContain('Why not?');
    expect(tui.screen()).toMatch(/⏺ write_file.*cancelled/);
    expect(t.server.requests).toHaveLength(1);
    expect(existsSync(path.join(t.ctx.work, 'new.txt'))).toBe(false);
    // The input box is back and takes a new prompt (the model gets the reply it was not asked for).
    expect(t.server.pending()).toBe(1);
    tui.type('next');
    tui.press('enter');
    await tui.waitForText('Asked the model again.');
    expect(t.server.requests).toHaveLength(2);
    await tui.finish('approval-esc');
  });

  it('in the "Why not?" input, stops the turn too', async () => {
    t.server.script(writeNew(), reply().text('Asked the model again.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('write it');
    tui.press('enter');
    await tui.waitForText('Allow write_file');
    tui.type('n');
    await tui.waitForText('Why not?');
    tui.press('escape');
    await tui.waitForText('interrupted');
    await tui.waitForGone('working…');
    expect(t.server.requests).toHaveLength(1);
    expect(existsSync(path.join(t.ctx.work, 'new.txt'))).toBe(false);
    await tui.finish('approval-reason-esc');
  });
});

describe('an approval prompt', () => {
  it("shows a write's diff once, asks without repeating the path, and names what always allows", async () => {
    t.server.script(writeNew(), reply().text('Written.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('write it');
    tui.press('enter');
    await tui.waitForText('Allow write_file');
    await tui.waitForText('+created by write_file');
    const asked = tui.screen();
    expect(count(asked, '+created by write_file')).toBe(1);
    expect(count(asked, '+++ new.txt')).toBe(1);
    expect(asked).toMatch(/^Allow write_file\?$/m);
    expect(asked).toContain('[a] always allow write_file on new.txt (this session)');
    tui.type('y');
    await tui.waitForText('Written.');
    // Once the call completed, its diff is under its line (once).
    const done = tui.screen();
    expect(done).toMatch(/⏺ write_file.*completed/);
    expect(count(done, '+created by write_file')).toBe(1);
    await tui.finish('approval-write-once');
  });

  it('shows a command once and says that always allows exactly that command', async () => {
    const command = "sed -i 's/hello/HELLO/' notes.txt && echo changed";
    t.server.script(reply().toolCall('bash', { command }), reply().text('Declined.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('edit it');
    tui.press('enter');
    await tui.waitForText('Allow bash');
    const asked = tui.screen();
    expect(count(asked, `$ ${command}`)).toBe(1);
    expect(asked).toMatch(/^Allow bash\? \(/m);
    expect(asked).not.toMatch(/Allow bash: sed/);
    expect(asked).toContain('[a] always allow bash for this exact command (this session)');
    tui.type('n');
    await tui.waitForText('Why not?');
    tui.press('enter');
    await tui.waitForText('Declined.');
    await tui.finish('approval-bash-once');
  });
});

describe('the status line', () => {
  it('says the turn is working while its answer is awaited and streams, and not after', async () => {
    t.server.script(reply().text('A held answer.').holdUntil('answer'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('go');
    tui.press('enter');
    await t.server.waitForRequests(1);
    await tui.waitForText('working… Esc interrupts');
    t.server.release('answer');
    await tui.waitForText('A held answer.');
    await tui.waitForGone('working…');
    await tui.finish('status-working');
  });
});

describe('a pasted block', () => {
  it('of 50 lines with a trailing newline is shown as 50 lines and sent whole', async () => {
    const lines = Array.from({ length: 50 }, (_, i) => `paste line ${i + 1}`);
    t.server.script(reply().text('Got the paste.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type(`\u001b[200~${lines.join('\n')}\n\u001b[201~`);
    await tui.waitForText('[paste #1 +50 lines]');
    tui.press('enter');
    await tui.waitForText('Got the paste.');
    const sent = wireMessages(t.server.requests[0]!.body).filter((m) => m.role === 'user');
    expect(wireText(sent.at(-1)!)).toContain(lines.join('\n'));
    await tui.finish('paste-lines');
  });
});
