/**
 * One self_modify at a time per Tea home: a lock file `<TEA_HOME>/self-modify/lock`
 * made with O_EXCL, holding the owner's pid. A lock whose process is gone (a killed
 * tea) is taken over; a live one refuses the second call.
 */
import { mkdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface LockInfo {
  pid: number;
  repo: string;
  startedAt: string;
}

export interface Lock {
  release(): Promise<void>;
}

/** An unreadable lock file older than this is a crash's leftover. */
const STALE_UNREADABLE_MS = 60_000;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readLock(file: string): Promise<LockInfo | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<LockInfo>;
    return typeof parsed.pid === 'number' ? (parsed as LockInfo) : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock, or resolves with the holder's info when another live process holds it. */
export async function acquireLock(dir: string, repo: string, now: Date): Promise<Lock | LockInfo> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'lock');
  const mine: LockInfo = { pid: process.pid, repo, startedAt: now.toISOString() };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, text, { flag: 'wx' });
      return {
        async release() {
          // Only our own lock goes (a stale-lock takeover elsewhere must not be undone).
          if ((await readFile(file, 'utf8').catch(() => '')) === text)
            await unlink(file).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readLock(file);
    if (holder === undefined) {
      // Half-written (its owner is between create and write) counts as held; unreadable for long, as stale.
      const age = now.getTime() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
      if (age < STALE_UNREADABLE_MS) return { pid: 0, repo: '', startedAt: '' };
    } else if (alive(holder.pid)) {
      return holder;
    }
    await unlink(file).catch(() => undefined);
  }
  return (await readLock(file)) ?? { pid: 0, repo: '', startedAt: '' };
}
