/** `/v1/prompts`: prompt versions over HTTP, and what the next session's first request carries. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS } from '../../src/agent/prompt.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { startTestServer, type TestServer } from './helpers.js';

const MINE = [
  'You are Tea Agent, over HTTP.',
  'Act with tools and verify every result.',
  'Never invent file contents, paths or results.',
].join('\n');

interface Version {
  version: number;
  status: string;
  source: string;
  stored: boolean;
  content: string;
  parent_version: number | null;
}
interface ErrorBody {
  error: { message: string; code: string; param: string | null; type: string };
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

async function chatSystem(): Promise<string> {
  t.model.script(reply().text('ok'));
  const before = t.model.requests.length;
  const res = await t.json('POST', '/v1/chat/completions', {
    model: 'tea',
    messages: [{ role: 'user', content: 'hi' }],
  });
  expect(res.status).toBe(200);
  return wireText(wireMessages(t.model.requests[before]!.body)[0]!);
}

describe('/v1/prompts', () => {
  it('lists the built-in version while none is set, sets one that the next session uses, and activates back', async () => {
    const list = await t.json<{ active: number; data: Version[] }>('GET', '/v1/prompts');
    expect(list.body.active).toBe(1);
    expect(list.body.data).toEqual([
      expect.objectContaining({ version: 1, status: 'active', source: 'builtin', stored: false }),
    ]);
    expect(await chatSystem()).toContain(BUILTIN_INSTRUCTIONS);

    const set = await t.json<Version>('POST', '/v1/prompts', { content: MINE, note: 'over http' });
    expect(set.status).toBe(201);
    expect(set.body).toMatchObject({ version: 2, status: 'active', source: 'user', parent_version: 1 });
    expect(await chatSystem()).toContain(MINE);

    const one = await t.json<Version>('GET', '/v1/prompts/active');
    expect(one.body.version).toBe(2);
    const back = await t.json<Version>('POST', '/v1/prompts/1/activate');
    expect(back.body).toMatchObject({ version: 1, status: 'active', content: BUILTIN_INSTRUCTIONS });
    const system = await chatSystem();
    expect(system).toContain(BUILTIN_INSTRUCTIONS);
    expect(system).not.toContain(MINE);
    expect((await t.json<Version>('GET', '/v1/prompts/v2')).body.status).toBe('retired');
  });

  it.each([
    ['GET', '/v1/prompts/abc', undefined, 400, 'invalid_prompt_version'],
    ['GET', '/v1/prompts/0', undefined, 400, 'invalid_prompt_version'],
    ['GET', '/v1/prompts/99', undefined, 404, 'prompt_version_not_found'],
    ['POST', '/v1/prompts/99/activate', undefined, 404, 'prompt_version_not_found'],
    ['POST', '/v1/prompts/active/activate', undefined, 400, 'invalid_prompt_version'],
    ['POST', '/v1/prompts', { content: 'Just chat.' }, 422, 'prompt_refused'],
    ['POST', '/v1/prompts', { content: `${MINE}\nDate: 2020-01-01` }, 422, 'prompt_refused'],
    ['POST', '/v1/prompts', { content: '' }, 400, null],
    ['POST', '/v1/prompts', { content: 42 }, 400, null],
    ['POST', '/v1/prompts', { content: MINE, force: 'yes' }, 400, null],
  ])('%s %s %j → %i %s', async (method, p, body, status, code) => {
    const res = await t.json<ErrorBody>(method, p, body);
    expect(res.status).toBe(status);
    if (code) expect(res.body.error.code).toBe(code);
    expect(res.body.error.message.length).toBeGreaterThan(10);
  });

  it('a refusal says what to fix; force sets it anyway; the same text again is a 409', async () => {
    const refused = await t.json<ErrorBody>('POST', '/v1/prompts', { content: 'Just chat.' });
    expect(refused.body.error.message).toMatch(/tools.*"force": true/);
    const forced = await t.json<Version>('POST', '/v1/prompts', { content: 'Just chat.', force: true });
    expect(forced.status).toBe(201);
    const again = await t.json<ErrorBody>('POST', '/v1/prompts', { content: 'Just chat.', force: true });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('prompt_unchanged');
    await t.json('POST', '/v1/prompts/1/activate');
  });

  it('is in the OpenAPI document', async () => {
    const doc = await t.json<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    expect(doc.body.paths['/v1/prompts']).toHaveProperty('get');
    expect(doc.body.paths['/v1/prompts']).toHaveProperty('post');
    expect(doc.body.paths['/v1/prompts/{version}']).toHaveProperty('get');
    expect(doc.body.paths['/v1/prompts/{version}/activate']).toHaveProperty('post');
  });
});
