/**
 * Workflow routes: the definitions there are, starting one, and its runs (list, one
 * with its nodes and Mermaid graph, history, resume with an approval decision,
 * cancel, fork). A run executes in the server process, not tied to the request that
 * started it; its events stream on `/v1/workflow-runs/{id}/events` (workflow-events.ts).
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { didYouMean } from '../config/suggest.js';
import type { WorkflowsService } from '../runtime/workflows.js';
import { apiError } from './errors.js';
import { CLIENT_HEADER } from './guard.js';
import { type AppContext, doc } from './routes.js';
import { readJson, readQuery } from './validate.js';
import type { WorkflowRuns } from './workflow-runs.js';
import {
  checkpointView,
  type DefinitionView,
  definitionView,
  mapped,
  type RunDetailsView,
  runDetailsView,
  runSummaryView,
} from './workflow-views.js';

const listQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });
const startBody = z.object({
  input: z.record(z.string(), z.unknown()).default({}),
});
const resumeBody = z.object({
  decision: z.enum(['approve', 'reject']).optional(),
  /** The waiting approval node to decide (its key); default: every approval the run waits for. */
  node: z.string().min(1).max(500).optional(),
});
const forkBody = z.object({
  checkpoint: z.number().int().min(1),
  /** Run the new run at once (default); false leaves it pending for `resume`. */
  start: z.boolean().default(true),
});

/** A run's nodes may nest sub-runs at most this deep (the runner's own cap). */
const MAX_NESTING = 5;
const FILE_LIKE = /[\\/]|\.(ya?ml|[mc]?[jt]s)$/i;

/**
 * The run with its nodes, graph and the approvals it (or a sub-run) waits for; an
 * agent node running here names its session before the run records it.
 */
export async function runDetails(
  wf: WorkflowsService,
  runs: WorkflowRuns,
  id: string,
  depth = 0,
): Promise<RunDetailsView> {
  const d = await wf.get(id);
  const history = wf.history(d.run.id);
  const view = runDetailsView(d, history, []);
  for (const n of view.nodes) {
    if (n.kind === 'agent' && !n.session_id) n.session_id = runs.liveSession(d.run.id, n.key) ?? null;
    if (n.kind === 'wait' && n.status === 'waiting' && n.question !== undefined)
      view.waiting.push({ run_id: d.run.id, node_key: n.key, question: n.question });
  }
  if (depth < MAX_NESTING) {
    for (const child of d.children) {
      if (child.status !== 'waiting') continue;
      view.waiting.push(...(await runDetails(wf, runs, child.id, depth + 1)).waiting);
    }
  }
  return view;
}

function needsClientHeader(c: Context): void {
  if (c.req.header(CLIENT_HEADER)?.trim()) return;
  throw apiError(
    403,
    `an approval decision needs the ${CLIENT_HEADER} header (any name, e.g. "X-Tea-Client: my-script"); web pages of other sites cannot send it`,
    { code: 'client_header_required' },
  );
}

