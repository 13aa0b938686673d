/**
 * A turn that stops for the API client's tools is not a failed task: nothing looks back
 * on it (no evaluation, no failure lesson from the cheap model) until the client's results
 * have ended it, and then the whole turn — from its user message — is judged once.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { runTea } from '../support/cli.js';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';
import { wireMessages, wireText } from '../support/wire.js';

const tea = useTeaServe();

const weather: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};

async function evaluations(): Promise<string> {
  const env = { ...process.env, TEA_HOME: tea.home };
  const r = await runTea(['evolve', 'report'], { env, cwd: tea.work });
  return /Task evaluations: .*/.exec(r.stdout)?.[0] ?? r.stdout;
}

/** Every request the cheap model got, as text. */
const cheapRequests = () =>
  tea.model.requests
    .filter((r) => r.body.model === 'cheap-model')
    .map((r) => wireMessages(r.body).map(wireText).join('\n'));

describe('client tools and the look back on a task', () => {
  it('the paused turn is judged once, when the results have ended it, never as stopped early', async () => {
    writeFileSync(
      path.join(tea.home, 'config.yaml'),
      [
        'agent: { auto_title: false }',
        'memory: { extract: false }',
        'evolve: { drafts: false }',
        `cheap_model: { provider: openai, base_url: "${tea.model.openaiBaseUrl}", model: cheap-model }`,
      ].join('\n'),
    );
    const url = await tea.start();
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused', maxRetries: 0 });
    tea.model.script(reply().toolCall('get_weather', { city: 'Oslo' }, { id: 'call_w' }));
    const ask: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Oslo?' },
    ];
    const first = await client.chat.completions.create({ model: 'tea', messages: ask, tools: [weather] });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(await evaluations()).toMatch(/none recorded|0 succeeded, 0 failed/);

    tea.model.script(reply().text('Sunny, 18 °C.'));
    const done = await client.chat.completions.create({
      model: 'tea',
      tools: [weather],
      messages: [
        ...ask,
        first.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessageParam,
        { role: 'tool', tool_call_id: 'call_w', content: '{"sky":"sunny","celsius":18}' },
      ],
    });
    expect(done.choices[0]!.message.content).toBe('Sunny, 18 °C.');
    await vi.waitFor(async () => expect(await evaluations()).toContain('1 succeeded, 0 failed'), {
      timeout: 30_000,
    });
    expect(cheapRequests().filter((t) => t.includes('did not get right'))).toEqual([]);
    expect(cheapRequests().join('\n')).not.toContain('client_tools');
  });
});
