/**
 * The operation journal of every session in one Tea home: rounds (what each turn
 * changed in its workspace, from shadow-repository snapshots) and undo/redo of them.
 * Undo reverts a session's last applied round, redo re-applies its last undone one; both
 * refuse, changing nothing, when a file of the round changed since (naming the files),
 * when a turn of the session runs, or when there is nothing to revert.
 */
import type { JournalRoundRow, Store } from '../../store/index.js';
import { thisProcess } from '../../store/index.js';
import { randomUUID } from '../../util/random-id.js';
import { filesDiff } from './diff.js';
import { gitInstalled } from './git.js';
import { changeOf, type FileChange, Round } from './round.js';
import { DEFAULT_LIMITS, type JournalLimits, ShadowRepo } from './shadow.js';
import { type FileSide, matches, putSide, stateOf, unsafePath } from './workspace.js';

export interface JournalOptions {
  /** Tea's data home: the shadow repositories live in `<home>/journal/`. */
  home: string;
  store: () => Store;
  /** false: no round is recorded (config `journal.enabled`). */
  enabled?: boolean;
  limits?: Partial<JournalLimits>;
  /** The git program (tests name a missing one). */
  git?: string;
  now?: () => number;
  /** Told once when git is missing (the journal is then off). */
  warn?: (message: string) => void;
}

/** A round as faces list it. */
export interface RoundInfo {
  id: number;
  turnId: string;
  state: JournalRoundRow['state'];
  createdAt: number;
  files: FileChange[];
}

export type UndoRefusal = 'nothing' | 'busy' | 'conflict' | 'unsafe' | 'off' | 'damaged';

/**
 * What undo or redo did: the files it changed now (`change` as it happened to each), or
 * why it refused. `latest`: the round was the session's newest (an undo of the last turn
 * that changed files, not of an earlier one).
 */
export type UndoResult =
  | {
      ok: true;
      action: 'undo' | 'redo';
      roundId: number;
      turnId: string;
      files: FileChange[];
      note: string;
      latest: boolean;
    }
  | { ok: false; action: 'undo' | 'redo'; reason: UndoRefusal; message: string; files?: string[] };

const LEASE_TTL_MS = 60_000;

/** How what undo/redo tell the model begins (stored as a user message; faces show it as a note). */
export const JOURNAL_NOTE = '[Journal note]';

export class Journal {
  readonly limits: JournalLimits;
  private readonly repos = new Map<string, ShadowRepo>();
  private warned = false;

  constructor(private readonly opts: JournalOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
  }

  /** Why rounds are not recorded (undefined: they are). */
  get off(): string | undefined {
    if (this.opts.enabled === false) return 'the journal is turned off (journal.enabled: false)';
    if (!gitInstalled(this.opts.git)) return 'git is not installed, so the operation journal (/undo) is off';
    return undefined;
  }

  /** The round of one turn, or undefined when the journal is off (warned once when git is missing). */
  round(sessionId: string, turnId: string, workspace: string): Round | undefined {
    const off = this.off;
    if (off) {
      if (this.opts.enabled !== false && !this.warned) {
        this.warned = true;
        this.opts.warn?.(off);
      }
      return undefined;
    }
    return new Round(
      this.opts.store,
      this.repo(workspace, sessionId),
      this.limits,
      sessionId,
      turnId,
      this.opts.now ?? Date.now,
    );
  }

  /** The session's rounds, oldest first (dropped ones included: they say what was given up). */
  rounds(sessionId: string): RoundInfo[] {
    return this.opts.store().journal.list(sessionId).map(info);
  }

  /** The unified diff of a round of the session (default: its newest not dropped). */
  async diff(sessionId: string, roundId?: number): Promise<{ roundId: number; text: string } | undefined> {
    const rows = this.opts.store().journal.list(sessionId);
    const row =
      roundId === undefined
        ? rows.filter((r) => r.state !== 'dropped').at(-1)
        : rows.find((r) => r.id === roundId);
    if (!row) return undefined;
    const repo = this.repo(row.workspace, sessionId);
    // A round taken on the fast path (or partly) has no trees that hold it: its files tell.
    const text =
      row.beforeTree === '' || row.afterTree === ''
        ? await filesDiff(row.files, (ids) => repo.blobs(ids))
        : await repo.diff(row.beforeTree, row.afterTree);
    return { roundId: row.id, text };
  }

  undo(sessionId: string): Promise<UndoResult> {
    return this.move(sessionId, 'undo');
  }

  redo(sessionId: string): Promise<UndoResult> {
    return this.move(sessionId, 'redo');
  }

  private async move(sessionId: string, action: 'undo' | 'redo'): Promise<UndoResult> {
    const store = this.opts.store();
    const refuse = (reason: UndoRefusal, message: string, files?: string[]): UndoResult => ({
      ok: false,
      action,
      reason,
      message,
      ...(files ? { files } : {}),
    });
    const row =
      action === 'undo' ? store.journal.lastApplied(sessionId) : store.journal.firstUndone(sessionId);
    if (!row) {
      const off = this.off;
      const undone = action === 'undo' && store.journal.firstUndone(sessionId) !== undefined;
      const nothing =
        action === 'redo'
          ? 'nothing was undone'
          : undone
            ? 'every change of this session is undone already (redo re-applies the last)'
            : 'no turn of this session changed files';
      return refuse(off ? 'off' : 'nothing', `Nothing to ${action}: ${off ?? nothing}.`);
    }
    // Holding the session's lease: no turn starts while files are put back (and none runs now).
    const owner = { id: randomUUID(), ...thisProcess() };
    const lease = store.leases.acquire(sessionId, owner, LEASE_TTL_MS);
    if (!lease.ok)
      return refuse(
        'busy',
        `Cannot ${action} while a turn of session ${sessionId} is running: wait for it to end (or interrupt it).`,
      );
    try {
      return await this.apply(store, row, action, refuse);
    } finally {
      store.leases.release(sessionId, owner.id);
    }
  }

