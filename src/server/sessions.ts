/** Session routes: CRUD, messages, prompt, cancel, approvals and answers. */
import * as z from 'zod';
import { apiError } from './errors.js';
import { CLIENT_HEADER, clientHeader } from './guard.js';
import { sessionNotFound } from './live.js';
import { type AppContext, doc } from './routes.js';
import { readJson, readQuery } from './validate.js';
import { messagesView, sessionView, subagentView } from './views.js';

const listQuery = z.object({
  q: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
});
const createBody = z.object({ title: z.string().max(500).optional(), profile: z.string().min(1).optional() });
const patchBody = z
  .object({
    title: z.string().trim().min(1).max(500).optional(),
    /** A work mode (`GET /v1/modes`); the session's permission mode switches to the mode's. */
    work_mode: z.string().trim().min(1).max(64).optional(),
  })
  .refine((b) => b.title !== undefined || b.work_mode !== undefined, {
    message: 'give title or work_mode (or both)',
  });
const promptBody = z.object({
  input: z.string().min(1, 'input must not be empty'),
  images: z
    .array(
      z.object({
        mediaType: z.string().regex(/^image\/[\w.+-]+$/, 'mediaType must be an image type such as image/png'),
        data: z
          .string()
          .min(1)
          .regex(/^[A-Za-z0-9+/=\s]+$/, 'data must be base64'),
      }),
    )
    .max(20)
    .optional(),
  mode: z.enum(['prompt', 'steer', 'follow_up']).default('prompt'),
});
const deleteQuery = z.object({ force: z.enum(['true', 'false', '1', '0']).optional() });
const approvalBody = z.object({
  decision: z.enum(['once', 'always', 'reject']),
  message: z.string().max(10_000).optional(),
});
const answerBody = z.object({ text: z.string().max(100_000) });

