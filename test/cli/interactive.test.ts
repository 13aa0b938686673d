import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test');

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

describe('tea in a terminal', () => {
  it('holds a conversation line by line in one session until /exit', async () => {
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
