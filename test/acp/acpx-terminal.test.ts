/**
 * A third-party ACP client, acpx, offers terminals by default: `tea acp` runs the
 * model's bash in acpx's terminal, and the model gets the command's real output.
 * With `--no-terminal`, the same prompt runs bash in Tea as before.
 */
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEA_BIN } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { useAcp } from './setup.js';

const ACPX = path.join(
  path.dirname(createRequire(import.meta.url).resolve('acpx/package.json')),
  'dist',
  'cli.js',
);

const setup = useAcp();
const { t } = setup;

function acpx(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const agent = `${process.execPath} ${TEA_BIN} acp --sandbox off --yolo`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ACPX, '--agent', agent, '--cwd', setup.work, '--approve-all', '--format', 'json', ...args],
      { env: t.ctx.env, cwd: setup.work, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The ACP messages acpx printed (its json format: one JSON-RPC message a line). */
function messages(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((l) => l.trim().startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('acpx exec against tea acp', () => {
  it('runs bash in acpx’s terminal; the model gets the real output', async () => {
    const command = 'echo "from $PWD"; exit 4';
    t.server.script(reply().toolCall('bash', { command }), reply().text('Ran it.'));
    const r = await acpx(['exec', 'run it']);
    expect(r.code, r.stderr).toBe(0);
    const tool = wireMessages(t.server.requests[1]!.body).filter((m) => m.role === 'tool');
    expect(wireText(tool.at(-1)!)).toBe(`exit code: 4\nfrom ${setup.work}`);
    const text = JSON.stringify(messages(r.stdout));
    expect(text).toContain('"type":"terminal"');
  });

  it('with --no-terminal, bash runs in Tea and no terminal is shown', async () => {
    t.server.script(reply().toolCall('bash', { command: 'echo local' }), reply().text('Ran it.'));
    const r = await acpx(['--no-terminal', 'exec', 'run it']);
    expect(r.code, r.stderr).toBe(0);
    const tool = wireMessages(t.server.requests[1]!.body).filter((m) => m.role === 'tool');
    expect(wireText(tool.at(-1)!)).toBe('exit code: 0\nlocal');
    expect(JSON.stringify(messages(r.stdout))).not.toContain('"type":"terminal"');
  });
});
