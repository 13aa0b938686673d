/**
 * What `tea -p` says on stderr when a run does not simply finish: the iteration cap,
 * a refusal in read-only mode, a model that is down, a turn stopped at its deadline.
 * Each line starts with `tea:` and says how to go on.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runTea(args, { env: { ...t.ctx.env, ...env }, cwd: t.ctx.work });

function config(yaml: string): void {
  writeFileSync(path.join(t.ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}${yaml}`);
}

/** The arguments a POSIX shell makes of `flags`, as a user pasting them gets. */
function shellWords(flags: string): string[] {
  return execFileSync('sh', ['-c', `printf '%s\\n' ${flags}`], { encoding: 'utf8' })
    .trim()
    .split('\n');
}

interface StreamEvent {
  type: string;
  record?: { name: string; state: string; content: Array<{ type: string; text?: string }> };
}

/** The text of an ended call's result, from its stream-json record. */
const outputOf = (e: StreamEvent): string => (e.record?.content ?? []).map((p) => p.text ?? '').join('');

describe('tea -p when a run stops early', () => {
  it('at the iteration cap, says so in good English with the command that goes on', async () => {
    t.server.script(reply().toolCall('list_dir', { path: '.' }));
    const r = await tea(['-p', 'look around', '--max-turns', '1']);
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      'tea: stopped after 1 model call (the iteration cap); the task may not be complete. ' +
        'To go on where it stopped: tea -p "continue" --continue, or raise the cap with --max-turns (agent.max_iterations).\n',
    );

    t.server.script(reply().toolCall('list_dir', { path: '.' }));
    const json = await tea(['-p', 'look around', '--max-turns', '1', '--output-format', 'json']);
    expect(json.code).toBe(4);
    expect(JSON.parse(json.stdout).message).toMatch(
      /^stopped after 1 model call .*tea -p "continue" --continue/,
    );

    // And the command it names does go on, in the same session.
    t.server.script(reply().text('All done.'));
    const next = await tea(['-p', 'continue', '--continue']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe('All done.\n');
    expect(JSON.stringify(t.server.requests.at(-1)!.body)).toContain('look around');
  });

  it('a command refused in read-only mode names the flags that let it run, in text and JSON', async () => {
    writeFileSync(path.join(t.ctx.work, 'out.txt'), 'hello\n');
    const script = () =>
      t.server.script(reply().toolCall('bash', { command: 'rm out.txt' }), reply().text('Could not.'));
    script();
    const r = await tea(['-p', 'run: rm out.txt', '--permission-mode', 'read-only']);
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      'tea: refused bash (rm out.txt): not allowed here (read-only mode refuses `rm out.txt`: it changes files); ' +
        "to let it run, rerun with --permission-mode ask --allow 'bash:rm out.txt*' or --yolo\n",
    );
    script();
    const json = await tea([
      '-p',
      'run: rm out.txt',
      '--permission-mode',
      'read-only',
      '--output-format',
      'json',
    ]);
    expect(JSON.parse(json.stdout).refused[0].rerun_with).toBe(
      "--permission-mode ask --allow 'bash:rm out.txt*' or --yolo",
    );
    expect(existsSync(path.join(t.ctx.work, 'out.txt'))).toBe(true);

    // The flags, pasted as they are, let exactly that command run.
    const flags = /rerun with (.+) or --yolo$/m.exec(r.stderr)![1]!;
    t.server.script(reply().toolCall('bash', { command: 'rm out.txt' }), reply().text('Removed.'));
    const again = await tea(['-p', 'run: rm out.txt', ...shellWords(flags)]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(path.join(t.ctx.work, 'out.txt'))).toBe(false);
  });

  it('a model that is down ends with a `tea:` line naming it, exit 1', async () => {
    config('llm: { max_retries: 0 }\n');
    const r = await tea(['-p', 'hello?'], { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^tea: main_model: network error calling http:\/\/127\.0\.0\.1:9\/v1/);
    expect(r.stderr).not.toMatch(/^error \(/m);
  });

  it('tool calls stopped by the turn deadline say the deadline stopped them, not the user', async () => {
    config('agent: { turn_timeout_s: 1 }\n');
    t.server.script(
      reply().toolCall('bash', { command: 'sleep 30' }).toolCall('bash', { command: 'echo never' }),
    );
    const r = await tea(['-p', 'wait', '--yolo', '--output-format', 'stream-json']);
    expect(r.code).toBe(1);
    const finished = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as StreamEvent)
      .filter((e) => e.type === 'tool_update' && e.record?.state === 'cancelled');
    expect(finished.map((e) => outputOf(e).split('\n', 1)[0])).toEqual([
      '[CANCELLED] bash was stopped: the turn ran past its deadline of 1 s (agent.turn_timeout_s)',
      '[CANCELLED] This call did not run: the turn ran past its deadline of 1 s (agent.turn_timeout_s).',
    ]);
    for (const e of finished) expect(outputOf(e)).not.toMatch(/user/);
  });
});
