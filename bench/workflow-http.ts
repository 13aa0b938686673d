/**
 * Workflows through `tea serve` (in process, on loopback, the scripted model answering
 * at once): how long `POST /v1/workflows/{name}/runs` takes, whether a run's event
 * stream delivers every event the run emits (none lost, same order) and how late, and
 * how long `GET /v1/workflow-runs/{id}` (nodes, history, graph) takes for the finished
 * run. Prints figures; asserts nothing.
 * Run alone: node --import tsx bench/workflow-http.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowEvent } from '../src/multi/workflow/index.js';
import { startTestServer } from '../test/server/helpers.js';
import { reply } from '../test/support/script.js';

const BRANCHES = 50;
const CHAIN = 20;

function flowText(): string {
  const branches = Array.from({ length: BRANCHES }, (_, i) => `b${i}`);
  const lines = [
    'name: wide',
    'nodes:',
    `  first: { kind: agent, role: analyst, prompt: "[first]", next: fan }`,
    `  fan: { kind: parallel, branches: [${branches.join(', ')}], join: merged, concurrency: ${BRANCHES} }`,
    ...branches.map((b) => `  ${b}: { kind: agent, role: analyst, prompt: "[${b}]" }`),
    '  merged: { kind: join, next: c0 }',
    ...Array.from({ length: CHAIN }, (_, i) => {
      const next = i + 1 < CHAIN ? `, next: c${i + 1}` : '';
      return `  c${i}: { kind: agent, role: analyst, prompt: "[c${i}]"${next} }`;
    }),
  ];
  return `${lines.join('\n')}\n`;
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export async function benchWorkflowHttp(): Promise<void> {
  const t = await startTestServer({ mode: 'ask' });
  try {
    const dir = path.join(t.work, '.tea', 'workflows');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'wide.yaml'), flowText());
    let first = true;
    t.model.respond(() => {
      const r = reply().text('ok').usage(10, 1);
      if (!first) return r;
      first = false;
      return r.holdUntil('go');
    });
    // What the run emits, seen in the server's process, from the moment the stream is open.
    // (The same service the server uses: loaded here, so the figures below leave out its loading.)
    const wf = await t.rt.workflows();
    const emitted: Array<{ type: string; at: number }> = [];
    let counting = false;
    const tree = new Set<string>();
    wf.subscribe((e: WorkflowEvent) => {
      if (e.type === 'run_start' && (e.parentRunId === undefined || tree.has(e.parentRunId)))
        tree.add(e.runId);
      if (counting && tree.has(e.runId)) emitted.push({ type: e.type, at: performance.now() });
    });

    let t0 = performance.now();
    const list = await t.json<{ data: unknown[] }>('GET', '/v1/workflows');
    const listMs = performance.now() - t0;
    t0 = performance.now();
    const res = await t.json<{ id: string }>('POST', '/v1/workflows/wide/runs', {});
    const startMs = performance.now() - t0;
    await t.model.waitForRequests(1);

    const received: Array<{ type: string; at: number }> = [];
    t0 = performance.now();
    const stream = await fetch(`${t.url}/v1/workflow-runs/${res.body.id}/events`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of stream.body as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const type = /^event: (.+)$/m.exec(block)?.[1];
        if (!type) continue;
        if (type === 'status') {
          counting = true;
          t.model.release('go');
          continue;
        }
        received.push({ type, at: performance.now() });
      }
    }
    const runMs = performance.now() - t0;

    const same = emitted.length === received.length && emitted.every((e, i) => e.type === received[i]!.type);
    const late = received.map((r, i) => r.at - (emitted[i]?.at ?? r.at)).sort((a, b) => a - b);
    t0 = performance.now();
    const got = await t.json<{ status: string; nodes: unknown[] }>('GET', `/v1/workflow-runs/${res.body.id}`);
    const getMs = performance.now() - t0;

    const nodes = 1 + BRANCHES + 1 + CHAIN;
    console.log(`\nworkflows over HTTP (tea serve in process, ${nodes} agent nodes answered at once)`);
    console.log(
      `  GET /v1/workflows (${list.body.data.length} definitions, each file loaded): ${listMs.toFixed(1)} ms`,
    );
    console.log(
      `  POST /v1/workflows/wide/runs: ${startMs.toFixed(1)} ms to the 201 (the run goes on in the server)`,
    );
    console.log(
      `  the run's event stream: ${received.length} events of ${emitted.length} emitted, ${same ? 'none lost, same order' : 'MISMATCH'}; ` +
        `${(runMs / 1000).toFixed(2)} s to the end (${got.body.status})`,
    );
    console.log(
      `  delivery delay (emitted in the server → read by the client): p50 ${pct(late, 50).toFixed(2)} ms, ` +
        `p99 ${pct(late, 99).toFixed(2)} ms, max ${(late.at(-1) ?? 0).toFixed(2)} ms`,
    );
    console.log(
      `  GET /v1/workflow-runs/{id} of the finished run (${got.body.nodes.length} node executions, graph, history): ${getMs.toFixed(1)} ms`,
    );
  } finally {
    await t.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchWorkflowHttp();