  private async apply(
    store: Store,
    row: JournalRoundRow,
    action: 'undo' | 'redo',
    refuse: (reason: UndoRefusal, message: string, files?: string[]) => UndoResult,
  ): Promise<UndoResult> {
    // Named as the user knows it (round ids count every session of the Tea home).
    const latest = store.journal.list(row.sessionId).at(-1)?.id === row.id;
    const which =
      action === 'redo'
        ? 'the changes the last /undo reverted'
        : latest
          ? "the last turn's changes"
          : "an earlier turn's changes";
    const unsafe = row.files.flatMap((f) => {
      const why = unsafePath(f.path);
      return why ? [`${JSON.stringify(f.path)} (${why})`] : [];
    });
    if (unsafe.length > 0)
      return refuse(
        'unsafe',
        `Refusing to ${action} ${which}: the journal names unsafe paths: ${unsafe.join(', ')}. Nothing was changed.`,
        unsafe,
      );
    const side = (f: JournalRoundRow['files'][number], which: 'before' | 'after'): FileSide =>
      which === 'before'
        ? { blob: f.beforeBlob, mode: f.beforeMode }
        : { blob: f.afterBlob, mode: f.afterMode };
    const [now, target] = action === 'undo' ? (['after', 'before'] as const) : (['before', 'after'] as const);
    const changed: string[] = [];
    for (const f of row.files) {
      const state = await stateOf(row.workspace, f.path);
      if (!matches(state, side(f, now)))
        changed.push(state.kind === 'other' ? `${f.path} (${state.what})` : f.path);
    }
    if (changed.length > 0) {
      const [these, it] = changed.length === 1 ? ['this file has', 'it'] : ['these files have', 'them'];
      return refuse(
        'conflict',
        `Cannot ${action} ${which}: ${these} changed since: ${changed.join(', ')}. Nothing was changed; put ${it} back or edit by hand.`,
        changed.map((c) => c.replace(/ \(.*\)$/, '')),
      );
    }
    const repo = this.repo(row.workspace, row.sessionId);
    let blobs: Map<string, Buffer>;
    try {
      blobs = await repo.blobs(
        row.files.flatMap((f) => (side(f, target).blob ? [side(f, target).blob!] : [])),
      );
    } catch (e) {
      // Read whole before anything is written: a lost or damaged copy changes nothing.
      return refuse(
        'damaged',
        `Cannot ${action} ${which}: the journal's copy of the files cannot be read (${e instanceof Error ? e.message : String(e)}). Nothing was changed.`,
      );
    }
    const files: FileChange[] = [];
    for (const f of row.files) {
      const s = side(f, target);
      await putSide(row.workspace, f.path, s, s.blob ? blobs.get(s.blob) : undefined);
      const from = side(f, now).blob;
      files.push({ path: f.path, change: changeOf(from, s.blob) });
    }
    store.journal.setState(row.id, action === 'undo' ? 'undone' : 'applied');
    const note = transcriptNote(action, files);
    store.messages.append(row.sessionId, {
      turnId: `journal_${row.id}_${action}`,
      role: 'user',
      parts: [{ type: 'text', text: note }],
    });
    return { ok: true, action, roundId: row.id, turnId: row.turnId, files, note, latest };
  }

  private repo(workspace: string, sessionId: string): ShadowRepo {
    const key = `${workspace}\0${sessionId}`;
    let repo = this.repos.get(key);
    if (!repo) {
      repo = new ShadowRepo({
        home: this.opts.home,
        workspace,
        sessionId,
        ...(this.opts.git ? { git: this.opts.git } : {}),
      });
      this.repos.set(key, repo);
    }
    return repo;
  }
}

function info(row: JournalRoundRow): RoundInfo {
  return {
    id: row.id,
    turnId: row.turnId,
    state: row.state,
    createdAt: row.createdAt,
    files: row.files.map((f) => ({ path: f.path, change: changeOf(f.beforeBlob, f.afterBlob) })),
  };
}

/** What the model reads before its next turn: the files are no longer as it left them. */
function transcriptNote(action: 'undo' | 'redo', files: readonly FileChange[]): string {
  const list = files.map(
    (f) =>
      `${f.path} (${f.change === 'added' ? 'recreated' : f.change === 'deleted' ? 'removed' : 'restored'})`,
  );
  const what =
    action === 'undo'
      ? 'The user undid the file changes of an earlier turn (/undo); these files are back as they were before it'
      : 'The user redid the file changes of an undone turn (/redo); these files are again as that turn left them';
  return `${JOURNAL_NOTE} ${what}: ${list.join(', ')}. Read them again before relying on their earlier contents.`;
}
