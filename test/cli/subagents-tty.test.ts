/**
 * Sub-agents in a terminal (a real pseudo-terminal through util-linux `script`): the
 * running children's lines are redrawn in place, an approval a child needs is asked
 * in its name and answered here, and the child goes on with the answer.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { firstUser, isChild, isFirstCall, task } from '../multi/helpers.js';
import { NO_MEMORY_JOBS, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', {
  config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\npermissions:\n  mode: ask\n`,
});

/** Types each line once the screen shows the text before it; resolves with the whole screen. */
function typeInto(steps: Array<[waitFor: string, line: string]>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${TEA_BIN}`, '/dev/null'], {
      env: { ...t.ctx.env, COLUMNS: '100' },
      cwd: t.ctx.work,
    });
    let screen = '';
    let typed = 0;
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      const step = steps[typed];
      if (step && screen.includes(step[0])) {
        typed++;
        child.stdin.write(`${step[1]}\n`);
      }
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the terminal session did not finish; screen:\n${screen}`));
    }, 20_000);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(screen);
    });
  });
}

describe('sub-agents in a terminal', () => {
  it('asks for a child’s write in the child’s name and redraws the children’s lines in place', async () => {
    t.server.respond((body) => {
      if (isChild(body)) {
        if (firstUser(body).includes('part 2')) return reply().text('part 2 is fine').usage(40, 4);
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'out.txt', content: 'from the child\n' }).usage(100, 10)
          : reply().text('wrote out.txt').usage(200, 20);
      }
      if (isFirstCall(body)) return reply().toolCall('delegate_tasks', { tasks: [task(1), task(2)] });
      return reply().text('Delegated work is done.');
    });
    const screen = await typeInto([
      ['tea> ', 'delegate the two parts'],
      ['wants to run write_file: out.txt. Allow it?', 'y'],
      ['Delegated work is done.', '/exit'],
    ]);
    const plain = screen.replace(/\r/g, '');
    expect(plain).toMatch(/general #\d wants to run write_file: out\.txt\. Allow it\? \[y\]es once/);
    expect(readFileSync(path.join(t.ctx.work, 'out.txt'), 'utf8')).toBe('from the child\n');
    // Drawn, then moved up over and cleared: the block of running children is redrawn in place.
    expect(screen).toContain('\u001b[2A\r\u001b[J');
    expect(plain).toMatch(/⏸ general #\d · waiting for approval · 110 tokens/);
    // Each child leaves one final line.
    expect(plain.match(/✓ general #\d · done · 330 tokens\n/g)).toHaveLength(1);
    expect(plain.match(/✓ general #\d · done · 44 tokens\n/g)).toHaveLength(1);
    expect(plain).toContain('of which 2 sub-agents: 374 tokens');
    expect(plain).not.toContain('part 2 is fine');
  });
});
