/**
 * Undo / Redo in the session view: the top bar's two buttons (and Settings' "This
 * session" ones, which stay when a narrow bar has no room) revert the file changes
 * of the session's last turn (`POST /v1/sessions/{id}/undo`) and re-apply them (`…/redo`).
 * After a turn that changed files the bar says how many; a refusal (files changed
 * since, a turn running, nothing to undo) is shown as the server words it.
 */
import type { Api } from './api.js';
import { attempt, byId, toast } from './dom.js';
import type { StreamEvent } from './types.js';

interface UndoReply {
  action: 'undo' | 'redo';
  round_id: number;
  files: { path: string; change: 'added' | 'modified' | 'deleted' }[];
}

const DONE = { added: 'recreated', deleted: 'removed', modified: 'restored' } as const;

export class JournalControls {
  /** The top bar's buttons, then Settings' "This session" ones. */
  private readonly buttons = ['undo', 'redo', 'session-undo', 'session-redo'].map((id) =>
    byId<HTMLButtonElement>(id),
  );
  private readonly status = byId('journal-status');

  constructor(
    private readonly api: Api,
    private readonly sessionId: () => string | null,
  ) {
    for (const b of this.buttons)
      b.addEventListener('click', () => void this.move(b.id.endsWith('undo') ? 'undo' : 'redo'));
  }

  /** A session is open (or none is). */
  setSession(open: boolean): void {
    for (const b of this.buttons) b.disabled = !open;
    this.status.textContent = '';
  }

  onEvent(event: StreamEvent): void {
    if (event.type !== 'journal' || event.parent) return;
    const n = event.files.length;
    this.status.textContent = `${n} file${n === 1 ? '' : 's'} changed`;
    this.status.title = event.files.map((f) => `${f.change} ${f.path}`).join('\n');
  }

  private async move(action: 'undo' | 'redo'): Promise<void> {
    const id = this.sessionId();
    if (!id) return;
    const r = await attempt(() =>
      this.api.json<UndoReply>('POST', `/v1/sessions/${encodeURIComponent(id)}/${action}`, {}),
    );
    if (!r) return;
    const files = r.files.map((f) => `${f.path} ${DONE[f.change]}`).join(', ');
    this.status.textContent = action === 'undo' ? 'Undone' : 'Redone';
    toast(`${action === 'undo' ? 'Undid' : 'Redid'} the last turn's changes: ${files}`, 'info');
  }
}
