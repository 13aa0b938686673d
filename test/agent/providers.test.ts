import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent, type AgentEvent } from '../../src/agent/index.js';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { createModelChain } from '../../src/llm/factory.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness, modelInfo } from '../support/harness.js';
import { reply } from '../support/script.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const chain = (names: string[]) =>
  createModelChain(
    names.map((name) => ({
      name,
      provider: 'openai' as const,
      baseUrl: h.server.openaiBaseUrl,
      apiKey: 'sk-test',
      model: `model-${name}`,
    })),
    { timeoutMs: 2000, maxRetries: 1, baseDelayMs: 5, maxDelayMs: 10, sleep: async () => {} },
  );

const only = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe('the loop over the resilience layer', () => {
  it('surfaces retry and fallback events, and the answer comes from the fallback profile', async () => {
    h.server.script(reply().error(503), reply().error(503), reply().text('from the backup').usage(7, 3));
    const agent = new Agent({
      provider: chain(['primary', 'backup']),
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
    });
    const session = agent.newSession();
    const events = await collect(session.prompt('hello'));

    expect(only(events, 'retry')).toEqual([expect.objectContaining({ attempt: 1, profile: 'primary' })]);
    expect(only(events, 'fallback')).toEqual([expect.objectContaining({ from: 'primary', to: 'backup' })]);
    expect(only(events, 'usage')[0]).toMatchObject({ model: 'model-backup' });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'from the backup' });
    expect(h.server.requests.map((r) => r.body.model)).toEqual([
      'model-primary',
      'model-primary',
      'model-backup',
    ]);
    expect(h.store.usage.bySession(session.id)).toEqual([
      expect.objectContaining({ profile: 'backup', model: 'model-backup' }),
    ]);
  });

  it('drops the partial answer of a cut stream before the retry (no duplicated text)', async () => {
    h.server.script(reply().text('Partial answer that gets cut').cutAfter(3), reply().text('Clean answer.'));
    const agent = new Agent({ provider: chain(['main']), tools: h.tools, store: h.store, cwd: h.workspace });
    const session = agent.newSession();
    const events = await collect(session.prompt('hello'));
    expect(only(events, 'retry')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ reason: 'completed', text: 'Clean answer.' });
    const assistant = h.store.messages.list(session.id).filter((m) => m.role === 'assistant');
    expect(assistant).toHaveLength(1);
    expect(assistant[0]).toMatchObject({
      status: 'complete',
      parts: [{ type: 'text', text: 'Clean answer.' }],
    });
  });
});

describe('the loop on the Anthropic wire', () => {
  it('runs a tool round trip and sends signed thinking and tool results back', async () => {
    const provider = new AnthropicProvider(
      modelInfo(h.server.anthropicBaseUrl, { provider: 'anthropic', model: 'claude-scripted' }),
      { apiKey: 'sk-ant-test' },
    );
    h.server.script(
      reply()
        .thinking('Need to check.', { signature: 'sig-123' })
        .toolCall('sleep_read', { label: 'z', ms: 1 })
        .usage(40, 9),
      reply().text('Checked.').usage(60, 4),
    );
    const agent = new Agent({ provider, tools: h.tools, store: h.store, cwd: h.workspace });
    const events = await collect(agent.newSession().prompt('check it'));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Checked.' });

    const second = h.server.requests[1]!;
    expect(second.wire).toBe('anthropic');
    expect(second.headers['x-api-key']).toBe('sk-ant-test');
    expect(typeof second.body.system).toBe('string');
    const messages = second.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]!.content).toEqual(
      expect.arrayContaining([
        { type: 'thinking', thinking: 'Need to check.', signature: 'sig-123' },
        expect.objectContaining({ type: 'tool_use', name: 'sleep_read', input: { label: 'z', ms: 1 } }),
      ]),
    );
    const toolUse = messages[1]!.content.find((b) => b.type === 'tool_use')!;
    expect(messages[2]!.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: toolUse.id,
      content: 'sleep_read z done',
    });
  });
});
