/**
 * `kill -9` a `tea workflow run` at ten points, then `tea workflow resume`: every
 * resume finishes with the state of an uninterrupted run, and no node that had
 * completed before the kill runs again (the model server's request log and the
 * lines the flow's tool nodes append to log.txt say what ran). Eight kills come right
 * after the k-th checkpoint the child prints; two while an agent node waits on a
 * model reply held open (in the parallel section, and in the loop). The model's
 * reply to the last agent node is held in the first process, so it never finishes
 * before the kill.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { FLOWS, pipelineReply, tagCounts, tagOf } from '../multi/workflow/helpers.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { type Running, startTea } from './running.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const RUN = ['--permission-mode', 'auto-edit', '--json'];

const FINAL_STATE = {
  plan: 'PLAN: three parts',
  parts: ['done part_a', 'done part_b', 'done part_c'],
  a: 'done part_a',
  b: 'done part_b',
  c: 'done part_c',
  round: 3,
  verdict: 'approve',
  summary: 'all parts done',
};
const AGENT_TAGS = ['plan', 'part_a', 'part_b', 'part_c', 'review 0', 'review 1', 'review 2', 'summary'];
const LOG_LINES = ['plan', 'a', 'b', 'c', 'review 0', 'review 1', 'review 2'];

function setUp(): void {
  const dir = path.join(t.ctx.work, '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  copyFileSync(path.join(FLOWS, 'pipeline.yaml'), path.join(dir, 'pipeline.yaml'));
}

/**
 * The model's answers. Until the returned `killed()` is called (the first process),
 * the `held` tags wait for a gate never opened; after it, every request is answered.
 */
function answer(held: ReadonlySet<string>, arrived: (tag: string) => void = () => undefined): () => void {
  let first = true;
  t.server.respond((body) => {
    const tag = tagOf(body);
    if (first && held.has(tag)) {
      arrived(tag);
      return pipelineReply(body).holdUntil('never');
    }
    return pipelineReply(body);
  });
  return () => {
    first = false;
  };
}

/** The model request tag and log line each node key stands for (`improve#1/review` → `review 1`). */
function tagFor(key: string): string | undefined {
  const id = key.split('/').at(-1)!;
  const round = /#(\d+)\//.exec(key)?.[1];
  if (id === 'review') return `review ${round}`;
  return AGENT_TAGS.includes(id) ? id : undefined;
}
function lineFor(key: string): string | undefined {
  const id = key.split('/').at(-1)!;
  if (id === 'log_review') return `review ${/#(\d+)\//.exec(key)?.[1]}`;
  return id.startsWith('log_') ? id.slice(4) : undefined;
}

/** What the database says of each node key right after the kill: completed, or started and cut short. */
function recorded(runId: string): { completed: Set<string>; cut: Set<string>; starts: Map<string, number> } {
  const db = new Database(path.join(t.ctx.home, 'tea.db'), { readonly: true });
  try {
    const rows = db
      .prepare('SELECT node_key, event, status FROM workflow_checkpoints WHERE run_id = ? ORDER BY seq')
      .all(runId) as Array<{ node_key: string; event: string; status: string | null }>;
    const completed = new Set(
      rows.filter((r) => r.event === 'result' && r.status === 'completed').map((r) => r.node_key),
    );
    const starts = new Map<string, number>();
    for (const r of rows) if (r.event === 'start') starts.set(r.node_key, (starts.get(r.node_key) ?? 0) + 1);
    const cut = new Set([...starts.keys()].filter((k) => !completed.has(k)));
    return { completed, cut, starts };
  } finally {
    db.close();
  }
}

function runIdOf(run: Running): string {
  return (JSON.parse(run.stdout.split('\n')[0]!) as { run_id: string }).run_id;
}

