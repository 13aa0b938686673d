/**
 * Sub-agents through `tea serve` on loopback: the session stream flattens a child's
 * events with a `parent` field, a child's approval is asked (labelled) and answered on
 * the parent, sessions show their parent, children and the usage split, and the
 * OpenAI-compatible endpoint keeps children's text out of the answer.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { firstUser, isChild, isFirstCall, task } from '../multi/helpers.js';
import { reply } from '../support/script.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let client: OpenAI;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
  client = new OpenAI({ apiKey: 'unused', baseURL: `${t.url}/v1`, maxRetries: 0 });
});
afterAll(() => t.close());
beforeEach(() => {
  t.model.respond(undefined);
  t.model.reset();
});

type Flat = Record<string, unknown> & { type: string; parent?: Record<string, unknown> };
const CLIENT = { 'x-tea-client': 'test' };
const parse = (e: SseEvent) => JSON.parse(e.data) as Flat;
/** The session's own `done` (a child's has a parent). */
const ownDone = (e: SseEvent) => e.event === 'done' && parse(e).parent === undefined;

/** Two children that glob then answer; the parent delegates both, then answers. */
function twoChildren(): void {
  t.model.respond((body) => {
    if (isChild(body)) {
      const n = /part (\d)/.exec(firstUser(body))?.[1];
      return isFirstCall(body)
        ? reply().toolCall('glob', { pattern: '*.md' }).usage(100, 10)
        : reply().text(`CHILD ${n} ANSWER`).usage(200, 20);
    }
    if (isFirstCall(body))
      return reply()
        .toolCall('delegate_tasks', { tasks: [task(1), task(2)] })
        .usage(50, 5);
    return reply().text('Both parts are fine.').usage(60, 6);
  });
}

async function newSession(): Promise<string> {
  return (await t.json<{ id: string }>('POST', '/v1/sessions')).body.id;
}

