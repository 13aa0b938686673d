/**
 * The plain prompt (`tea` in a terminal without the full-screen UI): /help in one
 * column, /undo, /redo and /diff on the journal, the user's `.tea/commands`, and how it
 * leaves the terminal on Ctrl-D or Ctrl-C at the prompt (a line of its own, then the
 * session to resume). The built CLI on a real pseudo-terminal (util-linux `script`).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n` });

const ESC = String.fromCharCode(27);
/** The screen without colours, cursor moves and carriage returns. */
const plain = (s: string): string =>
  s.replace(new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g'), '').replace(/\r/g, '');

interface Step {
  /** Typed as it is (`\n` ends a line; `\x04` is Ctrl-D). */
  send: string;
  /** Shown after it, before the next prompt, when it is more than the prompt. */
  until?: string | RegExp;
}

/** Runs `tea <args>` on a pseudo-terminal, typing each step once the prompt is back after the previous one. */
function session(args: string[], steps: Step[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const line = [process.execPath, TEA_BIN, ...args].join(' ');
    const child = spawn('script', ['-qfec', line, '/dev/null'], { env: t.ctx.env, cwd: t.ctx.work });
    let screen = '';
    let from = 0;
    let sent = 0;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const since = plain(screen.slice(from));
      const want = sent === 0 ? undefined : steps[sent - 1]!.until;
      const shown =
        want === undefined || (typeof want === 'string' ? since.includes(want) : want.test(since));
      if (sent < steps.length && shown && since.endsWith('tea> ')) {
        from = screen.length;
        child.stdin.write(steps[sent++]!.send);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the plain prompt did not finish; screen:\n${plain(screen)}`));
    }, 15_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(plain(screen));
    });
  });
}

describe('the plain prompt', () => {
  it('/help lines its descriptions up in one column, the user commands among them', async () => {
    const dir = path.join(t.ctx.work, '.tea', 'commands');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      path.join(dir, 'review-pr.md'),
      '---\ndescription: Review a PR\nargument-hint: <number>\n---\nReview PR $1.\n',
    );
    const screen = await session(
      [],
      [{ send: '/help\n', until: 'begin it with a space' }, { send: '/exit\n' }],
    );
    const help = screen.slice(screen.indexOf('Commands:'));
    const rows = help.split('\n').filter((l) => /^ {2}[/!]/.test(l));
    expect(rows.length).toBeGreaterThanOrEqual(10);
    // Where each description starts: after the label and at least two spaces, the same column for all.
    const at = rows.map((r) => /^( {2}\S.*?\s{2,})\S/.exec(r)?.[1]?.length);
    expect(at.every((n) => n !== undefined)).toBe(true);
    expect(new Set(at).size, rows.join('\n')).toBe(1);
    expect(help).toMatch(/\n {2}\/grep <pattern> \[path\] {2,}Search files for a regex/);
    expect(help).toMatch(/\n {2}\/undo {2,}Revert the files the last turn changed/);
    expect(help).toMatch(
      /Your commands \(\.tea\/commands\), sent as prompts:\n {2}\/review-pr <number> {2,}Review a PR\n/,
    );
  });

  it('Ctrl-D at the prompt ends the line and names the session to resume', async () => {
    t.server.script(reply().text('Hello there.'));
    const screen = await session([], [{ send: 'hello\n', until: 'Hello there.' }, { send: '\x04' }]);
    const id = /session ([0-9a-f]{8})/.exec(screen)![1];
    expect(screen.endsWith(`Hello there.\ntea> \nSession ${id} is kept: tea -r ${id} continues it.\n`)).toBe(
      true,
    );
  });

  it('Ctrl-C at the prompt does the same; a session with no message is not named', async () => {
    const screen = await session([], [{ send: '\x03' }]);
    expect(screen.endsWith('tea> \n')).toBe(true);
    expect(screen).not.toContain('is kept');
  });

  it('/diff, /undo and /redo work on the journal, naming turns rather than round ids', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'new.txt', content: 'one\n' }),
      reply().text('Written.'),
    );
    const file = path.join(t.ctx.work, 'new.txt');
    const screen = await session(
      ['--yolo'],
      [
        { send: '/diff\n', until: 'No turn of this session changed files yet.' },
        { send: 'write it\n', until: 'Written.' },
        { send: '/diff\n', until: '+one' },
        { send: '/diff 99999\n', until: 'No round 99999 in this session.' },
        { send: '/undo\n', until: "Undid the last turn's changes: 1 file changed." },
        { send: '/redo\n', until: 'Redid the changes the last /undo reverted: 1 file changed.' },
        { send: '/undo now\n', until: '/undo takes no argument' },
        { send: '/exit\n' },
      ],
    );
    expect(screen).toMatch(
      /No round 99999 in this session\. Its rounds \(\/diff <round> shows one\):\n {2}\d+ · 1 file \(new\.txt\) · applied\n/,
    );
    expect(screen).toMatch(/Round \d+:\n[\s\S]*\+\+\+ b?\/?new\.txt/);
    expect(screen).toContain('  removed new.txt');
    expect(screen).toContain('  recreated new.txt');
    expect(screen).not.toContain('is not a command');
    expect(readFileSync(file, 'utf8')).toBe('one\n');
    expect(t.server.requests).toHaveLength(2);
  });

  it("a user command's template, with its arguments, is the prompt", async () => {
    const dir = path.join(t.ctx.work, '.tea', 'commands');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'greet.md'), 'Say hello to $1 in $2.\n');
    // Named like a command of the prompt: hidden, with a warning.
    writeFileSync(path.join(dir, 'undo.md'), 'Not this.\n');
    t.server.script(reply().text('Hello, Ann.'));
    const screen = await session(
      [],
      [{ send: '/greet Ann French\n', until: 'Hello, Ann.' }, { send: '/exit\n' }],
    );
    expect(screen).toMatch(/warning: .*undo/);
    const users = wireMessages(t.server.requests[0]!.body).filter((m) => m.role === 'user');
    expect(users.map((m) => wireText(m))).toEqual(['Say hello to Ann in French.']);
  });
});
