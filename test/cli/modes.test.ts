/**
 * `tea -p --work-mode`: the built CLI runs a prompt in a work mode (its line and only its
 * tools reach the scripted model), refuses other tools' calls like a permission refusal
 * (exit 5, the mode that offers the tool on stderr), keeps it for `--continue`, lets an explicit
 * `--permission-mode` win over the mode's, and refuses an unknown mode or a bad
 * `modes:` config before any request, naming what to fix.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const system = (i: number) => wireText(wireMessages(t.server.requests[i]!.body)[0]!);
const offered = (i: number) =>
  (t.server.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((x) => x.function.name);

describe('tea -p --work-mode', () => {
  it('runs in the mode, refuses a write there (exit 5, naming the mode that offers it), and --continue keeps it', async () => {
    t.server.script(
      reply().toolCall('write_file', { path: 'x.md', content: 'x' }),
      reply().text('Findings: none.'),
      reply().text('Still reviewing.'),
    );
    const r = await tea(['-p', '--work-mode', 'review', '--yolo', 'review this repo']);
    // Refused like a permission refusal: scripts notice, and stderr says how to let it run.
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('Findings: none.\n');
    expect(r.stderr).toContain(
      'tea: refused write_file (x.md): not available in the "review" work mode; to let it run, rerun with --work-mode develop\n',
    );
    expect(system(0)).toContain('\nWork mode: review — Review, do not change');
    expect(offered(0)).not.toContain('write_file');
    expect(offered(0)).not.toContain('bash');
    // --yolo was given: it wins over review's read-only.
    expect(system(0)).toContain('\nPermission mode: yolo');
    const result = wireMessages(t.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    expect(wireText(result)).toMatch(/^\[ERROR\] write_file is not available in the "review" work mode\./);
    expect(existsSync(path.join(t.ctx.work, 'x.md'))).toBe(false);
    const again = await tea(['-p', '-c', 'and now?']);
    expect(again.code).toBe(0);
    expect(system(2)).toContain('\nWork mode: review — ');
    expect(system(2)).toContain('\nPermission mode: read-only');
  });

  it('exits 5 when the work mode refuses the command a rule runs, as for a refused model call', async () => {
    const r = await tea(['-p', '--work-mode', 'review', '--yolo', '!touch made.txt']);
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'tea: refused bash (touch made.txt): not available in the "review" work mode; to let it run, rerun with --work-mode develop\n',
    );
    expect(existsSync(path.join(t.ctx.work, 'made.txt'))).toBe(false);
    expect(t.server.requests).toHaveLength(0);
    const ok = await tea(['-p', '--work-mode', 'develop', '--yolo', '!touch made.txt']);
    expect(ok.code).toBe(0);
    expect(existsSync(path.join(t.ctx.work, 'made.txt'))).toBe(true);
  });

  it('without --work-mode a new session is in develop (or the config’s default_mode)', async () => {
    t.server.script(reply().text('a'), reply().text('b'));
    expect((await tea(['-p', 'hi'])).code).toBe(0);
    expect(system(0)).toContain('\nWork mode: develop — ');
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}\ndefault_mode: docs\n`);
    expect((await tea(['-p', 'hi'])).code).toBe(0);
    expect(system(1)).toContain('\nWork mode: docs — ');
    expect(system(1)).toContain('\nPermission mode: auto-edit');
  });

  it('refuses an unknown mode with exit 2, listing the modes, before any request', async () => {
    const r = await tea(['-p', '--work-mode', 'shipping', 'hi']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--work-mode: unknown work mode "shipping": use one of design, develop, test, review, docs, devops',
    );
    expect(t.server.requests).toHaveLength(0);
  });

  it('refuses a modes config naming an unknown tool, with the file, key and fix', async () => {
    const file = path.join(t.ctx.home, 'config.yaml');
    writeFileSync(file, `${NO_MEMORY_JOBS}\nmodes:\n  review: { tools: [read, git_dif] }\n`);
    const r = await tea(['-p', 'hi']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      `~/tea-home/config.yaml: modes.review.tools[1]: unknown tool or category "git_dif"; did you mean "git_diff"?`,
    );
    expect(t.server.requests).toHaveLength(0);
  });
});
