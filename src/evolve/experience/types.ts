/**
 * The shapes the experience job's modules share: what the job needs (the store, memory,
 * the Tea home, the settings), what an evaluation keeps besides the signals read from
 * the messages, and what one run reports.
 */
import type { LongTermMemory } from '../../memory/api.js';
import type { Store, TaskEvaluationRow, TaskOutcome } from '../../store/index.js';
import type { DraftWrite } from './inbox.js';
import type { Reaction } from './reaction.js';
import type { TaskSignals } from './signals.js';

export interface ExperienceSettings {
  /** Draft skills into the inbox after succeeded multi-step tasks. */
  drafts: boolean;
  /** Write lesson memories after failed tasks. */
  lessons: boolean;
}

export interface ExperienceDeps {
  store: Store;
  /** Long-term memory; opened only when a lesson is stored. */
  memory: () => LongTermMemory;
  /** TEA_HOME: the skill inbox and installed skills are under it. */
  home: string;
  /** The user's home directory, where other agents keep skills (default: the OS's). */
  userHome?: string;
  settings: ExperienceSettings;
  now?: () => number;
}

/** What the evaluation keeps besides the signals read from the messages. */
export type StoredSignals = TaskSignals & {
  /** The user's reaction in the next message, and its start. */
  reaction?: { kind: Exclude<Reaction, 'neutral'>; text: string };
  /** The outcome before the reaction revised it. */
  revisedFrom?: TaskOutcome;
  /** The inbox draft written from this task. */
  draft?: string;
  /** Why no lesson was written from this failure. */
  lessonSkipped?: string;
  /** Why no draft was written from this success. */
  draftSkipped?: string;
  /** Parts of the job that failed, with their message. */
  jobErrors?: string[];
};

export interface ExperienceReport {
  evaluation?: TaskEvaluationRow;
  /** The previous prompt's evaluation, when this prompt's words changed it. */
  previous?: TaskEvaluationRow;
  /** Why nothing was done (a sub-agent's session). */
  skipped?: string;
  draft?: DraftWrite;
}
