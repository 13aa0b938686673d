/**
 * Experience: task evaluations after each prompt, lessons from failures, skill drafts
 * from successes (src/evolve/experience/). The runtime plugs in `experienceHook`; the
 * read API below is for reports (`tea evolve report`).
 */
import type { EvaluationQuery, OutcomeCounts, Store, TaskEvaluationRow } from '../../store/index.js';
import type { EvaluationSource } from '../types.js';

export { type ExperienceHook, type ExperienceHookOptions, experienceHook } from './hook.js';

/** Evaluations, newest first (`since`: epoch ms; `limit`: default 100). */
export function listEvaluations(
  store: Store,
  q: Pick<EvaluationQuery, 'since' | 'limit'> = {},
): TaskEvaluationRow[] {
  return store.evaluations.list(q);
}

/** How many prompts succeeded, failed and were abandoned (and how many were revised) since `since`. */
export function evaluationCounts(store: Store, q: { since?: number } = {}): OutcomeCounts {
  return store.evaluations.counts(q);
}

/** The evaluations as prompt evolution and the report read them (src/evolve/types.ts). */
export function evaluationSource(store: () => Store): EvaluationSource {
  return {
    recent: async ({ since, limit }) =>
      listEvaluations(store(), { since, limit }).map(({ outcome, input, signals }) => ({
        outcome,
        input,
        signals,
      })),
    counts: async ({ since }) => {
      const { succeeded, failed, abandoned } = evaluationCounts(store(), { since });
      return { succeeded, failed, abandoned };
    },
  };
}
