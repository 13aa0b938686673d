/**
 * Lessons in recall: a lesson is a candidate only for a prompt that shares enough
 * meaningful words with it; other memories are unaffected. Through the real service
 * (offline embedder, SQLite), and the rule itself as a table.
 */
import { describe, expect, it } from 'vitest';
import { lessonRelevant, lessonTerms, stemWord } from '../../src/memory/lessons.js';
import { useService } from './service-fixtures.js';

const open = useService();

const LESSON = {
  content:
    'When vitest tests fail after a SQLite migration, run the store tests first and check the migration number before editing repositories.',
  tags: ['testing'],
};
const LESSON_ZH = { content: '数据库迁移之后要先运行存储层测试，再修改仓库代码。', tags: ['testing'] };

describe('lessonRelevant', () => {
  it.each([
    ['add a SQLite migration for the orders table', true],
    ['the vitest tests fail, fix them', true],
    ['Run the store tests', true],
    ['migrations', true],
    ['what is the weather in Berlin?', false],
    ['write a haiku about autumn', false],
    ['please help me with this file', false],
    ['', false],
    ['fix the tests', false],
  ])('%j → %s', (prompt, expected) => {
    expect(lessonRelevant(LESSON, lessonTerms(prompt))).toBe(expected);
  });

  it.each([
    ['帮我给订单表加一个数据库迁移', true],
    ['运行存储层测试', true],
    ['今天天气怎么样', false],
  ])('Chinese: %j → %s', (prompt, expected) => {
    expect(lessonRelevant(LESSON_ZH, lessonTerms(prompt))).toBe(expected);
  });

  it.each([
    ['tests', 'test'],
    ['testing', 'test'],
    ['tested', 'test'],
    ['running', 'run'],
    ['migrations', 'migration'],
    ['fixes', 'fix'],
    ['dependencies', 'dependency'],
    ['class', 'class'],
    ['status', 'status'],
    ['迁移', '迁移'],
  ])('stem %j → %j', (word, stem) => {
    expect(stemWord(word)).toBe(stem);
  });
});

describe('recall with lessons', () => {
  it('brings a lesson back, marked, for a similar task and not for an unrelated one', async () => {
    const { service } = open();
    const scope = 'project:/work/app';
    await service.remember({ ...LESSON, category: 'lesson', importance: 4, scope });
    await service.remember({
      content: 'The user prefers short answers',
      category: 'preference',
      scope: 'user',
    });
    const scopes = [scope, 'user', 'global'];

    const similar = await service.recall('the vitest migration tests fail again', { scopes });
    expect(similar.text).toContain(`- ⚠ Lesson: ${LESSON.content}`);
    expect(similar.text).toContain('💡 Preference: The user prefers short answers');

    const unrelated = await service.recall('what is the weather in Berlin?', { scopes });
    expect(unrelated.text).not.toContain('Lesson');
    // The other memory still competes as before.
    expect(unrelated.text).toContain('💡 Preference: The user prefers short answers');
  });

  it('a lesson lifted to HIGH priority (tuning, by hand) still needs the prompt to be about it', async () => {
    const { service } = open();
    const m = await service.remember({ ...LESSON, category: 'lesson', priority: 1, scope: 'user' });
    expect(m.memory.priority).toBe(1);
    expect((await service.recall('write a haiku about autumn', { scopes: ['user'] })).text).toBe('');
    expect((await service.recall('fix the failing vitest tests', { scopes: ['user'] })).text).toContain(
      '⚠ Lesson:',
    );
  });

  it('the same lesson twice is one memory (ingest finds the duplicate)', async () => {
    const { service } = open();
    const first = await service.ingest([{ ...LESSON, category: 'lesson', about: 'project' }], {
      scope: 'user',
      projectScope: 'project:/w',
    });
    const second = await service.ingest([{ ...LESSON, category: 'lesson', about: 'project' }], {
      scope: 'user',
      projectScope: 'project:/w',
    });
    expect(first[0]!.outcome).toBe('new');
    expect(second[0]).toMatchObject({ outcome: 'duplicate', memory: { id: first[0]!.memory.id } });
    expect(service.list({ category: 'lesson' })).toHaveLength(1);
  });
});
