import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const dbPath = () => path.join(t.ctx.home, 'tea.db');

/** A session with enough transcript that the messages table spans the middle of the file. */
async function sessionWithHistory(): Promise<string> {
  t.server.script(reply().text(`Here is a long answer. ${'lorem ipsum dolor sit amet '.repeat(4000)}`));
  const r = await tea(['-p', 'write a lot']);
  expect(r.code, r.stderr).toBe(0);
  // `tea -p` leaves its write-ahead log for the next process; the next connection to
  // close the database (this one, read-write) puts every page in the main file, where
  // the damage below lands, as a later `dd` would find it.
  const db = new Database(dbPath());
  try {
    return db.prepare<[], { id: string }>('SELECT id FROM sessions').get()!.id;
  } finally {
    db.close();
  }
}

/** Overwrites one page of the messages table, the one nearest the middle of the file, with 0xFF. */
function corruptMiddleOfMessages(): void {
  const db = new Database(dbPath(), { readonly: true });
  let page: number;
  let pageSize: number;
  try {
    pageSize = db.pragma('page_size', { simple: true }) as number;
    const count = db.pragma('page_count', { simple: true }) as number;
    const pages = db
      .prepare<[], { pageno: number }>("SELECT pageno FROM dbstat WHERE name = 'messages'")
      .all()
      .map((r) => r.pageno);
    page = pages.sort((a, b) => Math.abs(a - count / 2) - Math.abs(b - count / 2))[0]!;
    expect(page).toBeGreaterThan(1);
  } finally {
    db.close();
  }
  // Every page is in the main file (tea checkpointed the WAL when it closed).
  const wal = `${dbPath()}-wal`;
  expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  const fd = openSync(dbPath(), 'r+');
  try {
    writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (page - 1) * pageSize);
  } finally {
    closeSync(fd);
  }
}

const NO_STACK = /unexpected error|\n\s+at /;

describe('a damaged database', () => {
  it('is reported with the way back, and `tea db restore` brings the last backup back', async () => {
    const id = await sessionWithHistory();
    const backup = await tea(['db', 'backup']);
    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/backed up .*tea\.db to .*backups\/tea-\d{8}-\d{9}\.db/);

    corruptMiddleOfMessages();
    for (const args of [
      ['-p', 'and more', '--continue'],
      ['sessions', 'show', id],
    ]) {
      const r = await tea(args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /^tea: the database .*tea\.db is damaged \(database disk image is malformed\)/,
      );
      expect(r.stderr).toContain('tea db restore');
      expect(r.stderr).toMatch(/last good backup \(tea-\d{8}-\d{9}\.db/);
      expect(r.stderr).not.toMatch(NO_STACK);
    }

    const check = await tea(['db', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/tea\.db: damaged\n/);
    expect(check.stdout).toMatch(/backups \(newest first/);

    const restore = await tea(['db', 'restore']);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/restored .*tea\.db from .*tea-\d{8}-\d{9}\.db/);
    expect(restore.stdout).toMatch(/kept as .*tea\.db\.damaged-/);
    expect(readdirSync(t.ctx.home).some((f) => f.startsWith('tea.db.damaged-'))).toBe(true);

    expect((await tea(['db', 'check'])).stdout).toMatch(/tea\.db: ok\n/);
    const shown = await tea(['sessions', 'show', id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Here is a long answer.');
    t.server.script(reply().text('Back in business.'));
    const next = await tea(['-p', 'and more', '--continue']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe('Back in business.\n');
  });

  it('a file that is not a database at all says so, and how to start afresh when there is no backup', async () => {
    await sessionWithHistory();
    const fd = openSync(dbPath(), 'r+');
    writeSync(fd, Buffer.from('this is not a database header!!'), 0, 31, 0);
    closeSync(fd);
    const r = await tea(['sessions', 'list']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the database .*tea\.db is damaged \(file is not a database\)/);
    expect(r.stderr).toMatch(/no backup of it yet/);
    expect(r.stderr).toMatch(/mv .*tea\.db .*tea\.db\.damaged/);
    expect(r.stderr).not.toMatch(NO_STACK);
    // Nothing in it can be read: repair says so and changes nothing.
    const before = readFileSync(dbPath());
    const repair = await tea(['db', 'repair']);
    expect(repair.code).toBe(1);
    expect(repair.stderr).toMatch(
      /^tea: cannot repair .*tea\.db: the list of tables itself cannot be read \(file is not a database\), so no row can be found; it is left as it was\. There is no backup to restore\.\n$/,
    );
    expect(readFileSync(dbPath()).equals(before)).toBe(true);
    expect(
      readdirSync(t.ctx.home).filter((f) => f.includes('.damaged-') || f.endsWith('.repairing')),
    ).toEqual([]);
  });
});
