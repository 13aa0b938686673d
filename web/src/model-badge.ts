/**
 * The top bar's model badge: the id of the model the chat runs on (an open
 * session keeps the profile it was made with; a new chat uses the active one),
 * with the profile in its tooltip.
 */
import { byId } from './dom.js';
import type { Session } from './types.js';

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
    this.node.dataset.profile = profile ?? '';
    this.node.title =
      model && profile && profile !== model ? `Model ${model} (profile ${profile})` : `Model ${model ?? ''}`;
  }
}
