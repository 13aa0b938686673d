/**
 * The full-screen terminal UI, driven in a real pseudo-terminal against the scripted
 * model server (harness.ts). Each test keeps its last screen in test-artifacts/tui/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isChild, isFirstCall } from '../../multi/helpers.js';
import { NO_MEMORY_JOBS, useScriptedCli } from '../../support/cli.js';
import { reply } from '../../support/script.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { startTui } from './harness.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const open = (args: string[] = [], size: { cols?: number; rows?: number } = {}) =>
  startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, args, ...size });

describe('the terminal UI', () => {
  it('streams an answer as Markdown: no raw ** or fences, code highlighted', async () => {
    t.server.script(
      reply()
        .text('# Plan\n\nThis is **bold** and `code`.\n\n```ts\nconst answer = 42;\n```\n\n- one\n- two\n')
        .chunkSize(7),
    );
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('explain');
    tui.press('enter');
    await tui.waitForText('const answer = 42;');
    await tui.waitForText('- two');
    const screen = tui.screen();
    expect(screen).toContain('This is bold and code.');
    expect(screen).not.toContain('```');
    // highlight.js colours `const` as a keyword (magenta), unlike the plain text.
    expect(tui.colourOf('const answer')).toBe(5);
    expect(tui.colourOf('This is')).toBe(-1);
    expect(screen).not.toContain('**bold**');
    expect(screen).toContain('› explain');
    await tui.finish('markdown');
  });
});

describe('turns in the terminal UI', () => {
  it('asks for an approval inline and runs the command after y', async () => {
    t.server.script(reply().toolCall('bash', { command: 'echo hi > out.txt' }), reply().text('Wrote it.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('write a file');
    tui.press('enter');
    await tui.waitForText('Allow bash');
    expect(tui.screen()).toContain('$ echo hi > out.txt');
    expect(tui.screen()).toContain('[y] yes, once');
    tui.type('y');
    await tui.waitForText('Wrote it.');
    expect(readFileSync(path.join(t.ctx.work, 'out.txt'), 'utf8')).toBe('hi\n');
    expect(tui.screen()).toMatch(/⏺ bash.*completed/);
    await tui.finish('approval');
  });

  it('a rejection with a reason reaches the model', async () => {
    t.server.script(reply().toolCall('bash', { command: 'rm -rf build' }), reply().text('Understood.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('clean up');
    tui.press('enter');
    await tui.waitForText('Allow bash');
    tui.type('n');
    await tui.waitForText('Why not?');
    tui.type('keep the build');
    tui.press('enter');
    await tui.waitForText('Understood.');
    expect(JSON.stringify(t.server.requests[1]!.body)).toContain('keep the build');
    await tui.finish('reject');
  });

  it('Esc interrupts a streaming answer: the model server sees the stream cancelled', async () => {
    t.server.script(reply().text('Partial answer, then a long silence.').chunkSize(8).hangAfter(3));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('go');
    tui.press('enter');
    await tui.waitForText('Partial');
    tui.press('escape');
    await t.server.waitForHangUps(1);
    await tui.waitForText('interrupted');
    await tui.waitForGone('working…');
    await tui.finish('interrupt');
  });

  it('a steering message typed mid-turn reaches the model in the next request', async () => {
    t.server.script(reply().toolCall('list_dir', {}).holdUntil('first'), reply().text('Steered.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('look around');
    tui.press('enter');
    await t.server.waitForRequests(1);
    tui.type('also check the tests');
    tui.press('enter');
    // It waits above the input box, not in the middle of the answer…
    await tui.waitForText('↳ queued steering: also check the tests');
    expect(tui.screen()).not.toContain('› also check the tests');
    t.server.release('first');
    await tui.waitForText('Steered.');
    const second = wireMessages(t.server.requests[1]!.body).map((m) => `${m.role}:${wireText(m)}`);
    expect(second).toContain('user:also check the tests');
    // …and goes into the transcript where the model got it: after the tool call, before the answer.
    const rows = tui.screen().split('\n');
    const at = rows.findIndex((r) => r.startsWith('› also check the tests (steering)'));
    expect(at).toBeGreaterThan(rows.findIndex((r) => r.includes('list_dir')));
    expect(at).toBeLessThan(rows.findIndex((r) => r.includes('Steered.')));
    expect(tui.screen()).not.toContain('↳ queued');
    await tui.finish('steering');
  });

  it('Alt+Enter mid-turn queues a follow-up: a new turn runs after this one', async () => {
    t.server.script(reply().text('First answer.').holdUntil('first'), reply().text('Follow-up answered.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('start');
    tui.press('enter');
    await t.server.waitForRequests(1);
    tui.type('and then this');
    tui.press('altEnter');
    await tui.waitForText('↳ queued follow-up: and then this');
    t.server.release('first');
    await tui.waitForText('Follow-up answered.');
    const second = wireMessages(t.server.requests[1]!.body).map((m) => `${m.role}:${wireText(m)}`);
    expect(second.slice(-3)).toEqual(['user:start', 'assistant:First answer.', 'user:and then this']);
    const rows = tui.screen().split('\n');
    const at = rows.findIndex((r) => r.startsWith('› and then this (follow-up)'));
    expect(at).toBeGreaterThan(rows.findIndex((r) => r.includes('First answer.')));
    expect(at).toBeLessThan(rows.findIndex((r) => r.includes('Follow-up answered.')));
    expect(tui.screen()).not.toContain('↳ queued');
    await tui.finish('follow-up');
  });

  it('a message queued when Esc ends the turn is shown as not sent', async () => {
    t.server.script(reply().text('Thinking about it').holdUntil('never'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('start');
    tui.press('enter');
    await t.server.waitForRequests(1);
    tui.type('one more thing');
    tui.press('enter');
    await tui.waitForText('↳ queued steering: one more thing');
    tui.press('escape');
    await tui.waitForText('› one more thing (not sent: the model reads it with your next message)');
    expect(tui.screen()).not.toContain('↳ queued');
    expect(t.server.requests).toHaveLength(1);
    await tui.finish('steering-unsent');
  });

  it('renders Chinese input and answers with wide characters aligned', async () => {
    t.server.script(
      reply().text('你好，世界！这是一个很长的中文回答，用来检查宽字符换行是否正确。').chunkSize(5),
    );
    const tui = open([], { cols: 40, rows: 20 });
    await tui.waitForText('scripted-model');
    tui.type('请用中文回答');
    tui.press('enter');
    await tui.waitForText('› 请用中文回答');
    await tui.waitForText('正确。');
    // Wide characters take two columns each: no line of the screen is wider than it.
    expect(tui.screen()).toContain('你好，世界！');
    for (const line of tui.screen().split('\n')) expect(width(line)).toBeLessThanOrEqual(40);
    await tui.finish('chinese');
  });
});

describe('tool calls, questions and images', () => {
  it('shows a write as a coloured diff, in the approval and under its line; Ctrl-O opens outputs', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'notes.txt', content: 'hello\nworld\n' }),
      reply().toolCall('bash', { command: 'printf "line-a\\nline-b\\n"' }),
      reply().text('Both done.'),
    );
    const tui = open(['--allow', 'bash']);
    await tui.waitForText('scripted-model');
    tui.type('write notes');
    tui.press('enter');
    await tui.waitForText('Allow write_file');
    expect(tui.screen()).toContain('+hello');
    expect(tui.colourOf('+hello')).toBe(2);
    tui.type('y');
    await tui.waitForText('Both done.');
    expect(tui.screen()).toMatch(/⏺ .*notes\.txt.*completed/);
    expect(tui.screen()).not.toContain('│ line-b');
    tui.press('ctrlO');
    await tui.waitForText('│ line-b');
    await tui.finish('tools');
  });

  it("a sub-agent's progress shows nested under its task line", async () => {
    t.server.respond((body) => {
      if (isChild(body)) return reply().text('Counted: 3.');
      if (isFirstCall(body))
        return reply().toolCall('task', { description: 'count lines', prompt: 'Count the lines.' });
      return reply().text('Parent done.');
    });
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('delegate');
    tui.press('enter');
    await tui.waitForText('Parent done.');
    t.server.respond(undefined);
    expect(tui.screen()).toMatch(/⏺ task.*completed/);
    expect(tui.screen()).toMatch(/↳ .*: done/);
    await tui.finish('subagent');
  });

  it('a question with options is a list: the chosen option reaches the model', async () => {
    t.server.script(
      reply().toolCall('ask_user', { question: 'Which colour?', options: ['red', 'blue'] }),
      reply().text('Blue it is.'),
    );
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('paint it');
    tui.press('enter');
    await tui.waitForText('Which colour?');
    expect(tui.screen()).toContain('Something else…');
    tui.press('down');
    tui.press('enter');
    await tui.waitForText('Blue it is.');
    expect(JSON.stringify(t.server.requests[1]!.body)).toContain('blue');
    await tui.finish('question');
  });

  it('an image path in the prompt is sent as an image', async () => {
    const png = Buffer.from(
      '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
      'hex',
    );
    writeFileSync(path.join(t.ctx.work, 'shot.png'), png);
    t.server.script(reply().text('A tiny image.'));
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('describe shot.png');
    tui.press('enter');
    await tui.waitForText('(1 image attached)');
    await tui.waitForText('A tiny image.');
    expect(JSON.stringify(t.server.requests[0]!.body)).toContain(png.toString('base64'));
    await tui.finish('image');
  });
});

describe('keys and commands', () => {
  it('Ctrl-C clears the input, a second Ctrl-C exits', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('draft that goes away');
    await tui.waitForText('draft that goes away');
    tui.press('ctrlC');
    await tui.waitForGone('draft that goes away');
    await tui.waitForText('Ctrl-C again to exit');
    tui.press('ctrlC');
    expect(await tui.exited()).toBe(0);
    expect(t.server.requests).toHaveLength(0);
    await tui.finish('ctrl-c');
  });

  it('an unknown /word is refused and nothing is sent; /help lists the commands', async () => {
    const tui = open();
    await tui.waitForText('scripted-model');
    tui.type('/frobnicate now');
    tui.press('enter');
    await tui.waitForText('/frobnicate is not a command');
    // Enter takes the completion offered for /help and sends it.
    tui.type('/help');
    tui.press('enter');
    await tui.waitForText('Shift+Tab');
    const help = tui.all();
    for (const c of ['/quit', '/undo', '/mode', '/sessions']) expect(help).toContain(c);
    expect(t.server.requests).toHaveLength(0);
    tui.type('/quit');
    tui.press('enter');
    expect(await tui.exited()).toBe(0);
    await tui.finish('slash');
  });

  it('redraws at the new width after a resize', async () => {
    const tui = open([], { cols: 100, rows: 24 });
    await tui.waitForText('scripted-model');
    expect(tui.screen()).toContain('─'.repeat(100));
    tui.resize(60, 20);
    await tui.waitForText(new RegExp(`(^|\\n)${'─'.repeat(60)}(\\n|$)`));
    await tui.finish('resize');
  });

  it('keeps history across runs: ↑ brings back the last prompt', async () => {
    t.server.script(reply().text('First.'));
    const first = open();
    await first.waitForText('scripted-model');
    first.type('remember this line');
    first.press('enter');
    await first.waitForText('First.');
    first.press('ctrlD');
    expect(await first.exited()).toBe(0);
    await first.finish('history-1');
    const second = open();
    await second.waitForText('scripted-model');
    second.press('up');
    await second.waitForText('remember this line');
    await second.finish('history-2');
  });
});

describe('the plain fallback', () => {
  // Without TERM the plain prompt is kept too: the `script`-driven tests (interactive.test.ts…) run so.
  it('a dumb terminal, --plain and TEA_TUI=0 get the line prompt', async () => {
    for (const [env, args] of [
      [{ TERM: 'dumb' }, []],
      [{ TERM: 'xterm-256color' }, ['--plain']],
      [{ TERM: 'xterm-256color', TEA_TUI: '0' }, []],
    ] as const) {
      const tui = startTui({ env: { ...t.ctx.env, ...env }, cwd: t.ctx.work, args: [...args] });
      await tui.waitForText('tea> ');
      expect(tui.all()).not.toContain('Shift+Enter');
      tui.type('/exit\r');
      expect(await tui.exited()).toBe(0);
      await tui.finish(`plain-${args[0] ?? Object.keys(env).at(-1) ?? 'no-term'}`);
    }
  });
});

/** Columns a line takes (CJK and fullwidth forms count two). */
function width(line: string): number {
  let w = 0;
  for (const ch of line)
    w += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(
      ch,
    )
      ? 2
      : 1;
  return w;
}
