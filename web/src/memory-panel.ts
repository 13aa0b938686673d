/** The memory panel: list, search, add, pin and delete long-term memories. */
import type { Api } from './api.js';
import { attempt, byId, clear, h, toast } from './dom.js';
import { icon } from './icons.js';
import { relativeTime } from './text.js';
import type { Memory } from './types.js';

const CATEGORIES = ['general', 'fact', 'preference', 'instruction', 'reminder'];

export class MemoryPanel {
  private readonly list = byId('memory-list');
  private readonly search = byId<HTMLInputElement>('memory-search');
  private readonly input = byId<HTMLTextAreaElement>('memory-input');
  private readonly category = byId<HTMLSelectElement>('memory-category');
  private timer = 0;

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
    const q = this.search.value.trim();
    const result = await attempt(() => (q ? this.api.searchMemory(q) : this.api.listMemory()));
    if (!result) return;
    this.render(result.data, q);
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
    toast(result.outcome === 'duplicate' ? 'Already remembered' : 'Memory saved');
    await this.refresh();
  }

  private render(memories: Memory[], query: string): void {
    clear(this.list);
    if (memories.length === 0) {
      this.list.appendChild(h('li', { class: 'empty' }, query ? 'No memory matches' : 'No memories yet'));
      return;
    }
    for (const memory of memories) this.list.appendChild(this.item(memory));
  }

  private item(memory: Memory): HTMLElement {
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
    return h(
      'li',
      { class: 'memory', 'data-testid': 'memory-item', 'data-memory-id': String(memory.id) },
      h('div', { class: 'memory-content' }, memory.content),
      h(
        'div',
        { class: 'memory-meta' },
        h('span', { class: 'badge' }, memory.category),
        memory.pinned ? h('span', { class: 'badge pinned' }, 'pinned') : null,
        h('span', {}, relativeTime(memory.created_at)),
        h('span', { class: 'tool-spacer' }),
        pin,
        del,
      ),
    );
  }
}