/** Kills the run once `ready` resolves, resumes it, and checks the end state and what ran twice. */
async function killAndResume(run: Running, ready: Promise<unknown>, killed: () => void): Promise<void> {
  await ready;
  run.kill('SIGKILL');
  expect((await run.exit).signal).toBe('SIGKILL');
  killed();
  const runId = runIdOf(run);
  const before = recorded(runId);
  const listed = await runTea(['workflow', 'list'], { env: t.ctx.env, cwd: t.ctx.work });
  expect(listed.stdout).toMatch(new RegExp(`${runId.slice(0, 8)}  ⚠ interrupted`));

  const resumed = await runTea(['workflow', 'resume', runId.slice(0, 8), ...RUN], {
    env: t.ctx.env,
    cwd: t.ctx.work,
  });
  expect(resumed.stderr).toBe('');
  expect(resumed.code).toBe(0);
  const end = JSON.parse(resumed.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
  expect(end).toMatchObject({
    type: 'run_end',
    run_id: runId,
    status: 'completed',
    output: 'all parts done',
  });
  const shown = JSON.parse((await runTea(['workflow', 'show', runId, '--json'], { env: t.ctx.env })).stdout);
  expect(shown.status).toBe('completed');
  expect(shown.run.state).toEqual(FINAL_STATE);

  // A node completed before the kill ran once in all; one cut short ran at most twice.
  const after = recorded(runId);
  const calls = tagCounts(t.server.requests);
  const lines = readFileSync(path.join(t.ctx.work, 'log.txt'), 'utf8').trim().split('\n');
  const count = (line: string): number => lines.filter((l) => l === line).length;
  expect(Object.keys(calls).sort()).toEqual([...AGENT_TAGS].sort());
  expect([...new Set(lines)].sort()).toEqual([...LOG_LINES].sort());
  for (const key of after.completed) {
    const tag = tagFor(key);
    const line = lineFor(key);
    const most = before.cut.has(key) ? 2 : 1;
    if (before.completed.has(key)) expect(after.starts.get(key), key).toBe(before.starts.get(key));
    if (tag) expect(calls[tag], `${key}: model requests`).toBeLessThanOrEqual(most);
    if (tag && !before.cut.has(key)) expect(calls[tag], `${key}: model requests`).toBe(1);
    if (line) expect(count(line), `${key}: log lines`).toBeLessThanOrEqual(most);
    if (line && !before.cut.has(key)) expect(count(line), `${key}: log lines`).toBe(1);
  }
}

describe('tea workflow run, killed with SIGKILL, then resumed', () => {
  it('an uninterrupted run: its state, output and 37 checkpoints (the reference)', async () => {
    setUp();
    answer(new Set());
    const r = await runTea(['workflow', 'run', 'pipeline', ...RUN], { env: t.ctx.env, cwd: t.ctx.work });
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.filter((e) => e.type === 'checkpoint')).toHaveLength(37);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed', output: 'all parts done' });
    const shown = JSON.parse(
      (await runTea(['workflow', 'show', String(events[0]!.run_id), '--json'], { env: t.ctx.env })).stdout,
    );
    expect(shown.run.state).toEqual(FINAL_STATE);
    expect(tagCounts(t.server.requests)).toEqual(Object.fromEntries(AGENT_TAGS.map((tag) => [tag, 1])));
  });

  it.each([1, 4, 8, 13, 18, 22, 27, 33])('killed after checkpoint %i', async (k) => {
    setUp();
    const killed = answer(new Set(['summary']));
    const run = startTea(['workflow', 'run', 'pipeline', ...RUN], { env: t.ctx.env, cwd: t.ctx.work });
    const ready = run.stdoutLine((line) => {
      const e = JSON.parse(line) as { type: string; seq?: number };
      return e.type === 'checkpoint' && e.seq === k;
    });
    await killAndResume(run, ready, killed);
  });

  it.each(['part_c', 'review 1'])('killed while the agent node "%s" waits on the model', async (slow) => {
    setUp();
    let arrived: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const killed = answer(new Set([slow, 'summary']), (tag) => {
      if (tag === slow) arrived();
    });
    const run = startTea(['workflow', 'run', 'pipeline', ...RUN], { env: t.ctx.env, cwd: t.ctx.work });
    await killAndResume(run, waiting, killed);
    expect(t.server.requests.filter((r) => tagOf(r.body) === slow)).toHaveLength(2);
  });
});
