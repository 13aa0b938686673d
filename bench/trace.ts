/**
 * What traces cost the loop: a prompt of 200 instant model calls, each with a no-op
 * tool call (the loop bench of run.ts), run with spans going nowhere (no tracer: the
 * OpenTelemetry API's no-op) and kept locally (the local tracer writing to SQLite),
 * rounds interleaved so the machine's noise hits both alike. TEA_BENCH_BASE=<checkout>
 * adds that checkout's loop (e.g. the commit before tracing) as a third column.
 * Prints figures; asserts nothing.
 *
 * Run: `node --import tsx bench/trace.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as z from 'zod';
import type { Delta, ModelInfo, ModelRequest, Provider } from '../src/llm/types.js';
import { stats } from './startup.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const STEPS = 200;
const ROUNDS = 9;

class InstantProvider implements Provider {
  calls = 0;
  constructor(readonly info: ModelInfo) {}
  async *stream(_req: ModelRequest): AsyncIterable<Delta> {
    this.calls++;
    if (this.calls < STEPS) {
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

const info: ModelInfo = {
  profile: 'bench',
  provider: 'openai',
  model: 'instant',
  baseUrl: 'http://127.0.0.1:1/v1',
  contextWindow: 128_000,
  maxOutputTokens: 4096,
};

type Run = () => Promise<number>;

/** A loop runner over the sources under `root`; `tracer`: 'none' or 'local'. */
async function loopFrom(root: string, tracer: 'none' | 'local'): Promise<{ run: Run; close(): void }> {
  const { Agent } = await import(path.join(root, 'src/agent/index.js'));
  const { Store } = await import(path.join(root, 'src/store/index.js'));
  const { ToolRegistry } = await import(path.join(root, 'src/tools/registry.js'));
  const { defineTool } = await import(path.join(root, 'src/tools/types.js'));
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-trace-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  const tools = new ToolRegistry();
  tools.register(
    defineTool({
      name: 'noop',
      description: 'Does nothing.',
      parameters: z.object({ n: z.number().optional() }),
      category: 'bench',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      execute: async () => 'ok',
    }),
  );
  let extra = {};
  if (tracer === 'local') {
    const { LocalTracer } = await import(path.join(root, 'src/runtime/trace-local.js'));
    const { TraceSpanRepo } = await import(path.join(root, 'src/store/index.js'));
    const repo = new TraceSpanRepo(store.db);
    extra = { tracer: new LocalTracer({ write: (spans: unknown[]) => repo.insert(spans) }) };
  }
  const run: Run = async () => {
    const agent = new Agent({
      provider: new InstantProvider(info),
      tools,
      store,
      cwd: dir,
      settings: { maxIterations: STEPS + 1, toolLoading: 'all' },
      ...extra,
    });
    const t0 = performance.now();
    for await (const _ of agent.newSession().prompt('go')) {
      // drain
    }
    return (performance.now() - t0) / STEPS;
  };
  return {
    run,
    close: () => {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function benchTrace(): Promise<void> {
  const columns: Array<{ label: string; loop: { run: Run; close(): void }; per: number[] }> = [];
  const base = process.env.TEA_BENCH_BASE;
  if (base)
    columns.push({
      label: 'before tracing (base)',
      loop: await loopFrom(path.resolve(base), 'none'),
      per: [],
    });
  columns.push({ label: 'no tracer (no-op spans)', loop: await loopFrom(ROOT, 'none'), per: [] });
  columns.push({ label: 'spans kept locally', loop: await loopFrom(ROOT, 'local'), per: [] });
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of columns) {
      const ms = await c.loop.run();
      if (round > 0) c.per.push(ms); // the first round warms up
    }
  }
  for (const c of columns) c.loop.close();
  const first = stats(columns[0]!.per).median;
  for (const c of columns) {
    const s = stats(c.per);
    const diff =
      c === columns[0] ? '' : `  (${s.median - first >= 0 ? '+' : ''}${(s.median - first).toFixed(3)} ms)`;
    console.log(
      `loop / iteration, ${c.label.padEnd(24)} median ${s.median.toFixed(3)} ms  min ${s.min.toFixed(3)} ms${diff}`,
    );
  }
}

/** The spans of one loop iteration alone (a `chat` and an `execute_tool`), many times: µs each. */
export async function benchSpans(): Promise<void> {
  const { AgentTrace, tracerOr } = await import('../src/agent/trace.js');
  const { LocalTracer } = await import('../src/runtime/trace-local.js');
  const { Store, TraceSpanRepo } = await import('../src/store/index.js');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-spans-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  const repo = new TraceSpanRepo(store.db);
  const local = new LocalTracer({ write: (spans) => repo.insert(spans) });
  const usage = [{ model: info, usage: { inputTokens: 100, outputTokens: 10 }, costUsd: 0 }];
  const n = 20_000;
  for (const [label, tracer] of [
    ['no tracer', tracerOr(undefined)],
    ['kept locally', local],
  ] as const) {
    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      const prompt = new AgentTrace(tracer, undefined, { sessionId: 's', agentName: 'tea', model: info });
      const t0 = performance.now();
      for (let i = 0; i < n; i++) {
        prompt.chat(info).end({ usage, finish: 'tool-calls', cancelled: false });
        prompt.tool({ id: `c${i}`, name: 'noop' }).end('ok', 'ok');
      }
      prompt.end();
      times.push(((performance.now() - t0) * 1000) / n);
    }
    const s = stats(times.slice(1));
    console.log(
      `spans of one iteration, ${label.padEnd(14)} median ${s.median.toFixed(2)} µs  min ${s.min.toFixed(2)} µs`,
    );
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1] === import.meta.filename) {
  await benchSpans();
  await benchTrace();
}
