import type Database from 'better-sqlite3';
import type { BackupInfo, BackupPolicy } from './backup.js';
import { type Clock, monotonicClock } from './clock.js';
import { corruptionMessage, corruptionReason, isCorruption } from './corrupt.js';
import { openDatabase } from './db.js';
import { StoreError } from './errors.js';
import { EvolveStateRepo } from './evolve-state.js';
import { JournalRepo } from './journal.js';
import { closeDatabase, takeBackupIfDue } from './later.js';
import { LeaseRepo } from './leases.js';
import { MessageRepo } from './messages.js';
import type { Migration } from './migrations.js';
import { PromptVersionRepo } from './prompt-versions.js';
import { recoverDeadRunners, recoverSession } from './recovery.js';
import { SessionRepo } from './sessions.js';
import { SessionStateRepo } from './state.js';
import { TaskEvaluationRepo } from './task-evaluations.js';
import { ToolCallRepo } from './tool-calls.js';
import { UsageRepo } from './usage.js';
import { WorkflowRepo } from './workflows.js';

export {
  BACKUP_EVERY_MS,
  type BackupInfo,
  type BackupPolicy,
  backupDir,
  listBackups,
  makeBackup,
  pickBackup,
  quickCheck,
  type Restored,
  restoreBackup,
} from './backup.js';
export { type BackgroundCheckpoints, checkpointInBackground } from './checkpointer.js';
export type { Clock } from './clock.js';
export { corruptionMessage, type Damage, isCorruption, recoveryLines } from './corrupt.js';
export { BUSY_TIMEOUT_MS, damageReport, openDatabase } from './db.js';
export { StoreError, type StoreErrorCode } from './errors.js';
export type { EvolveStateRepo } from './evolve-state.js';
export type { JournalFileRow, JournalRepo, JournalRoundRow, NewRound, RoundState } from './journal.js';
export { closeDatabase, LEAVE_LOG_BYTES, takeBackupIfDue } from './later.js';
export type { AcquireResult, Lease, LeaseOwner, LeaseRepo } from './leases.js';
export { thisProcess } from './leases.js';
export type { MessagePatch, MessageRepo, MessageStatus, NewMessage, StoredMessage } from './messages.js';
export { type MigrationResult, migrate, schemaVersion } from './migrate.js';
export { type Migration, migrations } from './migrations.js';
export { defaultDbPath } from './paths.js';
export {
  type NewPromptVersion,
  PROMPT_SOURCES,
  type PromptSource,
  type PromptStatus,
  type PromptVersionRepo,
  type PromptVersionRow,
} from './prompt-versions.js';
export { INTERRUPTED_OUTPUT } from './recovery.js';
export type {
  CreateSessionInput,
  ListSessionsOptions,
  SessionPatch,
  SessionRepo,
  SessionRow,
} from './sessions.js';
export { MIN_PREFIX_LENGTH } from './sessions.js';
export type { SessionStateRepo } from './state.js';
export {
  EVALUATION_INPUT_MAX,
  type EvaluationQuery,
  type NewTaskEvaluation,
  type OutcomeCounts,
  type SignalsJson,
  TASK_OUTCOMES,
  TaskEvaluationRepo,
  type TaskEvaluationRow,
  type TaskOutcome,
} from './task-evaluations.js';
export type { StartToolCall, ToolCallRepo, ToolCallResult, ToolCallRow } from './tool-calls.js';
export {
  contentImages,
  contentText,
  isFinished,
  TOOL_CALL_STATES,
  type ToolCallKind,
  type ToolCallOutcome,
  type ToolCallRecord,
  type ToolCallState,
  type ToolContent,
  toolContent,
} from './tool-record.js';
export {
  type SpanAttributeValue,
  type SpanRow,
  type TraceRunSummary,
  TraceSpanRepo,
} from './trace-spans.js';
export type { UsageRepo, UsageRow, UsageTotals } from './usage.js';
export type { CheckpointEvent, CheckpointRow, NewCheckpoint } from './workflow-checkpoints.js';
export type { NewRun, RunAcquire, RunPatch, RunRow, RunStatus, WorkflowRepo } from './workflows.js';

