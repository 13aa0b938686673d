/**
 * bash hands its whole output to the runner's truncation, so a long output is cut for
 * the model and saved in full where the model can read it (issue 13): in memory up to
 * bashMaxOutputChars, past that written to the same file by bash itself.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExecToolOptions, execTools } from '../../src/tools/builtin/exec.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx, tempDir } from './helpers.js';

async function bash(
  cwd: string,
  command: string,
  opts: { tools?: ExecToolOptions; outputDir?: string; maxOutputChars?: number } = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(execTools(opts.tools));
  const ctx = makeCtx(cwd, { callId: 'call-1', ...(opts.outputDir ? { outputDir: opts.outputDir } : {}) });
  return runTool(registry, call('bash', { command }), ctx, {
    ...(opts.maxOutputChars ? { maxOutputChars: opts.maxOutputChars } : {}),
  });
}

/** What `seq 1 n` prints. */
const seq = (n: number): string => Array.from({ length: n }, (_, i) => `${i + 1}\n`).join('');

describe('bash output past the 30,000-character rule', () => {
  it('is cut for the model and saved in full to the tool-output file', async () => {
    const cwd = await tempDir();
    const outputDir = join(await tempDir(), 'out');
    const r = await bash(cwd, 'seq 1 20000', { outputDir });
    const file = join(outputDir, 'call-1.txt');
    const full = `exit code: 0\n${seq(20000).replace(/\n$/, '')}`;
    expect(r.status).toBe('ok');
    expect(r.output.length).toBeLessThanOrEqual(30_000);
    expect(r.output.startsWith('exit code: 0\n1\n2\n3\n')).toBe(true);
    expect(r.output).toMatch(/\n… \[\d+ lines \/ \d+ chars omitted\] …\n/);
    expect(r.output).toContain('\n20000\n');
    expect(
      r.output.endsWith(
        `\n[full output (${full.length} chars) saved to ${file}; read_file it with offset/limit to see the omitted part]`,
      ),
    ).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(full);
  });

  it('past what memory holds, bash writes the whole output to that file itself', async () => {
    const cwd = await tempDir();
    const outputDir = join(await tempDir(), 'out');
    const r = await bash(cwd, 'seq 1 100000; echo done', {
      outputDir,
      tools: { bashMaxOutputChars: 10_000 },
      maxOutputChars: 5000,
    });
    const file = join(outputDir, 'call-1.txt');
    const whole = `${seq(100000)}done\n`;
    expect(r.status).toBe('ok');
    expect(r.output.length).toBeLessThanOrEqual(5000);
    expect(r.output.startsWith('exit code: 0\n1\n2\n')).toBe(true);
    expect(r.output).toContain('\n100000\ndone\n');
    expect(
      r.output.endsWith(
        `\n[full output (${whole.length} chars) saved to ${file}; read_file it with offset/limit to see the omitted part]`,
      ),
    ).toBe(true);
    expect(await readFile(file, 'utf8')).toBe(whole);
    expect(await readdir(outputDir)).toEqual(['call-1.txt']);
  });

  it('stops saving at bashMaxSavedBytes and says the file holds only the start', async () => {
    const cwd = await tempDir();
    const outputDir = join(await tempDir(), 'out');
    const r = await bash(cwd, 'seq 1 200000', {
      outputDir,
      tools: { bashMaxOutputChars: 10_000, bashMaxSavedBytes: 50_000 },
    });
    const file = join(outputDir, 'call-1.txt');
    const saved = await readFile(file, 'utf8');
    expect(seq(200000).startsWith(saved)).toBe(true);
    expect(saved.length).toBeGreaterThanOrEqual(50_000);
    expect((await stat(file)).size).toBeLessThan(50_000 + 70_000);
    expect(r.output).toContain('\n200000\n[the first ');
    expect(r.output).toMatch(
      new RegExp(
        `\\n\\[the first \\d+ bytes of the output \\(of ${seq(200000).length} chars; saving stopped at its size limit\\) saved to ${file.replace(/[.]/g, '\\.')}; read_file it with offset/limit; the end of the output is shown above\\]$`,
      ),
    );
  });

  it('without an output directory, keeps the head and tail and saves nothing', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, 'seq 1 100000', { tools: { bashMaxOutputChars: 10_000 } });
    expect(r.output.length).toBeLessThanOrEqual(10_100);
    expect(r.output.startsWith('exit code: 0\n1\n2\n')).toBe(true);
    expect(r.output.endsWith('\n99999\n100000')).toBe(true);
    expect(r.output).not.toContain('saved to');
  });
});
