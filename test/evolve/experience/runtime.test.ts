/**
 * The experience job through the runtime and the scripted model server: evaluations
 * stored per prompt, a lesson from a failed task recalled for a similar task only, a
 * skill draft from a multi-step success, and the user's "that's wrong" revising the
 * previous evaluation and bringing its lesson.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { evaluationCounts, listEvaluations } from '../../../src/evolve/experience/index.js';
import type { Runtime } from '../../../src/runtime/runtime.js';
import { Store } from '../../../src/store/index.js';
import { useTempDirs } from '../../store/helpers.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import {
  allText,
  collect,
  isCheap,
  isDraftJob,
  isLessonJob,
  makeHome,
  route,
  runtimeFor,
  systemOf,
  testFile,
} from './helpers.js';

const model = useModelServer();
const tempDir = useTempDirs();
const open: Runtime[] = [];
afterEach(async () => {
  for (const rt of open.splice(0)) await rt.close();
  model().respond(undefined);
  model().reset();
});

async function setup(extra = '') {
  const h = makeHome(tempDir());
  const rt = await runtimeFor(model(), h, extra);
  open.push(rt);
  return { h, rt };
}

/** Runs one prompt in `session` and waits for its background jobs (the experience job among them). */
async function prompt(session: ReturnType<Runtime['sessions']['create']>, text: string) {
  const events = await collect(session.prompt(text));
  await session.settled();
  return events;
}

/** Reads the runtime's database through a second connection, as `tea evolve report` would. */
function withStore<T>(h: { home: string }, read: (store: Store) => T): T {
  const store = Store.open(path.join(h.home, 'tea.db'));
  try {
    return read(store);
  } finally {
    store.close();
  }
}
const evaluations = (h: { home: string }) => withStore(h, (s) => listEvaluations(s));
const counts = (h: { home: string }) => withStore(h, (s) => evaluationCounts(s));

const LESSON =
  'When a node:test suite fails on an assertion, read the failing test and the code it checks before editing, then rerun node --test.';

