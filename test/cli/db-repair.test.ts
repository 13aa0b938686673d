import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { overwritePages, pagesOf } from '../store/damage.js';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const dbPath = () => path.join(t.ctx.home, 'tea.db');
const backups = () =>
  existsSync(path.join(t.ctx.home, 'backups')) ? readdirSync(path.join(t.ctx.home, 'backups')) : [];
const kept = () => readdirSync(t.ctx.home).filter((f) => /^tea\.db\.damaged-\d{8}-\d{9}$/.test(f));

async function ok(args: string[]): Promise<string> {
  const r = await tea(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

/**
 * The trial's history: a first session, a command that opens the database (the one
 * backup, minutes after install), then the real work: three more sessions, three memories.
 */
async function dayOfWork(): Promise<void> {
  t.server.script(reply().text('Hello.'));
  await ok(['-p', 'hi']);
  await ok(['sessions', 'list']);
  expect(backups()).toHaveLength(1);
  for (const task of ['one', 'two', 'three']) {
    t.server.script(reply().text(`Done: ${task}.`));
    await ok(['-p', `task ${task}`]);
  }
  for (const fact of ['The staging port is 8443', 'The deploy user is tea', 'Backups run at 02:00']) {
    await ok(['memory', 'add', '--offline', fact]);
  }
  expect(backups()).toHaveLength(1); // the database grew, but the backup is minutes old
}

describe('tea db repair', () => {
  it("after the trial's damage (the session indexes) it rebuilds the database and loses nothing, where restore would lose the day", async () => {
    await dayOfWork();
    const sessions = await ok(['sessions', 'list']);
    const memories = await ok(['memory', 'list']);
    overwritePages(dbPath(), [
      pagesOf(dbPath(), 'sessions_by_updated').root,
      pagesOf(dbPath(), 'sessions_by_cwd_updated').root,
    ]);
    const damaged = readFileSync(dbPath());

    const listed = await tea(['sessions', 'list']);
    expect(listed.code).toBe(1);
    expect(listed.stderr).toMatch(
      /is damaged \(database disk image is malformed\)\. To recover, run `tea db repair`: it rebuilds the file from every row it can still read \(damage only in indexes loses nothing/,
    );
    expect(listed.stderr).toMatch(
      /If it loses too much, `tea db restore` puts back the last good backup \(tea-\d{8}-\d{9}\.db, from .* UTC; everything after it is lost\)/,
    );

    const check = await tea(['db', 'check']);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(
      /^tea: to recover: tea db repair; only indexes are damaged, so it rebuilds them from the tables and loses nothing/,
    );

    // Restore says what it would lose, and in a script does not go on without --yes.
    const restore = await tea(['db', 'restore']);
    expect(restore.code).toBe(1);
    expect(restore.stdout).toMatch(
      /^the backup tea-\d{8}-\d{9}\.db \(from .* UTC\) holds 1 session, 2 messages, 0 memories\n/,
    );
    expect(restore.stdout).toMatch(
      /\nthe database holds 4 sessions, 8 messages, 3 memories that can still be read\n$/,
    );
    expect(restore.stderr).toBe(
      'tea: not restored: restoring it loses the sessions, messages, memories the backup lacks (`tea db repair` keeps what can still be read); to restore anyway, run tea db restore --yes\n',
    );
    expect(readFileSync(dbPath()).equals(damaged)).toBe(true);

    const repair = await tea(['db', 'repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/tea\.db: only indexes were damaged/);
    expect(repair.stdout).toMatch(/the damaged file is kept as .*tea\.db\.damaged-\d{8}-\d{9}\n/);
    expect(repair.stdout).toMatch(/\n {2}sessions +4 copied\n {2}messages +8 copied\n/);
    expect(repair.stdout).toMatch(/\n {2}memories +3 copied\n/);
    expect(repair.stdout).toContain('repaired: every row of every table was read; nothing is lost.');
    expect(repair.stdout).toMatch(
      /the newest backup, tea-\d{8}-\d{9}\.db \(from .*\), holds 1 session, 2 messages, 0 memories; every one of them is in the repaired database, which is more complete \(3 sessions, 6 messages, 3 memories more\)\n$/,
    );
    expect(kept()).toHaveLength(1);
    expect(readFileSync(path.join(t.ctx.home, kept()[0]!)).equals(damaged)).toBe(true);

    expect(await ok(['sessions', 'list'])).toBe(sessions);
    expect(await ok(['memory', 'list'])).toBe(memories);
    expect(await ok(['db', 'check'])).toMatch(/tea\.db: ok\n/);
    expect((await ok(['db', 'repair'])).trim()).toMatch(/tea\.db: ok, nothing to repair$/);
  });

  it('after damage in a table it copies every row it can read and says per table what could not be', async () => {
    await dayOfWork();
    t.server.script(reply().text(`A long answer. ${'lorem ipsum dolor sit amet '.repeat(3000)}`));
    await ok(['-p', 'write a lot']);
    await ok(['sessions', 'list']); // folds the log `tea -p` left into the main file (see db-recovery)
    const leaves = pagesOf(dbPath(), 'messages').leaves;
    overwritePages(dbPath(), [leaves[0]!]);
    const check = await tea(['db', 'check']);
    expect(check.code).toBe(1);
    expect(check.stderr).toMatch(
      /^tea: to recover: tea db repair copies every row it can still read into a new file, says per table what could not be read, and keeps the damaged file as tea\.db\.damaged-<time>\ntea: or: tea db restore puts back tea-\d{8}-\d{9}\.db/,
    );

    const repair = await tea(['db', 'repair']);
    expect(repair.code, repair.stderr).toBe(0);
    expect(repair.stdout).toMatch(/tea\.db: damaged: table messages/);
    expect(repair.stdout).toMatch(/\n {2}messages +\d+ copied; could not be read: ids up to \d+\n/);
    expect(repair.stdout).toMatch(/\n {2}sessions +5 copied\n/);
    expect(repair.stdout).toContain('repaired, with losses');
    expect(await ok(['db', 'check'])).toMatch(/tea\.db: ok\n/);
    expect((await ok(['sessions', 'list'])).trim().split('\n')).toHaveLength(5);
    expect((await ok(['memory', 'list'])).trim().split('\n')).toHaveLength(3);
  });
});

/** Runs `tea db restore` on a real terminal (util-linux `script`) and answers its question. */
function restoreAtTerminal(answer: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qfec', `${process.execPath} ${TEA_BIN} db restore`, '/dev/null'], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    let screen = '';
    let answered = false;
    // The child may be gone by the time the answer is written: that is its exit, not an error.
    child.stdin.on('error', () => {});
    child.stdout.on('data', (d: Buffer) => {
      screen += d.toString();
      // Answered once: later output (the echo, the result) still holds the question.
      if (!answered && screen.includes('[y/N] ')) {
        answered = true;
        child.stdin.write(`${answer}\n`);
      }
    });
    child.on('error', reject);
    child.on('exit', () => resolve(screen));
  });
}

describe('tea db restore', () => {
  it('asks at a terminal before putting back a backup that holds less', async () => {
    await dayOfWork();
    const before = readFileSync(dbPath());
    const no = await restoreAtTerminal('n');
    expect(no).toMatch(
      /Restoring it loses the sessions, messages, memories the backup lacks .*\. Restore anyway\? \[y\/N\] /,
    );
    expect(no).toContain('not restored; nothing changed');
    expect(readFileSync(dbPath()).equals(before)).toBe(true);

    const yes = await restoreAtTerminal('y');
    expect(yes).toMatch(/restored .*tea\.db from .*tea-\d{8}-\d{9}\.db/);
    expect((await ok(['sessions', 'list'])).trim().split('\n')).toHaveLength(1);
    expect(kept()).toHaveLength(1);
  });

  it('--yes restores a backup that holds less without asking', async () => {
    await dayOfWork();
    const r = await tea(['db', 'restore', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /holds 1 session, 2 messages, 0 memories\n.*holds 4 sessions, 8 messages, 3 memories that can still be read\nrestored /,
    );
    expect((await ok(['sessions', 'list'])).trim().split('\n')).toHaveLength(1);
  });

  it('needs no confirmation when the backup holds as much as the database', async () => {
    await dayOfWork();
    await ok(['db', 'backup']);
    const r = await tea(['db', 'restore']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /holds 4 sessions, 8 messages, 3 memories\nthe database holds 4 sessions, 8 messages, 3 memories that can still be read\nrestored /,
    );
  });
});

describe('daily backups', () => {
  it('none of an empty database; the first one once it holds something, as the command that wrote it closes', async () => {
    await ok(['sessions', 'list']);
    await ok(['sessions', 'list']);
    expect(backups()).toEqual([]);
    await ok(['memory', 'add', '--offline', 'The first fact']);
    expect(backups()).toHaveLength(1);
    await ok(['memory', 'list']);
    expect(backups()).toHaveLength(1);
  });
});
