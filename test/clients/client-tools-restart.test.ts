/**
 * A turn that stopped for a client tool survives the server: after `tea serve` is
 * killed and started again on the same data, the client's tool result (found by its
 * call id alone on chat completions; by `previous_response_id` on the Responses API)
 * continues the same session, with one result for the call.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, listening, NO_MEMORY_JOBS, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

async function chat(
  url: string,
  body: Record<string, unknown>,
  path = '/v1/chat/completions',
): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', ...body }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describe('client tool calls across a restart of tea serve', () => {
  it('the result sent to the new process continues the stopped turn', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
    const tools = [
      { type: 'function', function: { name: 'ask_human', parameters: { type: 'object', properties: {} } } },
    ];
    const start = () => spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
    let child = start();
    try {
      model.script(reply().toolCall('ask_human', {}, { id: 'call_h1' }), reply().text('Thanks, noted.'));
      const messages: unknown[] = [{ role: 'user', content: 'Ask the human' }];
      const first = await chat(await listening(child), { messages, tools });
      const message = (first.choices as { message: Record<string, unknown> }[])[0]!.message;
      await killed(child);

      child = start();
      const url = await listening(child);
      messages.push(message, { role: 'tool', tool_call_id: 'call_h1', content: 'yes' });
      const second = await chat(url, { messages, tools });
      expect(second.session_id).toBe(first.session_id);
      expect((second.choices as { message: { content: string } }[])[0]!.message.content).toBe(
        'Thanks, noted.',
      );
      const sent = model.requests.at(-1)!.body.messages as {
        role: string;
        tool_call_id?: string;
        content?: string;
      }[];
      expect(sent.filter((m) => m.role === 'tool')).toEqual([
        { role: 'tool', tool_call_id: 'call_h1', content: 'yes' },
      ]);
      const stored = (await (
        await fetch(`${url}/v1/sessions/${String(first.session_id)}/messages`)
      ).json()) as unknown;
      expect(JSON.stringify(stored)).toContain('Thanks, noted.');
    } finally {
      await killed(child);
      ctx.cleanup();
    }
  });

  it('a function_call_output sent to the new process continues the stopped Responses turn', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
    const tools = [{ type: 'function', name: 'ask_human', parameters: { type: 'object', properties: {} } }];
    const start = () => spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
    let child = start();
    try {
      model.script(reply().toolCall('ask_human', {}, { id: 'call_r1' }), reply().text('Thanks, got it.'));
      const first = await chat(await listening(child), { input: 'Ask the human', tools }, '/v1/responses');
      expect(first.output).toMatchObject([{ type: 'function_call', call_id: 'call_r1', name: 'ask_human' }]);
      await killed(child);

      child = start();
      const url = await listening(child);
      const second = await chat(
        url,
        {
          previous_response_id: first.id,
          input: [{ type: 'function_call_output', call_id: 'call_r1', output: 'yes' }],
          tools,
        },
        '/v1/responses',
      );
      expect(second.session_id).toBe(first.session_id);
      expect(second.output).toMatchObject([{ type: 'message', content: [{ text: 'Thanks, got it.' }] }]);
      const sent = model.requests.at(-1)!.body.messages as { role: string; tool_call_id?: string }[];
      expect(sent.filter((m) => m.role === 'tool')).toEqual([
        { role: 'tool', tool_call_id: 'call_r1', content: 'yes' },
      ]);
      expect(sent.filter((m) => m.role === 'user')).toHaveLength(1);
    } finally {
      await killed(child);
      ctx.cleanup();
    }
  });
});
