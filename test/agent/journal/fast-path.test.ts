/**
 * The journal's fast path: a turn whose only changes are by write_file, append_file or
 * edit_file captures just those files (no git process, no walk of the workspace), and
 * undo, redo, /diff and the conflict check work on such rounds as on snapshotted ones;
 * a turn mixing them with bash keeps each file's state from before the turn.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { shadowDir } from '../../../src/agent/journal/shadow.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';
import { journalFiles, useDirect } from './direct.js';
import { collect, journalEvent, useRigs } from './helpers.js';

const model = useModelServer();
const rig = useRigs(model);
const direct = useDirect();

/** A `git` that logs its arguments to `log` (a line a run) and runs the real one. */
function countingGit(dir: string): { git: string; calls: () => string[] } {
  const log = path.join(dir, 'git-calls.log');
  const git = path.join(dir, 'git-counting');
  writeFileSync(git, `#!/bin/sh\necho "$*" >> '${log}'\nexec git "$@"\n`);
  chmodSync(git, 0o755);
  return {
    git,
    // The subcommand of each run (after the `-c name=value` pairs), `--version` for the check for git.
    calls: () =>
      (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []).map(
        (line) => line.split(' ').find((w, i, all) => !w.startsWith('-') && all[i - 1] !== '-c') ?? line,
      ),
  };
}

describe('the journal fast path (direct)', () => {
  it('captures a named file with no git process after the shadow repository exists', async () => {
    const probe = direct();
    const counting = countingGit(probe.home);
    const d = direct({ git: counting.git });
    writeFileSync(path.join(d.work, 'a.txt'), 'one\n');
    const s = d.session();
    const file = path.join(d.work, 'a.txt');
    const first = d.journal.round(s, 't_1', d.work)!;
    await first.beforeChange([file]);
    writeFileSync(file, 'two\n');
    expect(journalFiles(await first.finish())).toEqual([{ path: 'a.txt', change: 'modified' }]);
    // Checking for git and creating the shadow repository are the only git runs.
    expect(counting.calls()).toEqual(['--version', 'init']);
    const second = d.journal.round(s, 't_2', d.work)!;
    await second.beforeChange([file, path.join(d.work, 'new.txt')]);
    writeFileSync(file, 'three\n');
    writeFileSync(path.join(d.work, 'new.txt'), 'n\n');
    expect(journalFiles(await second.finish())).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'new.txt', change: 'added' },
    ]);
    expect(counting.calls()).toEqual(['--version', 'init']);
    // Undo reads the captured bytes back (through git cat-file): exact.
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    expect(existsSync(path.join(d.work, 'new.txt'))).toBe(false);
  });

  it('records nothing for a capture that did not change, and nothing outside the workspace', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'same.txt'), 'x\n');
    const s = d.session();
    const round = d.journal.round(s, 't_1', d.work)!;
    await round.beforeChange([path.join(d.work, 'same.txt'), path.join(d.home, 'outside.txt')]);
    writeFileSync(path.join(d.home, 'outside.txt'), 'o\n');
    expect(await round.finish()).toEqual([]);
    expect(d.journal.rounds(s)).toEqual([]);
  });

  it('turns the round off with a notice for a file over max_file_bytes', async () => {
    const d = direct({ limits: { maxFileBytes: 10 } });
    writeFileSync(path.join(d.work, 'big.txt'), 'x'.repeat(11));
    const s = d.session();
    const round = d.journal.round(s, 't_1', d.work)!;
    await round.beforeChange([path.join(d.work, 'big.txt')]);
    const events = await round.finish();
    expect(events).toMatchObject([{ type: 'notice', title: 'Undo is off for this turn' }]);
    expect(JSON.stringify(events)).toContain('big.txt is 11 bytes, over journal.max_file_bytes (10)');
  });

  it('journals the real file behind a symbolic link, and a file .gitignore leaves out', async () => {
    const d = direct();
    mkdirSync(path.join(d.work, 'real'));
    writeFileSync(path.join(d.work, 'real', 'f.txt'), 'before\n');
    symlinkSync('real', path.join(d.work, 'link'));
    writeFileSync(path.join(d.work, '.gitignore'), 'secret.env\n');
    writeFileSync(path.join(d.work, 'secret.env'), 'A=1\n');
    const s = d.session();
    const round = d.journal.round(s, 't_1', d.work)!;
    await round.beforeChange([path.join(d.work, 'link', 'f.txt'), path.join(d.work, 'secret.env')]);
    writeFileSync(path.join(d.work, 'link', 'f.txt'), 'after\n');
    writeFileSync(path.join(d.work, 'secret.env'), 'A=2\n');
    expect(journalFiles(await round.finish())).toEqual([
      { path: 'real/f.txt', change: 'modified' },
      { path: 'secret.env', change: 'modified' },
    ]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(readFileSync(path.join(d.work, 'real', 'f.txt'), 'utf8')).toBe('before\n');
    expect(readFileSync(path.join(d.work, 'secret.env'), 'utf8')).toBe('A=1\n');
  });
});

