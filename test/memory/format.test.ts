import { describe, expect, it } from 'vitest';
import {
  formatMemories,
  formatMemoryLine,
  memoryPrefix,
  PROFILE_MAX_CHARS,
} from '../../src/memory/format.js';
import { DAY_MS } from '../../src/memory/select.js';
import { mem, NOW } from './memory-factory.js';

describe('memoryPrefix', () => {
  it('applies CRITICAL, reminder, preference, fact, other in that precedence', () => {
    expect(memoryPrefix(mem(1, { priority: 0, category: 'reminder' }))).toBe('!!! Must follow:');
    expect(memoryPrefix(mem(1, { priority: 1, category: 'reminder' }))).toBe('⏰ Reminder:');
    expect(memoryPrefix(mem(1, { priority: 1, category: 'preference' }))).toBe('💡 Preference:');
    expect(memoryPrefix(mem(1, { priority: 2, category: 'fact' }))).toBe('Fact:');
    expect(memoryPrefix(mem(1, { priority: 3, category: 'general' }))).toBe('📎');
    expect(memoryPrefix(mem(1, { priority: 1, category: 'instruction' }))).toBe('📎');
  });

  it('marks pinned memories, and only those, with 📌', () => {
    expect(memoryPrefix(mem(1, { category: 'fact', pinned: true }))).toBe('📌 Fact:');
    expect(memoryPrefix(mem(1, { priority: 0, category: 'instruction', pinned: true }))).toBe(
      '📌 !!! Must follow:',
    );
    expect(memoryPrefix(mem(1, { priority: 3, category: 'general', pinned: true }))).toBe('📌');
    expect(memoryPrefix(mem(1, { category: 'fact', pinned: false }))).not.toContain('📌');
  });
});

describe('formatMemoryLine', () => {
  it('puts a memory on one line and shows a reminder due date', () => {
    const due = Date.UTC(2025, 6, 4, 15, 30);
    expect(
      formatMemoryLine(
        mem(1, { category: 'reminder', priority: 1, content: 'renew\n  passport', expiresAt: due }),
      ),
    ).toBe('- ⏰ Reminder: renew passport (due 2025-07-04)');
    expect(formatMemoryLine(mem(2, { category: 'reminder', priority: 1, content: 'stretch' }))).toBe(
      '- ⏰ Reminder: stretch',
    );
    expect(formatMemoryLine(mem(3, { category: 'fact', content: 'lives in Paris', expiresAt: due }))).toBe(
      '- Fact: lives in Paris',
    );
  });

  it('appends the earlier versions of a fact with the dates they held', () => {
    const day = (d: number) => Date.UTC(2025, 0, d);
    const now = mem(3, { content: 'Heron runs on port 9300', validFrom: day(20) });
    const v2 = mem(2, { content: 'Heron runs on port 9191', validFrom: day(10), validTo: day(20) });
    const v1 = mem(1, { content: 'Heron runs on port 9090', validFrom: day(1) });
    expect(formatMemoryLine(now, [v2, v1])).toBe(
      '- Fact: Heron runs on port 9300 (since 2025-01-20; earlier: "Heron runs on port 9191" until 2025-01-20; "Heron runs on port 9090" until 2025-01-10)',
    );
    // Newer versions (a past answer) are not "earlier".
    expect(formatMemoryLine(v1, [now])).toBe('- Fact: Heron runs on port 9090');
  });
});

describe('formatMemories', () => {
  it('returns empty text for nothing to say', () => {
    expect(formatMemories([])).toBe('');
    expect(formatMemories([], '   ')).toBe('');
  });

  it('groups CRITICAL first and keeps the given order for the rest', () => {
    const list = [
      mem(1, { category: 'fact', content: 'uses pnpm' }),
      mem(2, { priority: 0, category: 'instruction', content: 'never push to main' }),
      mem(3, { priority: 1, category: 'preference', content: 'likes short answers' }),
      mem(4, { priority: 0, category: 'instruction', content: 'write tests first' }),
      mem(5, { priority: 3, category: 'general', content: 'has a cat' }),
    ];
    expect(formatMemories(list)).toBe(
      [
        '- !!! Must follow: never push to main',
        '- !!! Must follow: write tests first',
        '- Fact: uses pnpm',
        '- 💡 Preference: likes short answers',
        '- 📎 has a cat',
      ].join('\n'),
    );
  });

  it('adds a profile section before the memories, under the caller\'s one "## Memories" heading', () => {
    const out = formatMemories([mem(1, { content: 'x' })], 'Senior Go developer.');
    expect(out).toBe('### User profile\nSenior Go developer.\n\n### Remembered\n- Fact: x');
    expect(out).not.toContain('## Memories');
    expect(formatMemories([], 'Likes tea.')).toBe('### User profile\nLikes tea.');
  });

  it('truncates a long profile with a note', () => {
    const profile = 'a'.repeat(PROFILE_MAX_CHARS + 250);
    const out = formatMemories([], profile);
    const body = out.split('\n')[1]!;
    expect(body).toBe(`${'a'.repeat(PROFILE_MAX_CHARS)}…`);
    expect(out).toContain(
      `profile truncated: showing ${PROFILE_MAX_CHARS} of ${PROFILE_MAX_CHARS + 250} characters`,
    );
    expect(formatMemories([], 'b'.repeat(PROFILE_MAX_CHARS))).not.toContain('truncated');
  });

  it('does not split a surrogate pair when truncating', () => {
    const profile = `${'a'.repeat(PROFILE_MAX_CHARS - 1)}😀tail`;
    const body = formatMemories([], profile).split('\n')[1]!;
    expect(body).toBe(`${'a'.repeat(PROFILE_MAX_CHARS - 1)}…`);
  });

  it('formats reminders with due dates inside the block', () => {
    const out = formatMemories([
      mem(1, { category: 'reminder', priority: 1, content: 'dentist', expiresAt: NOW + 2 * DAY_MS }),
    ]);
    expect(out).toBe('- ⏰ Reminder: dentist (due 2025-06-03)');
  });
});
