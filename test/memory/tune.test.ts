import { describe, expect, it } from 'vitest';
import { DAY_MS } from '../../src/memory/select.js';
import {
  keywords,
  parseTuning,
  REFLECTION_MAX_CHARS,
  REFLECTION_TAG,
  reflect,
  TUNING_MAX_MEMORIES,
  tuningPrompt,
} from '../../src/memory/tune.js';
import type { Memory } from '../../src/memory/types.js';
import { mem, NOW } from './memory-factory.js';

describe('tuningPrompt', () => {
  it('caps topics and memories and previews each memory with id and priority', () => {
    const list = Array.from({ length: 130 }, (_, i) =>
      mem(i + 1, { priority: 1, content: `item ${i + 1} ${'z'.repeat(200)}` }),
    );
    list.push(mem(999, { deletedAt: NOW, content: 'gone' }));
    const { system, user } = tuningPrompt(`topic ${'t'.repeat(5000)}`, list);
    expect(system).toContain('JSON array');
    expect(system).toContain('one level');
    expect(system).toContain('at most 3');
    const [topicPart, memoryPart] = user.split('\n\nActive memories:\n');
    expect(topicPart!.replace('Recent topics:\n', '')).toHaveLength(2000);
    const lines = memoryPart!.split('\n');
    expect(lines).toHaveLength(TUNING_MAX_MEMORIES);
    expect(lines[0]!.startsWith('[id=1 HIGH(1)] item 1 ')).toBe(true);
    expect(lines[0]!.length).toBe('[id=1 HIGH(1)] '.length + 80);
    expect(user).not.toContain('gone');
  });
});

describe('parseTuning', () => {
  const pool = [
    mem(1, { priority: 0 }),
    mem(2, { priority: 1 }),
    mem(3, { priority: 2 }),
    mem(4, { priority: 3 }),
    mem(5, { priority: 2 }),
    mem(6, { priority: 2, deletedAt: NOW }),
  ];

  it('reads a plain JSON array and flags promotions for an age reset', () => {
    expect(parseTuning('[{"id": 3, "priority": 1}, {"id": 2, "priority": 2}]', pool)).toEqual([
      { id: 3, priority: 1, resetAge: true },
      { id: 2, priority: 2, resetAge: false },
    ]);
  });

  it('reads a fenced block with prose around it', () => {
    const text = 'Sure! Here are my changes:\n```json\n[{"id": 4, "priority": 2}]\n```\nHope this helps.';
    expect(parseTuning(text, pool)).toEqual([{ id: 4, priority: 2, resetAge: true }]);
  });

  it('reads an array embedded in prose, with trailing commas and single quotes', () => {
    const text =
      'I would change these: [{\'id\': 5, \'priority\': 3,}, {"id": "2", "priority": "MEDIUM"},] ok?';
    expect(parseTuning(text, pool)).toEqual([
      { id: 5, priority: 3, resetAge: false },
      { id: 2, priority: 2, resetAge: false },
    ]);
  });

  it('repairs a cut-off array', () => {
    expect(parseTuning('[{"id": 3, "priority": 1}, {"id": 4, "prio', pool)).toEqual([
      { id: 3, priority: 1, resetAge: true },
    ]);
  });

  it('reads an object wrapping the array', () => {
    expect(parseTuning('{"changes": [{"id": 1, "priority": 1}]}', pool)).toEqual([
      { id: 1, priority: 1, resetAge: false },
    ]);
  });

  it('drops unknown and inactive ids, no-ops and malformed entries', () => {
    const text =
      '[{"id": 77, "priority": 1}, {"id": 6, "priority": 1}, {"id": 3, "priority": 2}, {"id": "x"}, 5, null, {"id": 3.5, "priority": 1}]';
    expect(parseTuning(text, pool)).toEqual([]);
  });

  it('clamps jumps of two or more levels to one', () => {
    expect(
      parseTuning('[{"id": 4, "priority": 0}, {"id": 1, "priority": 3}, {"id": 3, "priority": -4}]', pool),
    ).toEqual([
      { id: 4, priority: 2, resetAge: true },
      { id: 1, priority: 1, resetAge: false },
      { id: 3, priority: 1, resetAge: true },
    ]);
  });

  it('keeps at most three changes, the first per id', () => {
    const text = JSON.stringify([
      { id: 2, priority: 0 },
      { id: 2, priority: 2 },
      { id: 3, priority: 3 },
      { id: 4, priority: 2 },
      { id: 5, priority: 1 },
    ]);
    expect(parseTuning(text, pool)).toEqual([
      { id: 2, priority: 0, resetAge: true },
      { id: 3, priority: 3, resetAge: false },
      { id: 4, priority: 2, resetAge: true },
    ]);
  });

  it('returns nothing for text with no usable JSON', () => {
    expect(parseTuning('', pool)).toEqual([]);
    expect(parseTuning('No changes are needed.', pool)).toEqual([]);
    expect(parseTuning('[]', pool)).toEqual([]);
    expect(parseTuning('{"id": 3, "priority": 1}', pool)).toEqual([]);
  });
});