export interface StoreOptions {
  /** Time source in epoch ms (default `Date.now`); the store keeps it strictly increasing. */
  now?: Clock;
  /** Replaces the built-in migration list (tests only). */
  migrations?: readonly Migration[];
  /**
   * Back an existing file up when a backup is due (see `backupDue`; the runtime does):
   * at `close` or `backupIfDue`, or at open before a pending migration.
   */
  backup?: BackupPolicy;
}

/**
 * The durable record of sessions: one SQLite database with a repository per table
 * family. Every write is committed before its method returns.
 */
export class Store {
  readonly db: Database.Database;
  readonly sessions: SessionRepo;
  readonly messages: MessageRepo;
  readonly toolCalls: ToolCallRepo;
  readonly usage: UsageRepo;
  readonly state: SessionStateRepo;
  readonly leases: LeaseRepo;
  /** Workflow runs and their checkpoints (statements prepared on first use). */
  get workflows(): WorkflowRepo {
    this.workflowRepo ??= new WorkflowRepo(this.db, this.now);
    return this.workflowRepo;
  }
  private workflowRepo: WorkflowRepo | undefined;
  /** Versions of the default system prompt's instructions (statements prepared on first use). */
  get prompts(): PromptVersionRepo {
    this.promptRepo ??= new PromptVersionRepo(this.db, this.now);
    return this.promptRepo;
  }
  private promptRepo: PromptVersionRepo | undefined;
  /** The evolve layer's small state by key (opened on first use). */
  get evolveState(): EvolveStateRepo {
    this.evolveRepo ??= new EvolveStateRepo(this.db, this.now);
    return this.evolveRepo;
  }
  private evolveRepo: EvolveStateRepo | undefined;
  /** Task evaluations, the evolve layer's verdicts on prompts (statements prepared on first use). */
  get evaluations(): TaskEvaluationRepo {
    this.evaluationRepo ??= new TaskEvaluationRepo(this.db, this.now);
    return this.evaluationRepo;
  }
  private evaluationRepo: TaskEvaluationRepo | undefined;
  /** The operation journal's rounds and files (statements prepared on first use). */
  get journal(): JournalRepo {
    this.journalRepo ??= new JournalRepo(this.db, this.now);
    return this.journalRepo;
  }
  private journalRepo: JournalRepo | undefined;

  private constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.db = db;
    this.sessions = new SessionRepo(db, now);
    this.messages = new MessageRepo(db, now);
    this.toolCalls = new ToolCallRepo(db, now);
    this.usage = new UsageRepo(db, now);
    this.state = new SessionStateRepo(db, now);
    this.leases = new LeaseRepo(db, now);
  }

  /**
   * Opens (creating and migrating if needed) the database at `path`; `':memory:'` for a
   * throwaway one. Sessions whose runner died mid-turn are recovered on the way (see `recover`).
   */
  static open(path: string, options: StoreOptions = {}): Store {
    const db = openDatabase(path, {
      ...(options.migrations === undefined ? {} : { migrations: options.migrations }),
      ...(options.backup === undefined ? {} : { backup: options.backup }),
    });
    try {
      const store = new Store(db, monotonicClock(options.now));
      recoverDeadRunners(store);
      return store;
    } catch (err) {
      db.close();
      if (isCorruption(err)) {
        throw new StoreError(corruptionMessage(db.name, corruptionReason(err)), 'damaged', { cause: err });
      }
      throw err;
    }
  }

  /**
   * Answers the tool calls a dead runner left unfinished in the session: `running`
   * rows become `interrupted`, and unanswered calls get an error result in the
   * transcript. Only for a caller that holds the session's lease. Returns how many.
   */
  recover(sessionId: string): number {
    return recoverSession(this, sessionId);
  }

  /**
   * Takes the backup left for later at open, when one is due (once per open); throws a
   * StoreError (`damaged`, `backup-failed`) when it cannot be made. See later.ts.
   */
  backupIfDue(): BackupInfo | undefined {
    return takeBackupIfDue(this.db);
  }

  /**
   * Closes the database, after the backup left for later when one is due (see
   * `backupIfDue`; the database is closed even when that throws); safe to call twice.
   * `exiting`: the process ends next with `process.exit`, and a small write-ahead log
   * is left for the next process instead of checkpointed (later.ts); returns true
   * when the connection was left open for that.
   */
  close(opts: { exiting?: boolean } = {}): boolean {
    return closeDatabase(this.db, opts);
  }
}
