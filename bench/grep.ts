/**
 * grep benchmark: our grep tool (ripgrep backend) against running rg directly on a
 * generated 20,000-file tree, plus one run of the JavaScript fallback. Prints figures.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { GrepBackend } from '../src/tools/builtin/grep-core.js';
import { jsGrepBackend } from '../src/tools/builtin/grep-js.js';
import { findRipgrep, rgGrepBackend } from '../src/tools/builtin/grep-rg.js';
import { searchTools } from '../src/tools/builtin/search.js';
import type { ToolContext } from '../src/tools/types.js';

const FILES = 20_000;
const NEEDLE = 'TEA_BENCH_NEEDLE';
/** Every MATCH_EVERY-th file holds one matching line. */
const MATCH_EVERY = 40;
const RUNS = 5;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number): string => `${ms.toFixed(1)} ms`;

/** Deterministic filler text of about `bytes` bytes. */
function filler(seed: number, bytes: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'const', 'value', 'return', 'import', 'export', 'load'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `${words[(seed + i) % words.length]} ${words[(seed * 7 + i * 3) % words.length]} = ${seed * 31 + i};`;
    lines.push(line);
    size += line.length + 1;
  }
  return `${lines.join('\n')}\n`;
}

/** 20 top dirs × 10 subdirs × 100 files, sizes from ~200 B to ~40 KB; returns the expected match count. */
function generateTree(root: string): number {
  let matches = 0;
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(root, `pkg${Math.floor(i / 1000)}`, `mod${Math.floor(i / 100) % 10}`);
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    const size = i % 50 === 0 ? 40_000 : i % 7 === 0 ? 4000 : 200;
    let text = filler(i, size);
    if (i % MATCH_EVERY === 0) {
      text += `// ${NEEDLE} in file ${i}\n`;
      matches++;
    }
    writeFileSync(path.join(dir, `file${i}.ts`), text);
  }
  writeFileSync(path.join(root, '.gitignore'), 'build/\n');
  return matches;
}

function runRg(rg: string, root: string): Promise<{ ms: number; lines: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(
      rg,
      ['--no-config', '--line-number', NEEDLE, '.'],
      { cwd: root, maxBuffer: 64 << 20 },
      (error, stdout) => {
        if (error && error.code !== 1) return reject(error);
        resolve({ ms: performance.now() - t0, lines: stdout.split('\n').filter((l) => l !== '').length });
      },
    );
  });
}

async function runTool(backend: GrepBackend, root: string): Promise<{ ms: number; lines: number }> {
  const grep = searchTools({ grepBackend: backend }).find((t) => t.name === 'grep')!;
  const ctx: ToolContext = {
    cwd: root,
    sessionId: 'bench',
    callId: 'grep',
    signal: new AbortController().signal,
  };
  const t0 = performance.now();
  const result = await grep.execute({ pattern: NEEDLE, max_results: 2000 }, ctx);
  const ms = performance.now() - t0;
  const output = typeof result === 'string' ? result : result.output;
  return { ms, lines: output.split('\n').filter((l) => l.includes(NEEDLE)).length };
}

export async function benchGrep(): Promise<void> {
  const rg = await findRipgrep();
  if (rg === undefined) {
    console.log('grep bench skipped: no working ripgrep binary');
    return;
  }
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-bench-grep-')));
  try {
    const t0 = performance.now();
    const expected = generateTree(root);
    console.log(`grep: generated ${FILES} files (${expected} matches) in ${fmt(performance.now() - t0)}`);
    const ours: number[] = [];
    const direct: number[] = [];
    // Interleaved, after one warm-up each, so the page cache and machine noise hit both alike.
    await runTool(rgGrepBackend(rg), root);
    await runRg(rg, root);
    for (let i = 0; i < RUNS; i++) {
      const a = await runTool(rgGrepBackend(rg), root);
      const b = await runRg(rg, root);
      if (a.lines !== expected || b.lines !== expected) {
        throw new Error(
          `grep bench: expected ${expected} matches, got ${a.lines} (tool) and ${b.lines} (rg)`,
        );
      }
      ours.push(a.ms);
      direct.push(b.ms);
    }
    const js = await runTool(jsGrepBackend, root);
    const ratio = median(ours) / median(direct);
    console.log(`grep tool (rg backend)            median ${fmt(median(ours))}  over ${RUNS} runs`);
    console.log(`rg directly                       median ${fmt(median(direct))}  over ${RUNS} runs`);
    console.log(`  ratio ours / rg                 ${ratio.toFixed(2)}×`);
    console.log(`grep tool (JS fallback, once)     ${fmt(js.ms)}  (${js.lines} matches)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
