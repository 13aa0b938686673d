/**
 * The top bar's model badge: the id of the model the chat runs on (an open
 * session keeps the profile it was made with; a new chat uses the active one),
 * with the profile in its tooltip.
 */
import { byId } from './dom.js';
import type { Session } from './types.js';

/** Model ids up to this many characters are shown whole at any width ("gpt-4o", "qwen3:8b"). */
const SHORT_NAME = 10;

export class ModelBadge {
  private readonly node = byId('active-profile');
  private models: ReadonlyMap<string, string> = new Map();
  private active: string | null = null;
  private session: Pick<Session, 'profile' | 'model'> | null = null;

  setProfiles(active: string, models: ReadonlyMap<string, string>): void {
    this.active = active;
    this.models = models;
    this.render();
  }

  /** The open session, or null for a new chat. */
  setSession(session: Pick<Session, 'profile' | 'model'> | null): void {
    this.session = session;
    this.render();
  }

  private render(): void {
    const profile = this.session?.profile ?? this.active;
    const model = this.session?.model ?? (profile ? this.models.get(profile) : undefined) ?? profile;
    this.node.textContent = model ?? '';
    // A short id is never cut (in a narrow bar a long one gives way first: its tooltip names it).
    this.node.toggleAttribute('data-short', Boolean(model) && (model ?? '').length <= SHORT_NAME);
    this.node.dataset.profile = profile ?? '';
    this.node.title =
      model && profile && profile !== model ? `Model ${model} (profile ${profile})` : `Model ${model ?? ''}`;
  }
}
