/**
 * `tea memory search` and `tea memory add` as a user runs them: a fresh process
 * each time (the built CLI in dist/), against a data home holding 10k memories of
 * the ingest corpus, interleaved with `node -e 0` so machine noise hits both
 * alike. Also the same search in-process through MemoryService. Prints figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryService } from '../src/memory/service.js';
import { Store } from '../src/store/index.js';
import { buildIngestCorpus, CORPUS_END } from './memory-ingest-corpus.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');
const RUNS = 21;
const TARGET_PROCESS_MS = 150;
const TARGET_IN_PROCESS_MS = 5;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? Number.NaN;
const p95 = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.95)] ?? Number.NaN;

function timed(args: string[], env: NodeJS.ProcessEnv): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr.toString()}`);
  return ms;
}

export async function benchMemoryCli(size = 10_000): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-memcli-'));
  const env = { PATH: process.env.PATH, HOME: home, TEA_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9' };
  try {
    const corpus = buildIngestCorpus({ size });
    const loading = Store.open(path.join(home, 'tea.db'));
    new MemoryService({ db: loading.db, now: () => CORPUS_END }).importAll(
      corpus.events.map((e) => ({ content: e.content, category: e.category, createdAt: e.at })),
    );
    loading.close();
    // Searched the way a session does it: a process that opens the data home, then keeps asking.
    const store = Store.open(path.join(home, 'tea.db'));
    const service = new MemoryService({ db: store.db, now: () => CORPUS_END });
    const questions = corpus.questions.map((q) => q.text);
    for (const q of questions.slice(0, 20)) await service.search(q);
    const inProcess: number[] = [];
    for (const q of questions) {
      const t0 = performance.now();
      await service.search(q);
      inProcess.push(performance.now() - t0);
    }
    store.close();

    // The same data home as a user with a model configured has it: a config.yaml to read.
    const configured = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-memcli-conf-'));
    symlinkSync(path.join(home, 'tea.db'), path.join(configured, 'tea.db'));
    writeFileSync(
      path.join(configured, 'config.yaml'),
      'main_model:\n  provider: openai\n  base_url: http://127.0.0.1:9/v1\n  model: gpt-4o-mini\n' +
        '  api_key_env: OPENAI_API_KEY\ncheap_model:\n  model: gpt-4o-mini\nmemory:\n  judge: true\n' +
        'permissions:\n  mode: ask\n',
    );
    const confEnv = { ...env, HOME: configured, TEA_HOME: configured };
    const base: number[] = [];
    const search: number[] = [];
    const searchConfigured: number[] = [];
    const add: number[] = [];
    timed([TEA, 'memory', 'search', 'warm', 'up'], env);
    for (let i = 0; i < RUNS; i++) {
      base.push(timed(['-e', '0'], env));
      search.push(timed([TEA, 'memory', 'search', questions[i % questions.length] as string], env));
      searchConfigured.push(
        timed([TEA, 'memory', 'search', questions[i % questions.length] as string], confEnv),
      );
      add.push(
        timed(
          [
            TEA,
            'memory',
            'add',
            '--offline',
            `Bench note ${i}: the nightly job of Kestrel${i} runs at 0${i % 10}:15.`,
          ],
          env,
        ),
      );
    }
    const f = (ms: number) => `${ms.toFixed(1)} ms`;
    console.log(
      `memory ${size / 1000}k: search in-process p50 ${f(median(inProcess))} p95 ${f(p95(inProcess))} (target ≤ ${TARGET_IN_PROCESS_MS} ms) | ` +
        `tea memory search p50 ${f(median(search))} · tea memory add p50 ${f(median(add))} (target ≤ ${TARGET_PROCESS_MS} ms) | node -e 0 p50 ${f(median(base))}`,
    );
    console.log(
      `    with a config.yaml (a configured model): tea memory search p50 ${f(median(searchConfigured))}`,
    );
    rmSync(configured, { recursive: true, force: true });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchMemoryCli();
