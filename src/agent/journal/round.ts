/**
 * One round of the journal: one turn of a session. Nothing is taken until the first
 * tool call that may change files (so a turn that only talks or reads costs nothing):
 * - a file tool naming its one file (write_file, append_file, edit_file) has that file
 *   captured before it runs (capture.ts: no git process, no walk of the workspace);
 * - any other call that may change files (bash, user tools, sub-agents) has the whole
 *   workspace snapshotted before it, once (shadow.ts).
 * When the turn ends, however it ends, the files captured are read again and, if there
 * was a snapshot, the workspace is snapshotted again and compared. A round that changed
 * files is recorded and told to the faces as a `journal` event; a limit turns the journal
 * off for the round with one notice.
 */
import { promises as fsp } from 'node:fs';
import type { Store } from '../../store/index.js';
import type { AgentEvent } from '../events.js';
import { capture, workspacePath } from './capture.js';
import type { JournalLimits, ShadowRepo, Snapshot, TreeChange } from './shadow.js';
import type { FileSide } from './workspace.js';

export type JournalEvent = Extract<AgentEvent, { type: 'journal' }>;
export type FileChange = JournalEvent['files'][number];

export function changeOf(before: string | null, after: string | null): FileChange['change'] {
  return before === null ? 'added' : after === null ? 'deleted' : 'modified';
}

/** A file captured before a call changed it; `early`: before the round's whole snapshot began. */
interface Kept {
  side: FileSide;
  early: boolean;
}

export class Round {
  private before: Promise<Snapshot> | undefined;
  private finished: Promise<AgentEvent[]> | undefined;
  private readonly kept = new Map<string, Kept>();
  /** Why the round keeps nothing (a file over the size limit, a capture failing). */
  private off: string | undefined;
  private realRoot: Promise<string> | undefined;

  constructor(
    private readonly store: () => Store,
    private readonly repo: ShadowRepo,
    private readonly limits: JournalLimits,
    readonly sessionId: string,
    readonly turnId: string,
    private readonly now: () => number,
  ) {}

  /**
   * Before a call that may change files: `files` (absolute paths) when the call names
   * every file it changes, else undefined (the whole workspace is snapshotted, once).
   */
  async beforeChange(files?: readonly string[]): Promise<void> {
    if (this.off) return;
    if (files === undefined) {
      this.before ??= this.repo.snapshot(this.limits, this.now);
      await this.before;
      return;
    }
    try {
      await this.repo.ensure();
      for (const abs of files) {
        const rel = workspacePath(await this.root(), abs);
        if (rel === undefined || this.kept.has(rel)) continue;
        const got = await capture(
          this.repo.place.workTree,
          this.repo.place.gitDir,
          rel,
          this.limits.maxFileBytes,
        );
        if (!got.ok) {
          this.off = got.reason;
          return;
        }
        this.kept.set(rel, { side: got.side, early: this.before === undefined });
      }
    } catch (e) {
      this.off = e instanceof Error ? e.message : String(e);
    }
  }

  /** Snapshots after the round and records it (once): its `journal` event or a notice, if any. */
  finish(): Promise<AgentEvent[]> {
    this.finished ??= this.record().catch((e: unknown) => [
      offNotice(e instanceof Error ? e.message : String(e)),
    ]);
    return this.finished;
  }

  private root(): Promise<string> {
    this.realRoot ??= fsp.realpath(this.repo.place.workTree);
    return this.realRoot;
  }

  private async record(): Promise<AgentEvent[]> {
    if (this.off) return [offNotice(this.off)];
    if (!this.before && this.kept.size === 0) return [];
    let trees = { before: '', after: '' };
    const byPath = new Map<string, TreeChange>();
    if (this.before) {
      const before = await this.before;
      if (!before.ok) return [offNotice(before.reason)];
      const after = await this.repo.snapshot(this.limits, this.now);
      if (!after.ok) return [offNotice(after.reason)];
      for (const c of await this.repo.changes(before.tree, after.tree)) byPath.set(c.path, c);
      trees = { before: before.tree, after: after.tree };
    }
    for (const [rel, kept] of this.kept) {
      const now = await capture(
        this.repo.place.workTree,
        this.repo.place.gitDir,
        rel,
        this.limits.maxFileBytes,
      );
      if (!now.ok) return [offNotice(now.reason)];
      const snapped = byPath.get(rel);
      // Captured before the snapshot began, or left out of it (ignored): the capture is the before.
      const before =
        kept.early || !snapped ? kept.side : { blob: snapped.beforeBlob, mode: snapped.beforeMode };
      if (before.blob === now.side.blob && before.mode === now.side.mode) byPath.delete(rel);
      else
        byPath.set(rel, {
          path: rel,
          beforeBlob: before.blob,
          afterBlob: now.side.blob,
          beforeMode: before.mode,
          afterMode: now.side.mode,
        });
    }
    const changes = [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (changes.length === 0) return [];
    // The trees hold the round only when nothing was captured before its snapshot (and
    // none were taken at all on the fast path): else /diff is made from the files.
    const whole = this.before !== undefined && ![...this.kept.values()].some((k) => k.early);
    const row = this.store().journal.add({
      sessionId: this.sessionId,
      turnId: this.turnId,
      workspace: this.repo.place.workTree,
      beforeTree: whole ? trees.before : '',
      afterTree: whole ? trees.after : '',
      files: changes,
    });
    const files = changes.map((c) => ({ path: c.path, change: changeOf(c.beforeBlob, c.afterBlob) }));
    return [{ type: 'journal', sessionId: this.sessionId, roundId: row.id, turnId: this.turnId, files }];
  }
}

function offNotice(reason: string): AgentEvent {
  return {
    type: 'notice',
    title: 'Undo is off for this turn',
    body: `The operation journal did not record this turn's file changes: ${reason}. /undo cannot revert them.`,
  };
}