describe('the journal fast path (through the runtime)', () => {
  it('undoes write_file and edit_file, shows a git-style diff, and refuses after a user edit', async () => {
    const { rt, work } = await rig();
    writeFileSync(path.join(work, 'a.txt'), 'alpha\nbeta\n');
    const session = rt.sessions.create();
    model().script(
      reply().toolCall('edit_file', { path: 'a.txt', old_string: 'beta', new_string: 'BETA' }, { id: 'c1' }),
      reply().toolCall('write_file', { path: 'sub/new.txt', content: 'fresh\n' }, { id: 'c2' }),
      reply().text('done'),
    );
    const events = await collect(session.prompt('edit'));
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('alpha\nBETA\n');
    expect(journalEvent(events)?.files).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'sub/new.txt', change: 'added' },
    ]);
    const diff = (await rt.journal.diff(session.id))?.text ?? '';
    expect(diff).toContain('diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@');
    expect(diff).toContain('-beta\n+BETA');
    expect(diff).toContain('diff --git a/sub/new.txt b/sub/new.txt\nnew file mode 100644\n--- /dev/null');
    expect(diff).toContain('+fresh');

    writeFileSync(path.join(work, 'a.txt'), 'user edit\n');
    const refused = await rt.journal.undo(session.id);
    expect(refused).toMatchObject({ ok: false, reason: 'conflict', files: ['a.txt'] });
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('user edit\n');
    expect(existsSync(path.join(work, 'sub', 'new.txt'))).toBe(true);

    writeFileSync(path.join(work, 'a.txt'), 'alpha\nBETA\n');
    expect((await rt.journal.undo(session.id)).ok).toBe(true);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('alpha\nbeta\n');
    expect(existsSync(path.join(work, 'sub', 'new.txt'))).toBe(false);
    expect((await rt.journal.redo(session.id)).ok).toBe(true);
    expect(readFileSync(path.join(work, 'sub', 'new.txt'), 'utf8')).toBe('fresh\n');
  });

  it('keeps the state from before the turn when write_file, bash and append_file change one file', async () => {
    const { rt, work } = await rig();
    writeFileSync(path.join(work, 'a.txt'), 'orig\n');
    const session = rt.sessions.create();
    model().script(
      reply().toolCall('write_file', { path: 'a.txt', content: 'written\n' }, { id: 'c1' }),
      reply().toolCall('bash', { command: 'echo bashed >> a.txt && echo b > b.txt' }, { id: 'c2' }),
      reply().toolCall('append_file', { path: 'a.txt', content: 'appended\n' }, { id: 'c3' }),
      reply().text('done'),
    );
    const events = await collect(session.prompt('mix'));
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('written\nbashed\nappended\n');
    expect(journalEvent(events)?.files).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'added' },
    ]);
    const diff = (await rt.journal.diff(session.id))?.text ?? '';
    expect(diff).toContain('-orig');
    expect((await rt.journal.undo(session.id)).ok).toBe(true);
    expect(readFileSync(path.join(work, 'a.txt'), 'utf8')).toBe('orig\n');
    expect(existsSync(path.join(work, 'b.txt'))).toBe(false);
  });
});