describe('session API with sub-agents', () => {
  it('streams children’s events flat with a parent field; sessions show parent, children and usage split', async () => {
    twoChildren();
    const id = await newSession();
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'check both parts' });
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, ownDone);
    expect(events.some((e) => e.event === 'subagent')).toBe(false);
    for (const e of events) expect(parse(e).type).toBe(e.event);
    const nested = events.map(parse).filter((e) => e.parent !== undefined);
    const delegate = events
      .map(parse)
      .find((e) => e.type === 'tool_update' && (e.record as { name: string }).name === 'delegate_tasks')!;
    const callId = (delegate.record as { callId: string }).callId;
    for (const e of nested)
      expect(e.parent).toEqual({
        callId,
        sessionId: expect.any(String),
        label: expect.stringMatching(/^general #[12]$/),
        role: 'general',
        depth: 1,
      });
    const childIds = [...new Set(nested.map((e) => e.parent!.sessionId as string))];
    expect(childIds).toHaveLength(2);
    expect(nested.filter((e) => e.type === 'done')).toHaveLength(2);
    const own = parse(events.at(-1)!);
    expect(own.text).toBe('Both parts are fine.');
    expect(own.subagents).toEqual({ count: 2, usage: { inputTokens: 600, outputTokens: 60 }, costUsd: 0 });

    // The parent: its usage with the children's, and their share.
    const parent = await t.json<Record<string, unknown>>('GET', `/v1/sessions/${id}`);
    expect(parent.body).toMatchObject({
      parent_id: null,
      depth: 0,
      usage: {
        input_tokens: 710,
        output_tokens: 71,
        subagents: { count: 2, input_tokens: 600, output_tokens: 60, cost_usd: 0 },
      },
    });
    // Children are hidden from the list, and listed under their parent.
    const list = await t.json<{ data: Array<{ id: string }> }>('GET', '/v1/sessions?limit=1000');
    expect(list.body.data.map((s) => s.id)).toContain(id);
    for (const c of childIds) expect(list.body.data.map((s) => s.id)).not.toContain(c);
    const children = await t.json<{ data: Array<Record<string, unknown>> }>(
      'GET',
      `/v1/sessions/${id}/children`,
    );
    expect(children.body.data).toHaveLength(2);
    for (const c of children.body.data)
      expect(c).toMatchObject({
        label: expect.stringMatching(/^general #[12]$/),
        description: expect.stringMatching(/^check part [12]$/),
        role: 'general',
        depth: 1,
        parent_call_id: callId,
        status: 'done',
        usage: { input_tokens: 300, output_tokens: 30 },
        children: 0,
      });
    // A child: its parent, role and depth, and its own transcript.
    const one = await t.json<Record<string, unknown>>('GET', `/v1/sessions/${childIds[0]}`);
    expect(one.body).toMatchObject({ parent_id: id, parent_call_id: callId, role: 'general', depth: 1 });
    const messages = await t.json<{ data: Array<{ role: string }> }>(
      'GET',
      `/v1/sessions/${childIds[0]}/messages`,
    );
    expect(messages.body.data.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('asks for a child’s write on the parent’s stream, labelled, and the answer there lets it run', async () => {
    t.model.respond((body) => {
      if (isChild(body))
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'child.txt', content: 'from the child\n' })
          : reply().text('wrote it');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'coder' }));
      return reply().text('done');
    });
    const id = await newSession();
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'delegate a write' });
    const asked = await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
    const request = parse(asked.at(-1)!);
    expect(request).toMatchObject({
      tool: 'write_file',
      agent: { label: 'coder #1', role: 'coder', depth: 1 },
    });
    expect(request.parent).toBeUndefined();
    // The child's call shows as waiting, flat with its parent.
    const waiting = asked
      .map(parse)
      .find((e) => e.type === 'tool_update' && (e.record as { state: string }).state === 'awaiting_approval');
    expect(waiting?.parent?.label).toBe('coder #1');
    const ok = await t.json(
      'POST',
      `/v1/sessions/${id}/approvals/${request.requestId}`,
      { decision: 'once' },
      CLIENT,
    );
    expect(ok.status).toBe(200);
    await readSse(`${t.url}/v1/sessions/${id}/events?after=${asked.at(-1)!.id}`, ownDone);
    expect(readFileSync(path.join(t.work, 'child.txt'), 'utf8')).toBe('from the child\n');
  });

  it('lists a child stopped by its time limit as timeout', async () => {
    t.model.respond((body) => {
      if (isChild(body)) return reply().text('slow').hangAfter(1);
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { timeout_s: 0.3 }));
      return reply().text('it timed out');
    });
    const id = await newSession();
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'delegate' });
    await readSse(`${t.url}/v1/sessions/${id}/events`, ownDone);
    const children = await t.json<{ data: Array<{ status: string }> }>('GET', `/v1/sessions/${id}/children`);
    expect(children.body.data.map((c) => c.status)).toEqual(['timeout']);
    expect((await t.json('GET', '/v1/sessions/nope-nope/children')).status).toBe(404);
  });

  // Its own stream and stored transcript say what stopped it (not "cancelled by the user").
  it('a child stopped by its time limit says so in its own done event', async () => {
    t.model.respond((body) => {
      if (isChild(body)) return reply().text('slow').hangAfter(1);
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { timeout_s: 0.3 }));
      return reply().text('it timed out');
    });
    const id = await newSession();
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'delegate' });
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, ownDone);
    const childDone = events.map(parse).find((e) => e.type === 'done' && e.parent !== undefined)!;
    expect(childDone.message).not.toContain('Cancelled by the user');
    expect(childDone.message).toContain('time limit');
  });

  it('documents the children route in the OpenAPI document', async () => {
    const doc = await t.json<{ paths: Record<string, Record<string, unknown>> }>('GET', '/openapi.json');
    expect(doc.body.paths['/v1/sessions/{id}/children']?.get).toBeDefined();
  });
});

describe('/v1/chat/completions with sub-agents', () => {
  it('answers with the parent’s text only, and usage with the children’s and their share', async () => {
    twoChildren();
    const res = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'check both parts' }],
    });
    expect(res.choices[0]!.message.content).toBe('Both parts are fine.');
    expect(res.usage).toEqual({
      prompt_tokens: 710,
      completion_tokens: 71,
      total_tokens: 781,
      subagents: { count: 2, prompt_tokens: 600, completion_tokens: 60, total_tokens: 660, cost_usd: 0 },
    });
  });

  it('streams the parent’s text only', async () => {
    twoChildren();
    const stream = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'check both parts' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Both parts are fine.');
    expect(usage?.total_tokens).toBe(781);
  });
});
