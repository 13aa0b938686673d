/**
 * The memory panel's pieces that hold no state: dates, badges, messages, the
 * folded versions of a card, and how search hits become list items.
 */
import { append, h } from './dom.js';
import { localDateTime } from './text.js';
import type { Memory, MemoryHit, RememberResult, RestoreResult } from './types.js';

/**
 * One card of the list: a memory, its search score, and the inactive versions
 * folded under it. `sibling` is set on an active version that the search found
 * with (and folded under) another active one: it gets a card of its own.
 */
export interface MemoryEntry {
  memory: Memory;
  score?: number;
  folded: Memory[];
  sibling?: number;
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
export const isCurrent = (m: Memory): boolean => m.valid_to === null && m.deleted_at === null;
const isHit = (m: Memory): m is MemoryHit => 'score' in m;

/**
 * The cards for a list or search answer. Every active memory is a card of its own
 * (a plain restore makes two versions active and separate); an inactive version
 * is folded under the card its update chain leads to, else under the answer.
 * An answer that is itself an old version (a question about a past time) keeps
 * all its versions folded, the current one included.
 */
export function entries(data: Array<Memory | MemoryHit>): MemoryEntry[] {
  const out: MemoryEntry[] = [];
  for (const m of data) {
    if (!isHit(m)) {
      out.push({ memory: m, folded: [] });
      continue;
    }
    const own: MemoryEntry = { memory: m, score: m.score, folded: [] };
    if (!isCurrent(m)) {
      out.push({ ...own, folded: m.versions });
      continue;
    }
    const cards = new Map<number, MemoryEntry>([[m.id, own]]);
    for (const v of m.versions) if (isCurrent(v)) cards.set(v.id, { memory: v, folded: [], sibling: m.id });
    const family = new Map<number, Memory>([m, ...m.versions].map((v) => [v.id, v]));
    for (const v of m.versions) {
      if (isCurrent(v)) continue;
      let head: Memory = v;
      for (let steps = 0; !isCurrent(head) && head.superseded_by !== null && steps < family.size; steps++) {
        const next = family.get(head.superseded_by);
        if (next === undefined) break;
        head = next;
      }
      (cards.get(head.id) ?? own).folded.push(v);
    }
    out.push(...cards.values());
  }
  return out;
}

/** A local date and time, "2025-03-02 14:05", in a <time> element. */
export function when(ms: number, title?: string): HTMLElement {
  return h('time', { datetime: new Date(ms).toISOString(), title }, localDateTime(ms));
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

/** One version in a list: "#id content", then its dates (and state, in a history). */
export function versionItem(
  v: Memory,
  testId: string,
  withState: boolean,
  ...extra: HTMLElement[]
): HTMLElement {
  return h(
    'li',
    {
      class: `memory-version${withState && isCurrent(v) ? ' current' : ''}`,
      'data-testid': testId,
      'data-memory-id': String(v.id),
    },
    h('div', { class: 'memory-version-text' }, h('span', { class: 'memory-id' }, `#${v.id} `), v.content),
    h(
      'div',
      { class: 'memory-meta' },
      withState ? stateBadge(v) : null,
      validity(v),
      !withState && isCurrent(v) ? h('span', { class: 'badge state-current' }, 'also active') : null,
    ),
    ...extra,
  );
}

/** The versions folded under a card, collapsed: "1 earlier version". */
export function foldedVersions(memory: Memory, versions: Memory[]): HTMLElement {
  const earlier = versions.every((v) => v.valid_from <= memory.valid_from);
  return h(
    'details',
    { class: 'memory-versions', 'data-testid': 'memory-versions' },
    h('summary', {}, plural(versions.length, earlier ? 'earlier version' : 'other version')),
    h(
      'ol',
      { class: 'memory-version-list' },
      ...versions.map((v) => versionItem(v, 'memory-folded-version', false)),
    ),
  );
}

/** The card's badges and date: category, pinned, score, "also active". */
export function cardMeta(entry: MemoryEntry): HTMLElement {
  const { memory, score, sibling } = entry;
  return h(
    'div',
    { class: 'memory-meta' },
    h('span', { class: 'badge', title: 'Category', 'data-testid': 'memory-category-badge' }, memory.category),
    memory.pinned ? h('span', { class: 'badge pinned' }, 'pinned') : null,
    score === undefined
      ? null
      : h(
          'span',
          { class: 'badge score', title: 'Relevance to the search (0 to 1)', 'data-testid': 'memory-score' },
          h('span', { class: 'sr-only' }, 'relevance '),
          score.toFixed(2),
        ),
    sibling === undefined
      ? null
      : h(
          'span',
          {
            class: 'badge state-current',
            title: `Another active version of the fact in #${sibling}`,
            'data-testid': 'memory-also-active',
          },
          'also active',
        ),
    when(memory.created_at, 'Saved'),
  );
}

export function savedMessage(r: RememberResult): string {
  if (r.outcome === 'duplicate') return 'Already remembered';
  if (r.outcome === 'update' && r.superseded) return `Memory saved; it replaces #${r.superseded.id}`;
  if (r.outcome === 'history') return 'Saved as an earlier version of a newer memory';
  return 'Memory saved';
}

export function restoredMessage(r: RestoreResult, wasSuperseded: boolean): string {
  if (r.replaced) return `Current again as #${r.memory.id}; #${r.replaced.id} is now an earlier version`;
  return wasSuperseded
    ? `#${r.memory.id} restored: it is active again beside the newer version`
    : `#${r.memory.id} restored`;
}