describe('lessons from failed tasks', () => {
  it('a failing test run the model gives up on leaves a lesson, recalled for a similar task only', async () => {
    const { h, rt } = await setup();
    testFile(h.work, false);
    route(model(), {
      main: [
        reply().toolCall('bash', { command: 'node --test sum.test.mjs' }),
        reply().text('The test still fails; I could not fix it.'),
      ],
      lesson: `{"lesson": ${JSON.stringify(LESSON)}, "tags": ["testing", "bogus"], "importance": 4}`,
    });
    const first = rt.sessions.create();
    await prompt(first, 'make the sum test pass');

    const [evaluation] = evaluations(h);
    expect(evaluation).toMatchObject({
      sessionId: first.id,
      seq: 1,
      input: 'make the sum test pass',
      outcome: 'failed',
      signals: {
        reason: 'completed',
        tests: [{ command: 'node --test sum.test.mjs', passed: false }],
        gaveUp: true,
      },
    });
    const lessonRequest = model().requests.find((r) => isLessonJob(r.body))!;
    expect(allText(lessonRequest.body)).toContain('node --test sum.test.mjs');
    expect(allText(lessonRequest.body)).toContain(
      'Why it failed: the last test run failed: node --test sum.test.mjs',
    );
    const lessons = await rt.memory.list({ category: 'lesson' });
    expect(lessons).toHaveLength(1);
    expect(lessons[0]).toMatchObject({
      id: evaluation!.lessonMemoryId,
      content: LESSON,
      category: 'lesson',
      tags: ['testing'],
      importance: 4,
      scope: `project:${h.work}`,
      sourceSessionId: first.id,
    });

    // A later session with a similar task: its first request carries the lesson.
    model().reset();
    route(model(), { main: [reply().text('Looking at the assertion first.')] });
    await prompt(rt.sessions.create(), 'the node test for sum fails on an assertion again, fix it');
    const similar = systemOf(model().requests[0]!.body);
    expect(similar).toContain('## Memories');
    expect(similar).toContain(`- ⚠ Lesson: ${LESSON}`);

    // An unrelated task: no lesson.
    model().reset();
    route(model(), { main: [reply().text('Paris.')] });
    await prompt(rt.sessions.create(), 'what is the capital of France?');
    expect(systemOf(model().requests[0]!.body)).not.toContain('Lesson');
    expect(counts(h)).toEqual({
      succeeded: 2,
      failed: 1,
      abandoned: 0,
      total: 3,
      revised: 0,
    });
  });

  it('the user\'s "that\'s wrong" revises the previous evaluation to failed and brings its lesson', async () => {
    const { h, rt } = await setup();
    route(model(), {
      main: [reply().text('Renamed the key to `timeout_ms`.'), reply().text('Sorry, I will look again.')],
      lesson:
        '{"lesson": "When renaming a config key, update every place that reads it and check the config loader, not only the YAML file.", "tags": ["architecture"]}',
    });
    const session = rt.sessions.create();
    await prompt(session, 'rename the config key timeout to timeout_ms');
    expect(model().requests.filter(isCheapRequest)).toHaveLength(0);
    expect(evaluations(h)[0]).toMatchObject({ outcome: 'succeeded' });

    await prompt(session, "that's wrong, the loader still reads timeout");
    const [second, first] = evaluations(h);
    expect(second).toMatchObject({ input: "that's wrong, the loader still reads timeout", seq: 3 });
    expect(first).toMatchObject({
      seq: 1,
      outcome: 'failed',
      signals: {
        revisedFrom: 'succeeded',
        reaction: { kind: 'negative', text: "that's wrong, the loader still reads timeout" },
      },
    });
    expect(first!.revisedAt).toBeDefined();
    expect(first!.lessonMemoryId).toBeDefined();
    const lessonRequest = model().requests.find((r) => isLessonJob(r.body))!;
    const asked = allText(lessonRequest.body);
    expect(asked).toContain('rename the config key timeout to timeout_ms');
    expect(asked).toContain("The user's next message:\nthat's wrong, the loader still reads timeout");
    expect(asked).toContain('Renamed the key to `timeout_ms`.');
    expect((await rt.memory.get(first!.lessonMemoryId!))?.category).toBe('lesson');
    expect(counts(h).revised).toBe(1);
  });

  it('thanks confirm the previous evaluation without changing it; a neutral next task leaves it alone', async () => {
    const { h, rt } = await setup();
    route(model(), { main: [reply().text('Done.'), reply().text('Glad it helped.'), reply().text('Here.')] });
    const session = rt.sessions.create();
    await prompt(session, 'add a changelog entry');
    await prompt(session, 'thanks, works now');
    await prompt(session, 'now list the files');
    const [third, second, first] = evaluations(h);
    expect(first).toMatchObject({ outcome: 'succeeded', signals: { reaction: { kind: 'positive' } } });
    expect(first!.revisedAt).toBeUndefined();
    expect(second!.signals.reaction).toBeUndefined();
    expect(third!.signals.reaction).toBeUndefined();
    expect(model().requests.filter(isCheapRequest)).toHaveLength(0);
  });

  it('evolve.lessons: false keeps the evaluation and asks no model', async () => {
    const { h, rt } = await setup('evolve: { lessons: false }');
    testFile(h.work, false);
    route(model(), {
      main: [reply().toolCall('bash', { command: 'node --test' }), reply().text('I could not fix it.')],
      lesson: '{"lesson": "should not be asked for"}',
    });
    await prompt(rt.sessions.create(), 'fix the sum test');
    expect(evaluations(h)[0]).toMatchObject({ outcome: 'failed' });
    expect(model().requests.filter(isCheapRequest)).toHaveLength(0);
    expect(await rt.memory.list({ category: 'lesson' })).toEqual([]);
  });
});

const isCheapRequest = (r: { body: Record<string, unknown> }): boolean => isCheap(r.body);

const DRAFT = JSON.stringify({
  name: 'Run Node Tests',
  description:
    'Runs a node:test suite, fixes what fails and reruns it. Use when tests written with node:test need to pass.',
  when_to_use: 'A project tests with node --test.',
  steps: ['List the steps in a todo list.', 'Run node --test.', 'Fix the failing assertion and rerun.'],
  pitfalls: ['Rerun the whole suite, not only the one file.'],
});

