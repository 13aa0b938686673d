import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { link, mkdir, statfs, symlink } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemTools } from '../../src/tools/builtin/system.js';
import type { SystemToolOptions } from '../../src/tools/builtin/system-options.js';
import { formatCpu, parsePsOutput, parsePsTime } from '../../src/tools/builtin/system-process.js';
import { formatSize } from '../../src/tools/builtin/text.js';
import type { ToolRunResult } from '../../src/tools/run.js';
import type { ToolContext } from '../../src/tools/types.js';
import { runFamily, tempDir, writeTree } from './helpers.js';

function run(
  name: string,
  args: Record<string, unknown>,
  opts: SystemToolOptions = {},
  ctx: { cwd?: string } & Partial<ToolContext> = {},
): Promise<ToolRunResult> {
  return runFamily(systemTools(opts), name, args, ctx);
}

describe('process_list', () => {
  async function withMarkedChild<T>(fn: (marker: string, pid: number) => Promise<T>): Promise<T> {
    const marker = `tea-marker-${randomUUID()}`;
    const child = spawn(
      process.execPath,
      [
        '-e',
        'setInterval(() => {}, 1000)',
        '--',
        marker,
        'API_TOKEN=hunter2hunter2',
        '--password',
        'swordfish',
      ],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      return await fn(marker, child.pid!);
    } finally {
      child.kill('SIGKILL');
    }
  }

  for (const backend of ['proc', 'ps'] as const) {
    it(`finds a process by its command line (${backend}) and redacts credentials`, async () => {
      await withMarkedChild(async (marker, pid) => {
        const r = await run('process_list', { filter: marker }, { processBackend: backend });
        const lines = r.output.split('\n');
        expect(lines[0]).toMatch(new RegExp(`^\\d+ processes, 1 matching "${marker}"; top 1 by memory$`));
        expect(lines[1]).toMatch(/^\s*PID\s+PPID\s+USER\s+CPU\s+RSS\s+COMMAND$/);
        const cols = lines[2]!.trim().split(/\s+/);
        expect(Number(cols[0])).toBe(pid);
        expect(Number(cols[1])).toBe(process.pid);
        expect(cols[2]).toBe(os.userInfo().username);
        expect(lines[2]).toContain(`${process.execPath} -e setInterval(() => {}, 1000) -- ${marker}`);
        expect(lines[2]).toContain('API_TOKEN=[redacted] --password [redacted]');
        expect(r.output).not.toContain('hunter2');
        expect(r.output).not.toContain('swordfish');
      });
    });
  }

  it('sorts by memory, limits rows and sorts by CPU time on request', async () => {
    const toBytes = (size: string, unit: string): number =>
      Number(size) * 1024 ** ['B', 'KB', 'MB', 'GB', 'TB'].indexOf(unit);
    const r = await run('process_list', { max: 4 }, { processBackend: 'proc' });
    const rows = r.output.split('\n').slice(2);
    expect(rows).toHaveLength(4);
    const rss = rows.map((row) => {
      const m = /\s([\d.]+) (B|KB|MB|GB)\s/.exec(row)!;
      return toBytes(m[1]!, m[2]!);
    });
    expect([...rss].sort((a, b) => b - a)).toEqual(rss);
    const byCpu = await run('process_list', { max: 5, sort_by: 'cpu' }, { processBackend: 'proc' });
    expect(byCpu.output.split('\n')[0]).toMatch(/; top 5 by CPU time$/);
    const cpu = byCpu.output
      .split('\n')
      .slice(2)
      .map((row) => parsePsTime(row.trim().split(/\s+/)[3]!));
    expect([...cpu].sort((a, b) => b - a)).toEqual(cpu);
  });

  it('says when nothing matches and validates max', async () => {
    const none = await run('process_list', { filter: `no-such-process-${randomUUID()}` });
    expect(none.output).toMatch(
      /, 0 matching "no-such-process-[^"]+"; top 0 by memory\n\(no process matches; try a shorter filter\)$/,
    );
    const tooMany = await run('process_list', { max: 501 });
    expect(tooMany.output).toMatch(/^\[ERROR\] Invalid arguments for process_list: max: /);
  });

  it('reads ps time formats and output lines', () => {
    expect(parsePsTime('00:00:07')).toBe(7);
    expect(parsePsTime('01:02:03')).toBe(3723);
    expect(parsePsTime('2-00:00:01')).toBe(172_801);
    expect(parsePsTime('1:02.50')).toBe(62.5);
    expect(formatCpu(62.5)).toBe('1:02.50');
    expect(formatCpu(3723)).toBe('1:02:03');
    expect(
      parsePsOutput('  42     1 root     00:01:00  2048 /sbin/init splash\n 7 2 daemon 00:00:00 0 \n'),
    ).toEqual([
      { pid: 42, ppid: 1, user: 'root', cpuSeconds: 60, rssBytes: 2_097_152, command: '/sbin/init splash' },
      { pid: 7, ppid: 2, user: 'daemon', cpuSeconds: 0, rssBytes: 0, command: '?' },
    ]);
  });
});

