/** `tea … | head`: when the reader of stdout goes away, tea stops quietly (exit 0, no stack trace). */
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, spawnTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

/** Runs tea with the read end of its stdout closed before it writes anything (like `| head -0`). */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawnTea(args, { env: t.ctx.env, cwd: t.ctx.work });
    child.stdout?.destroy();
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout', () => {
  it.each([
    [['tools', 'list']],
    [['tools', 'list', '--json']],
    [['tools', 'show', 'edit_file']],
    [['sessions', 'list']],
    [['memory', 'list']],
    [['config']],
    [['--help']],
  ])('tea %j exits 0 without a word', async (args) => {
    const r = await withClosedStdout(args);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it.each([['text'], ['json'], ['stream-json']])(
    'tea -p --output-format %s exits 0 without a word',
    async (format) => {
      t.server.script(reply().text('A long answer.\n'.repeat(50)));
      const r = await withClosedStdout(['-p', 'say a lot', '--output-format', format]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    },
  );
});
