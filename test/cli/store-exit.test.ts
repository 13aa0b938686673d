/**
 * The store on `tea -p`'s path: the daily backup after the answer (never before the
 * first request), the small write-ahead log left for the next process at exit, and
 * nothing lost on the way (a later run, a later command, a kill).
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migrations, openDatabase } from '../../src/store/index.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { startTea } from './running.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
const dbPath = () => path.join(t.ctx.home, 'tea.db');
const backupsDir = () => path.join(t.ctx.home, 'backups');
const backups = () => (existsSync(backupsDir()) ? readdirSync(backupsDir()) : []);
const walBytes = () => (existsSync(`${dbPath()}-wal`) ? statSync(`${dbPath()}-wal`).size : 0);

async function ok(args: string[]): Promise<string> {
  const r = await tea(args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r.stdout;
}

function sessionsIn(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
  } finally {
    db.close();
  }
}

describe('tea -p and the daily backup', () => {
  it('the first request does not wait for it: it is made after the answer, before tea exits', async () => {
    t.server.script(reply().text('First.'));
    await ok(['-p', 'first']); // a new file: nothing to back up yet
    expect(backups()).toEqual([]);

    t.server.script(reply().text('Second.').holdUntil('answer'));
    const run = startTea(['-p', 'second'], { env: t.ctx.env, cwd: t.ctx.work });
    await t.server.waitForRequests(2);
    expect(backups()).toEqual([]); // the model has the request; no backup was made before it
    t.server.release('answer');
    const exit = await run.exit;
    expect(exit.code, exit.stderr).toBe(0);
    expect(exit.stdout).toBe('Second.\n');
    expect(backups()).toHaveLength(1);
    expect(sessionsIn(path.join(backupsDir(), backups()[0]!))).toBe(2); // this run's session too

    t.server.script(reply().text('Third.'));
    await ok(['-p', 'third']);
    expect(backups()).toHaveLength(1); // one a day
  });

  it('a database of an older schema is backed up as it was before it is upgraded', async () => {
    const older = migrations.length - 1;
    const db = openDatabase(dbPath(), { migrations: migrations.slice(0, older) });
    db.prepare("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('old', '/w', 1, 1)").run();
    db.close();
    t.server.script(reply().text('Upgraded.').holdUntil('answer'));
    const run = startTea(['-p', 'hello'], { env: t.ctx.env, cwd: t.ctx.work });
    await t.server.waitForRequests(1);
    expect(backups()).toHaveLength(1); // taken at open, before migrating: the upgrade cannot wait
    t.server.release('answer');
    expect((await run.exit).code).toBe(0);
    const copy = new Database(path.join(backupsDir(), backups()[0]!), { readonly: true });
    try {
      expect(copy.pragma('user_version', { simple: true })).toBe(older);
      expect(copy.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['old']);
    } finally {
      copy.close();
    }
    expect(backups()).toHaveLength(1);
  });
});

describe('tea -p leaves its write-ahead log for the next process', () => {
  it('the next run reads and continues it, a later command folds it into the file, nothing is lost', async () => {
    t.server.script(reply().text('Noted: the port is 8443.'));
    await ok(['-p', 'remember the port 8443']);
    expect(walBytes()).toBeGreaterThan(0);

    t.server.script(reply().text('It is 8443.'));
    expect(await ok(['-p', 'which port?', '--continue'])).toBe('It is 8443.\n');
    const sent = wireMessages(t.server.requests.at(-1)!.body);
    expect(sent.slice(1).map((m) => [m.role, wireText(m)])).toEqual([
      ['user', 'remember the port 8443'],
      ['assistant', 'Noted: the port is 8443.'],
      ['user', 'which port?'],
    ]);

    const listed = await ok(['sessions', 'list']);
    expect(listed).toMatch(/ 4 msgs {2}remember the port 8443/);
    expect(walBytes()).toBe(0); // that command closed the database as usual: checkpointed
  });

  it('a log over 1 MiB is checkpointed at exit', async () => {
    t.server.script(
      reply()
        .text(`A long answer. ${'lorem ipsum dolor sit amet '.repeat(50_000)}`)
        .chunkSize(200_000),
    );
    await ok(['-p', 'write a lot']);
    expect(walBytes()).toBe(0);
  });

  it('a run killed after another left its log loses nothing of either', async () => {
    t.server.script(reply().text('Done: one.'));
    await ok(['-p', 'task one']);
    expect(walBytes()).toBeGreaterThan(0);
    t.server.script(reply().text('Streaming. '.repeat(20)).holdUntil('never'));
    const run = startTea(['-p', 'task two', '--continue'], { env: t.ctx.env, cwd: t.ctx.work });
    await t.server.waitForRequests(2);
    run.kill('SIGKILL');
    expect((await run.exit).signal).toBe('SIGKILL');

    const shown = JSON.parse(await ok(['sessions', 'list', '--json'])) as {
      sessions: Array<{ id: string }>;
    };
    expect(shown.sessions).toHaveLength(1);
    const { messages } = JSON.parse(await ok(['sessions', 'show', shown.sessions[0]!.id, '--json'])) as {
      messages: Array<{ role: string; parts: Array<{ text?: string }> }>;
    };
    expect(messages.map((m) => [m.role, m.parts[0]?.text])).toEqual([
      ['user', 'task one'],
      ['assistant', 'Done: one.'],
      ['user', 'task two'],
    ]);
  });
});
