/**
 * The workflow engine's own cost: per node (two checkpoints committed to SQLite
 * each), per node replayed on resume (recorded results reused), and a wide parallel.
 * Agent and tool nodes answer at once here, so the figures are the engine's and the
 * store's, not a model's. Prints figures; asserts nothing.
 * Run alone: node --import tsx bench/workflow.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseWorkflowYaml } from '../src/multi/workflow/parse.js';
import { SqliteWorkflowRunner } from '../src/multi/workflow/runner.js';
import type { AgentNodeRunner, ToolNodeRunner, WorkflowDefinition } from '../src/multi/workflow/types.js';
import { Store } from '../src/store/index.js';

const agents: AgentNodeRunner = {
  run: async (req) => ({
    status: 'completed',
    text: `done ${req.nodeId}`,
    usage: { inputTokens: 1, outputTokens: 1 },
    costUsd: 0,
  }),
};
const tools: ToolNodeRunner = { run: async () => ({ status: 'completed', output: 'ok' }) };

function chain(n: number): WorkflowDefinition {
  const nodes = Array.from({ length: n }, (_, i) => {
    const next = i + 1 < n ? `, next: n${i + 1}` : '';
    return i % 2 === 0
      ? `  n${i}: { kind: agent, role: r, prompt: "step {{state.count}}", output: last${next} }`
      : `  n${i}: { kind: tool, tool: t, args: { i: "{{state.count}}" }, set: { count: "{{state.count + 1}}" }${next} }`;
  });
  const text = `name: chain\nstate: { count: { type: integer, default: 0 }, last: string }\nnodes:\n${nodes.join('\n')}\n`;
  return parseWorkflowYaml(text, { kind: 'yaml', file: 'bench:chain' });
}

function wide(n: number): WorkflowDefinition {
  const branches = Array.from({ length: n }, (_, i) => `b${i}`);
  const text =
    `name: wide\nnodes:\n  fan: { kind: parallel, branches: [${branches.join(', ')}], join: j, concurrency: ${n} }\n` +
    branches.map((b) => `  ${b}: { kind: agent, role: r, prompt: "${b}" }`).join('\n') +
    '\n  j: { kind: join }\n';
  return parseWorkflowYaml(text, { kind: 'yaml', file: 'bench:wide' });
}

export async function benchWorkflow(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-wf-'));
  const store = Store.open(path.join(dir, 'tea.db'));
  try {
    const defs = new Map<string, WorkflowDefinition>();
    const runner = new SqliteWorkflowRunner({
      store: () => store,
      cwd: dir,
      agents,
      tools,
      definitions: {
        resolve: async (name) => defs.get(name)!,
        forRun: async (run) => defs.get(run.workflow)!,
      },
    });
    const n = 400;
    const def = chain(n);
    defs.set('chain', def);
    let t0 = performance.now();
    const run = await (await runner.start(def, {})).done;
    const perNode = (performance.now() - t0) / n;
    const checkpoints = runner.history(run.runId).length;

    const fork = runner.fork(run.runId, checkpoints - 1);
    t0 = performance.now();
    await (await runner.resume(fork.id)).done;
    const perReplayed = (performance.now() - t0) / n;

    const w = 50;
    defs.set('wide', wide(w));
    t0 = performance.now();
    const fan = await (await runner.start(defs.get('wide')!, {})).done;
    const wideMs = performance.now() - t0;

    console.log('\nworkflow engine (instant agent and tool nodes, SQLite on disk)');
    console.log(
      `  a chain of ${n} nodes: ${perNode.toFixed(2)} ms per node (${checkpoints} checkpoints, each committed)`,
    );
    console.log(`  resume replaying ${n - 1} recorded nodes: ${perReplayed.toFixed(3)} ms per node`);
    console.log(`  a parallel of ${w} branches at once: ${wideMs.toFixed(1)} ms in all (${fan.status})`);
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchWorkflow();
