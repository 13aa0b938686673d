/**
 * Benchmarks of the runtime spine. Prints figures; asserts nothing.
 * Run with `npm run bench` (builds dist/ first; the CLI is measured as shipped).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
import { benchDelegation } from './delegation.js';
import { benchGrep } from './grep.js';
import { benchJournal } from './journal.js';
import { benchMemory } from './memory.js';
import { benchMemoryCli } from './memory-cli.js';
import { benchMemoryIngest } from './memory-ingest.js';
import { serverLoadBench } from './server-load.js';
import { benchStartup, stats } from './startup.js';
import { benchTui } from './tui.js';
import { benchUserTools } from './user-tools.js';
import { benchWorkflow } from './workflow.js';
import { benchWorkflowHttp } from './workflow-http.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A provider that answers instantly: a no-op tool call each time, then text. */
class InstantProvider implements Provider {
  calls = 0;
  /** When each model call started: a step's cost is the time to the next one. */
  readonly starts: number[] = [];
  constructor(
    readonly info: ModelInfo,
    private readonly steps: number,
  ) {}
  async *stream(_req: ModelRequest): AsyncIterable<Delta> {
    this.calls++;
    this.starts.push(performance.now());
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
  const tools = await createToolRegistry();
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
  // Median step of the first and the last 20 of each round: the cost must not grow with the session.
  const early: number[] = [];
  const late: number[] = [];
  const steps = 200;
  for (let round = 0; round < 5; round++) {
    const provider = new InstantProvider(info, steps);
    const agent = new Agent({ provider, tools, store, cwd: dir, settings: { maxIterations: steps + 1 } });
    const t0 = performance.now();
    for await (const _ of agent.newSession().prompt('go')) {
      // drain
    }
    per.push((performance.now() - t0) / steps);
    const step = provider.starts.slice(1).map((t, i) => t - provider.starts[i]!);
    if (round === 0) continue; // warm-up, as for the figure above
    early.push(stats(step.slice(0, 20)).median);
    late.push(stats(step.slice(-20)).median);
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
  const s = stats(per.slice(1));
  console.log(
    `loop overhead / iteration (${tools.names().length} tools)  median ${s.median.toFixed(3)} ms  min ${s.min.toFixed(3)} ms  (target ≤ 1 ms)`,
  );
  console.log(
    `  a step early and late in a session     steps 1–20 ${stats(early).median.toFixed(3)} ms  steps ${steps - 20}–${steps - 1} ${stats(late).median.toFixed(3)} ms  (median step; no growth)`,
  );
}

/** Tokens (o200k) of the system prompt plus tool definitions in the first request, all tools available. */
async function benchFirstRequestTokens(): Promise<void> {
  const server = await startModelServer();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-tokens-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  try {
    const tools = await createToolRegistry();
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
await benchStartup();
await benchTui();
await benchLoop();
await benchFirstRequestTokens();
await benchDelegation();
await benchContext();
await benchGrep();
await benchJournal();
await benchMemory();
await benchMemoryIngest();
await benchMemoryCli();
await benchWorkflow();
await benchWorkflowHttp();
await benchUserTools();
await serverLoadBench();
benchScript('first-request.ts');
benchScript('tools-memory.ts');
benchScript('huge-prompt.ts');
benchScript('hung-model.ts');
benchScript('long-session.ts');