export function sessionRoutes(ctx: AppContext): void {
  const { app, deps, live } = ctx;
  const { sessions } = deps;
  const view = (id: string) => {
    const row = sessions.get(id);
    if (!row) throw sessionNotFound(id);
    return sessionView(sessions, row, live.busy(id));
  };

  /** A live session switches at once; a stored one at its next prompt. Unknown names are a 400 naming the modes. */
  const switchMode = (id: string, name: string): void => {
    const modes = sessions.modes().map((m) => m.name);
    if (!modes.includes(name))
      throw apiError(400, `unknown work mode "${name}": use one of ${modes.join(', ')} (GET /v1/modes)`, {
        param: 'work_mode',
        code: 'unknown_work_mode',
      });
    const row = sessions.get(id)!;
    if (row.role)
      throw apiError(400, `session ${id} is a sub-agent's (role ${row.role}): it has no work mode`, {
        param: 'work_mode',
        code: 'no_work_mode',
      });
    const running = live.peek(id);
    if (running) running.session.setWorkMode(name);
    else sessions.setWorkMode(id, name);
  };

  doc(ctx, {
    method: 'get',
    path: '/v1/sessions',
    summary: 'List sessions, newest first',
    tag: 'sessions',
    query: listQuery,
  });
  app.get('/v1/sessions', (c) => {
    const q = readQuery(c, listQuery);
    const needle = q.q?.trim().toLowerCase();
    const rows = needle
      ? sessions
          .list()
          .filter((r) => r.id.startsWith(needle) || (r.title ?? '').toLowerCase().includes(needle))
          .slice(q.offset, q.offset + q.limit)
      : sessions.list({ limit: q.limit, offset: q.offset });
    return c.json({
      object: 'list',
      data: rows.map((r) => sessionView(sessions, r, live.busy(r.id), r.messageCount)),
    });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions',
    summary: 'Create a session',
    tag: 'sessions',
    body: createBody,
    status: 201,
  });
  app.post('/v1/sessions', async (c) => {
    const body = await readJson(c, createBody, { optional: true });
    const created = await live.create(body);
    return c.json(view(created.session.id), 201);
  });

  doc(ctx, { method: 'get', path: '/v1/sessions/:id', summary: 'One session', tag: 'sessions' });
  app.get('/v1/sessions/:id', (c) => c.json(view(c.req.param('id'))));

  doc(ctx, {
    method: 'patch',
    path: '/v1/sessions/:id',
    summary: 'Rename a session, or switch its work mode (work_mode)',
    tag: 'sessions',
    body: patchBody,
  });
  app.patch('/v1/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const body = await readJson(c, patchBody);
    if (!sessions.get(id)) throw sessionNotFound(id);
    if (body.work_mode !== undefined) switchMode(id, body.work_mode);
    if (body.title !== undefined) sessions.rename(id, body.title);
    return c.json(view(id));
  });

  doc(ctx, {
    method: 'delete',
    path: '/v1/sessions/:id',
    summary: 'Delete a session (?force=true cancels a running turn)',
    tag: 'sessions',
    query: deleteQuery,
  });
  app.delete('/v1/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const q = readQuery(c, deleteQuery);
    await live.delete(id, q.force === 'true' || q.force === '1');
    return c.json({ id, deleted: true });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/sessions/:id/messages',
    summary: 'Stored messages of a session',
    tag: 'sessions',
  });
  app.get('/v1/sessions/:id/messages', (c) => {
    const id = c.req.param('id');
    if (!sessions.get(id)) throw sessionNotFound(id);
    return c.json({ object: 'list', data: messagesView(sessions, id) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/sessions/:id/children',
    summary:
      "A session's sub-agents, oldest first: label, role, status (running, done, budget, timeout, max turns, failed, cancelled), usage; each is a session of its own",
    tag: 'sessions',
  });
  app.get('/v1/sessions/:id/children', (c) => {
    const id = c.req.param('id');
    if (!sessions.get(id)) throw sessionNotFound(id);
    return c.json({ object: 'list', data: sessions.children(id).map(subagentView) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions/:id/prompt',
    summary: 'Start a turn (events arrive on /events)',
    tag: 'sessions',
    body: promptBody,
    status: 202,
  });
  app.post('/v1/sessions/:id/prompt', async (c) => {
    const body = await readJson(c, promptBody);
    const session = await live.open(c.req.param('id'));
    const images = body.images?.map((i) => ({
      type: 'image' as const,
      mediaType: i.mediaType,
      data: i.data.replace(/\s+/g, ''),
    }));
    const turn = live.prompt(session, body.input, images, body.mode);
    return c.json({ session_id: session.session.id, turn }, 202);
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions/:id/retry',
    summary:
      'Run the last message again when its turn failed before an answer (it is not stored twice); 409 nothing_to_retry when the last turn was answered',
    tag: 'sessions',
    status: 202,
  });
  app.post('/v1/sessions/:id/retry', async (c) => {
    const session = await live.open(c.req.param('id'));
    live.retry(session);
    return c.json({ session_id: session.session.id, turn: 'started' }, 202);
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions/:id/cancel',
    summary: 'Cancel the running turn',
    tag: 'sessions',
  });
  app.post('/v1/sessions/:id/cancel', (c) => {
    const id = c.req.param('id');
    if (!sessions.get(id)) throw sessionNotFound(id);
    return c.json({ cancelled: live.cancel(id) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions/:id/approvals/:requestId',
    summary: 'Answer an approval_request',
    tag: 'sessions',
    body: approvalBody,
    headers: [CLIENT_HEADER],
  });
  app.post('/v1/sessions/:id/approvals/:requestId', clientHeader, async (c) => {
    const body = await readJson(c, approvalBody);
    const id = c.req.param('id');
    if (!sessions.get(id)) throw sessionNotFound(id);
    const requestId = c.req.param('requestId');
    const ok = live.peek(id)?.session.approve(requestId, body.decision, body.message) ?? false;
    if (!ok) throw waitingNotFound('approval', requestId);
    return c.json({ ok: true });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/sessions/:id/answers/:requestId',
    summary: 'Answer a question',
    tag: 'sessions',
    body: answerBody,
    headers: [CLIENT_HEADER],
  });
  app.post('/v1/sessions/:id/answers/:requestId', clientHeader, async (c) => {
    const body = await readJson(c, answerBody);
    const id = c.req.param('id');
    if (!sessions.get(id)) throw sessionNotFound(id);
    const requestId = c.req.param('requestId');
    const ok = live.peek(id)?.session.answer(requestId, body.text) ?? false;
    if (!ok) throw waitingNotFound('question', requestId);
    return c.json({ ok: true });
  });
}

function waitingNotFound(kind: 'approval' | 'question', requestId: string) {
  return apiError(404, `no ${kind} request ${requestId} is waiting in this session`, {
    param: 'requestId',
    code: `${kind}_not_found`,
  });
}
