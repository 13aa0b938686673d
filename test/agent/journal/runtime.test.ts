/**
 * The operation journal through the runtime: a scripted turn runs `bash` that edits a
 * file and creates another; undo restores both exactly, redo re-applies, a new round
 * drops the redo stack, and the model's next request carries the journal note.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { wireMessages, wireText } from '../../support/wire.js';
import { collect, journalEvent, scriptBash, useRigs } from './helpers.js';

const model = useModelServer();
const rig = useRigs(model);

describe('journal through the runtime', () => {
  it('undo restores a file bash edited and removes one it created; redo puts them back', async () => {
    const { rt, work } = await rig();
    writeFileSync(path.join(work, 'a.txt'), 'one\n');
    const session = rt.sessions.create();
    scriptBash(model(), 'printf "two\\n" > a.txt && printf "new\\n" > b.txt');
    const events = await collect(session.prompt('edit them'));
    const j = journalEvent(events);
    expect(j?.files).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'added' },
    ]);
    // The journal event follows the turn's end and comes before done.
    const types = events.map((e) => e.type);
    expect(types.indexOf('journal')).toBeGreaterThan(types.indexOf('turn_end'));
    expect(types.indexOf('journal')).toBeLessThan(types.indexOf('done'));
    expect(rt.journal.rounds(session.id)).toMatchObject([{ id: j?.roundId, state: 'applied' }]);

    const undone = await rt.journal.undo(session.id);
    expect(undone).toMatchObject({ ok: true, action: 'undo', roundId: j?.roundId });
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(work, 'b.txt'))).toBe(false);
    expect(rt.journal.rounds(session.id)[0]?.state).toBe('undone');

    const redone = await rt.journal.redo(session.id);
    expect(redone).toMatchObject({ ok: true, action: 'redo' });
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('two\n');
    expect(readFileSync(path.join(work, 'b.txt'), 'utf8')).toBe('new\n');
    expect(await rt.journal.redo(session.id)).toMatchObject({ ok: false, reason: 'nothing' });
  });

  it('tells the model in its next request that the files were reverted', async () => {
    const { rt, work } = await rig();
    writeFileSync(path.join(work, 'a.txt'), 'one\n');
    const session = rt.sessions.create();
    scriptBash(model(), 'echo two > a.txt');
    await collect(session.prompt('edit'));
    expect((await rt.journal.undo(session.id)).ok).toBe(true);
    model().reset();
    model().script(reply().text('ok'));
    await collect(session.prompt('what now?'));
    const texts = wireMessages(model().requests[0]!.body).map(wireText);
    const note = texts.find((t) => t.startsWith('[Journal note]'));
    expect(note).toContain('a.txt (restored)');
    expect(texts.indexOf(note!)).toBeLessThan(texts.indexOf('what now?'));
  });

  it('shows a round as a unified diff', async () => {
    const { rt, work } = await rig();
    writeFileSync(path.join(work, 'a.txt'), 'one\n');
    const session = rt.sessions.create();
    scriptBash(model(), 'echo two > a.txt');
    await collect(session.prompt('edit'));
    const diff = await rt.journal.diff(session.id);
    expect(diff?.text).toContain('--- a/a.txt');
    expect(diff?.text).toContain('-one');
    expect(diff?.text).toContain('+two');
  });

  it('records the round when the turn ends in an error after bash changed a file', async () => {
    const { rt, work } = await rig();
    const session = rt.sessions.create();
    model().script(
      reply().toolCall('bash', { command: 'echo x > x.txt' }),
      reply().error(500, { message: 'boom' }),
    );
    const events = await collect(session.prompt('go'));
    expect(events.find((e) => e.type === 'done')).toMatchObject({ reason: 'error' });
    expect(journalEvent(events)?.files).toEqual([{ path: 'x.txt', change: 'added' }]);
    expect((await rt.journal.undo(session.id)).ok).toBe(true);
    expect(existsSync(path.join(work, 'x.txt'))).toBe(false);
  });

  it('records the round of a cancelled turn (the consumer stops reading mid-turn)', async () => {
    const { rt, work } = await rig();
    const session = rt.sessions.create();
    model().script(reply().toolCall('bash', { command: 'echo y > y.txt' }), reply().text('never read'));
    for await (const e of session.prompt('go'))
      if (e.type === 'tool_update' && e.record.state === 'completed') break;
    expect(existsSync(path.join(work, 'y.txt'))).toBe(true);
    expect(rt.journal.rounds(session.id).map((r) => r.files)).toEqual([[{ path: 'y.txt', change: 'added' }]]);
  });

  it('records nothing for a turn that only talks, and says there is nothing to undo', async () => {
    const { rt } = await rig();
    const session = rt.sessions.create();
    model().script(reply().text('hi'));
    const events = await collect(session.prompt('hello'));
    expect(journalEvent(events)).toBeUndefined();
    expect(await rt.journal.undo(session.id)).toMatchObject({ ok: false, reason: 'nothing' });
  });

  it('a new round after an undo drops the redo stack', async () => {
    const { rt, work } = await rig();
    const session = rt.sessions.create();
    scriptBash(model(), 'echo 1 > x.txt');
    await collect(session.prompt('one'));
    expect((await rt.journal.undo(session.id)).ok).toBe(true);
    scriptBash(model(), 'echo 2 > y.txt', 'call_2');
    await collect(session.prompt('two'));
    expect(rt.journal.rounds(session.id).map((r) => r.state)).toEqual(['dropped', 'applied']);
    expect(await rt.journal.redo(session.id)).toMatchObject({ ok: false, reason: 'nothing' });
    expect(existsSync(path.join(work, 'x.txt'))).toBe(false);
  });
});

describe('journal config', () => {
  it('journal.enabled: false records no rounds and says undo is off', async () => {
    const { rt } = await rig({}, undefined, 'journal: { enabled: false }');
    const session = rt.sessions.create();
    scriptBash(model(), 'echo x > x.txt');
    const events = await collect(session.prompt('go'));
    expect(journalEvent(events)).toBeUndefined();
    expect(rt.journal.off).toBe('the journal is turned off (journal.enabled: false)');
    expect(await rt.journal.undo(session.id)).toMatchObject({ ok: false, reason: 'off' });
  });

  it('journal.max_files from the config turns a round off with a notice', async () => {
    const { rt, work } = await rig({}, undefined, 'journal: { max_files: 2 }');
    for (const n of [1, 2, 3]) writeFileSync(path.join(work, `${n}.txt`), 'n');
    const session = rt.sessions.create();
    scriptBash(model(), 'echo x > x.txt');
    const events = await collect(session.prompt('go'));
    const notice = events.find((e) => e.type === 'notice');
    expect(notice?.type === 'notice' && notice.body).toContain('over journal.max_files (2)');
  });
});
