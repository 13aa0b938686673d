/**
 * The work-mode selector beside the session title: design, develop, test, review,
 * docs, devops and the user's own (`GET /v1/modes`). An open session switches at once
 * (`PATCH /v1/sessions/{id}` with `work_mode`; its permission mode follows the mode);
 * a new chat keeps the choice and applies it when the first message creates the session.
 * A sub-agent's session has no work mode: the selector is hidden for it.
 */
import type { Api } from './api.js';
import { attempt, byId, clear, h, toast } from './dom.js';
import type { Session, WorkModeInfo } from './types.js';

export class ModeSelect {
  private readonly node = byId<HTMLSelectElement>('work-mode');
  private defaultMode = 'develop';
  private session: Pick<Session, 'id' | 'work_mode'> | null = null;

  constructor(
    private readonly api: Api,
    /** Told when an open session's mode changed (the header's session is replaced). */
    private readonly changed: (session: Session) => void,
  ) {
    this.node.addEventListener('change', () => void this.choose(this.node.value));
  }

  /** Loads the modes (once at start). */
  async load(): Promise<void> {
    const modes = await attempt(() => this.api.modes());
    if (!modes) return;
    this.defaultMode = modes.default;
    clear(this.node);
    for (const m of modes.data) this.node.appendChild(option(m));
    this.render();
  }

  /** The open session, or null for a new chat (which starts in the default mode). */
  setSession(session: Pick<Session, 'id' | 'work_mode'> | null): void {
    this.session = session;
    this.render();
  }

  /** The mode a new chat's session should be switched to once created, if not the default. */
  get pending(): string | undefined {
    return this.session === null && this.node.value !== this.defaultMode ? this.node.value : undefined;
  }

  private render(): void {
    const mode = this.session ? this.session.work_mode : this.defaultMode;
    this.node.hidden = mode === null;
    if (mode) this.node.value = mode;
  }

  private async choose(name: string): Promise<void> {
    if (!this.session) return; // a new chat: applied when its session is created
    const before = this.session.work_mode ?? this.defaultMode;
    try {
      const updated = await this.api.setWorkMode(this.session.id, name);
      this.session = updated;
      this.changed(updated);
      toast(`Work mode: ${name}`, 'info');
    } catch (err) {
      this.node.value = before;
      toast((err as Error).message, 'error');
    }
  }
}

function option(m: WorkModeInfo): HTMLOptionElement {
  const title = `${m.description} (permission mode: ${m.permission_mode}; ${m.tool_count} tools)`;
  return h('option', { value: m.name, title }, m.name);
}
