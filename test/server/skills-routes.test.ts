/**
 * The skills API against a real server: listing with sources, shadowed skills and
 * warnings; one skill; deleting (another agent's folder needs force); the inbox (list,
 * one, accept with 409 on a taken name, 422 on an invalid draft, reject); names checked
 * before any path is built; the OpenAPI document lists every route.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { runtimeDeps } from '../../src/server/agents.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { skillText } from '../support/skills.js';

let root: string;
let home: string;
let work: string;
let user: string;
let rt: Runtime;
let server: RunningServer;

function writeSkill(dir: string, name: string, description: string, extra = ''): string {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(folder, 'SKILL.md'),
    skillText({ name, description, extra, body: `# ${name}\n\nSteps.\n` }),
  );
  return folder;
}

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-skills-api-')));
  home = path.join(root, 'home');
  work = path.join(root, 'work');
  user = path.join(root, 'user');
  for (const d of [home, work, user]) mkdirSync(d);
  writeFileSync(
    path.join(home, 'config.yaml'),
    'main_model: { base_url: "http://127.0.0.1:9/v1", api_key: sk-x, model: m }\n',
  );
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  rt = await createRuntime({ config, cwd: work, userHome: user });
  server = await startServer({ ...runtimeDeps(rt), version: '0.0.0-test' }, { host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await server.close();
  await rt.close();
  rmSync(root, { recursive: true, force: true });
});

async function call<T = Record<string, unknown>>(
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${server.url}${p}`, {
    method,
    ...(body === undefined
      ? {}
      : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}
type ErrorBody = { error: { message: string; type: string; param: string | null; code: string | null } };

describe('the skills API', () => {
  it('lists skills with where they come from, the shadowed ones and the problems; shows one', async () => {
    writeSkill(
      path.join(work, '.claude', 'skills'),
      'pdf',
      'Fill and merge PDF forms.',
      'allowed-tools: Bash(python:*) Read\nmetadata:\n  camelKey: kept\n',
    );
    writeSkill(path.join(user, '.claude', 'skills'), 'pdf', 'An older PDF skill.');
    writeSkill(path.join(home, 'skills'), 'no-description', '');
    const list = await call<{
      data: Array<Record<string, unknown>>;
      shadowed: Array<Record<string, unknown>>;
      warnings: string[];
      dirs: Array<{ rank: number; label: string }>;
    }>('GET', '/v1/skills');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({
        name: 'pdf',
        source: '.claude/skills',
        scope: 'project',
        rank: 3,
        own: false,
        allowed_tools: ['Bash(python:*)', 'Read'],
        tools: ['bash', 'read_file'],
        metadata: { camelKey: 'kept' },
        offered: true,
      }),
    ]);
    expect(list.body.shadowed).toEqual([
      expect.objectContaining({
        name: 'pdf',
        rank: 6,
        shadowed_by: path.join(work, '.claude', 'skills', 'pdf', 'SKILL.md'),
      }),
    ]);
    expect(list.body.warnings.some((w) => /no-description\/SKILL\.md: description: expected/.test(w))).toBe(
      true,
    );
    expect(list.body.dirs.map((d) => d.rank)).toEqual([1, 2, 3, 4, 5, 6]);
    const one = await call<{ name: string; body: string; files: string[] }>('GET', '/v1/skills/pdf');
    expect(one.body).toMatchObject({ name: 'pdf', body: '# pdf\n\nSteps.', files: [] });
  });

  it.each([
    ['/v1/skills/..%2F..%2Fetc', 400, 'invalid_value', /is not a skill name/],
    ['/v1/skills/%2Fetc%2Fpasswd', 400, 'invalid_value', /is not a skill name/],
    ['/v1/skills/PDF', 400, 'invalid_value', /upper-case letters/],
    ['/v1/skills/a%00b', 400, 'invalid_value', /NUL/],
    [`/v1/skills/${'a'.repeat(65)}`, 400, 'invalid_value', /65 characters/],
    ['/v1/skills/missing', 404, 'skill_not_found', /no skill named "missing"/],
    ['/v1/skills/inbox/..%2Fskills', 400, 'invalid_value', /is not a draft name/],
    ['/v1/skills/inbox/missing', 404, 'draft_not_found', /no draft named "missing"/],
  ])('GET %s: %i %s', async (p, status, code, message) => {
    const r = await call<ErrorBody>('GET', p);
    expect(r.status).toBe(status);
    expect(r.body.error).toMatchObject({ code, param: 'name', type: 'invalid_request_error' });
    expect(r.body.error.message).toMatch(message);
  });

  it('DELETE refuses another agent’s folder without force, then deletes; a linked folder loses its link only', async () => {
    const theirs = writeSkill(path.join(work, '.agents', 'skills'), 'notes', 'Meeting notes.');
    const refused = await call<ErrorBody>('DELETE', '/v1/skills/notes');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('skill_not_owned');
    // Worded for HTTP: the query parameter, not the command line's flag.
    expect(refused.body.error.message).toMatch(/pass force=true to delete/);
    expect(refused.body.error.message).not.toContain('--force');
    expect(existsSync(theirs)).toBe(true);
    expect((await call('DELETE', '/v1/skills/notes?force=true')).body).toMatchObject({
      name: 'notes',
      deleted: true,
    });
    expect(existsSync(theirs)).toBe(false);

    const outside = writeSkill(path.join(root, 'elsewhere'), 'linked', 'A skill kept elsewhere.');
    mkdirSync(path.join(home, 'skills'), { recursive: true });
    symlinkSync(outside, path.join(home, 'skills', 'linked'));
    const gone = await call('DELETE', '/v1/skills/linked');
    expect(gone.body).toMatchObject({ deleted: true, link_only: true });
    expect(existsSync(path.join(outside, 'SKILL.md'))).toBe(true);
  });

  it('the inbox: list, one, accept (409 on a taken name, force replaces), 422 for an invalid draft, reject', async () => {
    const inbox = path.join(home, 'skill-inbox');
    const meta = 'metadata:\n  source: tea-draft\n  session: s-1\n  drafted_at: "2026-12-01T10:00:00Z"\n';
    writeSkill(inbox, 'release', 'Cut a release: bump, tag, notes.', meta);
    writeSkill(inbox, 'pdf', 'A drafted PDF skill.', meta);
    writeSkill(inbox, 'renamed', 'x');
    writeFileSync(
      path.join(inbox, 'renamed', 'SKILL.md'),
      skillText({ name: 'other-name', description: 'Mismatch.' }),
    );
    const list = await call<{ data: Array<{ name: string; valid: boolean; conflicts_with: string | null }> }>(
      'GET',
      '/v1/skills/inbox',
    );
    expect(list.body.data.map((d) => [d.name, d.valid])).toEqual([
      ['renamed', false],
      ['pdf', true],
      ['release', true],
    ]);
    expect(list.body.data.find((d) => d.name === 'pdf')!.conflicts_with).toMatch(
      /\.claude\/skills\/pdf\/SKILL\.md$/,
    );
    const one = await call('GET', '/v1/skills/inbox/release');
    expect(one.body).toMatchObject({
      name: 'release',
      session: 's-1',
      drafted_at: '2026-12-01T10:00:00Z',
      body: '# release\n\nSteps.',
    });

    const accepted = await call('POST', '/v1/skills/inbox/release/accept');
    expect(accepted.body).toMatchObject({
      name: 'release',
      accepted: true,
      replaced: false,
      dir: path.join(home, 'skills', 'release'),
    });
    expect(
      (await call<{ data: Array<{ name: string }> }>('GET', '/v1/skills')).body.data.map((s) => s.name),
    ).toContain('release');
    expect((await call<ErrorBody>('POST', '/v1/skills/inbox/release/accept')).status).toBe(404);

    const taken = await call<ErrorBody>('POST', '/v1/skills/inbox/pdf/accept', {});
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('skill_exists');
    const forced = await call('POST', '/v1/skills/inbox/pdf/accept', { force: true });
    expect(forced.body).toMatchObject({
      accepted: true,
      note: expect.stringMatching(/the project's skill at .* comes first/),
    });

    const invalid = await call<ErrorBody>('POST', '/v1/skills/inbox/renamed/accept');
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.message).toMatch(/differs from its folder/);
    expect((await call('POST', '/v1/skills/inbox/renamed/reject')).body).toMatchObject({
      name: 'renamed',
      rejected: true,
    });
    expect((await call<ErrorBody>('POST', '/v1/skills/inbox/renamed/reject')).status).toBe(404);
    const bad = await call<ErrorBody>('POST', '/v1/skills/inbox/pdf/accept', { force: 'yes' });
    expect(bad.status).toBe(400);
  });

  it('a skill named inbox is reachable with ?installed=true', async () => {
    writeSkill(path.join(home, 'skills'), 'inbox', 'Triage the email inbox.');
    expect((await call('GET', '/v1/skills/inbox?installed=true')).body).toMatchObject({
      name: 'inbox',
      description: 'Triage the email inbox.',
    });
    expect((await call('GET', '/v1/skills/inbox')).body).toMatchObject({ object: 'list' });
  });

  it('the OpenAPI document lists the skills routes', async () => {
    const doc = await call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    for (const [p, m] of [
      ['/v1/skills', 'get'],
      ['/v1/skills/{name}', 'get'],
      ['/v1/skills/{name}', 'delete'],
      ['/v1/skills/inbox', 'get'],
      ['/v1/skills/inbox/{name}', 'get'],
      ['/v1/skills/inbox/{name}/accept', 'post'],
      ['/v1/skills/inbox/{name}/reject', 'post'],
    ])
      expect(doc.body.paths[p!]?.[m!], `${m} ${p}`).toBeDefined();
  });
});
