import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { thresholdsFor } from '../../src/agent/context.js';
import { Agent } from '../../src/agent/index.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness, modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
let cheap: ModelServer;
beforeEach(async () => {
  h = await createHarness();
  cheap = await startModelServer();
});
afterEach(async () => {
  await cheap.close();
  await h.close();
});

const cheapProvider = () =>
  new OpenAICompatibleProvider(modelInfo(cheap.openaiBaseUrl, { profile: 'cheap_model', model: 'cheap' }), {
    apiKey: 'sk-cheap',
  });

describe('background jobs on the cheap model', () => {
  it('names the session after its first turn and counts the tokens', async () => {
    cheap.script(reply().text('Fixing the parser').usage(30, 4));
    h.server.script(reply().text('Done.'));
    const agent = new Agent({
      provider: h.provider,
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
      cheapProvider: cheapProvider(),
    });
    const session = agent.newSession();
    await collect(session.prompt('please fix the parser bug in src/parse.ts'));
    await session.settled();
    expect(h.store.sessions.get(session.id)?.title).toBe('Fixing the parser');
    expect(h.store.usage.bySession(session.id).map((u) => [u.turnId, u.model])).toContainEqual([
      'background:title',
      'cheap',
    ]);
  });

  it('summarizes overflowing L2 pairs (and their tool calls) and sends the summary as L3', async () => {
    const agent = new Agent({
      provider: h.provider,
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
      cheapProvider: cheapProvider(),
      settings: { titles: false },
    });
    const session = agent.newSession();
    for (let i = 0; i < 50; i++) {
      if (i === 3)
        h.server.script(
          reply().toolCall('sleep_read', { label: `t${i}`, ms: 1 }),
          reply().text(`answer ${i}`),
        );
      else h.server.script(reply().text(`answer ${i}`));
      if (i === 49)
        cheap.script(
          reply().text('SUMMARY-TEXT').usage(900, 60),
          reply().text('SUMMARY-TEXT').usage(200, 30),
        );
      await collect(session.prompt(`question number ${i}`));
    }
    await session.settled();
    // The cheap model saw the 30 oldest pairs (and the tool call of turn 3).
    const prompts = cheap.requests.map((r) => JSON.stringify(r.body.messages));
    expect(prompts.some((p) => p.includes('question number 0') && p.includes('question number 29'))).toBe(
      true,
    );
    expect(prompts.some((p) => p.includes('question number 30'))).toBe(false);
    expect(prompts.some((p) => p.includes('sleep_read'))).toBe(true);
    expect(h.store.state.get(session.id, 'summaries')).toEqual({
      semantic: 'SUMMARY-TEXT',
      toolChain: 'SUMMARY-TEXT',
    });
    expect(h.store.state.get<unknown[]>(session.id, 'l2_pairs')).toHaveLength(20);
    const usage = h.store.usage.bySession(session.id).filter((u) => u.turnId.startsWith('background:'));
    expect(usage.map((u) => u.inputTokens).sort()).toEqual([200, 900]);

    h.server.script(reply().text('ok'));
    const next = await collect(session.prompt('what did we do so far?'));
    const landed = next.find((e) => e.type === 'compaction');
    expect(landed).toMatchObject({ steps: ['summarize-history'] });
    if (landed?.type === 'compaction') expect(landed.tokensAfter).toBeLessThan(landed.tokensBefore);
    const sent = wireMessages(h.server.requests.at(-1)!.body);
    const memory = sent.find((m) => m.role === 'user' && wireText(m).includes('SUMMARY-TEXT'));
    expect(wireText(memory!)).toMatch(/summar/i);
  });
});

describe('small-window protection', () => {
  it('uses Nephele’s thresholds for small windows, 80% for big ones, and a profile’s own when set', () => {
    expect(thresholdsFor({ contextWindow: 8192 })).toEqual({ compressAt: 0.6, briefAt: 0.7, finalAt: 0.87 });
    expect(thresholdsFor({ contextWindow: 128_000 })).toEqual({
      compressAt: 0.8,
      briefAt: 0.9,
      finalAt: 0.95,
    });
    expect(thresholdsFor({ contextWindow: 8192, contextThresholds: { compressAt: 0.5 } })).toEqual({
      compressAt: 0.5,
      briefAt: 0.7,
      finalAt: 0.87,
    });
  });

  const big = (tokens: number) => 'All rules below matter. '.repeat(Math.ceil((tokens * 4.5) / 24));

  it('asks for brevity near the limit, and after 3 compactions that do not fit, stops offering tools', async () => {
    const provider = new OpenAICompatibleProvider(
      modelInfo(h.server.openaiBaseUrl, { contextWindow: 8000, maxOutputTokens: 1000 }),
      { apiKey: 'sk-test' },
    );
    h.server.script(
      reply().toolCall('sleep_read', { label: 'a', ms: 1 }),
      reply().toolCall('sleep_read', { label: 'b', ms: 1 }),
      reply().text('Here is where things stand.'),
    );
    const agent = new Agent({
      provider,
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
      settings: { systemPrompt: big(6000), permissionMode: 'yolo' },
    });
    const events = await collect(agent.newSession().prompt('go'));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    const [first, , third] = h.server.requests;
    const lastText = (b: Record<string, unknown>) => wireText(wireMessages(b).at(-1)!);
    expect(lastText(first!.body)).toMatch(/close to the model’s context limit: answer briefly/);
    expect((first!.body.tools as unknown[]).length).toBeGreaterThan(0);
    expect(lastText(third!.body)).toMatch(/context window is full\. Do not call tools/);
    expect(third!.body.tools).toBeUndefined();
  });
});
