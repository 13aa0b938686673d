/**
 * One round of the journal: one turn of a session. The snapshot before it is taken
 * lazily, right before the first tool call that may change files (so a turn that only
 * talks or reads costs nothing), and the one after it when the turn ends, however it
 * ends. A round that changed files is recorded and told to the faces as a `journal`
 * event; a snapshot that hit a limit turns the journal off for the round with one notice.
 */
import type { Store } from '../../store/index.js';
import type { AgentEvent } from '../events.js';
import type { JournalLimits, ShadowRepo, Snapshot } from './shadow.js';

export type JournalEvent = Extract<AgentEvent, { type: 'journal' }>;
export type FileChange = JournalEvent['files'][number];

export function changeOf(before: string | null, after: string | null): FileChange['change'] {
  return before === null ? 'added' : after === null ? 'deleted' : 'modified';
}

export class Round {
  private before: Promise<Snapshot> | undefined;
  private finished: Promise<AgentEvent[]> | undefined;

  constructor(
    private readonly store: () => Store,
    private readonly repo: ShadowRepo,
    private readonly limits: JournalLimits,
    readonly sessionId: string,
    readonly turnId: string,
    private readonly now: () => number,
  ) {}

  /** Takes the snapshot before the round, once; every later call waits for that one. */
  async beforeChange(): Promise<void> {
    this.before ??= this.repo.snapshot(this.limits, this.now);
    await this.before;
  }

  /** Snapshots after the round and records it (once): its `journal` event or a notice, if any. */
  finish(): Promise<AgentEvent[]> {
    this.finished ??= this.record().catch((e: unknown) => [
      offNotice(e instanceof Error ? e.message : String(e)),
    ]);
    return this.finished;
  }

  private async record(): Promise<AgentEvent[]> {
    if (!this.before) return [];
    const before = await this.before;
    if (!before.ok) return [offNotice(before.reason)];
    const after = await this.repo.snapshot(this.limits, this.now);
    if (!after.ok) return [offNotice(after.reason)];
    const changes = await this.repo.changes(before.tree, after.tree);
    if (changes.length === 0) return [];
    const row = this.store().journal.add({
      sessionId: this.sessionId,
      turnId: this.turnId,
      workspace: this.repo.place.workTree,
      beforeTree: before.tree,
      afterTree: after.tree,
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
