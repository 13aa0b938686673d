/**
 * The journal's edges: the user's own repository stays byte-identical, a missing git
 * turns the journal off with one warning, the caps turn a round off with one notice,
 * and undo refuses while a turn of the session runs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { thisProcess } from '../../../src/store/index.js';
import { journalFiles, useDirect } from './direct.js';

const direct = useDirect();

/** Every file under `dir` with the sha-256 of its bytes (the user's .git, whole). */
function hashTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

describe('journal limits and guards', () => {
  it("leaves the user's repository (index, HEAD, refs, stash, config) byte-identical", async () => {
    const d = direct();
    git(d.work, 'init', '-q');
    writeFileSync(path.join(d.work, 'a.txt'), 'one\n');
    writeFileSync(path.join(d.work, 'b.txt'), 'b\n');
    git(d.work, 'add', '.');
    git(d.work, 'commit', '-qm', 'first');
    writeFileSync(path.join(d.work, 'a.txt'), 'stashed\n');
    git(d.work, 'stash', '-q');
    writeFileSync(path.join(d.work, 'b.txt'), 'staged\n');
    git(d.work, 'add', 'b.txt');
    const before = hashTree(path.join(d.work, '.git'));
    const status = git(d.work, 'status', '--porcelain');
    const s = d.session();
    const events = await d.round(s, () => {
      writeFileSync(path.join(d.work, 'a.txt'), 'two\n');
      writeFileSync(path.join(d.work, 'c.txt'), 'c\n');
    });
    expect(journalFiles(events)).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'c.txt', change: 'added' },
    ]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect((await d.journal.redo(s)).ok).toBe(true);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(hashTree(path.join(d.work, '.git'))).toEqual(before);
    expect(git(d.work, 'status', '--porcelain')).toBe(status);
  });

  it('without git the journal is off, with one warning', async () => {
    const warnings: string[] = [];
    const d = direct({ git: '/nonexistent/git', warn: (m) => warnings.push(m) });
    const s = d.session();
    expect(d.journal.round(s, 't1', d.work)).toBeUndefined();
    expect(d.journal.round(s, 't2', d.work)).toBeUndefined();
    expect(warnings).toEqual(['git is not installed, so the operation journal (/undo) is off']);
    expect(await d.journal.undo(s)).toMatchObject({ ok: false, reason: 'off' });
  });

  it('a workspace over journal.max_files turns the round off with one notice', async () => {
    const d = direct({ limits: { maxFiles: 3 } });
    for (const n of [1, 2, 3, 4]) writeFileSync(path.join(d.work, `${n}.txt`), `${n}`);
    const events = await d.round(d.session(), () => writeFileSync(path.join(d.work, 'x.txt'), 'x'));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'notice', title: 'Undo is off for this turn' });
    expect(events[0]?.type === 'notice' && events[0].body).toContain('4 files, over journal.max_files (3)');
  });

  it('a file over journal.max_file_bytes turns the round off, naming it', async () => {
    const d = direct({ limits: { maxFileBytes: 100 } });
    const events = await d.round(d.session(), () =>
      writeFileSync(path.join(d.work, 'big.bin'), Buffer.alloc(101)),
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.type === 'notice' && events[0].body).toContain(
      'big.bin is 101 bytes, over journal.max_file_bytes (100)',
    );
  });

  it('a snapshot past journal.timeout_s gives up with a notice (injected clock)', async () => {
    let t = 0;
    const d = direct({ limits: { timeoutMs: 5000 }, now: () => (t += 4000) });
    const events = await d.round(d.session(), () => writeFileSync(path.join(d.work, 'x.txt'), 'x'));
    expect(events[0]?.type === 'notice' && events[0].body).toContain('longer than 5 s (journal.timeout_s)');
  });

  it('refuses while a turn of the session runs (its lease is held), changing nothing', async () => {
    const d = direct();
    const s = d.session();
    await d.round(s, () => writeFileSync(path.join(d.work, 'x.txt'), 'x'));
    const owner = { id: 'running-turn', ...thisProcess() };
    expect(d.store.leases.acquire(s, owner, 60_000).ok).toBe(true);
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'busy' });
    expect(r.ok ? '' : r.message).toContain('while a turn');
    expect(readFileSync(path.join(d.work, 'x.txt'), 'utf8')).toBe('x');
    d.store.leases.release(s, owner.id);
    expect((await d.journal.undo(s)).ok).toBe(true);
  });
});
