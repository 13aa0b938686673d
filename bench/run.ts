/**
 * Benchmarks of the runtime spine. Prints figures; asserts nothing.
 * Run with `npm run bench` (builds dist/ first; the CLI is measured as shipped).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encode } from 'gpt-tokenizer';
import * as z from 'zod';
import { Agent } from '../src/agent/index.js';
import { OpenAICompatibleProvider } from '../src/llm/openai.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from '../src/llm/types.js';
import { Store } from '../src/store/index.js';
import { createToolRegistry } from '../src/tools/builtin/index.js';
import { defineTool } from '../src/tools/types.js';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';
import { benchContext } from './context.js';
import { benchGrep } from './grep.js';
import { benchMemory } from './memory.js';
import { benchMemoryCli } from './memory-cli.js';
import { benchMemoryIngest } from './memory-ingest.js';
import { serverLoadBench } from './server-load.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const TEA = path.join(ROOT, 'bin', 'tea.js');

function stats(xs: number[]): { median: number; p90: number; min: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p90: at(0.9), min: s[0]! };
}

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

interface RunResult {
  wallMs: number;
  peakRssKb: number;
  code: number | null;
  stdout: string;
}

/** Runs `tea` once; samples the child's peak RSS (VmHWM) from /proc while it runs. */
function runTea(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, [TEA, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let peak = 0;
    let stdout = '';
    const sample = () => {
      try {
        const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peak = Math.max(peak, Number(m[1]));
      } catch {
        // the process has exited
      }
    };
    const timer = setInterval(sample, 2);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      sample();
    });
    child.on('exit', (code) => {
      clearInterval(timer);
      resolve({ wallMs: performance.now() - started, peakRssKb: peak, code, stdout });
    });
  });
}

function spawnMs(args: string[]): number {
  const t0 = performance.now();
  spawnSync(process.execPath, args, { stdio: 'ignore' });
  return performance.now() - t0;
}

async function benchVersion(): Promise<void> {
  // Interleaved, so machine noise hits both series alike.
  const base: number[] = [];
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    base.push(spawnMs(['-e', '0']));
    times.push(spawnMs([TEA, '--version']));
  }
  const b = stats(base);
  console.log(`node -e 0 (baseline)              median ${fmt(b.median)}  p90 ${fmt(b.p90)}`);
  const s = stats(times);
  console.log(
    `tea --version                     median ${fmt(s.median)}  p90 ${fmt(s.p90)}  (target ≤ 80 ms)`,
  );
}

