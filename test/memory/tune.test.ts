import { describe, expect, it } from 'vitest';
import { parseTuning, TUNING_MAX_MEMORIES, tuningPrompt } from '../../src/memory/tune.js';
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

  it('marks pinned memories and tells the model never to lower them', () => {
    const { system, user } = tuningPrompt('tabs', [mem(1, { pinned: true }), mem(2)]);
    expect(system).toContain('Never lower a pinned memory');
    expect(user).toContain('[id=1 MEDIUM(2) pinned] memory number 1');
    expect(user).toContain('[id=2 MEDIUM(2)] memory number 2');
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

  it('never lowers a pinned memory, but may raise it', () => {
    const pinned = [mem(1, { priority: 1, pinned: true }), mem(2, { priority: 2, pinned: true }), mem(3)];
    const text = JSON.stringify([
      { id: 1, priority: 2 },
      { id: 1, priority: 0 },
      { id: 2, priority: 3 },
      { id: 3, priority: 3 },
    ]);
    expect(parseTuning(text, pinned)).toEqual([
      { id: 1, priority: 0, resetAge: true },
      { id: 3, priority: 3, resetAge: false },
    ]);
  });
});
