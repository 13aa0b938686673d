/**
 * A shell line refused in `tea -p` (ask mode) names, in one hint, every flag the whole
 * line needs: an `--allow` per command and `--permission-mode auto-edit` when a
 * redirection writes a file. Pasting those flags makes the same line run, first time.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

/** The arguments a POSIX shell makes of `flags`, as a user pasting them gets. */
function shellWords(flags: string): string[] {
  return execFileSync('sh', ['-c', `printf '%s\\n' ${flags}`], { encoding: 'utf8' })
    .trim()
    .split('\n');
}

/** Runs `command` through a scripted bash call; the refusal's hint, checked in text and JSON. */
async function refusedWith(command: string): Promise<string> {
  const script = () => t.server.script(reply().toolCall('bash', { command }), reply().text('Could not.'));
  script();
  const r = await tea(['-p', `run: ${command}`]);
  expect(r.code, r.stderr).toBe(5);
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const flags = /; to let it run, rerun with (.+) or --yolo$/.exec(lines[0]!)?.[1];
  expect(flags, r.stderr).toBeDefined();
  script();
  const json = await tea(['-p', `run: ${command}`, '--output-format', 'json']);
  expect(JSON.parse(json.stdout).refused[0].rerun_with).toBe(`${flags} or --yolo`);
  return flags!;
}

/** Runs the line again with `flags` pasted: it must run (exit 0, the command's own exit code 0). */
async function runsWith(command: string, flags: string): Promise<void> {
  t.server.script(reply().toolCall('bash', { command }), reply().text('Done.'));
  const r = await tea(['-p', `run: ${command}`, ...shellWords(flags)]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toBe('');
  const result = wireMessages(t.server.requests.at(-1)!.body).findLast((m) => m.role === 'tool')!;
  expect(wireText(result)).toMatch(/^exit code: 0\b/);
}

describe('tea -p: the hint for a refused shell line covers all of it', () => {
  it('a redirection to a file: auto-edit and the command, in one rerun', async () => {
    const command = 'echo hi > x.txt';
    const flags = await refusedWith(command);
    expect(flags).toBe("--permission-mode auto-edit --allow 'bash:echo hi*'");
    expect(existsSync(path.join(t.ctx.work, 'x.txt'))).toBe(false);
    await runsWith(command, flags);
    expect(readFileSync(path.join(t.ctx.work, 'x.txt'), 'utf8')).toBe('hi\n');
  });

  it('a pipeline with && and a redirection: every command and the mode, in one rerun', async () => {
    writeFileSync(path.join(t.ctx.work, 'out3.txt'), 'hello\nbye now\n');
    const command = 'cat out3.txt | grep bye > y.txt && rm y.txt';
    const flags = await refusedWith(command);
    expect(flags).toBe(
      "--permission-mode auto-edit --allow 'bash:cat out3.txt*' --allow 'bash:grep bye*' --allow 'bash:rm y.txt*'",
    );
    await runsWith(command, flags);
    expect(existsSync(path.join(t.ctx.work, 'y.txt'))).toBe(false);
  });

  it('a plain command: its --allow alone (no mode change)', async () => {
    const command = 'ls -a';
    const flags = await refusedWith(command);
    expect(flags).toBe("--allow 'bash:ls -a*'");
    await runsWith(command, flags);
  });

  it('with some flags given already, only what is still missing', async () => {
    const command = 'echo hi > x.txt';
    t.server.script(reply().toolCall('bash', { command }), reply().text('Could not.'));
    const r = await tea(['-p', `run: ${command}`, '--allow', 'bash:echo hi*']);
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/; to let it run, rerun with --permission-mode auto-edit or --yolo\n$/);
  });
});
