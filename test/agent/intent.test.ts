import { existsSync, readFileSync } from 'node:fs';
import { encode } from 'gpt-tokenizer';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { AgentEvent } from '../../src/agent/index.js';
import { CORE_TOOLS } from '../../src/tools/loading.js';
import { defineTool } from '../../src/tools/types.js';
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

const offered = (i: number) =>
  (h.server.requests[i]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
const intent = () => h.agent({ settings: { toolLoading: 'intent', permissionMode: 'ask' } });

describe('intent-aware tool loading', () => {
  it('offers the core tier and a catalog; tool_search loads a tool the model then calls', async () => {
    h.server.script(
      reply().toolCall('tool_search', { query: 'current time in a timezone' }),
      reply().toolCall('current_time', { timezone: 'Asia/Tokyo' }),
      reply().text('It is late in Tokyo.'),
    );
    const session = intent().newSession();
    const events = await collect(session.prompt('hello'));

    expect(offered(0).sort()).toEqual([...CORE_TOOLS].sort());
    const system = wireText(wireMessages(h.server.requests[0]!.body)[0]!);
    expect(system).toMatch(/\nMore tools \(load with tool_search before use\): [^\n]*current_time/);
    expect(events.find((e) => e.type === 'tools_loaded')).toMatchObject({ by: 'tool_search' });
    expect(offered(1)).toContain('current_time');
    const results = wireMessages(h.server.requests[2]!.body).filter((m) => m.role === 'tool');
    expect(wireText(results[1]!)).toMatch(/Asia\/Tokyo/);
    // The loaded set survives a resume.
    h.server.script(reply().text('again'));
    await collect(intent().resumeSession(session.id).prompt('and now?'));
    expect(offered(3)).toContain('current_time');
  });

  it('pre-loads tools the user’s message mentions', async () => {
    h.server.script(reply().text('ok'));
    const events = await collect(intent().newSession().prompt('show me the git log of this repo'));
    const loaded = events.find(
      (e): e is Extract<AgentEvent, { type: 'tools_loaded' }> => e.type === 'tools_loaded',
    );
    expect(loaded?.by).toBe('keywords');
    expect(loaded?.names).toEqual(expect.arrayContaining(['git_log']));
    expect(offered(0)).toEqual(expect.arrayContaining([...CORE_TOOLS, 'git_log']));
  });

  it('keeps the first request’s system prompt and tool definitions within 1,500 tokens', async () => {
    h.server.script(reply().text('ok'));
    await collect(intent().newSession().prompt('hi'));
    const body = h.server.requests[0]!.body;
    const system = wireText(wireMessages(body)[0]!);
    const tokens = encode(system).length + encode(JSON.stringify(body.tools)).length;
    expect(tokens).toBeLessThanOrEqual(1500);
    expect(h.tools.names().length).toBeGreaterThanOrEqual(50);
  });
});

describe('interaction tools', () => {
  it('ask_user: a question event, answered by the face, reaches the model', async () => {
    h.server.script(
      reply().toolCall('ask_user', { question: 'Which port?', options: ['3000', '8080'] }),
      reply().text('Using 8080.'),
    );
    const session = intent().newSession();
    const events: AgentEvent[] = [];
    for await (const e of session.prompt('start the server')) {
      events.push(e);
      if (e.type === 'question') session.answer(e.requestId, '8080');
    }
    expect(events.find((e) => e.type === 'question')).toMatchObject({
      question: 'Which port?',
      options: ['3000', '8080'],
    });
    const result = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool');
    expect(wireText(result!)).toBe('The user answered: 8080');
  });

  it('ask_user without anyone to answer tells the model to assume and continue', async () => {
    h.server.script(
      reply().toolCall('ask_user', { question: 'Which port?' }),
      reply().text('Assuming 3000.'),
    );
    await collect(
      h
        .agent({ settings: { approvals: 'deny' } })
        .newSession()
        .prompt('start'),
    );
    const result = wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool');
    expect(wireText(result!)).toMatch(
      /^\[ERROR\] nobody can answer questions.*\nHint: make the most reasonable assumption/,
    );
  });

  it('todo_write emits a plan event, keeps the list, and todo_read returns it', async () => {
    const todos = [
      { content: 'read the code', status: 'completed' },
      { content: 'fix the bug', status: 'in_progress' },
      { content: 'run the tests', status: 'pending' },
    ];
    h.server.script(
      reply().toolCall('todo_write', { todos }),
      reply().toolCall('todo_read', {}),
      reply().text('ok'),
    );
    const session = h.agent().newSession();
    const events = await collect(session.prompt('fix it'));
    expect(events.find((e) => e.type === 'plan')).toMatchObject({
      kind: 'todo',
      items: [
        { id: '1', content: 'read the code', status: 'completed' },
        { id: '2', content: 'fix the bug', status: 'in_progress' },
        { id: '3', content: 'run the tests', status: 'pending' },
      ],
    });
    expect(h.store.state.get(session.id, 'todos')).toMatchObject({ items: expect.any(Array) });
    const read = wireMessages(h.server.requests[2]!.body).filter((m) => m.role === 'tool');
    expect(wireText(read[1]!)).toBe('[x] 1. read the code\n[~] 2. fix the bug\n[ ] 3. run the tests');
  });
});

describe('central output truncation', () => {
  it('cuts a huge output head+tail and saves the full text to a file the model can read', async () => {
    h.tools.register(
      defineTool({
        name: 'huge',
        description: 'Prints a lot of numbered lines for the test.',
        parameters: z.object({}),
        category: 'test',
        keywords: ['huge'],
        readOnly: true,
        concurrencySafe: true,
        approval: 'none',
        execute: async () => Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join('\n'),
      }),
    );
    h.server.script(reply().toolCall('huge', {}), reply().text('seen'));
    const outputRoot = `${h.workspace}/../tool-output`;
    await collect(
      h
        .agent({ settings: { maxOutputChars: 5000, toolOutputRoot: outputRoot } })
        .newSession()
        .prompt('go'),
    );
    const out = wireText(wireMessages(h.server.requests[1]!.body).find((m) => m.role === 'tool')!);
    expect(out.length).toBeLessThanOrEqual(5000);
    expect(out).toMatch(/^line 1\nline 2\n/);
    expect(out).toMatch(/line 20000\n\[full output \(\d+ chars\) saved to (.+\.txt);/);
    const file = /saved to (.+\.txt);/.exec(out)![1]!;
    expect(existsSync(file)).toBe(true);
    expect(readFileSync(file, 'utf8').split('\n')).toHaveLength(20_000);
  });
});
