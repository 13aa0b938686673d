/**
 * Client tools and response formats when Tea's model speaks the Anthropic wire: the
 * tool choice becomes Anthropic's `tool_choice`, and the response format (which
 * Anthropic lacks) an instruction in the system prompt, the answer checked as on OpenAI.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe({ wire: 'anthropic' });
const client = (): OpenAI => new OpenAI({ apiKey: 'none', baseURL: `${tea.url}/v1`, maxRetries: 0 });
const fn = {
  type: 'function' as const,
  function: { name: 'get_time', description: 'The time', parameters: { type: 'object', properties: {} } },
};

describe('client tools over the Anthropic wire', () => {
  it('tool_choice required is tool_choice any; the client tool call comes back as tool_calls', async () => {
    tea.model.script(reply().toolCall('get_time', {}, { id: 'toolu_1' }), reply().text('It is noon.'));
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Time?' },
    ];
    const first = await client().chat.completions.create({
      model: 'tea',
      messages,
      tools: [fn],
      tool_choice: 'required',
    });
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(tea.requests[0]!.tool_choice).toEqual({ type: 'any' });
    const names = (tea.requests[0]!.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain('get_time');
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: 'toolu_1', content: '12:00' });
    const named = { type: 'function' as const, function: { name: 'get_time' } };
    const second = await client().chat.completions.create({
      model: 'tea',
      messages,
      tools: [fn],
      tool_choice: named,
    });
    expect(second.choices[0]!.message.content).toBe('It is noon.');
    expect(tea.requests[1]!.tool_choice).toEqual({ type: 'tool', name: 'get_time' });
    const last = (
      tea.requests[1]!.messages as { role: string; content: { type: string; tool_use_id?: string }[] }[]
    ).at(-1)!;
    expect(last.content).toContainEqual(
      expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_1' }),
    );
  });

  it('response_format becomes a system instruction with the schema; the answer is checked', async () => {
    tea.model.script(reply().text('{"ok":true}'));
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
    const res = await client().chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Fine?' }],
      response_format: { type: 'json_schema', json_schema: { name: 'status', schema } },
    });
    expect(JSON.parse(res.choices[0]!.message.content!)).toEqual({ ok: true });
    const system = tea.requests[0]!.system as string;
    expect(system).toContain('must match this JSON schema (status)');
    expect(system).toContain(JSON.stringify(schema));
    expect(tea.requests[0]!.response_format).toBeUndefined();
  });
});
