/**
 * The operation journal as faces use it: list a session's rounds, undo and redo them,
 * show a round's diff. Sessions are named by id or unique prefix (as everywhere); what
 * each method returns is what a face prints (the files reverted, or the refusal).
 */
import { Journal, type RoundInfo, type UndoResult } from '../agent/index.js';
import type { TeaConfig } from '../config/types.js';
import type { Store } from '../store/index.js';
import type { SessionsService } from './sessions.js';

export type { FileChange, RoundInfo, UndoRefusal, UndoResult } from '../agent/index.js';
export { JOURNAL_NOTE } from '../agent/index.js';

export class JournalService {
  constructor(
    /** The agents' journal (one per runtime). */
    readonly journal: Journal,
    private readonly sessions: SessionsService,
  ) {}

  /** Why turns are not journaled here (undefined: they are). */
  get off(): string | undefined {
    return this.journal.off;
  }

  /** The session's rounds, oldest first; throws RuntimeError `not_found` for an unknown session. */
  rounds(idOrPrefix: string): RoundInfo[] {
    return this.journal.rounds(this.sessions.resolve(idOrPrefix).id);
  }

  /** Reverts the session's last applied round, or says why not (nothing changed then). */
  undo(idOrPrefix: string): Promise<UndoResult> {
    return this.journal.undo(this.sessions.resolve(idOrPrefix).id);
  }

  /** Re-applies the session's last undone round, or says why not. */
  redo(idOrPrefix: string): Promise<UndoResult> {
    return this.journal.redo(this.sessions.resolve(idOrPrefix).id);
  }

  /** The unified diff of a round (default: the newest not dropped); undefined when there is none. */
  diff(idOrPrefix: string, roundId?: number): Promise<{ roundId: number; text: string } | undefined> {
    return this.journal.diff(this.sessions.resolve(idOrPrefix).id, roundId);
  }
}

/** What a face prints for an undo or redo: the files it changed, or why it refused. */
export function undoText(r: UndoResult): string {
  if (!r.ok) return r.message;
  const verb = { added: 'recreated', deleted: 'removed', modified: 'restored' } as const;
  const what = r.action === 'undo' ? 'Undid' : 'Redid';
  const n = r.files.length;
  const lines = r.files.map((f) => `  ${verb[f.change]} ${f.path}`);
  return [`${what} round ${r.roundId}: ${n} file${n === 1 ? '' : 's'} changed.`, ...lines].join('\n');
}

/** The short line after a turn that changed files, e.g. `2 files changed · /undo`. */
export function changedLine(files: readonly { path: string }[], undo = '/undo'): string {
  return `${files.length} file${files.length === 1 ? '' : 's'} changed · ${undo}`;
}

/** The runtime's journal, in `<home>/journal/`, as the config's `journal` section sets it. */
export function runtimeJournal(
  config: TeaConfig,
  store: () => Store,
  warn: (message: string) => void,
): Journal {
  const { enabled, ...limits } = config.journal;
  return new Journal({ home: config.home, store, warn, enabled, limits });
}
