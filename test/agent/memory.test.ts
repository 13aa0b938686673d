import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../../src/agent/index.js';
import { MemoryService } from '../../src/memory/service.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const systemOf = (i: number) => wireText(wireMessages(h.server.requests[i]!.body)[0]!);

describe('long-term memory in the loop', () => {
  it('a memory added in one session is recalled into the next session’s system layer', async () => {
    const memory = new MemoryService({ db: h.store.db });
    const agent = new Agent({
      provider: h.provider,
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
      memory,
      toolLoading: 'all',
    });
    h.server.script(
      reply().toolCall('memory', {
        action: 'add',
        content: 'The user’s favourite editor is Helix',
        category: 'preference',
      }),
      reply().text('I will remember that.'),
    );
    await collect(agent.newSession().prompt('remember that my favourite editor is Helix'));
    expect(wireText(wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!)).toMatch(
      /^Remembered: #\d+/,
    );

    h.server.script(reply().text('Helix.'));
    await collect(agent.newSession().prompt('which editor should you open files in?'));
    expect(systemOf(2)).toMatch(/💡 Preference: The user’s favourite editor is Helix/);
  });

  it('an update supersedes the old fact instead of merging it', async () => {
    const memory = new MemoryService({ db: h.store.db });
    await memory.remember({
      content: 'The user lives in Paris',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
    });
    const agent = new Agent({
      provider: h.provider,
      tools: h.tools,
      store: h.store,
      cwd: h.workspace,
      memory,
      toolLoading: 'all',
    });
    h.server.script(
      reply().toolCall('memory', { action: 'add', content: 'The user lives in Berlin', category: 'fact' }),
      reply().text('Noted.'),
    );
    await collect(agent.newSession().prompt('I moved to Berlin'));
    const result = wireText(wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!);
    expect(result).toMatch(/replaces #\d+: The user lives in Paris/);
    h.server.script(reply().text('Berlin.'));
    await collect(agent.newSession().prompt('where do I live?'));
    // The current value answers; the old one is only history, with the date it ended.
    expect(systemOf(2)).toMatch(
      /- Fact: The user lives in Berlin \(since \d{4}-\d{2}-\d{2}; earlier: "The user lives in Paris" until \d{4}-\d{2}-\d{2}\)/,
    );
    expect(systemOf(2).match(/Paris/g)).toHaveLength(1);
  });
});
