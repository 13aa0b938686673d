/**
 * Peak memory of the file tools on big inputs: edit_file on a 100 MB file (refused
 * past the size limit), edit_file on a file just under the limit, grep (ripgrep and
 * the JavaScript fallback) over a directory holding a 100 MB file, and glob over
 * 100,000 files. Each measurement runs in a
 * fresh child process (`node --import tsx`), which reports its peak RSS (maxRSS)
 * before and after the one tool call. Prints figures; asserts nothing about time.
 *
 * Standalone: `node --import tsx bench/tools-memory.ts`.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const SELF = import.meta.filename;
const BIG_BYTES = 100 * 1024 * 1024;
const NEAR_LIMIT_BYTES = 9 * 1024 * 1024;
const GLOB_FILES = 100_000;

interface ChildReport {
  /** Peak RSS (MB) after loading the tools, before the call. */
  beforeMb: number;
  /** Peak RSS (MB) of the whole child, after the call. */
  peakMb: number;
  ms: number;
  /** The first line of the tool's answer. */
  answer: string;
}

/** Runs in the child: one tool call through the real runner, then reports. */
async function child(tool: string, cwd: string, argsJson: string, backend: string): Promise<void> {
  const { builtinTools } = await import('../src/tools/builtin/all.js');
  const { ToolRegistry } = await import('../src/tools/registry.js');
  const { runTool } = await import('../src/tools/run.js');
  const registry = new ToolRegistry();
  registry.registerAll(builtinTools({ grepBackend: backend === 'js' ? 'js' : 'rg' }));
  const ctx = { cwd, sessionId: 'bench', callId: 'bench', signal: new AbortController().signal };
  const call = { type: 'tool-call' as const, id: 'bench', name: tool, args: JSON.parse(argsJson) };
  const beforeMb = process.resourceUsage().maxRSS / 1024;
  const t0 = performance.now();
  const result = await runTool(registry, call, ctx);
  const ms = performance.now() - t0;
  const report: ChildReport = {
    beforeMb,
    peakMb: process.resourceUsage().maxRSS / 1024,
    ms,
    answer: result.output.split('\n')[0]?.slice(0, 160) ?? '',
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function measure(
  tool: string,
  cwd: string,
  args: Record<string, unknown>,
  grepBackend: 'rg' | 'js' = 'rg',
): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      ['--import', 'tsx', SELF, '--child', tool, cwd, JSON.stringify(args), grepBackend],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    proc.on('error', reject);
    proc.on('close', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${tool} child exited ${code}: ${out}`));
      else resolve(JSON.parse(line) as ChildReport);
    });
  });
}

/** A text file of about `bytes` bytes with `marker` on its middle line. */
function bigFile(file: string, bytes: number, marker: string): void {
  const line = 'const value = "lorem ipsum dolor sit amet, consectetur adipiscing elit";\n';
  const half = line.repeat(Math.floor(bytes / line.length / 2));
  writeFileSync(file, `${half}${marker}\n${half}`);
}

function print(label: string, r: ChildReport): void {
  const delta = r.peakMb - r.beforeMb;
  console.log(
    `${label.padEnd(44)} peak RSS ${r.peakMb.toFixed(0).padStart(5)} MB (+${delta.toFixed(0)} MB for the call)  ${r.ms.toFixed(0)} ms`,
  );
  console.log(`${''.padEnd(44)} → ${r.answer}`);
}

export async function benchToolsMemory(): Promise<void> {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-bench-toolmem-')));
  try {
    const files = path.join(root, 'files');
    mkdirSync(files);
    bigFile(path.join(files, 'big.txt'), BIG_BYTES, 'NEEDLE_LINE');
    bigFile(path.join(files, 'near.txt'), NEAR_LIMIT_BYTES, 'NEEDLE_LINE');
    print(
      'edit_file, 100 MB file',
      await measure('edit_file', files, { path: 'big.txt', old_string: 'NEEDLE_LINE', new_string: 'DONE' }),
    );
    print(
      'edit_file, 9 MB file',
      await measure('edit_file', files, { path: 'near.txt', old_string: 'NEEDLE_LINE', new_string: 'DONE' }),
    );
    print('grep (rg), dir with a 100 MB file', await measure('grep', files, { pattern: 'NEEDLE_LINE' }));
    print(
      'grep (JS fallback), dir with a 100 MB file',
      await measure('grep', files, { pattern: 'NEEDLE_LINE', context: 2 }, 'js'),
    );

    const tree = path.join(root, 'tree');
    const t0 = performance.now();
    for (let i = 0; i < GLOB_FILES; i++) {
      const dir = path.join(tree, `d${Math.floor(i / 1000)}`);
      if (i % 1000 === 0) mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `f${i}.ts`), '');
    }
    console.log(`(made ${GLOB_FILES} files in ${(performance.now() - t0).toFixed(0)} ms)`);
    print(`glob **/*.ts, ${GLOB_FILES} files`, await measure('glob', tree, { pattern: '**/*.ts' }));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3] ?? '', process.argv[4] ?? '', process.argv[5] ?? '{}', process.argv[6] ?? 'rg');
} else if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await benchToolsMemory();
}
