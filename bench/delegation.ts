/**
 * Delegation figures, through the runtime as a library user drives it and the scripted
 * model server over HTTP (the real wire):
 * - the overhead of one sub-agent beyond its model call: a `task` call's duration minus
 *   the same model call made straight through the provider;
 * - 50 children at once (delegate_tasks) on this machine: wall time, and whether every
 *   child's events reached the parent (none lost) and every child's transcript is stored.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentEvent } from '../src/agent/events.js';
import { loadConfig } from '../src/config/load.js';
import { createRuntime } from '../src/runtime/runtime.js';
import { startModelServer } from '../test/support/model-server.js';
import { reply } from '../test/support/script.js';
import { stats } from './startup.js';

type Body = Record<string, unknown>;
const isChild = (body: Body): boolean =>
  JSON.stringify((body.messages as unknown[])[0]).includes('You are a sub-agent');
const toolResults = (body: Body): number =>
  (body.messages as Array<{ role: string }>).filter((m) => m.role === 'tool').length;

async function runtimeFor(url: string, yaml: string) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-deleg-'));
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${url}, api_key: sk-bench, model: scripted }`,
      'agent: { auto_title: false }',
      'memory: { extract: false, tune: false, judge: false }',
      yaml,
    ].join('\n'),
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  const rt = await createRuntime({ config, cwd: work });
  return { rt, root };
}

export async function benchDelegation(): Promise<void> {
  const server = await startModelServer();
  try {
    await overheadPerChild(server);
    await fiftyAtOnce(server);
  } finally {
    await server.close();
  }
}

async function overheadPerChild(server: Awaited<ReturnType<typeof startModelServer>>): Promise<void> {
  const K = 30;
  const { rt, root } = await runtimeFor(server.openaiBaseUrl, '');
  const answer = 'The part is fine: nothing to change.';
  server.respond((body) => {
    if (isChild(body)) return reply().text(answer).usage(200, 12);
    const n = toolResults(body);
    if (n < K) return reply().toolCall('task', { description: `part ${n}`, prompt: `Check part ${n}.` });
    return reply().text('all checked');
  });
  const durations: number[] = [];
  for await (const e of rt.sessions.create().prompt('check the parts one by one')) {
    if (e.type === 'tool_update' && e.record.name === 'task' && e.record.durationMs !== undefined)
      durations.push(e.record.durationMs);
  }
  // The same model call, straight through the provider.
  server.respond(() => reply().text(answer).usage(200, 12));
  const direct: number[] = [];
  for (let i = 0; i < K; i++) {
    const t0 = performance.now();
    for await (const _ of rt.provider.stream({
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      tools: [],
    })) {
      // drain
    }
    direct.push(performance.now() - t0);
  }
  server.respond(undefined);
  await rt.close();
  rmSync(root, { recursive: true, force: true });
  const task = stats(durations.slice(3));
  const model = stats(direct.slice(3));
  console.log(
    `delegation: one sub-agent (task call, ${K} in a row) median ${task.median.toFixed(1)} ms, its model call alone ${model.median.toFixed(1)} ms → overhead ${(task.median - model.median).toFixed(1)} ms per child (target ≤ 20)`,
  );
}

async function fiftyAtOnce(server: Awaited<ReturnType<typeof startModelServer>>): Promise<void> {
  const N = 50;
  const { rt, root } = await runtimeFor(
    server.openaiBaseUrl,
    `subagents: { max_parallel: ${N}, max_tasks_per_call: ${N} }`,
  );
  server.respond((body) => {
    if (isChild(body)) {
      const n = /part (\d+)/.exec(JSON.stringify(body.messages))?.[1];
      return reply().text(`part ${n} is fine`).chunkSize(3).usage(100, 5);
    }
    if (toolResults(body) === 0)
      return reply().toolCall('delegate_tasks', {
        tasks: Array.from({ length: N }, (_, i) => ({
          description: `part ${i}`,
          prompt: `Check part ${i}.`,
        })),
      });
    return reply().text('all fine');
  });
  const t0 = performance.now();
  const events: AgentEvent[] = [];
  const session = rt.sessions.create();
  for await (const e of session.prompt('check all parts in parallel')) events.push(e);
  const wall = performance.now() - t0;
  server.respond(undefined);
  const byChild = new Map<string, { starts: number; dones: number; text: string }>();
  for (const e of events) {
    if (e.type !== 'subagent') continue;
    const c = byChild.get(e.agent.sessionId) ?? { starts: 0, dones: 0, text: '' };
    byChild.set(e.agent.sessionId, c);
    if (e.event.type === 'turn_start') c.starts++;
    if (e.event.type === 'done') c.dones++;
    if (e.event.type === 'text_delta') c.text += e.event.text;
  }
  const complete = [...byChild.values()].filter(
    (c) => c.starts === 1 && c.dones === 1 && /^part \d+ is fine$/.test(c.text),
  ).length;
  const storedOk = [...byChild.keys()].filter(
    (id) => rt.sessions.get(id)?.parentId === session.id && rt.sessions.messageCount(id) === 2,
  ).length;
  const done = events.find((e) => e.type === 'done');
  await rt.close();
  rmSync(root, { recursive: true, force: true });
  console.log(
    `delegation: ${N} children at once: wall ${wall.toFixed(0)} ms; children with all their events ${complete}/${N}; stored transcripts ${storedOk}/${N}; parent ${done?.type === 'done' ? done.reason : 'no done'}, sub-agent tokens ${done?.type === 'done' ? (done.subagents?.usage.inputTokens ?? 0) + (done.subagents?.usage.outputTokens ?? 0) : 0}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDelegation();
