/**
 * The journal's fast path: a turn whose only changes are by write_file, append_file or
 * edit_file captures just those files (no git process, no walk of the workspace), and
 * undo, redo, /diff and the conflict check work on such rounds as on snapshotted ones;
 * a turn mixing them with bash keeps each file's state from before the turn.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
