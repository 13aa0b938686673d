/**
 * Huge prompts: how long a 5 MB prompt (English and Chinese mixed, the slow case for
 * word segmentation) takes to reach the scripted model through `tea -p` and through
 * `tea serve`, how `/health` answers while one client posts it (target: ≤ 2 s to
 * the model, /health p99 ≤ 50 ms), and what an 8 MB nested JSON body costs the server.
 * Runs the built CLI (`npm run build` first). Prints figures; asserts nothing.
 *
 *   node --import tsx bench/huge-prompt.ts            # TEA_BENCH_HUGE_MB=5 TEA_BENCH_HUGE_ROUNDS=3
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { type ModelServer, startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');
const MB = Number(process.env.TEA_BENCH_HUGE_MB ?? 5);
const ROUNDS = Number(process.env.TEA_BENCH_HUGE_ROUNDS ?? 3);
const LINE =
  'The deploy of billing-api to app-21.tyo2 failed at 03:14 with error E1234; see src/app/main.ts. 部署计费服务到东京二区失败了，请检查日志。\n';

function hugePrompt(mb: number): string {
  return `${LINE.repeat(Math.ceil((mb * 1024 * 1024) / Buffer.byteLength(LINE)))}What went wrong?`;
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function rssMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

interface Env {
  root: string;
  home: string;
  work: string;
  env: NodeJS.ProcessEnv;
}

function makeEnv(model: ModelServer): Env {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-huge-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(path.join(work, '.git'), { recursive: true });
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${model.openaiBaseUrl}, api_key: sk-bench, model: scripted-model }`,
      'llm: { timeout_s: 120, max_retries: 0 }',
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false }',
    ].join('\n'),
  );
  const env = { PATH: process.env.PATH, HOME: root, TEA_HOME: home, OLLAMA_HOST: 'http://127.0.0.1:9' };
  return { root, home, work, env };
}

/** `tea -p` with the prompt on stdin: ms from spawn until the model has the request. */
async function viaPrint(model: ModelServer, e: Env, prompt: string): Promise<number> {
  model.reset();
  model.respond(() => reply().text('ok'));
  const wallStart = Date.now();
  const child = spawn(process.execPath, [TEA, '-p', 'Look at this log:', '--cwd', e.work], {
    env: e.env,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  child.stdin.end(prompt);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const at = model.requests[0]?.at;
  if (code !== 0 || at === undefined) throw new Error(`tea -p exited ${code}: ${stderr.slice(0, 500)}`);
  return at - wallStart;
}

function startServe(e: Env): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // TEA_BENCH_PROF=<dir> writes a CPU profile of the server; TEA_BENCH_ENTRY=<file.ts> runs the sources;
    // TEA_BENCH_NODE_ARGS adds node flags.
    const prof = process.env.TEA_BENCH_PROF
      ? ['--cpu-prof', '--cpu-prof-interval', '200', '--cpu-prof-dir', process.env.TEA_BENCH_PROF]
      : [];
    prof.push(...(process.env.TEA_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? []));
    const entry = process.env.TEA_BENCH_ENTRY ? ['--import', 'tsx', process.env.TEA_BENCH_ENTRY] : [TEA];
    const child = spawn(
      process.execPath,
      [...prof, ...entry, 'serve', '--port', '0', '--rate-limit', '0', '--cwd', e.work],
      { env: e.env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${stderr}`)));
  });
}

function request(
  port: number,
  agent: http.Agent,
  method: string,
  p: string,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: p,
        method,
        agent,
        headers:
          body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** One huge POST while /health is polled back to back on its own connection. */
async function postWhilePolling(
  port: number,
  model: ModelServer,
  body: string,
): Promise<{ toModelMs: number; totalMs: number; health: number[] }> {
  model.reset();
  model.respond(() => reply().text('ok'));
  const health: number[] = [];
  const pollAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const postAgent = new http.Agent({ keepAlive: false });
  await request(port, pollAgent, 'GET', '/health');
  let done = false;
  const poll = (async () => {
    while (!done) {
      const t0 = performance.now();
      await request(port, pollAgent, 'GET', '/health');
      health.push(performance.now() - t0);
    }
  })();
  const wallStart = Date.now();
  const t0 = performance.now();
  const res = await request(port, postAgent, 'POST', '/v1/chat/completions', body);
  const totalMs = performance.now() - t0;
  done = true;
  await poll;
  pollAgent.destroy();
  postAgent.destroy();
  if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${res.text.slice(0, 300)}`);
  return { toModelMs: (model.requests[0]?.at ?? Number.NaN) - wallStart, totalMs, health };
}

async function main(): Promise<void> {
  const model = await startModelServer();
  const e = makeEnv(model);
  const prompt = hugePrompt(MB);
  const mb = (Buffer.byteLength(prompt) / 1024 / 1024).toFixed(1);
  console.log(`\nhuge prompt: ${mb} MB of mixed English and Chinese, ${ROUNDS} rounds, built CLI`);
  try {
    const print: number[] = [];
    for (let i = 0; i < ROUNDS; i++) print.push(await viaPrint(model, e, prompt));
    console.log(
      `  tea -p → model:          median ${quantile(print, 0.5).toFixed(0)} ms (runs: ${print.map((x) => x.toFixed(0)).join(', ')}; target ≤ 2000)`,
    );

    const { child, port } = await startServe(e);
    try {
      // 8 MB of nested arrays: refused before parsing; the server's peak RSS says what it cost.
      const agent = new http.Agent({ keepAlive: false });
      const before = rssMb(child.pid!, 'VmRSS');
      const deep = `{"messages": ${'['.repeat(4 * 1024 * 1024)}${']'.repeat(4 * 1024 * 1024)}}`;
      const res = await request(port, agent, 'POST', '/v1/chat/completions', deep);
      const code = (JSON.parse(res.text) as { error?: { code?: string } }).error?.code;
      console.log(
        `  8 MB nested JSON:        HTTP ${res.status} ${code ?? ''}; server RSS ${before.toFixed(0)} → peak ${rssMb(child.pid!, 'VmHWM').toFixed(0)} MB`,
      );
      agent.destroy();
      // One small turn first: the server's first turn loads the word segmenter and warms the JIT.
      await postWhilePolling(port, model, JSON.stringify({ messages: [{ role: 'user', content: LINE }] }));
      const body = JSON.stringify({ model: 'tea', messages: [{ role: 'user', content: prompt }] });
      const toModel: number[] = [];
      const health: number[] = [];
      const worst: number[] = [];
      let total = 0;
      for (let i = 0; i < ROUNDS; i++) {
        const r = await postWhilePolling(port, model, body);
        toModel.push(r.toModelMs);
        health.push(...r.health);
        worst.push(Math.max(...r.health));
        total = Math.max(total, r.totalMs);
      }
      console.log(
        `  tea serve POST → model:  median ${quantile(toModel, 0.5).toFixed(0)} ms (runs: ${toModel.map((x) => x.toFixed(0)).join(', ')}; slowest answer ${total.toFixed(0)} ms; target ≤ 2000)`,
      );
      console.log(
        `  /health meanwhile:       p50 ${quantile(health, 0.5).toFixed(1)} ms  p99 ${quantile(health, 0.99).toFixed(1)} ms  max ${Math.max(...health).toFixed(1)} ms  (${health.length} requests; worst per round ${worst.map((x) => x.toFixed(0)).join(', ')}; target p99 ≤ 50)`,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  } finally {
    await model.close();
    rmSync(e.root, { recursive: true, force: true });
  }
}

await main();
