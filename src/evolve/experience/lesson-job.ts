/**
 * Writing the lesson of a failed task: the cheap model words it (lesson.ts), memory's
 * ingest stores it in the project's scope as category `lesson` (a lesson said twice is
 * a duplicate there, and the stored one is linked), and the evaluation links the memory.
 */
import type { HookContext } from '../../agent/evolve-hooks.js';
import { memoryScopes } from '../../agent/memory-jobs.js';
import type { TaskEvaluationRow } from '../../store/index.js';
import { type FailedTask, writeLesson } from './lesson.js';
import type { ExperienceDeps } from './types.js';

/** Writes and links the lesson of `row`'s task; returns the memory id (undefined: nothing to learn). */
export async function lessonFor(
  deps: ExperienceDeps,
  ctx: HookContext,
  row: TaskEvaluationRow,
  o: { cwd: string; task: FailedTask },
): Promise<number | undefined> {
  const cheap = ctx.cheap;
  if (!cheap) return undefined;
  const { lesson, usage } = await writeLesson(cheap, o.task, ctx.signal);
  ctx.recordUsage('background:lesson', cheap.info, usage);
  const { store } = deps;
  if (!lesson) {
    const current = store.evaluations.get(row.id);
    if (current)
      store.evaluations.setSignals(row.id, { ...current.signals, lessonSkipped: 'nothing to learn' });
    return undefined;
  }
  const [stored] = await deps.memory().ingest(
    [
      {
        content: lesson.content,
        category: 'lesson',
        importance: lesson.importance,
        tags: lesson.tags,
        about: 'project',
      },
    ],
    {
      scope: 'user',
      projectScope: memoryScopes(o.cwd)[0] ?? `project:${o.cwd}`,
      sessionId: row.sessionId,
      signal: ctx.signal,
    },
  );
  if (!stored) return undefined;
  store.evaluations.setLesson(row.id, stored.memory.id);
  return stored.memory.id;
}
