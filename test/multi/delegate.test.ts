/**
 * Delegation through the runtime as a library user drives it: a parent session calls
 * `task` / `delegate_tasks`, children run as sessions of their own against the
 * scripted model server, and their events, asks and usage come back to the parent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';
import {
  collect,
  doneOf,
  firstUser,
  isChild,
  isFirstCall,
  subs,
  task,
  toolNames,
  toolOutput,
  useDelegation,
} from './helpers.js';

const { model, runtimeIn } = useDelegation();

describe('delegate_tasks', () => {
  it('runs 6 tasks with at most 4 children at once, and their usage counts in the parent', async () => {
    const { rt } = await runtimeIn();
    const m = model();
    m.respond((body) => {
      if (isChild(body)) {
        const n = /part (\d)/.exec(firstUser(body))?.[1];
        return reply().text(`part ${n} is fine`).usage(100, 10).holdUntil('children');
      }
      if (isFirstCall(body))
        return reply()
          .toolCall('delegate_tasks', { tasks: [1, 2, 3, 4, 5, 6].map((n) => task(n)) })
          .usage(50, 5);
      return reply().text('All six parts are fine.').usage(60, 6);
    });
    const session = rt.sessions.create();
    const events: Array<{ at: number; e: AgentEvent }> = [];
    const run = (async () => {
      for await (const e of session.prompt('delegate: check the six parts in parallel'))
        events.push({ at: Date.now(), e });
    })();
    // Four children are waiting on their model; the other two must wait for a free place.
    await m.waitForRequests(5);
    m.release('children');
    await run;
    const all = events.map((x) => x.e);

    // Running children over the stream, in the order (and at the times) their events came:
    // starts minus ends. Two children still had to wait when four were held on the model.
    let running = 0;
    let most = 0;
    for (const s of subs(all)) {
      if (s.event.type === 'turn_start') running++;
      if (s.event.type === 'done') running--;
      most = Math.max(most, running);
    }
    expect(most).toBe(4);
    // Each child called the model once, and each got a session of its own.
    const childRequests = m.requests.filter((r) => isChild(r.body));
    expect(childRequests).toHaveLength(6);

    const children = new Set(subs(all).map((s) => s.agent.sessionId));
    expect(children.size).toBe(6);
    expect(subs(all).every((s) => s.agent.label.startsWith('general #') && s.agent.depth === 1)).toBe(true);
    // Children are numbered (and queued) in the order the tasks were given.
    for (const s of subs(all)) {
      const first = rt.sessions
        .messages(s.agent.sessionId)[0]!
        .parts.map((p) => (p.type === 'text' ? p.text : ''))
        .join('');
      expect(first).toContain(`Check part ${s.agent.label.slice('general #'.length)} and report.`);
    }
    const out = toolOutput(all, 'delegate_tasks');
    for (const n of [1, 2, 3, 4, 5, 6]) expect(out).toContain(`part ${n} is fine`);
    expect(out).toContain('## Task 6: check part 6');

    const done = doneOf(all);
    expect(done.reason).toBe('completed');
    expect(done.subagents).toEqual({ count: 6, usage: { inputTokens: 600, outputTokens: 60 }, costUsd: 0 });
    expect(done.usage).toEqual({ inputTokens: 600 + 110, outputTokens: 60 + 11 });

    // Children are stored under the parent's call, and only the parent is a top-level session.
    const listed = rt.sessions.list();
    expect(listed.map((s) => s.id)).toEqual([session.id]);
  });

  it('refuses more tasks than one call may hold, with a hint', async () => {
    const { rt } = await runtimeIn('subagents: { max_tasks_per_call: 2 }');
    model().script(
      reply().toolCall('delegate_tasks', { tasks: [task(1), task(2), task(3)] }),
      reply().text('ok'),
    );
    const all = await collect(rt.sessions.create().prompt('delegate these'));
    const out = toolOutput(all, 'delegate_tasks');
    expect(out).toContain('[ERROR] 3 tasks in one call; at most 2 (subagents.max_tasks_per_call)');
    expect(out).toContain('split them into calls of at most 2 tasks');
    expect(subs(all)).toHaveLength(0);
  });
  it.each([
    ['the same task twice', [task(1), task(2), task(1)], '[ERROR] tasks 1 and 3 are the same task'],
    [
      'two writers on one file',
      [task(1, { files: ['a.ts'] }), task(2, { files: ['a.ts'], role: 'coder' })],
      '[ERROR] tasks 1 and 2 may both change a.ts at the same time',
    ],
  ])('refuses a batch with %s before any child starts', async (_name, tasks, error) => {
    const { rt, work } = await runtimeIn();
    writeFileSync(path.join(work, 'a.ts'), 'export {};\n');
    model().script(reply().toolCall('delegate_tasks', { tasks }), reply().text('ok'));
    const all = await collect(rt.sessions.create().prompt('delegate these'));
    expect(toolOutput(all, 'delegate_tasks')).toContain(error);
    expect(subs(all)).toHaveLength(0);
  });

  it('lets a read-only role look at a file another task changes', async () => {
    const { rt, work } = await runtimeIn();
    writeFileSync(path.join(work, 'a.ts'), 'export {};\n');
    model().respond((body) => {
      if (isChild(body)) return reply().text('ok');
      if (isFirstCall(body))
        return reply().toolCall('delegate_tasks', {
          tasks: [
            task(1, { files: ['a.ts'], role: 'coder' }),
            task(2, { files: ['a.ts'], role: 'reviewer' }),
          ],
        });
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('delegate these'));
    expect(toolOutput(all, 'delegate_tasks')).not.toContain('[ERROR]');
    expect(new Set(subs(all).map((s) => s.agent.label))).toEqual(new Set(['coder #1', 'reviewer #1']));
  });
});

describe('task', () => {
  it('stops a child that loops at its token budget and says so', async () => {
    const { rt, work } = await runtimeIn();
    writeFileSync(path.join(work, 'a.txt'), 'a');
    let n = 0;
    model().respond((body) => {
      if (isChild(body)) {
        n++;
        return reply()
          .toolCall('glob', { pattern: `*${n}*` })
          .usage(1000, 100);
      }
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { max_tokens: 2500 }));
      return reply().text('The child ran out of budget.');
    });
    const all = await collect(rt.sessions.create().prompt('delegate part 1'));
    expect(n).toBe(3); // 1100, 2200, 3300 tokens: the fourth call is not made
    const out = toolOutput(all, 'task');
    expect(out).toContain('stopped by its budget: a partial result');
    expect(out).toContain('the budget of 2500 tokens is used up (3300 tokens so far)');
    const childDone = subs(all).find((s) => s.event.type === 'done')!.event as Extract<
      AgentEvent,
      { type: 'done' }
    >;
    expect(childDone.reason).toBe('budget');
  });

  it("routes a child's write approval to the parent's face and waits for the answer", async () => {
    const { rt, work } = await runtimeIn('permissions: { mode: ask }');
    model().respond((body) => {
      if (isChild(body))
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'out.txt', content: 'from the child\n' })
          : reply().text('wrote out.txt');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'general' }));
      return reply().text('done');
    });
    const session = rt.sessions.create();
    const all: AgentEvent[] = [];
    for await (const e of session.prompt('delegate a write')) {
      all.push(e);
      if (e.type === 'approval_request') {
        expect(e.agent?.label).toBe('general #1');
        expect(e.tool).toBe('write_file');
        // Nothing is written while the user has not answered.
        expect(() => readFileSync(path.join(work, 'out.txt'))).toThrow();
        expect(session.approve(e.requestId, 'once')).toBe(true);
      }
    }
    expect(all.some((e) => e.type === 'approval_request')).toBe(true);
    expect(readFileSync(path.join(work, 'out.txt'), 'utf8')).toBe('from the child\n');
    expect(toolOutput(all, 'task')).toContain('wrote out.txt');
  });

  it('gives a child at most its parent’s mode: in read-only a write is refused', async () => {
    const { rt, work } = await runtimeIn('permissions: { mode: read-only }');
    model().respond((body) => {
      if (isChild(body))
        return isFirstCall(body)
          ? reply().toolCall('write_file', { path: 'out.txt', content: 'x' })
          : reply().text('could not write');
      if (isFirstCall(body)) return reply().toolCall('task', task(1));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('delegate a write'));
    expect(all.some((e) => e.type === 'approval_request')).toBe(false);
    const childWrite = subs(all)
      .map((s) => s.event)
      .filter((e) => e.type === 'tool_update' && e.record.name === 'write_file')
      .at(-1) as Extract<AgentEvent, { type: 'tool_update' }>;
    expect(childWrite.record.state).toBe('denied');
    expect(() => readFileSync(path.join(work, 'out.txt'))).toThrow();
  });

  it('offers a child no delegation tools at the depth cap, and the child is told it is a sub-agent', async () => {
    const { rt } = await runtimeIn('tools: { loading: all }');
    model().respond((body) => {
      if (isChild(body)) return reply().text('child answer');
      if (isFirstCall(body)) return reply().toolCall('task', task(1));
      return reply().text('done');
    });
    await collect(rt.sessions.create().prompt('delegate'));
    const parent = model().requests.find((r) => !isChild(r.body))!;
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(toolNames(parent.body)).toEqual(expect.arrayContaining(['task', 'delegate_tasks']));
    expect(toolNames(child.body)).not.toContain('task');
    expect(toolNames(child.body)).not.toContain('delegate_tasks');
    expect(toolNames(child.body)).toContain('read_file');
  });

  it('attaches named files to an isolated task and refuses a file outside the workspace', async () => {
    const { rt, work } = await runtimeIn();
    writeFileSync(path.join(work, 'notes.md'), 'the secret word is teapot\n');
    model().respond((body) => {
      if (isChild(body)) return reply().text('read it');
      const results = wireMessages(body).filter((m) => m.role === 'tool').length;
      if (results === 0) return reply().toolCall('task', task(1, { files: ['notes.md'] }));
      if (results === 1) return reply().toolCall('task', task(2, { files: ['../../etc/passwd'] }));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('delegate with files'));
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(firstUser(child.body)).toContain('## Your task\nCheck part 1 and report.');
    expect(firstUser(child.body)).toContain('### notes.md\n```\nthe secret word is teapot');
    const outs = all
      .filter((e): e is Extract<AgentEvent, { type: 'tool_update' }> => e.type === 'tool_update')
      .filter((e) => e.record.name === 'task' && e.record.finishedAt !== undefined)
      .map((e) => e.record.content.map((c) => (c.type === 'text' ? c.text : '')).join(''));
    expect(outs[1]).toMatch(/^\[ERROR\] Path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/);
    expect(model().requests.filter((r) => isChild(r.body))).toHaveLength(1);
  });

  it('gives a forked task a digest of the conversation so far', async () => {
    const { rt } = await runtimeIn();
    model().respond((body) => {
      if (isChild(body)) return reply().text('forked answer');
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { context: 'fork' }));
      return reply().text('done');
    });
    await collect(rt.sessions.create().prompt('Our codename is BLUE HERON. Delegate part 1.'));
    const child = model().requests.find((r) => isChild(r.body))!;
    const text = firstUser(child.body);
    expect(text).toContain('## The conversation so far');
    expect(text).toContain('User: Our codename is BLUE HERON. Delegate part 1.');
    expect(text).toContain('Assistant called task');
  });

  it('stops a child at its time limit and returns what it has', async () => {
    const { rt } = await runtimeIn();
    model().respond((body) => {
      if (isChild(body)) return reply().text('partial thoughts').hangAfter(1);
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { timeout_s: 0.3 }));
      return reply().text('done');
    });
    const all = await collect(rt.sessions.create().prompt('delegate'));
    const out = toolOutput(all, 'task');
    expect(out).toContain('stopped by its time limit: a partial result');
    expect(out).toContain('ran past its time limit of 300 ms');
  });

  it('names the roles there are when a task asks for an unknown one', async () => {
    const { rt } = await runtimeIn();
    model().script(reply().toolCall('task', task(1, { role: 'wizard' })), reply().text('ok'));
    const all = await collect(rt.sessions.create().prompt('delegate'));
    expect(toolOutput(all, 'task')).toMatch(
      /^\[ERROR\] no sub-agent role named "wizard"\nHint: use one of: general/,
    );
  });

  it('cancels running children with the parent, and keeps what each stored', async () => {
    const { rt } = await runtimeIn();
    model().respond((body) => {
      if (isChild(body)) return reply().text('half an answer').chunkSize(100).hangAfter(2);
      return reply().toolCall('delegate_tasks', { tasks: [task(1), task(2)] });
    });
    const session = rt.sessions.create();
    const stop = new AbortController();
    const all: AgentEvent[] = [];
    for await (const e of session.prompt('delegate two', { signal: stop.signal })) {
      all.push(e);
      // Both children have streamed their first words: the user cancels.
      if (subs(all).filter((s) => s.event.type === 'text_delta').length === 2) stop.abort();
    }
    expect(doneOf(all).reason).toBe('cancelled');
    const childDone = subs(all).filter((s) => s.event.type === 'done');
    expect(childDone.map((s) => (s.event as Extract<AgentEvent, { type: 'done' }>).reason)).toEqual([
      'cancelled',
      'cancelled',
    ]);
    const call = all.filter((e) => e.type === 'tool_update' && e.record.name === 'delegate_tasks').at(-1);
    expect(call?.type === 'tool_update' && call.record.state).toBe('cancelled');
    // Each child's partial answer is in its stored transcript.
    for (const s of childDone) {
      const texts = rt.sessions
        .messages(s.agent.sessionId)
        .flatMap((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')));
      expect(texts).toContain('half an answer');
    }
  });

  it('lets a child delegate once more with max_depth 2, and nests the grandchild’s events', async () => {
    const { rt } = await runtimeIn('subagents: { max_depth: 2 }\ntools: { loading: all }');
    const depth = (body: Record<string, unknown>) =>
      /You are a sub-agent \(depth (\d)\)/.exec(JSON.stringify(body.messages))?.[1];
    model().respond((body) => {
      if (depth(body) === '2') return reply().text('grandchild answer').usage(10, 1);
      if (depth(body) === '1')
        return isFirstCall(body)
          ? reply().toolCall('task', task(2)).usage(20, 2)
          : reply().text('child answer').usage(20, 2);
      if (isFirstCall(body)) return reply().toolCall('task', task(1)).usage(30, 3);
      return reply().text('done').usage(30, 3);
    });
    const all = await collect(rt.sessions.create().prompt('delegate deeply'));
    const child = model().requests.find((r) => depth(r.body) === '1')!;
    const grandchild = model().requests.find((r) => depth(r.body) === '2')!;
    expect(toolNames(child.body)).toContain('task');
    expect(toolNames(grandchild.body)).not.toContain('task');
    const nested = subs(all).filter((s) => s.event.type === 'subagent');
    expect(nested.length).toBeGreaterThan(0);
    const inner = nested[0]!.event as Extract<AgentEvent, { type: 'subagent' }>;
    expect(inner.agent.depth).toBe(2);
    expect(toolOutput(all, 'task')).toContain('child answer');
    // The grandchild's usage is in its parent's, which is in the top session's.
    expect(doneOf(all).subagents).toEqual({
      count: 1,
      usage: { inputTokens: 50, outputTokens: 5 },
      costUsd: 0,
    });
    expect(doneOf(all).usage).toEqual({ inputTokens: 110, outputTokens: 11 });
  });
});