describe('disk_usage', () => {
  async function fsLine(dir: string): Promise<string> {
    const fs = await statfs(dir);
    const total = fs.blocks * fs.bsize;
    const used = (fs.blocks - fs.bfree) * fs.bsize;
    return `file system: ${formatSize(fs.bavail * fs.bsize)} free of ${formatSize(total)} (${Math.round((used / total) * 100)}% used)`;
  }

  it('sizes a directory, skipping node_modules and .git unless asked', async () => {
    const cwd = await writeTree(await tempDir(), {
      'a.txt': 'x'.repeat(100),
      'sub/b.bin': 'y'.repeat(2000),
      'sub/deep/c.txt': 'z'.repeat(50),
      'node_modules/pkg/index.js': 'n'.repeat(5000),
      '.git/objects/o': 'g'.repeat(3000),
    });
    const r = await run('disk_usage', {}, {}, { cwd });
    const first = r.output.split('\n')[0];
    expect(first).toMatch(/^file system: [\d.]+ [KMGT]?B free of [\d.]+ [KMGT]?B \(\d+% used\)$/);
    expect(r.output.split('\n').slice(1)).toEqual([
      '. (workspace): 2.1 KB in 3 files and 2 directories (apparent size)',
      'skipped: .git, node_modules (pass include_ignored=true to count them)',
      'largest entries:',
      '     2.0 KB  sub/',
      '      100 B  a.txt',
    ]);
    const all = await run('disk_usage', { include_ignored: true }, {}, { cwd });
    expect(all.output).toContain('. (workspace): 9.9 KB in 5 files and 6 directories (apparent size)');
    expect(all.output).toContain('     4.9 KB  node_modules/\n');
    const sub = await run('disk_usage', { path: 'sub' }, {}, { cwd });
    expect(sub.output).toContain('sub/: 2.0 KB in 2 files and 1 directory (apparent size)');
    expect(sub.output.split('\n')[0]).toBe(await fsLine(cwd));
  });

  it('counts hard links once and does not follow symlinks', async () => {
    const outside = await writeTree(await tempDir(), { 'big.bin': 'b'.repeat(50_000) });
    const cwd = await writeTree(await tempDir(), { 'one.txt': 'o'.repeat(1000) });
    await link(join(cwd, 'one.txt'), join(cwd, 'two.txt'));
    await symlink(outside, join(cwd, 'elsewhere'));
    const r = await run('disk_usage', {}, {}, { cwd });
    const linkSize = outside.length; // a symlink's own size is the length of its target
    expect(r.output).toContain(`in 2 files and 0 directories`);
    expect(r.output).toContain(`. (workspace): ${formatSize(1000 + linkSize)} in`);
  });

  it('stops at the entry cap and says the size is a lower bound', async () => {
    const files = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}.txt`, 'x'.repeat(10)]));
    const cwd = await writeTree(await tempDir(), files);
    const r = await run('disk_usage', {}, { diskMaxEntries: 4 }, { cwd });
    expect(r.output).toContain('. (workspace): 40 B in 4 files and 0 directories (apparent size)');
    expect(r.output).toContain('note: stopped after 4 entries; the sizes are lower bounds');
  });

  it('reports a single file and refuses paths outside the workspace', async () => {
    const cwd = await writeTree(await tempDir(), { 'data.csv': 'a,b\n'.repeat(10) });
    await mkdir(join(cwd, 'empty'));
    const file = await run('disk_usage', { path: 'data.csv' }, {}, { cwd });
    expect(file.output.split('\n')[1]).toBe('data.csv: 40 B (40 bytes)');
    const empty = await run('disk_usage', { path: 'empty' }, {}, { cwd });
    expect(empty.output).toContain('empty/: 0 B in 0 files and 0 directories');
    const outside = await run('disk_usage', { path: '/etc' }, {}, { cwd });
    expect(outside.output).toMatch(/^\[ERROR\] Path "\/etc" is outside the workspace/);
    const missing = await run('disk_usage', { path: 'nope' }, {}, { cwd });
    expect(missing.output).toMatch(/^\[ERROR\] No such file or directory: nope/);
  });
});
