import { chmodSync, closeSync, existsSync, openSync, readdirSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { noise } from '../store/damage.js';
import { cliEnv, NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const dbPath = () => path.join(t.ctx.home, 'tea.db');

const PAGE = 4096;
const DAMAGE =
  /^tea: the database .*tea\.db is damaged \(database disk image is malformed\)\. To recover, run `tea db repair`: .* If it loses too much, `tea db restore` puts back the last good backup \(tea-\d{8}-\d{9}\.db/;

/** What pages `from`..`to` (1-based) of the database hold, by b-tree name. */
function treesOnPages(from: number, to: number): string[] {
  const db = new Database(dbPath(), { readonly: true });
  try {
    expect(db.pragma('page_size', { simple: true })).toBe(PAGE);
    return db
      .prepare<[number, number], { name: string }>(
        'SELECT DISTINCT name FROM dbstat WHERE pageno BETWEEN ? AND ? ORDER BY name',
      )
      .all(from, to)
      .map((r) => r.name);
  } finally {
    db.close();
  }
}

/** The trial's `dd if=/dev/urandom of=tea.db bs=4096 seek=3 count=2 conv=notrunc`: pages 4 and 5. */
function overwritePages4And5(): void {
  // Every page is in the main file (tea checkpointed the WAL when it closed).
  const wal = `${dbPath()}-wal`;
  expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  const fd = openSync(dbPath(), 'r+');
  try {
    writeSync(fd, noise(2 * PAGE), 0, 2 * PAGE, 3 * PAGE);
  } finally {
    closeSync(fd);
  }
}

/** A data home with a session, three memories and a backup, then the trial's damage; returns `memory list` from before. */
async function damagedHome(): Promise<string> {
  t.server.script(reply().text('Hello.'));
  expect((await tea(['-p', 'hi'])).code).toBe(0);
  for (const fact of ['The staging port is 8443', 'The deploy user is tea', 'Backups run at 02:00']) {
    const added = await tea(['memory', 'add', '--offline', fact]);
    expect(added.code, added.stderr).toBe(0);
  }
  const backup = await tea(['db', 'backup']);
  expect(backup.code, backup.stderr).toBe(0);
  const before = (await tea(['memory', 'list'])).stdout;
  // What the damage hits: b-trees no memory query reads (the sessions' indexes),
  // which `tea sessions list` trips over; memory commands must notice it as well.
  const hit = treesOnPages(4, 5);
  expect(hit.length).toBeGreaterThan(0);
  expect(hit.every((name) => !/memor/.test(name))).toBe(true);
  overwritePages4And5();
  return before;
}

describe('a damaged database', () => {
  it('memory commands refuse with the message every other command gives, so nothing written after the damage is lost', async () => {
    const before = await damagedHome();
    const sessions = await tea(['sessions', 'list']);
    expect(sessions.code).toBe(1);
    expect(sessions.stderr).toMatch(DAMAGE);
    for (const args of [
      ['memory', 'list'],
      ['memory', 'search', 'staging', 'port'],
      ['memory', 'add', '--offline', 'after damage fact'],
      ['memory', 'pin', '1'],
    ]) {
      const r = await tea(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toBe(sessions.stderr);
    }

    const restore = await tea(['db', 'restore']);
    expect(restore.code, restore.stderr).toBe(0);
    const after = await tea(['memory', 'list']);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toBe(before);
    expect((await tea(['memory', 'pin', '1'])).code).toBe(0);
  });

  it('`tea db check` lists each finding once, naming the b-tree, then one line on how to recover', async () => {
    await damagedHome();
    const check = await tea(['db', 'check']);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/tea\.db: damaged\n/);
    expect(check.stdout).toMatch(/\((table|index) \w+\)/);
    expect(check.stdout).toMatch(/backups \(newest first/);
    const findings = check.stdout.split('\n').filter((l) => l.startsWith('  ') && !/tea-\d{8}/.test(l));
    expect(findings.length).toBeGreaterThan(0);
    expect(new Set(findings).size).toBe(findings.length);
    // Only the sessions' indexes are hit: repair loses nothing, so it is the one way offered.
    expect(check.stderr).toMatch(
      /^tea: to recover: tea db repair; only indexes are damaged, so it rebuilds them from the tables and loses nothing \(it keeps the damaged file as tea\.db\.damaged-<time>\)\n$/,
    );
    expect(check.stderr).not.toMatch(/is damaged|tea db check/);
  });
});

describe('the data home is private', () => {
  const mode = (p: string) => statSync(p).mode & 0o777;

  it('is made 0700, with the database, its -wal/-shm and the backups 0600', async () => {
    const env = cliEnv();
    try {
      const home = path.join(env.home, 'fresh');
      const run = (args: string[]) => runTea(args, { env: { ...env.env, TEA_HOME: home }, cwd: env.work });
      expect((await run(['memory', 'add', '--offline', 'a private fact'])).code).toBe(0);
      expect((await run(['db', 'backup'])).code).toBe(0);
      expect(mode(home)).toBe(0o700);
      const db = path.join(home, 'tea.db');
      expect(mode(db)).toBe(0o600);
      const backups = path.join(home, 'backups');
      expect(mode(backups)).toBe(0o700);
      const copies = readdirSync(backups);
      expect(copies).toHaveLength(1);
      expect(mode(path.join(backups, copies[0]!))).toBe(0o600);

      // The -wal and -shm of an open database (SQLite gives them the database's mode).
      const open = new Database(db);
      try {
        open.prepare('SELECT count(*) FROM memories').get();
        for (const side of ['-wal', '-shm']) expect(mode(db + side)).toBe(0o600);
      } finally {
        open.close();
      }
    } finally {
      env.cleanup();
    }
  });

  it('files an older version left readable by others are tightened when the database is opened', async () => {
    expect((await tea(['memory', 'add', '--offline', 'a private fact'])).code).toBe(0);
    expect((await tea(['db', 'backup'])).code).toBe(0);
    const backups = path.join(t.ctx.home, 'backups');
    const copy = path.join(backups, readdirSync(backups)[0]!);
    chmodSync(t.ctx.home, 0o755);
    chmodSync(backups, 0o755);
    chmodSync(dbPath(), 0o644);
    chmodSync(copy, 0o644);
    expect((await tea(['memory', 'list'])).code).toBe(0);
    expect([mode(t.ctx.home), mode(backups), mode(dbPath()), mode(copy)]).toEqual([
      0o700, 0o700, 0o600, 0o600,
    ]);
  });
});
