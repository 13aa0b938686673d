/**
 * The memory panel: list, search (with 0–1 scores and a fact's earlier versions
 * folded under it), add, pin and delete long-term memories, and each memory's
 * version history with restore.
 */
import type { Api } from './api.js';
import { append, attempt, byId, clear, h, toast } from './dom.js';
import { icon } from './icons.js';
import {
  cardMeta,
  entries,
  foldedVersions,
  isCurrent,
  type MemoryEntry,
  plural,
  restoredMessage,
  savedMessage,
  versionItem,
} from './memory-view.js';
import type { Memory, MemoryHit } from './types.js';

const CATEGORIES = ['general', 'fact', 'preference', 'instruction', 'reminder', 'lesson'];
/** What `tea memory add` and POST /v1/memory use when no category is given. */
const DEFAULT_CATEGORY = 'fact';

/** Where a memory's history is shown: under the list item that holds it. */
interface HistorySlot {
  button: HTMLButtonElement;
  box: HTMLElement;
  /** The card's folded versions: hidden while the history (which lists them too) is open. */
  folded: HTMLElement | null;
  /** Whose history the box shows (a folded version's, after a restore). */
  shows?: number;
}

export class MemoryPanel {
  private readonly list = byId('memory-list');
  private readonly search = byId<HTMLInputElement>('memory-search');
  private readonly input = byId<HTMLTextAreaElement>('memory-input');
  private readonly category = byId<HTMLSelectElement>('memory-category');
  private timer = 0;
  /** Bumped per refresh, so a slow answer to an older search never overwrites a newer one. */
  private generation = 0;
  /** The memory whose history is open; it stays open across refreshes. */
  private historyOf: number | null = null;
  /** The history areas by memory id (and by the ids of the versions folded under them). */
  private slots = new Map<number, HistorySlot>();
  /** The cards by the id of their memory. */
  private cards = new Map<number, HTMLElement>();

