/**
 * The experience job through the built CLI: `tea -p` runs a failing test suite and
 * gives up; before it exits it has stored the evaluation and, on the cheap model (a
 * profile on the same scripted server), a lesson memory. The next `tea -p` with a
 * similar task has the lesson in its first request's system message; an unrelated one
 * does not. `tea -p` waits for the job as it waits for every background job (up to
 * BACKGROUND_GRACE_MS), so the process exit is the signal that it is done.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { isLessonJob, systemOf, testFile } from '../evolve/experience/helpers.js';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test');
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });

const LESSON =
  'When a node:test suite fails on an assertion, read the failing test and the code it checks before editing, then rerun node --test.';

function config(): void {
  writeFileSync(
    path.join(t.ctx.home, 'config.yaml'),
    [
      `cheap_model: { provider: openai, base_url: ${t.server.openaiBaseUrl}, model: cheap-model }`,
      'memory: { extract: false }',
      'agent: { auto_title: false }',
      'sandbox: off',
    ].join('\n'),
  );
}

describe('lessons through tea -p', () => {
  it('a failed task leaves a lesson before tea exits; a similar later task gets it, an unrelated one does not', async () => {
    config();
    testFile(t.ctx.work, false);
    const main = [
      reply().toolCall('bash', { command: 'node --test sum.test.mjs' }),
      reply().text('The test still fails; I could not fix it.'),
    ];
    t.server.respond((body) => {
      if (isLessonJob(body))
        return reply().text(`{"lesson": ${JSON.stringify(LESSON)}, "tags": ["testing"]}`);
      return main.shift() ?? reply().error(500, { message: 'unexpected request' });
    });
    const first = await tea(['-p', 'make the sum test pass', '--yolo']);
    expect(first.stderr).toBe('');
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    expect(first.stdout).toContain('I could not fix it.');
    expect(t.server.requests.filter((r) => isLessonJob(r.body))).toHaveLength(1);

    const store = Store.open(path.join(t.ctx.home, 'tea.db'));
    try {
      const [evaluation] = store.evaluations.list();
      expect(evaluation).toMatchObject({ outcome: 'failed', input: 'make the sum test pass' });
      expect(evaluation!.lessonMemoryId).toBeDefined();
    } finally {
      store.close();
    }
    const listed = JSON.parse((await tea(['memory', 'list', '--json'])).stdout) as Array<{
      content: string;
      category: string;
    }>;
    expect(listed).toEqual([expect.objectContaining({ content: LESSON, category: 'lesson' })]);

    t.server.reset();
    t.server.respond(() => reply().text('Reading the assertion first.'));
    expect((await tea(['-p', 'the sum test fails on its assertion again'])).code).toBe(0);
    expect(systemOf(t.server.requests[0]!.body)).toContain(`- ⚠ Lesson: ${LESSON}`);

    t.server.reset();
    t.server.respond(() => reply().text('Paris.'));
    expect((await tea(['-p', 'what is the capital of France?'])).code).toBe(0);
    expect(systemOf(t.server.requests[0]!.body)).not.toContain('Lesson');
    t.server.respond(undefined);
  });
});