describe('skill drafts from succeeded tasks', () => {
  function multiStep() {
    return [
      reply().toolCall('todo_write', {
        todos: [
          { content: 'run the tests', status: 'in_progress' },
          { content: 'fix failures', status: 'pending' },
          { content: 'rerun', status: 'pending' },
        ],
      }),
      reply().toolCall('bash', { command: 'node --test' }),
      reply().text('All tests pass.'),
    ];
  }

  it('a task with a 3-item plan that succeeded leaves a valid SKILL.md in the inbox', async () => {
    const { h, rt } = await setup();
    testFile(h.work, true);
    route(model(), { main: multiStep(), draft: DRAFT });
    const session = rt.sessions.create();
    await prompt(session, 'run the node tests and make sure they pass');
    const [evaluation] = evaluations(h);
    expect(evaluation).toMatchObject({
      outcome: 'succeeded',
      signals: { planItems: 3, draft: 'run-node-tests', tests: [{ passed: true }] },
    });
    const file = path.join(h.home, 'skill-inbox', 'run-node-tests', 'SKILL.md');
    const text = readFileSync(file, 'utf8');
    const front = parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(front).toEqual({
      name: 'run-node-tests',
      description: JSON.parse(DRAFT).description,
      metadata: {
        source: 'tea-draft',
        session: session.id,
        drafted_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    expect(text).toContain('## Steps\n\n1. List the steps in a todo list.');
    // The skills inbox (tea skills inbox) reads it as a valid draft, ready to accept.
    expect(await (await rt.skills()).inbox.list()).toEqual([
      expect.objectContaining({
        name: 'run-node-tests',
        valid: true,
        problems: [],
        source: 'tea-draft',
        session: session.id,
      }),
    ]);
    const asked = allText(model().requests.find((r) => isDraftJob(r.body))!.body);
    expect(asked).toContain('run the node tests and make sure they pass');
    expect(asked).toContain('Existing skills:\n(none)');

    // The same task again: the model is shown the draft, and a repeat is not written.
    model().reset();
    route(model(), { main: multiStep(), draft: DRAFT });
    await prompt(rt.sessions.create(), 'run the node tests and make sure they pass');
    expect(allText(model().requests.find((r) => isDraftJob(r.body))!.body)).toContain(
      '- run-node-tests: Runs a node:test suite',
    );
    expect(evaluations(h)[0]!.signals).toMatchObject({
      draftSkipped: 'it repeats the skill "run-node-tests"',
    });
    expect(existsSync(path.join(h.home, 'skill-inbox', 'run-node-tests-2'))).toBe(false);
  });

  it('"that\'s wrong" after a drafted task takes the draft back out of the inbox', async () => {
    const { h, rt } = await setup();
    testFile(h.work, true);
    route(model(), { main: [...multiStep(), reply().text('Sorry.')], draft: DRAFT });
    const session = rt.sessions.create();
    await prompt(session, 'run the node tests');
    expect(existsSync(path.join(h.home, 'skill-inbox', 'run-node-tests', 'SKILL.md'))).toBe(true);
    await prompt(session, 'no, that is wrong: you ran the wrong suite');
    expect(existsSync(path.join(h.home, 'skill-inbox', 'run-node-tests'))).toBe(false);
    expect(evaluations(h)[1]).toMatchObject({ outcome: 'failed' });
  });

  it('no draft for a short task, or with evolve.drafts: false', async () => {
    const { h, rt } = await setup();
    testFile(h.work, true);
    route(model(), {
      main: [reply().toolCall('bash', { command: 'node --test' }), reply().text('Passing.')],
      draft: DRAFT,
    });
    await prompt(rt.sessions.create(), 'run the tests');
    expect(model().requests.filter(isCheapRequest)).toHaveLength(0);

    const off = await setup('evolve: { drafts: false }');
    testFile(off.h.work, true);
    model().reset();
    route(model(), { main: multiStep(), draft: DRAFT });
    await prompt(off.rt.sessions.create(), 'run the node tests and make sure they pass');
    expect(model().requests.filter(isCheapRequest)).toHaveLength(0);
    expect(existsSync(path.join(off.h.home, 'skill-inbox'))).toBe(false);
    expect(existsSync(path.join(h.home, 'skill-inbox'))).toBe(false);
  });
});
