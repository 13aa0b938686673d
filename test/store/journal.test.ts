/** Migration 14: the journal's rounds and files, the redo stack they keep, and their cascade. */
import { describe, expect, it } from 'vitest';
import { migrations, schemaVersion } from '../../src/store/index.js';
import { useStore } from './helpers.js';

const open = useStore();

const file = (p: string) => ({
  path: p,
  beforeBlob: null,
  afterBlob: 'b'.repeat(40),
  beforeMode: null,
  afterMode: '100644',
});

describe('journal rows (migration 14)', () => {
  it('is migration 14, and a new database is at the newest version', () => {
    expect(migrations.map((m) => m.version)[13]).toBe(14);
    const { store } = open();
    expect(schemaVersion(store.db)).toBe(migrations.length);
  });

  it('keeps rounds per session: undo takes the newest applied, redo the oldest undone; a new round drops the undone', () => {
    const { store } = open();
    const s = store.sessions.create({ cwd: '/w' }).id;
    const add = (turnId: string) =>
      store.journal.add({
        sessionId: s,
        turnId,
        workspace: '/w',
        beforeTree: 'a',
        afterTree: 'b',
        files: [file(`${turnId}.txt`)],
      });
    const [r1, r2, r3] = [add('t1'), add('t2'), add('t3')];
    expect(store.journal.lastApplied(s)?.id).toBe(r3.id);
    store.journal.setState(r3.id, 'undone');
    store.journal.setState(r2.id, 'undone');
    expect(store.journal.lastApplied(s)?.id).toBe(r1.id);
    expect(store.journal.firstUndone(s)?.id).toBe(r2.id);
    const r4 = add('t4');
    expect(store.journal.list(s).map((r) => [r.id, r.state])).toEqual([
      [r1.id, 'applied'],
      [r2.id, 'dropped'],
      [r3.id, 'dropped'],
      [r4.id, 'applied'],
    ]);
    expect(store.journal.get(r4.id)?.files).toEqual([file('t4.txt')]);
  });

  it('deleting the session deletes its rounds and their files', () => {
    const { store } = open();
    const s = store.sessions.create({ cwd: '/w' }).id;
    store.journal.add({
      sessionId: s,
      turnId: 't',
      workspace: '/w',
      beforeTree: 'a',
      afterTree: 'b',
      files: [file('x')],
    });
    store.sessions.delete(s);
    expect(store.db.prepare('SELECT count(*) FROM journal_files').pluck().get()).toBe(0);
    expect(store.journal.list(s)).toEqual([]);
  });

  it('refuses a state outside applied | undone | dropped', () => {
    const { store } = open();
    const s = store.sessions.create({ cwd: '/w' }).id;
    const r = store.journal.add({
      sessionId: s,
      turnId: 't',
      workspace: '/w',
      beforeTree: 'a',
      afterTree: 'b',
      files: [],
    });
    expect(() => store.journal.setState(r.id, 'gone' as 'undone')).toThrow(/CHECK constraint/);
  });
});
