/**
 * Start-up of the shipped CLI (bin/tea.js running dist/tea.cjs), against the scripted
 * model server. Every figure stands beside `node -e 0` measured interleaved with it,
 * so the machine's noise hits both alike. Prints figures; asserts nothing.
 *
 * NODE_EXTRA_CA_CERTS is left out of the children's environment: Node 20 reads that
 * file as it starts (~70 ms for a system bundle, in `node -e 0` too), and the scripted
 * server is plain HTTP on loopback.
 *
 * Run alone: `npm run build && node --import tsx bench/startup.ts`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ModelServer, startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..');
/** TEA_BENCH_BIN: another build's bin/tea.js, to compare. */
const TEA = path.resolve(process.env.TEA_BENCH_BIN ?? path.join(ROOT, 'bin', 'tea.js'));
const CACHE = path.join(path.dirname(TEA), '..', 'dist', 'cache');

export function stats(xs: number[]): { median: number; p90: number; min: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p90: at(0.9), min: s[0]! };
}

export const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

const env0: NodeJS.ProcessEnv = { ...process.env };
delete env0.NODE_EXTRA_CA_CERTS;

/** `node -e 0`, the floor every figure here stands on. */
function nodeMs(): number {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore', env: env0 });
  return performance.now() - t0;
}

interface RunResult {
  wallMs: number;
  peakRssKb: number;
  code: number | null;
}

/** Runs `tea` once; samples the child's peak RSS (VmHWM) from /proc while it runs. */
export function runTea(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [TEA, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let peak = 0;
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]));
      } catch {
        // the process has exited
      }
    };
    const timer = setInterval(sample, 2);
    child.stdout.on('data', sample);
    child.stderr.resume();
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ wallMs: performance.now() - started, peakRssKb: peak, code });
    });
  });
}

/** Forgets the prompt runs' code cache, as after a new build. */
function dropCodeCache(): void {
  try {
    for (const f of readdirSync(CACHE)) if (f.endsWith('-prompt.cache')) rmSync(path.join(CACHE, f));
  } catch {
    // none yet
  }
}

function line(label: string, xs: number[], base: number[], note?: string): void {
  const s = stats(xs);
  const b = stats(base);
  console.log(
    `${label.padEnd(34)}median ${fmt(s.median)}  p90 ${fmt(s.p90)}  (node -e 0: ${fmt(b.median)}${note ? `; ${note}` : ''})`,
  );
}

/** Start → the first request reaching the model server (its clock), `rounds` times. */
async function firstRequest(
  server: ModelServer,
  env: NodeJS.ProcessEnv,
  work: string,
  rounds: number,
  before?: () => void,
): Promise<{ first: number[]; base: number[] }> {
  const first: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < rounds; i++) {
    base.push(nodeMs());
    before?.();
    // Each run makes two requests: the answer, then memory extraction on the cheap model.
    server.script(reply().text('ok').usage(10, 1), reply().text('[]').usage(50, 1));
    const at = server.requests.length;
    const t0 = Date.now();
    await runTea(['-p', 'hello', '--cwd', work], env);
    first.push(server.requests[at]!.at - t0);
  }
  return { first, base };
}

export async function benchStartup(): Promise<void> {
  const base: number[] = [];
  const version: number[] = [];
  for (let i = 0; i < 21; i++) {
    base.push(nodeMs());
    const t0 = performance.now();
    spawnSync(process.execPath, [TEA, '--version'], { stdio: 'ignore', env: env0 });
    version.push(performance.now() - t0);
  }
  line('tea --version', version, base, 'target ≤ 80 ms');

  const server = await startModelServer();
  const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-work-'));
  const env = {
    ...env0,
    TEA_HOME: home,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: server.openaiBaseUrl,
    TEA_MODEL: 'bench-model',
  };
  try {
    const cold = await firstRequest(server, env, work, 5, dropCodeCache);
    const warm = await firstRequest(server, env, work, 11);
    line('tea -p: start → first request', warm.first, warm.base, 'target ≤ 80 ms');
    line('  … first run after a build', cold.first, cold.base, 'no code cache yet; it writes one');

    // The same with a config.yaml to parse and validate (the usual setup).
    writeFileSync(
      path.join(home, 'config.yaml'),
      `main_model:\n  provider: openai\n  base_url: ${server.openaiBaseUrl}\n  api_key_env: OPENAI_API_KEY\n  model: bench-model\nagent:\n  max_iterations: 25\n`,
    );
    const withFile = await firstRequest(server, env, work, 10);
    line('  … with a config.yaml', withFile.first, withFile.base);

    const wall: number[] = [];
    const rss: number[] = [];
    const base3: number[] = [];
    for (let i = 0; i < 8; i++) {
      base3.push(nodeMs());
      server.script(
        reply().toolCall('write_file', { path: 'notes.txt', content: 'one\ntwo\nthree\n' }).usage(200, 30),
        reply().toolCall('read_file', { path: 'notes.txt' }).usage(260, 20),
        reply().text('The file has three lines.').usage(300, 10),
        reply().text('[]').usage(120, 1),
      );
      const r = await runTea(['-p', 'write and check a file', '--cwd', work, '--allow', 'write_file'], env);
      if (r.code !== 0) throw new Error(`3-step task failed with exit code ${r.code}`);
      wall.push(r.wallMs);
      rss.push(r.peakRssKb / 1024);
    }
    line('3-step scripted task (wall)', wall, base3, 'target ≤ 150 ms; with the memory extraction call');
    const m = stats(rss);
    console.log(
      `3-step scripted task (peak RSS)   median ${m.median.toFixed(1)} MB  max ${Math.max(...rss).toFixed(1)} MB  (target ≤ 120 MB)`,
    );
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === import.meta.filename) await benchStartup();
