/**
 * Skill routes: the installed skills (list, one with its instructions, delete) and the
 * inbox of drafted skills (list, one, accept, reject). Names are checked before any
 * path is built (400), a missing skill or draft is a 404, a taken name or another
 * agent's folder a 409 (`force` overrides), a draft that is not valid a 422.
 *
 * `/v1/skills/inbox` is the inbox; a skill that is itself named `inbox` is shown by
 * `GET /v1/skills/inbox?installed=true` (and deleted by `DELETE /v1/skills/inbox`).
 */
import type { Context } from 'hono';
import * as z from 'zod';
import {
  type DraftView,
  isSkillsError,
  type ShadowedView,
  type SkillsService,
  type SkillView,
} from '../runtime/skills.js';
import { apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson, readQuery } from './validate.js';

const acceptBody = z.object({
  force: z.boolean().optional().describe('Replace an installed skill of the same name'),
});
const deleteQuery = z.object({
  force: z
    .enum(['true', 'false'])
    .optional()
    .describe("Also delete a skill in another agent's folder (.agents/skills, .claude/skills)"),
});
const inboxQuery = z.object({
  installed: z.enum(['true', 'false']).optional().describe('Show the installed skill named "inbox" instead'),
});

function skillJson(s: SkillView) {
  return {
    name: s.name,
    description: s.description,
    source: s.source,
    scope: s.scope,
    rank: s.rank,
    own: s.own,
    dir: s.dir,
    real_dir: s.realDir,
    file: s.file,
    license: s.license ?? null,
    compatibility: s.compatibility ?? null,
    allowed_tools: s.allowedTools,
    tools: s.tools,
    metadata: s.metadata,
    offered: s.offered,
  };
}

function draftJson(d: DraftView) {
  return {
    name: d.name,
    description: d.description ?? null,
    dir: d.dir,
    file: d.file,
    source: d.source ?? null,
    session: d.session ?? null,
    drafted_at: d.draftedAt ?? null,
    metadata: d.metadata,
    valid: d.valid,
    problems: d.problems,
    conflicts_with: d.conflictsWith ?? null,
  };
}

const STATUS = {
  invalid_name: 400,
  not_found: 404,
  conflict: 409,
  not_owned: 409,
  invalid_skill: 422,
} as const;

/** Runs a skills operation; its SkillsError becomes the matching OpenAI-style error. */
async function guarded<T>(what: 'skill' | 'draft', run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!isSkillsError(e)) throw e;
    const code = {
      invalid_name: 'invalid_value',
      not_found: `${what}_not_found`,
      conflict: 'skill_exists',
      not_owned: 'skill_not_owned',
      invalid_skill: 'invalid_skill',
    }[e.code];
    throw apiError(STATUS[e.code], forHttp(e.message), { param: 'name', code });
  }
}

export function skillRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const service = (): Promise<SkillsService> => deps.skills();
  const name = (c: Context): string => c.req.param('name') ?? '';
  const detail = async (raw: string) => {
    const s = await (await service()).show(raw);
    return { ...skillJson(s), body: s.body, files: s.files, more_files: s.moreFiles };
  };

  doc(ctx, {
    method: 'get',
    path: '/v1/skills',
    summary: 'Installed skills, shadowed ones, problems and the folders in precedence order',
    tag: 'skills',
  });
  app.get('/v1/skills', async (c) => {
    const listing = await (await service()).list();
    return c.json({
      object: 'list',
      data: listing.skills.map(skillJson),
      shadowed: listing.shadowed.map((s: ShadowedView) => ({ ...skillJson(s), shadowed_by: s.shadowedBy })),
      warnings: listing.warnings,
      dirs: listing.dirs,
    });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/skills/inbox',
    summary: 'Drafted skills waiting to be accepted or rejected',
    tag: 'skills',
    query: inboxQuery,
  });
  app.get('/v1/skills/inbox', async (c) => {
    if (readQuery(c, inboxQuery).installed === 'true')
      return c.json(await guarded('skill', () => detail('inbox')));
    const s = await service();
    return c.json({ object: 'list', dir: s.inbox.dir, data: (await s.inbox.list()).map(draftJson) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/skills/inbox/:name',
    summary: 'One draft with its instructions and files',
    tag: 'skills',
  });
  app.get('/v1/skills/inbox/:name', async (c) => {
    const d = await guarded('draft', async () => (await service()).inbox.show(name(c)));
    return c.json({ ...draftJson(d), body: d.body, files: d.files });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/skills/inbox/:name/accept',
    summary: "Install a draft in the Tea home's skills",
    tag: 'skills',
    body: acceptBody,
  });
  app.post('/v1/skills/inbox/:name/accept', async (c) => {
    const body = await readJson(c, acceptBody, { optional: true });
    const r = await guarded('draft', async () =>
      (await service()).inbox.accept(name(c), { force: body.force === true }),
    );
    return c.json({ name: r.name, accepted: true, dir: r.dir, replaced: r.replaced, note: r.note ?? null });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/skills/inbox/:name/reject',
    summary: 'Delete a draft',
    tag: 'skills',
  });
  app.post('/v1/skills/inbox/:name/reject', async (c) => {
    const r = await guarded('draft', async () => (await service()).inbox.reject(name(c)));
    return c.json({ name: r.name, rejected: true, dir: r.dir });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/skills/:name',
    summary: 'One skill with its instructions and files',
    tag: 'skills',
  });
  app.get('/v1/skills/:name', async (c) => c.json(await guarded('skill', () => detail(name(c)))));

  doc(ctx, {
    method: 'delete',
    path: '/v1/skills/:name',
    summary: "Delete an installed skill's folder (another agent's folder needs force=true)",
    tag: 'skills',
    query: deleteQuery,
  });
  app.delete('/v1/skills/:name', async (c) => {
    const force = readQuery(c, deleteQuery).force === 'true';
    const r = await guarded('skill', async () => (await service()).remove(name(c), { force }));
    return c.json({
      name: r.name,
      deleted: true,
      dir: r.dir,
      link_only: r.linkOnly,
      now_from: r.nowFrom ?? null,
    });
  });
}

/** A skills refusal worded for HTTP clients (the service names both faces' ways). */
function forHttp(message: string): string {
  return message
    .replaceAll('--force (force=true)', 'force=true')
    .replaceAll('(tea skills list shows them)', '(GET /v1/skills lists them)')
    .replaceAll('tea skills list shows it', 'GET /v1/skills shows it');
}
