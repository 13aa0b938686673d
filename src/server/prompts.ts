/**
 * Prompt-version routes: the versions of the default system prompt's instructions,
 * one version, setting a new one, and activating a stored one (a candidate, or an
 * older version to roll back to). Sessions started after a change use it.
 */
import * as z from 'zod';
import type { PromptError } from '../evolve/prompts/errors.js';
import type { PromptVersionInfo, PromptVersions } from '../evolve/prompts/service.js';
import { apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson } from './validate.js';

const setBody = z.object({
  content: z.string().min(1, 'content must not be empty').max(20_000),
  note: z.string().trim().max(500).optional(),
  force: z
    .boolean()
    .optional()
    .describe('Set it even though the checks find problems (too long, tool-use essentials missing)'),
});

function view(v: PromptVersionInfo) {
  return {
    object: 'prompt_version',
    version: v.version,
    status: v.status,
    source: v.source,
    note: v.note,
    parent_version: v.parentVersion,
    created_at: v.createdAt,
    activated_at: v.activatedAt,
    stored: v.stored,
    words: v.words,
    content: v.content,
  };
}

/** `3`, `v3` or `active` from the path; anything else is a 400 naming it. */
function versionParam(text: string): number | undefined {
  if (text === 'active') return undefined;
  const t = text.replace(/^v/i, '');
  if (!/^\d{1,9}$/.test(t) || Number(t) < 1)
    throw apiError(400, `"${text.slice(0, 40)}" is not a prompt version: give its number (or "active")`, {
      param: 'version',
      code: 'invalid_prompt_version',
    });
  return Number(t);
}

/** A PromptError as the API says it; anything else goes on to the error handler. */
function asApiError(e: unknown): unknown {
  if (!(e instanceof Error && e.name === 'PromptError')) return e;
  const { code, message } = e as PromptError;
  if (code === 'not_found')
    return apiError(404, message, { param: 'version', code: 'prompt_version_not_found' });
  if (code === 'refused') return apiError(422, message, { param: 'content', code: 'prompt_refused' });
  if (code === 'unchanged') return apiError(409, message, { param: 'content', code: 'prompt_unchanged' });
  return apiError(400, message, { param: 'version', code: 'invalid_prompt_version' });
}

export function promptRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const prompts = async (): Promise<PromptVersions> => (await deps.evolve()).prompts;
  const run = async <T>(fn: (p: PromptVersions) => T): Promise<T> => {
    const p = await prompts();
    try {
      return fn(p);
    } catch (e) {
      throw asApiError(e);
    }
  };

  doc(ctx, {
    method: 'get',
    path: '/v1/prompts',
    summary: "Versions of the default system prompt's instructions (the built-in one when none was set)",
    tag: 'prompts',
  });
  app.get('/v1/prompts', async (c) => {
    const { list, active } = await run((p) => ({ list: p.list(), active: p.active().version }));
    return c.json({ object: 'list', active, data: list.map(view) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/prompts/:version',
    summary: 'One prompt version (a number, or "active")',
    tag: 'prompts',
  });
  app.get('/v1/prompts/:version', async (c) => {
    const version = versionParam(c.req.param('version'));
    return c.json(view(await run((p) => p.get(version))));
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/prompts',
    summary: 'Set a new version and make it active (checked: length, tool-use essentials; force overrides)',
    tag: 'prompts',
    body: setBody,
    status: 201,
  });
  app.post('/v1/prompts', async (c) => {
    const body = await readJson(c, setBody);
    const v = await run((p) =>
      p.set(body.content, {
        ...(body.note ? { note: body.note } : {}),
        ...(body.force ? { force: true } : {}),
      }),
    );
    return c.json(view(v), 201);
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/prompts/:version/activate',
    summary: 'Make a stored version active (promote a candidate, or roll back to an older one)',
    tag: 'prompts',
  });
  app.post('/v1/prompts/:version/activate', async (c) => {
    const raw = c.req.param('version');
    const version = versionParam(raw);
    if (version === undefined)
      throw apiError(400, 'name the version to activate by its number', {
        param: 'version',
        code: 'invalid_prompt_version',
      });
    return c.json(view(await run((p) => p.activate(version))));
  });
}
