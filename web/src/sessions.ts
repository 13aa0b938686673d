/** The session sidebar: search, switch, new, rename (inline) and delete (two clicks). */
import type { Api } from './api.js';
import { attempt, byId, clear, h } from './dom.js';
import { icon } from './icons.js';
import { oneLine, relativeTime, truncate } from './text.js';
import type { Session } from './types.js';

export interface SessionListHandlers {
  select(session: Session): void;
  create(): void;
  deleted(id: string): void;
}

export class SessionList {
  private readonly list = byId('session-list');
  private readonly search = byId<HTMLInputElement>('session-search');
  private sessions: Session[] = [];
  private activeId: string | null = null;
  private timer = 0;

  constructor(
    private readonly api: Api,
    private readonly handlers: SessionListHandlers,
  ) {
    byId('new-session').addEventListener('click', () => this.handlers.create());
    this.search.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.refresh(), 200);
    });
  }

  get all(): Session[] {
    return this.sessions;
  }

  setActive(id: string | null): void {
    this.activeId = id;
    for (const item of this.list.querySelectorAll<HTMLElement>('[data-session-id]')) {
      const active = item.dataset.sessionId === id;
      item.classList.toggle('active', active);
      item.querySelector('.session-open')?.setAttribute('aria-current', active ? 'true' : 'false');
    }
  }

  async refresh(): Promise<void> {
    const result = await attempt(() => this.api.listSessions(this.search.value.trim()));
    if (!result) return;
    this.sessions = result.data;
    this.render();
  }

  /** Puts a changed or new session at the top without a round trip. */
  upsert(session: Session): void {
    this.sessions = [session, ...this.sessions.filter((s) => s.id !== session.id)];
    this.render();
  }

  /** A session got a new title elsewhere (the automatic one): shown where it is listed. */
  retitle(id: string, title: string): void {
    if (!this.sessions.some((s) => s.id === id)) return;
    this.sessions = this.sessions.map((s) => (s.id === id ? { ...s, title } : s));
    this.render();
  }

  private render(): void {
    clear(this.list);
    if (this.sessions.length === 0) {
      this.list.appendChild(
        h('li', { class: 'empty' }, this.search.value ? 'No matching sessions' : 'No sessions yet'),
      );
      return;
    }
    for (const session of this.sessions) this.list.appendChild(this.item(session));
    this.setActive(this.activeId);
  }

  private item(session: Session): HTMLElement {
    const title = sessionTitle(session);
    const open = h(
      'button',
      { class: 'session-open', 'data-testid': 'session-item', title },
      h('span', { class: 'session-title' }, truncate(title, 60)),
      h(
        'span',
        { class: 'session-meta' },
        `${relativeTime(session.updated_at)} · ${session.message_count} msgs`,
      ),
    );
    open.addEventListener('click', () => this.handlers.select(session));
    const rename = h(
      'button',
      { class: 'icon', 'aria-label': `Rename ${title}`, 'data-testid': 'session-rename' },
      icon('pencil'),
    );
    rename.addEventListener('click', () => this.startRename(row, session));
    const del = h(
      'button',
      { class: 'icon danger', 'aria-label': `Delete ${title}`, 'data-testid': 'session-delete' },
      icon('trash'),
    );
    del.addEventListener('click', () => void this.remove(del, session));
    const row = h(
      'li',
      { class: 'session', 'data-session-id': session.id },
      open,
      h('span', { class: 'session-actions' }, rename, del),
    );
    if (session.busy) row.classList.add('busy');
    return row;
  }

  private startRename(row: HTMLElement, session: Session): void {
    const input = h('input', {
      class: 'session-rename-input',
      value: session.title ?? '',
      'aria-label': 'New session title',
      'data-testid': 'session-rename-input',
    });
    // Re-rendering removes the input, which fires blur: restore only once.
    let restored = false;
    const restore = (): void => {
      if (restored) return;
      restored = true;
      input.removeEventListener('blur', restore);
      this.render();
    };
    input.addEventListener('keydown', (e) => {
      if (e.isComposing) return;
      if (e.key === 'Escape') restore();
      if (e.key === 'Enter') {
        const title = input.value.trim();
        if (!title) return restore();
        void attempt(() => this.api.renameSession(session.id, title)).then((updated) => {
          if (updated) this.sessions = this.sessions.map((s) => (s.id === updated.id ? updated : s));
          if (restored) this.render();
          else restore();
          if (updated && updated.id === this.activeId) this.handlers.select(updated);
        });
      }
    });
    input.addEventListener('blur', restore);
    clear(row);
    row.appendChild(input);
    input.focus();
    input.select();
  }

  private async remove(button: HTMLButtonElement, session: Session): Promise<void> {
    if (button.dataset.confirm !== 'true') {
      button.dataset.confirm = 'true';
      button.textContent = 'Delete?';
      setTimeout(() => {
        if (!button.isConnected) return;
        button.dataset.confirm = 'false';
        button.replaceChildren(icon('trash'));
      }, 3000);
      return;
    }
    const done = await attempt(() => this.api.deleteSession(session.id, session.busy));
    if (!done) return;
    this.sessions = this.sessions.filter((s) => s.id !== session.id);
    this.render();
    this.handlers.deleted(session.id);
  }
}

export function sessionTitle(session: Session): string {
  const title = oneLine(session.title ?? '');
  return title || 'Untitled session';
}
