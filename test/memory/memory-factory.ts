/** A plain `Memory` object for the pure memory modules' tests (no database). */
import { DAY_MS } from '../../src/memory/select.js';
import type { Memory } from '../../src/memory/types.js';

/** The fixed "now" of these tests. */
export const NOW = Date.UTC(2025, 5, 1);

/** A MEDIUM fact of importance 3, created half a day before NOW; `over` changes any field. */
export function mem(id: number, over: Partial<Memory> = {}): Memory {
  return {
    id,
    content: `memory number ${id}`,
    priority: 2,
    importance: 3,
    category: 'fact',
    tags: [],
    contentHash: id.toString(16).padStart(16, '0'),
    expiresAt: null,
    pinned: false,
    createdAt: NOW - DAY_MS / 2,
    accessedAt: null,
    accessCount: 0,
    validFrom: NOW - DAY_MS,
    validTo: null,
    supersededBy: null,
    subject: null,
    attribute: null,
    sourceSessionId: null,
    sourceMessageId: null,
    scope: 'user',
    deletedAt: null,
    ...over,
  };
}
