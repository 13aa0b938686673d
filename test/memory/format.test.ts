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
    expect(memoryPrefix(mem(1, { priority: 2, category: 'fact' }))).toBe('📌 Fact:');
    expect(memoryPrefix(mem(1, { priority: 3, category: 'general' }))).toBe('📎');
    expect(memoryPrefix(mem(1, { priority: 1, category: 'instruction' }))).toBe('📎');
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
      '- 📌 Fact: lives in Paris',
    );
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
        '## Memories',
        '- !!! Must follow: never push to main',
        '- !!! Must follow: write tests first',
        '- 📌 Fact: uses pnpm',
        '- 💡 Preference: likes short answers',
        '- 📎 has a cat',
      ].join('\n'),
    );
  });

  it('adds a profile section before the memories', () => {
    const out = formatMemories([mem(1, { content: 'x' })], 'Senior Go developer.');
    expect(out).toBe('## User profile\nSenior Go developer.\n\n## Memories\n- 📌 Fact: x');
    expect(formatMemories([], 'Likes tea.')).toBe('## User profile\nLikes tea.');
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
    expect(out).toBe('## Memories\n- ⏰ Reminder: dentist (due 2025-06-03)');
  });
});
