/**
 * Shapes the evolve layer's parts share with the task evaluations (issue 16's
 * "experience"): the runtime wires a source of them in; until then it passes none.
 */

export type TaskOutcome = 'succeeded' | 'failed' | 'abandoned';

/** One evaluated task, as prompt evolution reads it. */
export interface TaskEvaluationInput {
  outcome: TaskOutcome;
  /** The user's words that started the task. */
  input: string;
  /** What the outcome was judged from (tests run and their result, errors, the user's reaction…). */
  signals: Readonly<Record<string, unknown>>;
}

/** How many tasks ended each way in a window (an outcome never seen may be left out). */
export type EvaluationCounts = Partial<Record<TaskOutcome, number>>;

/** Where evaluations come from: the newest first, at most `limit`, since `since` (epoch ms). */
export interface EvaluationSource {
  recent(opts: { since: number; limit: number }): Promise<readonly TaskEvaluationInput[]>;
  counts(opts: { since: number }): Promise<EvaluationCounts>;
}