  constructor(private readonly api: Api) {
    for (const name of CATEGORIES) this.category.appendChild(h('option', { value: name }, name));
    this.category.value = DEFAULT_CATEGORY;
    this.search.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.refresh(), 250);
    });
    byId('memory-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.add();
    });
  }

  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const q = this.search.value.trim();
    const result = await attempt<{ data: Array<Memory | MemoryHit> }>(() =>
      q ? this.api.searchMemory(q) : this.api.listMemory(),
    );
    if (!result || generation !== this.generation) return;
    this.render(entries(result.data), q);
    const open = this.historyOf === null ? undefined : this.slots.get(this.historyOf);
    if (this.historyOf !== null && open) await this.showHistory(this.historyOf, open);
  }

  private async add(): Promise<void> {
    const content = this.input.value.trim();
    if (!content) {
      toast('Write the memory first', 'error');
      return;
    }
    const result = await attempt(() => this.api.addMemory(content, this.category.value));
    if (!result) return;
    this.input.value = '';
    toast(savedMessage(result));
    await this.refresh();
  }

  private render(list: MemoryEntry[], query: string): void {
    clear(this.list);
    this.slots = new Map();
    this.cards = new Map();
    if (list.length === 0) {
      this.list.appendChild(h('li', { class: 'empty' }, query ? 'No memory matches' : 'No memories yet'));
      return;
    }
    for (const entry of list) this.list.appendChild(this.item(entry));
  }

  private item(entry: MemoryEntry): HTMLElement {
    const { memory } = entry;
    const pin = h(
      'button',
      {
        class: `icon${memory.pinned ? ' on' : ''}`,
        'aria-label': memory.pinned ? 'Unpin memory' : 'Pin memory',
        title: memory.pinned ? 'Unpin' : 'Pin',
        'aria-pressed': String(memory.pinned),
        'data-testid': 'memory-pin',
      },
      icon('pin'),
    );
    pin.addEventListener('click', async () => {
      if (await attempt(() => this.api.pinMemory(memory.id, !memory.pinned))) await this.refresh();
    });
    const del = h(
      'button',
      {
        class: 'icon danger',
        'aria-label': 'Delete memory',
        title: 'Delete',
        'data-testid': 'memory-delete',
      },
      icon('trash'),
    );
    del.addEventListener('click', async () => {
      if (await attempt(() => this.api.deleteMemory(memory.id))) await this.refresh();
    });
    const folded = entry.folded.length > 0 ? foldedVersions(memory, entry.folded) : null;
    const slot = this.historySlot(memory, entry.folded, folded);
    const card = h(
      'li',
      { class: 'memory', 'data-testid': 'memory-item', 'data-memory-id': String(memory.id) },
      h('div', { class: 'memory-content' }, memory.content),
      cardMeta(entry),
      h('div', { class: 'memory-actions' }, slot.button, pin, del),
      folded,
      slot.box,
    );
    this.cards.set(memory.id, card);
    return card;
  }

  /** The History button and the (hidden) box its versions load into. */
  private historySlot(memory: Memory, versions: Memory[], folded: HTMLElement | null): HistorySlot {
    const box = h('div', {
      class: 'memory-history',
      id: `memory-history-${memory.id}`,
      tabindex: '-1',
      hidden: true,
      'data-testid': 'memory-history-list',
    });
    const button = h(
      'button',
      {
        class: 'small',
        'aria-expanded': 'false',
        'aria-controls': box.id,
        'aria-label': `History of memory #${memory.id}`,
        title: 'Every version of this fact',
        'data-testid': 'memory-history',
      },
      'History',
    );
    const slot: HistorySlot = { button, box, folded };
    button.addEventListener('click', () => {
      if (box.hidden || slot.shows !== memory.id) {
        this.historyOf = memory.id;
        void this.showHistory(memory.id, slot);
      } else {
        this.historyOf = null;
        this.hideHistory(slot);
      }
    });
    this.slots.set(memory.id, slot);
    for (const v of versions) if (!this.slots.has(v.id)) this.slots.set(v.id, slot);
    return slot;
  }

  private hideHistory(slot: HistorySlot): void {
    slot.box.hidden = true;
    slot.button.setAttribute('aria-expanded', 'false');
    if (slot.folded) slot.folded.hidden = false;
  }

  /** Loads the versions of memory `id`'s fact into `slot`, newest first; one history is open at a time. */
  private async showHistory(id: number, slot: HistorySlot): Promise<void> {
    slot.button.setAttribute('aria-busy', 'true');
    const result = await attempt(() => this.api.memoryHistory(id));
    slot.button.removeAttribute('aria-busy');
    if (!result || this.historyOf !== id) return;
    for (const other of new Set(this.slots.values())) if (other !== slot) this.hideHistory(other);
    const versions = result.data;
    const current = new Set(versions.filter(isCurrent).map((v) => v.id));
    clear(slot.box);
    append(
      slot.box,
      h(
        'h3',
        { class: 'memory-history-title' },
        versions.length > 1
          ? `History of #${id}: ${plural(versions.length, 'version')}`
          : `#${id} has no earlier versions`,
      ),
      h('ol', { class: 'memory-version-list' }, ...versions.map((v) => this.versionRow(v, current))),
    );
    slot.shows = id;
    slot.box.hidden = false;
    slot.button.setAttribute('aria-expanded', 'true');
    // The history lists the folded versions too: show them once.
    if (slot.folded) slot.folded.hidden = true;
  }

  private versionRow(v: Memory, current: ReadonlySet<number>): HTMLElement {
    const actions: HTMLElement[] = [];
    if (!isCurrent(v)) {
      const restore = h(
        'button',
        {
          class: 'small',
          'aria-label': `Restore version #${v.id}`,
          title: 'Make it active again, as a memory of its own; the newer version stays active too',
          'data-testid': 'memory-restore',
        },
        'Restore',
      );
      restore.addEventListener('click', () => void this.restore(v, false));
      actions.push(restore);
      if (v.superseded_by !== null && current.has(v.superseded_by)) {
        const replace = h(
          'button',
          {
            class: 'small',
            'aria-label': `Make current: version #${v.id} replaces #${v.superseded_by}`,
            title: `Make it the current version again, superseding #${v.superseded_by}`,
            'data-testid': 'memory-restore-replace',
          },
          'Make current',
        );
        replace.addEventListener('click', () => void this.restore(v, true));
        actions.push(replace);
      }
    }
    return versionItem(
      v,
      'memory-version',
      true,
      ...(actions.length > 0 ? [h('div', { class: 'memory-version-actions' }, ...actions)] : []),
    );
  }

  /**
   * "Make current" keeps the update chain: the history stays open on the restored
   * version. A plain restore cuts the chain on purpose, so the restored memory is
   * a card of its own and the history that listed it is stale: it closes, and the
   * restored card takes the focus.
   */
  private async restore(v: Memory, replace: boolean): Promise<void> {
    const result = await attempt(() => this.api.restoreMemory(v.id, replace));
    if (!result) return;
    toast(restoredMessage(result, v.superseded_by !== null));
    const id = result.memory.id;
    this.historyOf = result.replaced ? id : null;
    await this.refresh();
    if (result.replaced) {
      // The list was rebuilt: keep keyboard focus on the history that was being worked on.
      const slot = this.slots.get(id);
      (slot && !slot.box.hidden ? slot.box : this.search).focus();
      return;
    }
    let card = this.cards.get(id);
    if (!card) {
      // The search does not find it on its own: show it anyway, first.
      card = this.item({ memory: result.memory, folded: [] });
      this.list.querySelector(':scope > .empty')?.remove();
      this.list.prepend(card);
    }
    card.classList.add('restored');
    card.tabIndex = -1;
    card.focus();
    card.scrollIntoView({ block: 'nearest' });
  }
}
