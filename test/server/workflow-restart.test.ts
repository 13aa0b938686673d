/**
 * `tea serve` (the built CLI) killed with SIGKILL while a run it started over HTTP
 * is in an agent node: the next server shows the run interrupted, and resume goes
 * on from there (the finished node is not run again; the interrupted one is).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tagCounts, tagOf } from '../multi/workflow/helpers.js';
import { cliEnv, listening, NO_MEMORY_JOBS, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

const TWO = `name: two
state: { first: string, second: string }
nodes:
  first: { kind: agent, role: analyst, prompt: "[first]", output: first, next: second }
  second: { kind: agent, role: analyst, prompt: "[second] {{state.first}}", output: second, next: done }
  done: { kind: end, result: "{{state.first}} then {{state.second}}" }
`;

async function json<T>(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

describe('tea serve killed during a workflow run', () => {
  it('leaves the run interrupted; the next server resumes it', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    const servers: ChildProcess[] = [];
    const serve = async (): Promise<string> => {
      const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
      servers.push(child);
      return listening(child);
    };
    try {
      writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
      mkdirSync(path.join(ctx.work, '.tea', 'workflows'), { recursive: true });
      writeFileSync(path.join(ctx.work, '.tea', 'workflows', 'two.yaml'), TWO);
      // The second node's answer never comes while the first server lives.
      model.respond((body) =>
        tagOf(body) === 'first' ? reply().text('ONE') : reply().text('never').holdUntil('never'),
      );
      let url = await serve();
      const started = await json<{ id: string }>(`${url}/v1/workflows/two/runs`, 'POST', {});
      expect(started.status).toBe(201);
      const id = started.body.id;
      await model.waitForRequests(2);
      const exit = new Promise((resolve) => servers[0]!.once('exit', (_c, signal) => resolve(signal)));
      servers[0]!.kill('SIGKILL');
      expect(await exit).toBe('SIGKILL');

      model.reset();
      model.respond(() => reply().text('TWO'));
      url = await serve();
      const after = await json<{ status: string; nodes: Array<{ key: string; status: string }> }>(
        `${url}/v1/workflow-runs/${id}`,
      );
      expect(after.body.status).toBe('interrupted');
      expect(after.body.nodes.map((n) => [n.key, n.status])).toEqual([
        ['first', 'completed'],
        ['second', 'interrupted'],
      ]);
      const resumed = await json<{ status: string }>(`${url}/v1/workflow-runs/${id}/resume`, 'POST');
      expect(resumed.status).toBe(202);
      // Its stream ends when the run does.
      const stream = await (await fetch(`${url}/v1/workflow-runs/${id}/events`)).text();
      expect(stream).toMatch(/event: (run_end|status)\ndata: \{[^\n]*"status":"completed"/);
      const done = await json<{ status: string; output: string }>(`${url}/v1/workflow-runs/${id}`);
      expect(done.body).toMatchObject({ status: 'completed', output: 'ONE then TWO' });
      expect(tagCounts(model.requests)).toEqual({ second: 1 });
    } finally {
      for (const child of servers)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      ctx.cleanup();
    }
  });
});
