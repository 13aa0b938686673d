/**
 * The HTTP faces with prompts a rule answers: chat completions answer with the tool's
 * output (no request reaches the model), the session API streams the tool call, and
 * refusals before any model call are 4xx with OpenAI-style bodies.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { loadConfig } from '../../src/config/load.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { runtimeDeps } from '../../src/server/agents.js';
import { startServer } from '../../src/server/server.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let client: OpenAI;

beforeAll(async () => {
  t = await startTestServer({ mode: 'yolo' });
  client = new OpenAI({ apiKey: 'unused', baseURL: `${t.url}/v1`, maxRetries: 0 });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

const parse = (e: SseEvent) => JSON.parse(e.data) as AgentEvent;

describe('chat completions', () => {
  it('answer a rule with the tool output and no model request', async () => {
    const res = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: '!echo via-http' }],
    });
    expect(res.choices[0]!.message.content).toMatch(/via-http/);
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(t.model.requests).toHaveLength(0);
    const sessionId = (res as unknown as { session_id: string }).session_id;
    expect(t.store.messages.list(sessionId).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('stream the tool output as the content', async () => {
    const stream = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: '/time UTC' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toMatch(/UTC|\+00:00/);
    expect(t.model.requests).toHaveLength(0);
  });

  it('a rule used wrongly is a 400 naming the usage', async () => {
    const res = await t.json<{ error: Record<string, unknown> }>('POST', '/v1/chat/completions', {
      model: 'tea',
      messages: [{ role: 'user', content: '/read' }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({
      message: '/read takes one argument, got 0. Usage: /read <path>',
      type: 'invalid_request_error',
      param: null,
      code: 'rule_usage',
    });
  });
});

describe('the session API', () => {
  it('streams the rule as a tool call, and the next turn shows it to the model', async () => {
    const created = await t.json<{ id: string }>('POST', '/v1/sessions', {});
    const id = created.body.id;
    expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: '!echo session-rule' })).status).toBe(
      202,
    );
    const events = (await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done')).map(parse);
    const updates = events.flatMap((e) => (e.type === 'tool_update' ? [e.record] : []));
    expect(updates.map((r) => r.state)).toEqual(['pending', 'running', 'completed']);
    expect(updates[0]).toMatchObject({ name: 'bash', args: { command: 'echo session-rule' } });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    expect(t.model.requests).toHaveLength(0);

    t.model.script(reply().text('seen'));
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'and now?' });
    await readSse(`${t.url}/v1/sessions/${id}/events?after=${events.length}`, (e) => e.event === 'done');
    const sent = wireMessages(t.model.requests[0]!.body);
    expect(sent.some((m) => m.tool_calls?.[0]?.function.name === 'bash')).toBe(true);
    expect(sent.some((m) => m.role === 'tool' && JSON.stringify(m.content).includes('session-rule'))).toBe(
      true,
    );
  });
});

describe('with no model configured', () => {
  it('runs rules, and any other prompt is a 503 saying how to configure one', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'tea-server-nomodel-'));
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(path.join(work, '.git'), { recursive: true });
    const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
    const rt = await createRuntime({ config, cwd: work, permissionMode: 'yolo' });
    const server = await startServer(
      { ...runtimeDeps(rt), version: '0.0.0-test' },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const post = (content: string) =>
        fetch(`${server.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'tea', messages: [{ role: 'user', content }] }),
        });
      const ran = await post('!echo no-model-http');
      expect(ran.status).toBe(200);
      const answer = (await ran.json()) as { choices: Array<{ message: { content: string } }> };
      expect(answer.choices[0]!.message.content).toMatch(/no-model-http/);
      const other = await post('hello');
      expect(other.status).toBe(503);
      const body = (await other.json()) as { error: { code: string; message: string; type: string } };
      expect(body.error).toMatchObject({ code: 'no_model', type: 'server_error' });
      expect(body.error.message).toMatch(/No model is configured[\s\S]*OPENAI_API_KEY[\s\S]*!<command>/);
    } finally {
      await server.close();
      await rt.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
