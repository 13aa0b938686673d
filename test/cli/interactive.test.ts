import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

/**
 * Runs `tea` on a real pseudo-terminal (util-linux `script`), typing each line
 * once the previous answer has arrived.
 */
function typeInto(lines: string[], answers: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${TEA_BIN}`, '/dev/null'], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    let screen = '';
    let typed = 0;
    const next = () => {
      if (typed < lines.length) child.stdin.write(`${lines[typed++]}\n`);
    };
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const expected = answers.slice(0, typed);
      if (typed === 0 ? screen.includes('tea> ') : expected.every((a) => screen.includes(a))) next();
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`interactive session did not finish; screen:\n${screen}`));
    }, 10_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(screen);
    });
  });
}

/** Background titles would take scripted replies in an order tests cannot fix; most tests turn them off. */
function noTitles(): void {
  appendFileSync(path.join(t.ctx.home, 'config.yaml'), 'agent:\n  auto_title: false\n');
}

describe('tea in a terminal', () => {
  it('names the session on the cheap model after the first turn', async () => {
    t.server.script(reply().text('Hello there.'), reply().text('"Greeting the agent."'));
    await typeInto(['hello', '/exit'], ['Hello there.']);
    expect(t.server.requests).toHaveLength(2);
    const titleRequest = JSON.stringify(t.server.requests[1]!.body);
    expect(titleRequest).toContain('hello');
    const list = await runTea(['sessions', 'list', '--json'], { env: t.ctx.env });
    expect(JSON.parse(list.stdout).sessions[0].title).toBe('Greeting the agent');
  });

  it('holds a conversation line by line in one session until /exit', async () => {
    noTitles();
    t.server.script(
      reply().text('First answer.'),
      reply().toolCall('list_dir', {}),
      reply().text('Second answer.'),
    );
    const screen = await typeInto(['hello', 'list the files', '/exit'], ['First answer.', 'Second answer.']);
    expect(screen).toMatch(/Tea Agent \d+\.\d+\.\d+ · scripted-model · session [0-9a-f]{8}/);
    expect(screen).toContain('First answer.');
    expect(screen).toContain('⏺ list_dir');
    expect(screen).toContain('Second answer.');
    expect(t.server.requests).toHaveLength(3);
    const last = wireMessages(t.server.requests[2]!.body).map((m) => `${m.role}:${wireText(m)}`);
    expect(last.slice(1, 4)).toEqual(['user:hello', 'assistant:First answer.', 'user:list the files']);
  });
});

describe("the prompt's own commands", () => {
  it('/help and an unknown /word are answered here, never sent to the model', async () => {
    noTitles();
    t.server.script(reply().text('Answered.'));
    const screen = await typeInto(
      ['/help', '/frobnicate now', 'hello', '/exit'],
      ['Anything else is sent to the model', '/frobnicate is not a command', 'Answered.'],
    );
    expect(screen).toMatch(/\/exit {2,}Quit \(also \/quit, or Ctrl-D\)/);
    expect(screen).toContain('tea: /frobnicate is not a command (/help lists them)');
    expect(t.server.requests).toHaveLength(1);
    const users = wireMessages(t.server.requests[0]!.body).filter((m) => m.role === 'user');
    expect(users.map((m) => wireText(m))).toEqual(['hello']);
  });
});

describe('approvals in a terminal', () => {
  it('asks before a write; "y" runs it, "n <reason>" refuses with the reason', async () => {
    noTitles();
    t.server.script(
      reply().toolCall('write_file', { path: 'ok.txt', content: 'yes' }),
      reply().text('Written.'),
      reply().toolCall('write_file', { path: 'no.txt', content: 'no' }),
      reply().text('Understood.'),
    );
    const screen = await typeInto(
      ['write ok', 'y', 'write no', 'n not that file', '/exit'],
      ['Allow write_file: ok.txt?', 'Written.', 'Allow write_file: no.txt?', 'Understood.'],
    );
    expect(screen).toContain('Written.');
    // "always" says what it covers: this tool on this file, not every write.
    expect(screen).toContain('[a] always allow write_file on ok.txt (this session)');
    expect(existsSync(path.join(t.ctx.work, 'ok.txt'))).toBe(true);
    expect(existsSync(path.join(t.ctx.work, 'no.txt'))).toBe(false);
    const refused = wireMessages(t.server.requests[3]!.body).findLast((m) => m.role === 'tool');
    expect(wireText(refused!)).toMatch(/^\[DENIED\] The user rejected write_file \(no\.txt\): not that file/);
  });
});

describe('what an approval shows first', () => {
  // Without the colour codes (and the carriage returns of the terminal).
  const plain = (screen: string) =>
    screen.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').replace(/\r/g, '');

  it('the diff of an edit, coloured, and a long command in full', async () => {
    noTitles();
    writeFileSync(path.join(t.ctx.work, 'notes.txt'), 'line one\nline two\nline three\n');
    const replacement =
      'line 2, rewritten with a replacement long enough to pass the eighty characters of a line';
    const command =
      'echo one && echo two && echo three && echo four && echo five && echo six && echo seven eight nine';
    t.server.script(
      reply().toolCall('edit_file', { path: 'notes.txt', old_string: 'line two', new_string: replacement }),
      reply().text('Edited.'),
      reply().toolCall('bash', { command }),
      reply().text('Not run.'),
    );
    const screen = await typeInto(
      ['edit the notes', 'y', 'run it', 'n', '/exit'],
      ['Allow edit_file: notes.txt?', 'Edited.', 'Allow bash:', 'Not run.'],
    );
    const text = plain(screen);
    const diff = text.slice(0, text.indexOf('Allow edit_file: notes.txt?'));
    expect(diff).toMatch(
      /\+\+\+ notes\.txt\n[\s\S]*@@ -1,3 \+1,3 @@\n {3}line one\n {2}-line two\n {2}\+line 2, rewritten/,
    );
    expect(diff).toContain(`+${replacement}\n`);
    expect(screen).toContain('\u001b[31m-line two\u001b[0m');
    expect(screen).toContain(`\u001b[32m+${replacement}\u001b[0m`);
    expect(readFileSync(path.join(t.ctx.work, 'notes.txt'), 'utf8')).toBe(
      `line one\n${replacement}\nline three\n`,
    );
    const asked = text.slice(text.indexOf('Edited.'), text.indexOf('Allow bash:'));
    expect(asked).toContain(`  $ ${command}\n`);
  });
});
