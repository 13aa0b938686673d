/**
 * Load on `tea serve`: N concurrent streaming chat completions against the scripted
 * model server, which streams CHUNKS text pieces CHUNK_DELAY_MS apart. The tea
 * server runs as a child process (the built CLI), so its RSS is measured alone.
 *
 * Added latency per chunk = the gap between two content chunks at the client minus
 * the model's send gap (CHUNK_DELAY_MS), floored at 0. Also reported: time to the
 * first content chunk after the model received the request, errors, peak server RSS.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');
const CHUNKS = 20;
const CHUNK_SIZE = 8;
const CHUNK_DELAY_MS = 50;
const LEVELS = (process.env.TEA_BENCH_SERVER_LEVELS ?? '100,500,1000').split(',').map(Number);

interface StreamResult {
  ok: boolean;
  error?: string;
  /**
   * performance.now() of each model chunk's arrival. The server may join model
   * chunks that reach it together into one SSE event; each chunk it carries
   * (CHUNK_SIZE characters) then counts as arriving with that event.
   */
  arrivals: number[];
}

/** The `delta.content` of a chat-completion chunk event (`data: {…}`), or undefined. */
function contentOf(event: string): string | undefined {
  if (!event.startsWith('data: {') || !event.includes('"content":')) return undefined;
  const chunk = JSON.parse(event.slice(6)) as { choices?: Array<{ delta?: { content?: unknown } }> };
  const content = chunk.choices?.[0]?.delta?.content;
  return typeof content === 'string' ? content : undefined;
}

/** One streaming chat completion over node:http; records when each content delta arrived. */
function streamOnce(port: number, agent: http.Agent): Promise<StreamResult> {
  return new Promise((resolve) => {
    const arrivals: number[] = [];
    const body = JSON.stringify({ model: 'tea', stream: true, messages: [{ role: 'user', content: 'go' }] });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/chat/completions',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          resolve({ ok: false, error: `HTTP ${res.statusCode}`, arrivals });
          return;
        }
        let buffer = '';
        let done = false;
        res.setEncoding('utf8');
        res.on('data', (text: string) => {
          const now = performance.now();
          buffer += text;
          let at = buffer.indexOf('\n\n');
          while (at >= 0) {
            const event = buffer.slice(0, at);
            buffer = buffer.slice(at + 2);
            at = buffer.indexOf('\n\n');
            const content = contentOf(event);
            if (event === 'data: [DONE]') done = true;
            else if (content) for (let k = 0; k < content.length / CHUNK_SIZE; k++) arrivals.push(now);
            else if (event.includes('"error"')) resolve({ ok: false, error: event.slice(0, 200), arrivals });
          }
        });
        res.on('end', () =>
          resolve({
            ok: done && arrivals.length === CHUNKS,
            ...(done ? {} : { error: 'no [DONE]' }),
            arrivals,
          }),
        );
        res.on('error', (e) => resolve({ ok: false, error: e.message, arrivals }));
      },
    );
    req.on('error', (e) => resolve({ ok: false, error: e.message, arrivals }));
    req.end(body);
  });
}

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

function rssKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) the process has used so far, ms; 0 when unreadable. */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** Kernel clock ticks per second for /proc stat times (USER_HZ: 100 on Linux). */
const CLOCK_TICKS = 100;

function startTea(home: string, work: string): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    // TEA_BENCH_PROF=<dir> writes a CPU profile of the server there.
    const prof = process.env.TEA_BENCH_PROF
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.TEA_BENCH_PROF]
      : [];
    const entry = process.env.TEA_BENCH_ENTRY ? ['--import', 'tsx', process.env.TEA_BENCH_ENTRY] : [TEA];
    const args = [...prof, ...entry, 'serve', '--port', '0', '--rate-limit', '0', '--cwd', work];
    const child = spawn(process.execPath, args, {
      env: {
        PATH: process.env.PATH,
        HOME: path.dirname(home),
        TEA_HOME: home,
        OLLAMA_HOST: 'http://127.0.0.1:9',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(stderr);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${stderr}`)));
  });
}

export async function serverLoadBench(): Promise<void> {
  const model = await startModelServer();
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-serve-'));
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
  const { child, port } = await startTea(home, work);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  console.log(
    `\ntea serve load: ${CHUNKS} chunks × ${CHUNK_DELAY_MS} ms per stream, server in a child process`,
  );
  console.log(
    '   N  errors  added/chunk p50   p99    max  first-chunk p50   p99  client TTFT p99   wall     server RSS  CPU/request',
  );
  try {
    const text = 'x'.repeat(CHUNKS * CHUNK_SIZE);
    for (const n of LEVELS) {
      model.reset();
      for (let i = 0; i < n; i++)
        model.script(reply().text(text).chunkSize(CHUNK_SIZE).chunkDelay(CHUNK_DELAY_MS).usage(10, CHUNKS));
      let peakRss = rssKb(child.pid!, 'VmRSS');
      const sampler = setInterval(() => {
        peakRss = Math.max(peakRss, rssKb(child.pid!, 'VmRSS'));
      }, 50);
      const cpuBefore = cpuMs(child.pid!);
      const started = performance.now();
      const results = await Promise.all(Array.from({ length: n }, () => streamOnce(port, agent)));
      const wall = performance.now() - started;
      clearInterval(sampler);
      const cpuPerRequest = (cpuMs(child.pid!) - cpuBefore) / n;
      const added: number[] = [];
      const first: number[] = [];
      // Model request arrival (wall clock) → first content chunk: matched by order is not possible, so
      // use the gap from the request's start of the run instead: first content arrival minus the earliest
      // possible (the model sends its first text right after the request arrives).
      const arrivedAt = model.requests.map((r) => r.at).sort((a, b) => a - b);
      const offset = Date.now() - performance.now();
      let firstIndex = 0;
      for (const r of results
        .filter((x) => x.arrivals.length > 0)
        .sort((a, b) => a.arrivals[0]! - b.arrivals[0]!)) {
        const modelAt = arrivedAt[firstIndex++];
        if (modelAt !== undefined) first.push(Math.max(0, r.arrivals[0]! + offset - modelAt));
        for (let i = 1; i < r.arrivals.length; i++)
          added.push(Math.max(0, r.arrivals[i]! - r.arrivals[i - 1]! - CHUNK_DELAY_MS));
      }
      // What a client sees: its request sent (all at once) → its first content chunk.
      const ttft = results.flatMap((r) => (r.arrivals.length > 0 ? [r.arrivals[0]! - started] : []));
      const errors = results.filter((r) => !r.ok);
      const f = (x: number) => x.toFixed(1).padStart(6);
      console.log(
        `${String(n).padStart(4)}  ${String(errors.length).padStart(6)}  ${f(quantile(added, 0.5))} ${f(quantile(added, 0.99))} ${f(Math.max(0, ...added))}  ${f(quantile(first, 0.5))} ${f(quantile(first, 0.99))}  ${f(quantile(ttft, 0.99)).padStart(15)}  ${(wall / 1000).toFixed(2).padStart(5)} s  ${(peakRss / 1024).toFixed(0).padStart(5)} MB  ${cpuPerRequest.toFixed(1).padStart(6)} ms`,
      );
      if (errors.length > 0) console.log(`      first error: ${errors[0]!.error}`);
    }
  } finally {
    agent.destroy();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await serverLoadBench();
