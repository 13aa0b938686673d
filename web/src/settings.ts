/**
 * Settings: the model profile (server side, via /v1/config/switch) and the look
 * (theme and accent colour, kept in localStorage and applied as CSS variables).
 */
import type { Api } from './api.js';
import { attempt, byId, clear, h, toast } from './dom.js';

export type Theme = 'light' | 'dark' | 'system';

const THEME_KEY = 'tea.theme';
const ACCENT_KEY = 'tea.accent';
const DEFAULT_ACCENT = '#2f7d5b';

export function storedTheme(): Theme {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

/** Applies the theme: `system` follows the operating system's preference. */
export function applyTheme(theme: Theme): void {
  const dark = theme === 'dark' || (theme === 'system' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

export function applyAccent(color: string): void {
  if (!/^#[0-9a-f]{6}$/i.test(color)) return;
  document.documentElement.style.setProperty('--accent', color);
}

/** Applies the stored look before anything renders (no flash of the wrong theme). */
export function applyStoredLook(): void {
  applyTheme(storedTheme());
  applyAccent(localStorage.getItem(ACCENT_KEY) ?? DEFAULT_ACCENT);
}

export class SettingsPanel {
  private readonly profile = byId<HTMLSelectElement>('profile-select');
  private readonly theme = byId<HTMLSelectElement>('theme-select');
  private readonly accent = byId<HTMLInputElement>('accent-input');

  /** Model ids by profile name. */
  private models = new Map<string, string>();

  constructor(
    private readonly api: Api,
    private readonly onProfile: (name: string, models: ReadonlyMap<string, string>) => void,
  ) {
    this.theme.value = storedTheme();
    this.theme.addEventListener('change', () => {
      const value = this.theme.value as Theme;
      localStorage.setItem(THEME_KEY, value);
      applyTheme(value);
    });
    byId('theme-toggle').addEventListener('click', () => {
      const next: Theme = document.documentElement.dataset.theme === 'dark' ? 'light' : 'dark';
      localStorage.setItem(THEME_KEY, next);
      this.theme.value = next;
      applyTheme(next);
    });
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => applyTheme(storedTheme()));
    this.accent.value = localStorage.getItem(ACCENT_KEY) ?? DEFAULT_ACCENT;
    this.accent.addEventListener('input', () => {
      localStorage.setItem(ACCENT_KEY, this.accent.value);
      applyAccent(this.accent.value);
    });
    byId('accent-reset').addEventListener('click', () => {
      localStorage.removeItem(ACCENT_KEY);
      this.accent.value = DEFAULT_ACCENT;
      applyAccent(DEFAULT_ACCENT);
    });
    this.profile.addEventListener('change', () => void this.switchProfile(this.profile.value));
  }

  /** Bumped by every refresh and switch: an answer that arrives after a newer one started is dropped. */
  private generation = 0;

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const [config, models] = await Promise.all([
      attempt(() => this.api.config()),
      attempt(() => this.api.models()),
    ]);
    // A switch (or another refresh) started meanwhile: this answer may predate it.
    if (!config || generation !== this.generation) return;
    this.models = new Map((models?.data ?? []).filter((m) => m.id !== 'tea').map((m) => [m.id, m.model]));
    clear(this.profile);
    const names = config.profiles.length > 0 ? config.profiles : [config.active_profile];
    for (const name of names) {
      const model = this.models.get(name);
      this.profile.appendChild(
        h('option', { value: name }, model && model !== name ? `${name} · ${model}` : name),
      );
    }
    this.profile.value = config.active_profile;
    this.onProfile(config.active_profile, this.models);
  }

  private async switchProfile(name: string): Promise<void> {
    this.generation++;
    const result = await attempt(() => this.api.switchProfile(name));
    if (!result) {
      await this.refresh();
      return;
    }
    this.onProfile(result.active_profile, this.models);
    const model = this.models.get(result.active_profile);
    toast(`New sessions use ${result.active_profile}${model ? ` (${model})` : ''}`);
  }
}