export function workflowRoutes(ctx: AppContext): void {
  const { app, runs } = ctx;

  doc(ctx, {
    method: 'get',
    path: '/v1/workflows',
    summary:
      "The workflows there are (the project's .tea/workflows, the user's ~/.tea/workflows, the built-in flows): name, description, source, inputs; a file that does not load is listed with its error",
    tag: 'workflows',
  });
  app.get('/v1/workflows', async (c) => {
    const wf = await runs.service();
    const seen = new Set<string>();
    const data: Array<DefinitionView & { shadowed: boolean }> = [];
    for (const entry of await wf.definitions()) {
      const def = entry.error ? undefined : await wf.definition(entry.file).catch(() => undefined);
      // A project file shadows a user's or built-in one of the same name: starting by name runs the first.
      data.push({ ...definitionView(entry, def), shadowed: seen.has(entry.name) });
      seen.add(entry.name);
    }
    return c.json({ object: 'list', data });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/workflows/:name/runs',
    summary:
      'Start a run of a workflow (by name) with its input; it runs in the server (follow it on /v1/workflow-runs/{id}/events). 400 for bad input, 404 for an unknown workflow, 422 for a file that does not load',
    tag: 'workflows',
    body: startBody,
    status: 201,
  });
  app.post('/v1/workflows/:name/runs', async (c) => {
    const name = c.req.param('name');
    if (FILE_LIKE.test(name)) {
      throw apiError(
        404,
        `start a workflow by its name, not a file: "${name}" (GET /v1/workflows lists the names)`,
        { param: 'name', code: 'workflow_not_found' },
      );
    }
    const body = await readJson(c, startBody, { optional: true });
    const wf = await runs.service();
    const handle = await mapped(async () => {
      try {
        return await wf.start(name, body.input);
      } catch (e) {
        if (!(e instanceof Error && e.name === 'WorkflowRunError')) throw e;
        const code = (e as { code?: string }).code;
        // Not the input but the file: a role or tool it names does not exist.
        if (code === 'invalid' && !e.message.startsWith('input of workflow ')) {
          throw apiError(422, `the workflow cannot run: ${e.message}`, { code: 'invalid_workflow' });
        }
        if (code !== 'not_found') throw e;
        // Not the command line's advice: the names this API knows.
        const known = [...new Set((await wf.definitions()).map((d) => d.name))];
        throw apiError(
          404,
          `no workflow named "${name}"${didYouMean(name, known)} (GET /v1/workflows lists them)`,
          {
            param: 'name',
            code: 'workflow_not_found',
          },
        );
      }
    }, 'input');
    runs.track(handle);
    return c.json(await runDetails(wf, runs, handle.runId), 201);
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/workflow-runs',
    summary:
      'Workflow runs, most recently updated first (not sub-runs): status (interrupted: no process runs it; resume it), started, duration',
    tag: 'workflows',
    query: listQuery,
  });
  app.get('/v1/workflow-runs', async (c) => {
    const q = readQuery(c, listQuery);
    const wf = await runs.service();
    const now = Date.now();
    return c.json({ object: 'list', data: wf.runs(q.limit).map((r) => runSummaryView(r, r.view, now)) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/workflow-runs/:id',
    summary:
      'One run (id or a unique prefix of 4+ characters): status, input, state, output, error, each node (an agent node with its session), the approvals it waits for, and its Mermaid graph',
    tag: 'workflows',
  });
  app.get('/v1/workflow-runs/:id', async (c) => {
    const wf = await runs.service();
    return c.json(await mapped(() => runDetails(wf, runs, c.req.param('id'))));
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/workflow-runs/:id/history',
    summary:
      "A run's checkpoints, numbered: each node's start and result with the state after it (fork from any)",
    tag: 'workflows',
  });
  app.get('/v1/workflow-runs/:id/history', async (c) => {
    const wf = await runs.service();
    const run = (await mapped(() => wf.get(c.req.param('id')))).run;
    return c.json({ object: 'list', run_id: run.id, data: wf.history(run.id).map(checkpointView) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/workflow-runs/:id/resume',
    summary:
      'Go on with a run that was interrupted, cancelled, failed or waits (completed nodes are not run again); decision approve or reject answers the approval it waits for (node: only that one; needs the x-tea-client header)',
    tag: 'workflows',
    body: resumeBody,
    status: 202,
  });
  app.post('/v1/workflow-runs/:id/resume', async (c) => {
    const body = await readJson(c, resumeBody, { optional: true });
    const wf = await runs.service();
    const before = await mapped(() => runDetails(wf, runs, c.req.param('id')));
    let opts: { decision?: boolean; decisions?: Record<string, boolean> } = {};
    if (body.node !== undefined && body.decision === undefined) {
      throw apiError(400, 'node names the approval to decide: give decision ("approve" or "reject") too', {
        param: 'decision',
        code: 'invalid_value',
      });
    }
    if (body.decision !== undefined) {
      needsClientHeader(c);
      const approve = body.decision === 'approve';
      if (before.waiting.length === 0) {
        throw apiError(409, `run ${before.id} does not wait for an approval (it is ${before.status})`, {
          param: 'decision',
          code: 'nothing_waiting',
        });
      }
      if (body.node !== undefined) {
        if (!before.waiting.some((w) => w.node_key === body.node)) {
          const keys = before.waiting.map((w) => w.node_key).join(', ');
          throw apiError(400, `run ${before.id} waits for an approval at ${keys}, not at "${body.node}"`, {
            param: 'node',
            code: 'invalid_value',
          });
        }
        opts = { decisions: { [body.node]: approve } };
      } else opts = { decision: approve };
    }
    const handle = await mapped(() => wf.resume(before.id, opts));
    runs.track(handle);
    return c.json(await runDetails(wf, runs, handle.runId), 202);
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/workflow-runs/:id/cancel',
    summary:
      'Stop a run (result cancelled; requested: another process runs it and stops at its next heartbeat; finished: nothing to stop)',
    tag: 'workflows',
  });
  app.post('/v1/workflow-runs/:id/cancel', async (c) => {
    const wf = await runs.service();
    const r = await mapped(() => wf.cancel(c.req.param('id')));
    return c.json({ id: r.runId, result: r.result, status: (await wf.get(r.runId)).status });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/workflow-runs/:id/fork',
    summary:
      "A new run from a run's checkpoints 1…checkpoint (see /history); it runs at once unless start is false (then resume runs it)",
    tag: 'workflows',
    body: forkBody,
    status: 201,
  });
  app.post('/v1/workflow-runs/:id/fork', async (c) => {
    const body = await readJson(c, forkBody);
    const wf = await runs.service();
    const from = (await mapped(() => wf.get(c.req.param('id')))).run;
    const row = await mapped(() => wf.fork(from.id, body.checkpoint), 'checkpoint');
    if (body.start) runs.track(await mapped(() => wf.resume(row.id)));
    return c.json(await runDetails(wf, runs, row.id), 201);
  });
}