describe('the journal fast path: attack table', () => {
  /** One fast-path round over `named` (relative to the workspace, or absolute) with `change` between. */
  async function fastRound(d: ReturnType<typeof direct>, named: string[], change: () => void) {
    const s = d.session();
    const round = d.journal.round(s, 't_1', d.work)!;
    await round.beforeChange(named.map((n) => path.resolve(d.work, n)));
    change();
    return { s, events: await round.finish() };
  }

  it.each([
    ['a path out of the workspace', '../escape.txt'],
    ['an absolute path elsewhere', '/tmp/tea-fast-path-nowhere.txt'],
    ['a .git directory', '.git/config'],
    ['a nested .git segment', 'sub/.git/HEAD'],
    ['a path climbing out through ..', 'a/../../b.txt'],
  ])('%s is not journaled (and nothing is written for it)', async (_what, named) => {
    const d = direct();
    const { s, events } = await fastRound(d, [named], () => {});
    expect(events).toEqual([]);
    expect(d.journal.rounds(s)).toEqual([]);
  });

  it('a symbolic link out of the workspace: the file behind it is not journaled', async () => {
    const d = direct();
    mkdirSync(path.join(d.home, 'elsewhere'));
    writeFileSync(path.join(d.home, 'elsewhere', 'x.txt'), 'theirs\n');
    symlinkSync(path.join(d.home, 'elsewhere'), path.join(d.work, 'out'));
    const { s, events } = await fastRound(d, ['out/x.txt'], () =>
      writeFileSync(path.join(d.home, 'elsewhere', 'x.txt'), 'changed\n'),
    );
    expect(events).toEqual([]);
    expect(await d.journal.undo(s)).toMatchObject({ ok: false, reason: 'nothing' });
    expect(readFileSync(path.join(d.home, 'elsewhere', 'x.txt'), 'utf8')).toBe('changed\n');
  });

  it('a file swapped for a symbolic link during the turn: the link is journaled, undo puts the file back without following it', async () => {
    const d = direct();
    const outside = path.join(d.home, 'secret.txt');
    writeFileSync(outside, 'secret\n');
    writeFileSync(path.join(d.work, 'a.txt'), 'mine\n');
    const { s, events } = await fastRound(d, ['a.txt'], () => {
      rmSync(path.join(d.work, 'a.txt'));
      symlinkSync(outside, path.join(d.work, 'a.txt'));
    });
    expect(journalFiles(events)).toEqual([{ path: 'a.txt', change: 'modified' }]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(lstatSync(path.join(d.work, 'a.txt')).isSymbolicLink()).toBe(false);
    expect(readFileSync(path.join(d.work, 'a.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(outside, 'utf8')).toBe('secret\n');
  });

  it('a file replaced by a directory during the turn: the round is off, saying why', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'a.txt'), 'x\n');
    const { events } = await fastRound(d, ['a.txt'], () => {
      rmSync(path.join(d.work, 'a.txt'));
      mkdirSync(path.join(d.work, 'a.txt'));
    });
    expect(events).toMatchObject([{ type: 'notice', title: 'Undo is off for this turn' }]);
    expect(JSON.stringify(events)).toContain('a.txt is not a regular file');
  });

  it('a damaged copy in the shadow repository: undo refuses, changing nothing', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'a.txt'), 'one\n');
    const { s } = await fastRound(d, ['a.txt'], () => writeFileSync(path.join(d.work, 'a.txt'), 'two\n'));
    const [row] = d.store.journal.list(s);
    const before = row!.files[0]!.beforeBlob!;
    const objects = path.join(shadowDir(d.home, d.work), 'objects');
    const file = path.join(objects, before.slice(0, 2), before.slice(2));
    chmodSync(file, 0o644);
    writeFileSync(file, 'not zlib');
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'damaged' });
    expect(r.ok ? '' : r.message).toMatch(
      /^Cannot undo the last turn's changes: the journal's copy of the files cannot be read .*Nothing was changed\.$/,
    );
    expect(d.journal.rounds(s)[0]?.state).toBe('applied');
    expect(readFileSync(path.join(d.work, 'a.txt'), 'utf8')).toBe('two\n');
  });
});
