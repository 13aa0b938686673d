/**
 * The memory panel: list, search (with 0–1 scores and a fact's earlier versions
 * folded under it), add, pin and delete long-term memories, and each memory's
 * version history with restore.
 */
import type { Api } from './api.js';
import { append, attempt, byId, clear, h, toast } from './dom.js';
import { icon } from './icons.js';
import { relativeTime } from './text.js';
import type { Memory, MemoryHit, RememberResult, RestoreResult } from './types.js';

const CATEGORIES = ['general', 'fact', 'preference', 'instruction', 'reminder'];

/** Where a memory's history is shown: under the list item that holds it. */
interface HistorySlot {
  button: HTMLButtonElement;
  box: HTMLElement;
  /** Whose history the box shows (a folded version's, after a restore). */
  shows?: number;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const isCurrent = (m: Memory): boolean => m.valid_to === null && m.deleted_at === null;
const isHit = (m: Memory): m is MemoryHit => 'score' in m;

/** A local date and time, "2025-03-02 14:05", in a <time> element. */
function when(ms: number): HTMLElement {
  const d = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const text = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return h('time', { datetime: d.toISOString() }, text);
}

/** "from → until", or "since from" for a version that still holds. */
function validity(m: Memory): HTMLElement {
  const span = h('span', { class: 'memory-validity' });
  const end = m.valid_to ?? m.deleted_at;
  if (end === null) append(span, 'since ', when(m.valid_from));
  else append(span, when(m.valid_from), ' → ', when(end));
  return span;
}

/** "current", "superseded by #n" or "deleted", as a badge. */
function stateBadge(m: Memory): HTMLElement {
  if (m.deleted_at !== null) return h('span', { class: 'badge state-deleted' }, 'deleted');
  if (m.superseded_by !== null) {
    return h('span', { class: 'badge state-superseded' }, `superseded by #${m.superseded_by}`);
  }
  return h('span', { class: 'badge state-current' }, m.valid_to === null ? 'current' : 'ended');
}

function savedMessage(r: RememberResult): string {
  if (r.outcome === 'duplicate') return 'Already remembered';
  if (r.outcome === 'update' && r.superseded) return `Memory saved; it replaces #${r.superseded.id}`;
  if (r.outcome === 'history') return 'Saved as an earlier version of a newer memory';
  return 'Memory saved';
}

function restoredMessage(r: RestoreResult, wasSuperseded: boolean): string {
  if (r.replaced) return `#${r.memory.id} is current again; #${r.replaced.id} is now an earlier version`;
  return wasSuperseded
    ? `#${r.memory.id} restored: it is active again beside the newer version`
    : `#${r.memory.id} restored`;
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
  /** The rendered items by memory id (and by the ids of the versions folded under them). */
  private slots = new Map<number, HistorySlot>();

  constructor(private readonly api: Api) {
    for (const name of CATEGORIES) this.category.appendChild(h('option', { value: name }, name));
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
    this.render(result.data, q);
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

  private render(memories: Array<Memory | MemoryHit>, query: string): void {
    clear(this.list);
    this.slots = new Map();
    if (memories.length === 0) {
      this.list.appendChild(h('li', { class: 'empty' }, query ? 'No memory matches' : 'No memories yet'));
      return;
    }
    for (const memory of memories) this.list.appendChild(this.item(memory));
  }

  private item(memory: Memory | MemoryHit): HTMLElement {
    const pin = h(
      'button',
      {
        class: `icon${memory.pinned ? ' on' : ''}`,
        'aria-label': memory.pinned ? 'Unpin memory' : 'Pin memory',
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
      { class: 'icon danger', 'aria-label': 'Delete memory', 'data-testid': 'memory-delete' },
      icon('trash'),
    );
    del.addEventListener('click', async () => {
      if (await attempt(() => this.api.deleteMemory(memory.id))) await this.refresh();
    });
    const slot = this.historySlot(memory);
    return h(
      'li',
      { class: 'memory', 'data-testid': 'memory-item', 'data-memory-id': String(memory.id) },
      h('div', { class: 'memory-content' }, memory.content),
      h(
        'div',
        { class: 'memory-meta' },
        h('span', { class: 'badge' }, memory.category),
        memory.pinned ? h('span', { class: 'badge pinned' }, 'pinned') : null,
        isHit(memory) ? this.score(memory.score) : null,
        h('span', {}, relativeTime(memory.created_at)),
        h('span', { class: 'memory-actions' }, slot.button, pin, del),
      ),
      isHit(memory) && memory.versions.length > 0 ? this.folded(memory) : null,
      slot.box,
    );
  }

  private score(score: number): HTMLElement {
    return h(
      'span',
      { class: 'badge score', title: 'Relevance to the search (0 to 1)', 'data-testid': 'memory-score' },
      h('span', { class: 'sr-only' }, 'relevance '),
      score.toFixed(2),
    );
  }

  /** The other versions of a search hit's fact, collapsed: "1 earlier version". */
  private folded(hit: MemoryHit): HTMLElement {
    const n = hit.versions.length;
    const earlier = hit.versions.every((v) => v.valid_from <= hit.valid_from);
    const rows = hit.versions.map((v) =>
      h(
        'li',
        { class: 'memory-version', 'data-testid': 'memory-folded-version', 'data-memory-id': String(v.id) },
        h('div', { class: 'memory-version-text' }, v.content),
        h(
          'div',
          { class: 'memory-meta' },
          validity(v),
          isCurrent(v) ? h('span', { class: 'badge state-current' }, 'also active') : null,
        ),
      ),
    );
    return h(
      'details',
      { class: 'memory-versions', 'data-testid': 'memory-versions' },
      h('summary', {}, plural(n, earlier ? 'earlier version' : 'other version')),
      h('ol', { class: 'memory-version-list' }, ...rows),
    );
  }

  /** The History button and the (hidden) box its versions load into. */
  private historySlot(memory: Memory | MemoryHit): HistorySlot {
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
        'data-testid': 'memory-history',
      },
      'History',
    );
    const slot: HistorySlot = { button, box };
    button.addEventListener('click', () => {
      if (box.hidden || slot.shows !== memory.id) {
        this.historyOf = memory.id;
        void this.showHistory(memory.id, slot);
      } else {
        this.historyOf = null;
        box.hidden = true;
        button.setAttribute('aria-expanded', 'false');
      }
    });
    this.slots.set(memory.id, slot);
    if (isHit(memory)) for (const v of memory.versions) if (!this.slots.has(v.id)) this.slots.set(v.id, slot);
    return slot;
  }

  /** Loads the versions of memory `id`'s fact into `slot`, newest first. */
  private async showHistory(id: number, slot: HistorySlot): Promise<void> {
    slot.button.setAttribute('aria-busy', 'true');
    const result = await attempt(() => this.api.memoryHistory(id));
    slot.button.removeAttribute('aria-busy');
    if (!result) return;
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
          : 'No earlier versions',
      ),
      h('ol', { class: 'memory-version-list' }, ...versions.map((v) => this.versionRow(v, current))),
    );
    slot.shows = id;
    slot.box.hidden = false;
    slot.button.setAttribute('aria-expanded', 'true');
  }

  private versionRow(v: Memory, current: ReadonlySet<number>): HTMLElement {
    const actions: HTMLElement[] = [];
    if (!isCurrent(v)) {
      const restore = h(
        'button',
        {
          class: 'small',
          'aria-label': `Restore version #${v.id}`,
          title: 'Make it active again; the newer version stays active too',
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
    return h(
      'li',
      {
        class: `memory-version${isCurrent(v) ? ' current' : ''}`,
        'data-testid': 'memory-version',
        'data-memory-id': String(v.id),
      },
      h('div', { class: 'memory-version-text' }, h('span', { class: 'memory-id' }, `#${v.id} `), v.content),
      h('div', { class: 'memory-meta' }, stateBadge(v), validity(v)),
      actions.length > 0 ? h('div', { class: 'memory-version-actions' }, ...actions) : null,
    );
  }

  private async restore(v: Memory, replace: boolean): Promise<void> {
    const result = await attempt(() => this.api.restoreMemory(v.id, replace));
    if (!result) return;
    toast(restoredMessage(result, v.superseded_by !== null));
    this.historyOf = result.memory.id;
    await this.refresh();
    // The list was rebuilt: keep keyboard focus on the history that was being worked on.
    const slot = this.slots.get(result.memory.id);
    (slot && !slot.box.hidden ? slot.box : this.search).focus();
  }
}
