/**
 * The guard's length limits keep the first request within its budget: a prompt version
 * as long as the guard allows still leaves the system message and the core tools'
 * schemas within 1,500 tokens (test/agent/intent.test.ts holds the built-in text to it).
 */
import { encode } from 'gpt-tokenizer';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS } from '../../src/agent/prompt.js';
import { countWords, MAX_CHARS, MAX_WORDS, promptProblems } from '../../src/evolve/prompts/guard.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.close());

/** The longest text the guard takes: the built-in text, then plain rules up to a limit. */
function longest(): string {
  let text = BUILTIN_INSTRUCTIONS;
  for (let i = 1; ; i++) {
    const next = `${text}\nRule ${i}: keep edits small, explain what changed, and check the result.`;
    if (next.length > MAX_CHARS || countWords(next) > MAX_WORDS) return text;
    text = next;
  }
}

it('a version as long as the guard allows keeps the first request within 1,500 tokens', async () => {
  const text = longest();
  expect(promptProblems(text)).toEqual([]);
  expect(text.length > MAX_CHARS - 80 || countWords(text) > MAX_WORDS - 15).toBe(true);
  h.server.script(reply().text('ok'));
  const agent = h.agent({ settings: { toolLoading: 'intent', permissionMode: 'ask', instructions: text } });
  await collect(agent.newSession().prompt('hi'));
  const body = h.server.requests[0]!.body;
  const system = wireText(wireMessages(body)[0]!);
  expect(system.startsWith(text)).toBe(true);
  const tokens = encode(system).length + encode(JSON.stringify(body.tools)).length;
  expect(tokens).toBeLessThanOrEqual(1500);
});
