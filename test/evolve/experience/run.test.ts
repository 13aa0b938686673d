/**
 * The experience job called directly (a real store and memory service, the scripted
 * model as the cheap model): the guards and the failure paths the runtime tests do
 * not reach.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookContext, PromptRecord } from '../../../src/agent/evolve-hooks.js';
import { experienceHook } from '../../../src/evolve/experience/hook.js';
import { type ExperienceDeps, runExperience } from '../../../src/evolve/experience/run.js';
import type { Message } from '../../../src/llm/types.js';
import { MemoryService } from '../../../src/memory/service.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { reply } from '../../support/script.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

function deps(over: Partial<ExperienceDeps> = {}): ExperienceDeps {
  const memory = new MemoryService({ db: h.store.db });
  return {
    store: h.store,
    memory: () => memory,
    home: h.workspace,
    settings: { drafts: true, lessons: true },
    ...over,
  };
}

function ctx(over: Partial<HookContext> = {}): HookContext & { usage: string[] } {
  const usage: string[] = [];
  return {
    cheap: h.provider,
    signal: new AbortController().signal,
    recordUsage: (label) => usage.push(label),
    usage,
    ...over,
  };
}

let n = 0;
function call(name: string, args: Record<string, unknown>, output: string): Message[] {
  n += 1;
  return [
    { role: 'assistant', parts: [{ type: 'tool-call', id: `k${n}`, name, args }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId: `k${n}`, name, output, isError: false }] },
  ];
}

function record(sessionId: string, over: Partial<PromptRecord> = {}): PromptRecord {
  return {
    sessionId,
    cwd: h.workspace,
    input: 'make the tests pass',
    reason: 'completed',
    text: 'I could not fix it; the tests still fail.',
    messages: [
      { role: 'user', parts: [{ type: 'text', text: 'make the tests pass' }] },
      ...call('bash', { command: 'npm test' }, 'exit code: 1\nTests  1 failed'),
    ],
    ...over,
  };
}

const LESSON =
  '{"lesson": "Before declaring npm test fixed, rerun the whole suite and read the first failure."}';

describe('runExperience', () => {
  it('skips a sub-agent session', async () => {
    const parent = h.store.sessions.create({ cwd: h.workspace });
    const child = h.store.sessions.create({
      cwd: h.workspace,
      parent: { id: parent.id, callId: 'c1', depth: 1 },
      role: 'coder',
    });
    const step = h.store.sessions.create({ cwd: h.workspace, role: 'reviewer' });
    expect(await runExperience(deps(), record(child.id), 1, ctx())).toEqual({
      skipped: "a sub-agent's session",
    });
    expect(await runExperience(deps(), record(step.id), 1, ctx())).toEqual({
      skipped: "a sub-agent's session",
    });
    expect(h.store.evaluations.list()).toEqual([]);
    expect(await runExperience(deps(), record('gone'), 1, ctx())).toEqual({ skipped: 'the session is gone' });
  });

  it('without a cheap model: the evaluation, no lesson', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const report = await runExperience(deps(), record(s.id), 1, ctx({ cheap: undefined }));
    expect(report.evaluation).toMatchObject({ outcome: 'failed' });
    expect(report.evaluation!.lessonMemoryId).toBeUndefined();
    expect(h.server.requests).toHaveLength(0);
  });

  it('a stopped job (the face is exiting) asks no model', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const stop = new AbortController();
    stop.abort();
    const report = await runExperience(deps(), record(s.id), 1, ctx({ signal: stop.signal }));
    expect(report.evaluation).toMatchObject({ outcome: 'failed' });
    expect(h.server.requests).toHaveLength(0);
  });

  it('a failed model teaches nothing: no lesson request after reason error', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const report = await runExperience(deps(), record(s.id, { reason: 'error', messages: [] }), 1, ctx());
    expect(report.evaluation).toMatchObject({ outcome: 'failed', signals: { reason: 'error' } });
    expect(h.server.requests).toHaveLength(0);
  });

  it('"nothing to learn" and a failing memory are noted in the signals', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    h.server.script(reply().text('{"lesson": null}'));
    const c = ctx();
    const none = await runExperience(deps(), record(s.id), 1, c);
    expect(none.evaluation!.signals.lessonSkipped).toBe('nothing to learn');
    expect(c.usage).toEqual(['background:lesson']);

    h.server.script(reply().text(LESSON));
    const broken = deps({
      memory: () => {
        throw new Error('memory is closed');
      },
    });
    const noted = await runExperience(broken, record(s.id), 3, ctx());
    expect(noted.evaluation!.signals.jobErrors).toEqual(['lesson: memory is closed']);
    expect(noted.evaluation!.lessonMemoryId).toBeUndefined();
  });

  it('the same lesson from two failures is one memory, linked from both', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    h.server.script(reply().text(LESSON), reply().text(LESSON));
    const d = deps();
    const a = await runExperience(d, record(s.id), 1, ctx());
    const b = await runExperience(d, record(s.id), 3, ctx());
    expect(a.evaluation!.lessonMemoryId).toBeDefined();
    expect(b.evaluation!.lessonMemoryId).toBe(a.evaluation!.lessonMemoryId);
    expect(d.memory().list({ category: 'lesson' })).toHaveLength(1);
  });

  it('no draft when the task loaded a skill and succeeded the same way', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'fill the form' }] },
      ...call('skill', { name: 'pdf-forms' }, 'body'),
      ...call('todo_write', { todos: [1, 2, 3].map((i) => ({ content: `${i}`, status: 'pending' })) }, 'ok'),
      ...call('read_file', { path: 'a.pdf' }, 'x'),
      ...call('bash', { command: 'node fill.js' }, 'exit code: 0'),
    ];
    const report = await runExperience(deps(), record(s.id, { messages, text: 'Filled.' }), 1, ctx());
    expect(report.evaluation).toMatchObject({
      outcome: 'succeeded',
      signals: { skills: ['pdf-forms'], planItems: 3 },
    });
    expect(report.draft).toBeUndefined();
    expect(h.server.requests).toHaveLength(0);
  });
});

describe('reactions', () => {
  it('revise only the evaluation of the prompt just before (not an older one whose successor was never evaluated)', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const ok = (input: string): PromptRecord =>
      record(s.id, {
        input,
        text: 'Done.',
        messages: [{ role: 'user', parts: [{ type: 'text', text: input }] }],
      });
    await runExperience(deps(), ok('rename the key'), 1, ctx({ cheap: undefined }));
    // The prompt at seq 3 ("add a test") was never evaluated; seq 5 reacts to it, not to seq 1.
    const stale = await runExperience(
      deps(),
      { ...ok("that's wrong"), previousInput: 'add a test' },
      5,
      ctx({ cheap: undefined }),
    );
    expect(stale.previous).toBeUndefined();
    expect(h.store.evaluations.at(s.id, 1)).toMatchObject({ outcome: 'succeeded' });
    const other = h.store.sessions.create({ cwd: h.workspace });
    await runExperience(
      deps(),
      { ...ok('rename the key'), sessionId: other.id },
      1,
      ctx({ cheap: undefined }),
    );
    const fresh = await runExperience(
      deps(),
      { ...ok("that's wrong"), sessionId: other.id, previousInput: 'rename the key' },
      3,
      ctx({ cheap: undefined }),
    );
    expect(fresh.previous).toMatchObject({ seq: 1, outcome: 'failed' });
  });
});

describe('experienceHook', () => {
  it('anchors each prompt at its first message and runs one job at a time per session, in order', async () => {
    const s = h.store.sessions.create({ cwd: h.workspace });
    const reports: Array<number | undefined> = [];
    const hook = experienceHook({
      store: () => h.store,
      memory: () => new MemoryService({ db: h.store.db }),
      home: h.workspace,
      settings: { drafts: false, lessons: false },
      onReport: (r) => reports.push(r.evaluation?.seq),
    });
    const stored = (texts: string[]) =>
      texts.map((text) =>
        h.store.messages.append(s.id, {
          turnId: 't',
          role: text.startsWith('Q') ? 'user' : 'assistant',
          parts: [{ type: 'text', text }],
        }),
      );
    const asMessages = (texts: string[]): Message[] =>
      texts.map((text) => ({
        role: text.startsWith('Q') ? 'user' : 'assistant',
        parts: [{ type: 'text', text }],
      }));
    stored(['Q1', 'A1']);
    const first = hook(record(s.id, { input: 'Q1', messages: asMessages(['Q1', 'A1']), text: 'A1' }), ctx());
    stored(['Q2', 'A2a', 'A2b']);
    const second = hook(
      record(s.id, {
        input: 'Q2',
        messages: asMessages(['Q2', 'A2a', 'A2b']),
        text: 'A2b',
        previousInput: 'Q1',
      }),
      ctx(),
    );
    await Promise.all([first, second]);
    expect(reports).toEqual([1, 3]);
    expect(h.store.evaluations.list().map((e) => [e.seq, e.input])).toEqual([
      [3, 'Q2'],
      [1, 'Q1'],
    ]);
  });

  it('a store that cannot be read (closing) makes the hook a no-op, never a throw', async () => {
    const hook = experienceHook({
      store: () => {
        throw new Error('the database connection is not open');
      },
      memory: () => new MemoryService({ db: h.store.db }),
      home: h.workspace,
      settings: { drafts: true, lessons: true },
    });
    await expect(hook(record('s'), ctx())).resolves.toBeUndefined();
  });
});