describe('keywords', () => {
  it('keeps meaningful words and splits Han text into bigrams', () => {
    expect(keywords('The user prefers TypeScript and dark-mode, 2024!')).toEqual(['typescript', 'dark-mode']);
    expect(keywords('喜欢咖啡')).toEqual(['喜欢', '欢咖', '咖啡']);
  });
});

describe('reflect', () => {
  const recent = (id: number, over: Partial<Memory>) => mem(id, { createdAt: NOW - 2 * DAY_MS, ...over });

  it('summarises each category with two or more recent non-critical memories and demotes the originals', () => {
    const list = [
      recent(1, {
        category: 'preference',
        priority: 1,
        importance: 4,
        content: 'Prefers dark mode in the editor',
      }),
      recent(2, {
        category: 'preference',
        priority: 1,
        importance: 1,
        content: 'Likes the editor font large',
      }),
      recent(3, {
        category: 'preference',
        priority: 1,
        importance: 3,
        content: 'Wants dark terminal themes',
      }),
      recent(4, { category: 'fact', priority: 2, importance: 3, content: 'Project uses PostgreSQL' }),
      recent(5, { category: 'instruction', priority: 0, importance: 5, content: 'Never force push' }),
      recent(6, { category: 'instruction', priority: 0, importance: 5, content: 'Always run tests' }),
    ];
    const out = reflect(list, NOW);
    expect(out).toHaveLength(1);
    const [only] = out;
    expect(only!.category).toBe('preference');
    expect(only!.demote).toEqual([1, 3]);
    expect(only!.summary).toMatchObject({
      category: 'preference',
      priority: 1,
      importance: 5,
      scope: 'user',
    });
    expect(
      only!.summary.content.startsWith('Summary of 3 recent preferences (key topics: dark, editor,'),
    ).toBe(true);
    expect(only!.summary.content).toContain('Prefers dark mode in the editor');
    expect(only!.summary.tags?.[0]).toBe(REFLECTION_TAG);
    expect(only!.summary.tags).toContain('dark');
  });

  it('only looks at the last 30 days, live memories and non-summaries', () => {
    const list = [
      mem(1, { category: 'fact', createdAt: NOW - 31 * DAY_MS }),
      recent(2, { category: 'fact' }),
      recent(3, { category: 'fact', deletedAt: NOW - 1 }),
      recent(4, { category: 'fact', supersededBy: 2, validTo: NOW - 1 }),
      recent(5, { category: 'fact', tags: [REFLECTION_TAG] }),
      recent(6, { category: 'fact', expiresAt: NOW - 1 }),
    ];
    expect(reflect(list, NOW)).toEqual([]);
  });

  it('groups per scope so project memories stay in their project', () => {
    const list = [
      recent(1, { category: 'fact', scope: 'project:/b', content: 'uses rust' }),
      recent(2, { category: 'fact', scope: 'project:/a', content: 'uses go' }),
      recent(3, { category: 'fact', scope: 'project:/b', content: 'uses cargo' }),
      recent(4, { category: 'general', scope: 'user', content: 'owns a bike' }),
      recent(5, { category: 'general', scope: 'user', content: 'owns a boat' }),
      recent(6, { category: 'fact', scope: 'project:/a', content: 'uses make' }),
    ];
    const out = reflect(list, NOW);
    expect(out.map((r) => [r.category, r.summary.scope, r.demote])).toEqual([
      ['fact', 'project:/a', [2, 6]],
      ['fact', 'project:/b', [1, 3]],
      ['general', 'user', [4, 5]],
    ]);
  });

  it('caps the summary at 400 characters and keeps a due date only if all reminders have one', () => {
    const long = Array.from({ length: 12 }, (_, i) =>
      recent(i + 1, {
        category: 'reminder',
        priority: 1,
        content: `call supplier ${i} about order ${'q'.repeat(60)}`,
        expiresAt: NOW + (i + 1) * DAY_MS,
      }),
    );
    const [first] = reflect(long, NOW);
    expect(first!.summary.content.length).toBeLessThanOrEqual(REFLECTION_MAX_CHARS);
    expect(first!.summary.content.endsWith('…')).toBe(true);
    expect(first!.summary.expiresAt).toBe(NOW + 12 * DAY_MS);
    const mixed = [
      recent(1, { category: 'reminder', expiresAt: NOW + DAY_MS }),
      recent(2, { category: 'reminder' }),
    ];
    expect(reflect(mixed, NOW)[0]!.summary.expiresAt).toBeNull();
  });
});
