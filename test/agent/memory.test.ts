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

/** An agent on the harness with this memory service. */
const agentWith = (memory: MemoryService, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) =>
  new Agent({ provider: h.provider, tools: h.tools, store: h.store, cwd: h.workspace, memory, ...extra });

describe('long-term memory in the loop', () => {
  it('a memory added in one session is recalled into the next session’s system layer', async () => {
    const memory = new MemoryService({ db: h.store.db });
    const agent = agentWith(memory, { settings: { toolLoading: 'all' } });
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
    const agent = agentWith(memory, { settings: { toolLoading: 'all' } });
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

  it('the memory tool shows the versions of a fact and restores an old one', async () => {
    const memory = new MemoryService({ db: h.store.db });
    const paris = await memory.remember({ content: 'The user lives in Paris', category: 'fact' });
    const berlin = await memory.remember({ content: 'The user lives in Berlin', category: 'fact' });
    expect(berlin.outcome).toBe('update');
    const agent = agentWith(memory, {
      settings: { toolLoading: 'all', memoryJobs: { extract: false, tune: false } },
    });
    h.server.script(
      reply()
        .toolCall('memory', { action: 'history', id: berlin.memory.id })
        .toolCall('memory', { action: 'restore', id: paris.memory.id, replace: true })
        .toolCall('memory', { action: 'history', id: 999 }),
      reply().text('Done.'),
    );
    await collect(agent.newSession().prompt('I moved back to Paris'));
    const results = wireMessages(h.server.requests[1]!.body)
      .filter((m) => m.role === 'tool')
      .map(wireText);
    expect(results[0]).toMatch(
      new RegExp(
        `^#${berlin.memory.id} \\(since \\d{4}-\\d{2}-\\d{2}, current\\) The user lives in Berlin\n#${paris.memory.id} \\(\\d{4}-\\d{2}-\\d{2} → \\d{4}-\\d{2}-\\d{2}\\) The user lives in Paris$`,
      ),
    );
    expect(results[1]).toMatch(
      new RegExp(`^Current again as #\\d+ .*Paris \\(#${berlin.memory.id} is now an earlier version\\)$`),
    );
    expect(results[2]).toMatch(/^\[ERROR\].*no memory with id 999/);
    expect(memory.list().map((m) => m.content)).toEqual(['The user lives in Paris']);
  });

  it('the system prompt has one "## Memories" heading, the profile inside it, and 📌 only on pinned memories', async () => {
    const memory = new MemoryService({ db: h.store.db });
    memory.setProfile('Senior Go developer.');
    await memory.remember({ content: 'The build uses esbuild', category: 'fact' });
    await memory.remember({
      content: 'Deploys go through the staging cluster first',
      category: 'fact',
      pinned: true,
    });
    const agent = agentWith(memory, { settings: { memoryJobs: { extract: false, tune: false } } });
    h.server.script(reply().text('ok'));
    await collect(agent.newSession().prompt('how do we build and deploy?'));
    const system = systemOf(0);
    expect(system.match(/^## Memories$/gm)).toHaveLength(1);
    expect(system).toMatch(/## Memories\n\n### User profile\nSenior Go developer\.\n\n### Remembered\n/);
    expect(system).toContain('- Fact: The build uses esbuild');
    expect(system).toContain('- 📌 Fact: Deploys go through the staging cluster first');
    expect(system.match(/📌/g)).toHaveLength(1);
  });
});
