/**
 * The session sidebar and the right-hand drawer (workflows and skills, opened from
 * the sidebar; memory and settings, from the top bar). On narrow
 * screens the sidebar slides over the chat: its ×, a tap beside it (the scrim),
 * Esc, or picking a session closes it again. Esc also closes the drawer while the
 * focus is inside it (and then never stops the running turn).
 */
import { byId } from './dom.js';

export type PanelName = 'workflows' | 'skills' | 'mcp' | 'memory' | 'settings';

const PANELS: readonly PanelName[] = ['workflows', 'skills', 'mcp', 'memory', 'settings'];

/** Must match the narrow breakpoint in styles/responsive.css. */
const NARROW = '(max-width: 760px)';
/** Must match the width below which the drawer slides over the chat (styles/responsive.css). */
const OVERLAY = '(max-width: 1099px)';

export class Panels {
  private readonly drawer = byId('drawer');
  private readonly toggle = byId('sidebar-toggle');
  private opener: HTMLElement | null = null;

  /** `opened` runs when a panel is shown (to load its content), `closed` when it is hidden again. */
  constructor(
    private readonly opened: (name: PanelName) => void,
    private readonly closed: (name: PanelName) => void = () => {},
  ) {
    for (const name of PANELS) byId(`${name}-toggle`).addEventListener('click', () => this.show(name));
    // Workflows and Skills are opened from the session list: on a phone the list makes way for the panel.
    byId('workflows-toggle').addEventListener('click', () => this.sessionChosen());
    byId('skills-toggle').addEventListener('click', () => this.sessionChosen());
    byId('mcp-toggle').addEventListener('click', () => this.sessionChosen());
    byId('drawer-close').addEventListener('click', () => this.closeDrawer());
    this.toggle.addEventListener('click', () => {
      if (this.sidebarOpen) this.closeSidebar(true);
      else this.openSidebar();
    });
    byId('sidebar-close').addEventListener('click', () => this.closeSidebar(true));
    byId('scrim').addEventListener('click', () => this.closeSidebar(true));
    // Capture: before the composer's Esc (stop the turn) sees the key.
    document.addEventListener('keydown', (e) => this.onEscape(e), true);
  }

  get sidebarOpen(): boolean {
    return document.body.classList.contains('sidebar-open');
  }

  /** A session opened from the drawer (a workflow's agent node): where the drawer covers the chat, it makes way. */
  chatChosen(): void {
    if (!this.drawer.hidden && matchMedia(OVERLAY).matches) this.closeDrawer();
  }

  /** After a session is picked or a new chat started: on a phone the list makes way. */
  sessionChosen(): void {
    if (this.sidebarOpen) this.closeSidebar(false);
  }

  private openSidebar(): void {
    document.body.classList.add('sidebar-open');
    this.toggle.setAttribute('aria-expanded', 'true');
    if (matchMedia(NARROW).matches) byId('sidebar-close').focus();
  }

  private closeSidebar(refocus: boolean): void {
    document.body.classList.remove('sidebar-open');
    this.toggle.setAttribute('aria-expanded', 'false');
    if (refocus && matchMedia(NARROW).matches) this.toggle.focus();
  }

  private show(name: PanelName): void {
    const same = !this.drawer.hidden && this.drawer.dataset.panel === name;
    if (same) {
      this.closeDrawer();
      return;
    }
    const before = this.drawer.hidden ? undefined : (this.drawer.dataset.panel as PanelName | undefined);
    if (before) this.closed(before);
    this.drawer.hidden = false;
    this.drawer.dataset.panel = name;
    for (const other of PANELS) byId(`${other}-panel`).hidden = other !== name;
    this.setExpanded(name);
    this.opener = byId(`${name}-toggle`);
    this.opened(name);
  }

  private closeDrawer(): void {
    const hadFocus = this.drawer.contains(document.activeElement);
    const shown = this.drawer.hidden ? undefined : (this.drawer.dataset.panel as PanelName | undefined);
    this.drawer.hidden = true;
    if (shown) this.closed(shown);
    this.setExpanded(null);
    // Back to what opened it; the list's Workflows button may be off screen now (a phone).
    const back = this.opener?.closest('.sidebar') && !this.sidebarOpen && matchMedia(NARROW).matches;
    if (hadFocus) (back ? this.toggle : this.opener)?.focus();
  }

  private setExpanded(name: PanelName | null): void {
    for (const other of PANELS) byId(`${other}-toggle`).setAttribute('aria-expanded', String(name === other));
  }

  private onEscape(e: KeyboardEvent): void {
    if (e.key !== 'Escape' || e.isComposing || e.defaultPrevented) return;
    const target = e.target instanceof HTMLElement ? e.target : null;
    // Esc there has a meaning of its own (cancel the rename).
    if (target?.classList.contains('session-rename-input')) return;
    if (this.sidebarOpen && matchMedia(NARROW).matches) {
      e.preventDefault();
      this.closeSidebar(true);
    } else if (!this.drawer.hidden && this.drawer.contains(target)) {
      e.preventDefault();
      this.closeDrawer();
    }
  }
}