async function benchCli(): Promise<void> {
  const server = await startModelServer();
  const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-work-'));
  const env = {
    ...process.env,
    TEA_HOME: home,
    OPENAI_API_KEY: 'sk-bench',
    OPENAI_BASE_URL: server.openaiBaseUrl,
    TEA_MODEL: 'bench-model',
  };
  try {
    const first: number[] = [];
    // Each run makes two requests: the answer, then memory extraction on the cheap model.
    for (let i = 0; i < 10; i++) {
      server.script(reply().text('ok').usage(10, 1), reply().text('[]').usage(50, 1));
      const before = server.requests.length;
      const t0 = Date.now();
      await runTea(['-p', 'hello', '--cwd', work], env);
      first.push(server.requests[before]!.at - t0);
    }
    const f = stats(first);
    console.log(
      `tea -p: start → first request    median ${fmt(f.median)}  p90 ${fmt(f.p90)}  (target ≤ 200 ms)`,
    );

    // The same with a config.yaml to parse and validate (the usual setup).
    writeFileSync(
      path.join(home, 'config.yaml'),
      `main_model:\n  provider: openai\n  base_url: ${server.openaiBaseUrl}\n  api_key_env: OPENAI_API_KEY\n  model: bench-model\nagent:\n  max_iterations: 25\n`,
    );
    const withFile: number[] = [];
    for (let i = 0; i < 10; i++) {
      server.script(reply().text('ok').usage(10, 1), reply().text('[]').usage(50, 1));
      const before = server.requests.length;
      const t0 = Date.now();
      await runTea(['-p', 'hello', '--cwd', work], env);
      withFile.push(server.requests[before]!.at - t0);
    }
    const c = stats(withFile);
    console.log(`  … with a config.yaml             median ${fmt(c.median)}  p90 ${fmt(c.p90)}`);

    const wall: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < 8; i++) {
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
    const w = stats(wall);
    const m = stats(rss);
    console.log(
      `3-step scripted task (wall)       median ${fmt(w.median)}  p90 ${fmt(w.p90)}  (target ≤ 400 ms; includes the memory extraction call)`,
    );
    console.log(
      `3-step scripted task (peak RSS)   median ${m.median.toFixed(1)} MB  max ${Math.max(...rss).toFixed(1)} MB  (target ≤ 120 MB)`,
    );
  } finally {
    await server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
}

/** A provider that answers instantly: a no-op tool call each time, then text. */
class InstantProvider implements Provider {
  calls = 0;
  constructor(
    readonly info: ModelInfo,
    private readonly steps: number,
  ) {}
  async *stream(_req: ModelRequest): AsyncIterable<Delta> {
    this.calls++;
    if (this.calls < this.steps) {
      yield { type: 'text', text: 'step' };
      yield {
        type: 'tool-call',
        call: { type: 'tool-call', id: `c${this.calls}`, name: 'noop', args: { n: this.calls } },
      };
      yield { type: 'usage', usage: { inputTokens: 100, outputTokens: 10 } };
      yield { type: 'finish', reason: 'tool-calls' };
    } else {
      yield { type: 'text', text: 'done' };
      yield { type: 'finish', reason: 'stop' };
    }
  }
}

async function benchLoop(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-loop-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  const tools = createToolRegistry();
  const noop = (name: string) =>
    defineTool({
      name,
      description: `Does nothing (${name}).`,
      parameters: z.object({ n: z.number().optional(), note: z.string().optional() }),
      category: 'bench',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async () => 'ok',
    });
  tools.register(noop('noop'));
  for (let i = tools.names().length; i < 50; i++) tools.register(noop(`filler_${i}`)); // 57 real tools already
  const info: ModelInfo = {
    profile: 'bench',
    provider: 'openai',
    model: 'instant',
    baseUrl: 'memory://',
    contextWindow: 128_000,
    maxOutputTokens: 4096,
  };
  const per: number[] = [];
  for (let round = 0; round < 5; round++) {
    const steps = 200;
    const provider = new InstantProvider(info, steps);
    const agent = new Agent({ provider, tools, store, cwd: dir, settings: { maxIterations: steps + 1 } });
    const t0 = performance.now();
    for await (const _ of agent.newSession().prompt('go')) {
      // drain
    }
    per.push((performance.now() - t0) / steps);
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const s = stats(per.slice(1));
  console.log(
    `loop overhead / iteration (${tools.names().length} tools)  median ${s.median.toFixed(3)} ms  min ${s.min.toFixed(3)} ms  (target ≤ 1 ms)`,
  );
}

/** Tokens (o200k) of the system prompt plus tool definitions in the first request, all tools available. */
async function benchFirstRequestTokens(): Promise<void> {
  const server = await startModelServer();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-tokens-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  try {
    const tools = createToolRegistry();
    const provider = new OpenAICompatibleProvider(
      {
        profile: 'bench',
        provider: 'openai',
        model: 'm',
        baseUrl: server.openaiBaseUrl,
        contextWindow: 128_000,
        maxOutputTokens: 4096,
      },
      { apiKey: 'x' },
    );
    server.script(reply().text('ok'));
    const agent = new Agent({ provider, tools, store, cwd: dir });
    for await (const _ of agent.newSession().prompt('hi')) {
      // drain
    }
    const body = server.requests[0]!.body;
    const messages = body.messages as Array<{ role: string; content: string }>;
    const system = encode(messages[0]!.content).length;
    const defs = encode(JSON.stringify(body.tools)).length;
    const sent = (body.tools as unknown[]).length;
    console.log(
      `first request: system + tool defs     ${system + defs} tokens (system ${system}, ${sent} schemas ${defs}; ${tools.names().length} tools available)  (target ≤ 1,500)`,
    );
  } finally {
    store.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A bench that runs as its own script (its own process, so its peak RSS is its own). */
function benchScript(file: string): void {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', file)], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) console.log(`${file}: exited ${r.status ?? r.signal}`);
}

console.log(`Tea Agent benchmarks · node ${process.version} · ${os.cpus().length} cpus`);
await benchVersion();
await benchCli();
await benchLoop();
await benchFirstRequestTokens();
await benchContext();
await benchGrep();
await benchMemory();
await benchMemoryIngest();
await benchMemoryCli();
await serverLoadBench();
benchScript('first-request.ts');
benchScript('tools-memory.ts');
benchScript('huge-prompt.ts');
benchScript('hung-model.ts');
benchScript('long-session.ts');
