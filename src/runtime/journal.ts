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

const files = (n: number): string => `${n} file${n === 1 ? '' : 's'}`;

/**
 * What a face prints for an undo or redo: the files it changed, or why it refused. It
 * names turns, not round ids (those count every session of the Tea home).
 */
export function undoText(r: UndoResult): string {
  if (!r.ok) return r.message;
  const verb = { added: 'recreated', deleted: 'removed', modified: 'restored' } as const;
  const what =
    r.action === 'redo'
      ? 'Redid the changes the last /undo reverted'
      : `Undid ${r.latest ? "the last turn's" : "an earlier turn's"} changes`;
  const lines = r.files.map((f) => `  ${verb[f.change]} ${f.path}`);
  return [`${what}: ${files(r.files.length)} changed.`, ...lines].join('\n');
}

/** One round as `/diff` lists it: `7 · 2 files (a.ts, b.ts) · applied`. */
export function roundLine(r: RoundInfo): string {
  const names = r.files.slice(0, 3).map((f) => f.path);
  const more = r.files.length > 3 ? `, +${r.files.length - 3}` : '';
  return `${r.id} · ${files(r.files.length)} (${names.join(', ')}${more}) · ${r.state}`;
}

/** What `/diff [round]` answers in a terminal face: the diff, or a note saying why there is none. */
export type DiffReply =
  | { kind: 'diff'; roundId: number; text: string }
  | { kind: 'note' | 'error'; text: string };

/** `/diff` with `arg` (empty: the newest round): an unknown round lists the session's rounds. */
export async function diffReply(journal: JournalService, sessionId: string, arg: string): Promise<DiffReply> {
  const round = arg ? Number(arg) : undefined;
  if (arg && !(Number.isInteger(round) && round! > 0))
    return {
      kind: 'error',
      text: `/diff takes a round number (as /diff with an unknown one lists them), not "${arg}".`,
    };
  const diff = await journal.diff(sessionId, round);
  if (diff) return { kind: 'diff', roundId: diff.roundId, text: diff.text };
  const rounds = journal.rounds(sessionId);
  if (rounds.length === 0) {
    const off = journal.off;
    return { kind: 'note', text: off ? `No diff: ${off}.` : 'No turn of this session changed files yet.' };
  }
  const head = round ? `No round ${round} in this session. Its rounds` : "This session's rounds";
  return {
    kind: 'note',
    text: `${head} (/diff <round> shows one):\n${rounds.map((r) => `  ${roundLine(r)}`).join('\n')}`,
  };
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
