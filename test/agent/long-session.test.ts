import { encode } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent, type AgentEvent } from '../../src/agent/index.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { createHarness, type Harness, modelInfo } from '../support/harness.js';
import { bigOutputTool, needles, turnAt } from '../support/long-session.js';
import { reply } from '../support/script.js';
import { type WireMessage, wireMessages, wireText } from '../support/wire.js';

const TURNS = 500;
const WINDOW = 16_000;
const planted = needles(TURNS);

let h: Harness;
const events: AgentEvent[] = [];
let questionsFrom = 0;

/** Every tool result answers an earlier call in the same request, and every call is answered. */
function consistent(messages: WireMessage[]): boolean {
  const open = new Set<string>();
  for (const m of messages) {
    for (const c of m.tool_calls ?? []) open.add(c.id);
    if (m.role === 'tool') {
      if (!m.tool_call_id || !open.has(m.tool_call_id)) return false;
      open.delete(m.tool_call_id);
    }
  }
  return open.size === 0;
}

beforeAll(async () => {
  h = await createHarness();
  h.tools.register(bigOutputTool());
  const provider = new OpenAICompatibleProvider(
    modelInfo(h.server.openaiBaseUrl, { contextWindow: WINDOW, maxOutputTokens: 2000 }),
    { apiKey: 'sk-test' },
  );
  const agent = new Agent({
    provider,
    tools: h.tools,
    store: h.store,
    cwd: h.workspace,
    settings: { permissionMode: 'yolo' },
  });
  const session = agent.newSession();
  for (let i = 0; i < TURNS; i++) {
    const turn = turnAt(i, planted);
    h.server.script(...turn.replies);
    for await (const e of session.prompt(turn.input)) events.push(e);
  }
  questionsFrom = h.server.requests.length;
  for (const n of planted) {
    h.server.script(reply().toolCall('history_search', { query: n.key }), reply().text(`It is ${n.value}.`));
    for await (const e of session.prompt(`What is the port of ${n.key}?`)) events.push(e);
  }
}, 120_000);

afterAll(async () => {
  await h.close();
});

describe(`a ${TURNS}-turn session through the real loop`, () => {
  it('completes every turn', () => {
    const done = events.filter((e) => e.type === 'done');
    expect(done).toHaveLength(TURNS + planted.length);
    expect(done.every((e) => e.type === 'done' && e.reason === 'completed')).toBe(true);
    expect(h.server.pending()).toBe(0);
  });

  it('keeps every request inside the model window, with consistent tool pairs', () => {
    for (const r of h.server.requests) {
      const messages = wireMessages(r.body);
      expect(consistent(messages)).toBe(true);
      const tokens = encode(JSON.stringify(messages)).length;
      expect(tokens).toBeLessThanOrEqual(WINDOW);
    }
    // The naive full transcript would not have fitted: the engine really had to work.
    const transcript = h.store.messages.list(h.store.sessions.latest()!.id);
    expect(encode(JSON.stringify(transcript.map((m) => m.parts))).length).toBeGreaterThan(WINDOW * 10);
  });

  it('reports compactions with tokens before and after', () => {
    const compactions = events.filter((e) => e.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) {
      if (c.type !== 'compaction') continue;
      expect(c.tokensAfter).toBeLessThan(c.tokensBefore);
      expect(c.steps.length).toBeGreaterThan(0);
    }
  });

  it('brings every needle back: its pair in the request, or its text through history_search', () => {
    let viaContext = 0;
    let viaSearch = 0;
    planted.forEach((n, i) => {
      const ask = h.server.requests[questionsFrom + i * 2]!;
      const searched = h.server.requests[questionsFrom + i * 2 + 1]!;
      const inContext = JSON.stringify(ask.body.messages).includes(n.value);
      const result = wireMessages(searched.body).findLast((m) => m.role === 'tool');
      const found = result !== undefined && wireText(result).includes(n.value);
      if (inContext) viaContext++;
      if (found) viaSearch++;
      expect(inContext || found, `${n.key} (turn ${n.turn})`).toBe(true);
    });
    expect(viaSearch).toBe(planted.length);
    expect(viaContext).toBeGreaterThanOrEqual(0);
  });
});
