import { copyFileSync, existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkedPath, fileStamp, RACY_MS } from '../../src/store/checked.js';
import { openDatabase, Store, StoreError } from '../../src/store/index.js';
import { overwritePages, pagesOf } from './damage.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
/** Opens and closes as a later process would: RACY_MS after the file last changed. */
const later = () => Date.now() + RACY_MS + 1000;

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);

/**
 * Sets the file's modification time back, so that any later write changes it even
 * within the same timestamp tick (the change time stays recent: RACY_MS still holds).
 */
function age(path: string, minutes: number): void {
  utimesSync(path, minutesAgo(minutes), minutesAgo(minutes));
}

function home(): string {
  const path = join(tempDir(), 'tea.db');
  const store = Store.open(path);
  store.sessions.create({ id: 'a', cwd: '/w' });
  store.close();
  age(path, 10);
  return path;
}

/** A status kept as if a probe had found the file sound as it is now: only forging can say so. */
function forgeKept(path: string): void {
  age(path, 5);
  writeFileSync(checkedPath(path), fileStamp(path)!);
}

function openError(path: string): unknown {
  try {
    openDatabase(path, { now: later }).close();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** Damages the root page of the sessions' index, where every probe looks. */
function damageIndexRoot(path: string): void {
  overwritePages(path, [pagesOf(path, 'sessions_by_updated').root]);
}

describe('probing once per change of the file', () => {
  it('a probe that finds the file sound keeps its status; a file changed within RACY_MS keeps none', () => {
    const path = home();
    openDatabase(path, { now: () => Date.now() }).close();
    expect(existsSync(checkedPath(path))).toBe(false); // just written: a later write could share its timestamp
    openDatabase(path, { now: later }).close();
    expect(readFileSync(checkedPath(path), 'utf8')).toBe(fileStamp(path));
  });

  it('a file exactly as the last probe found it is not read again (damage made behind its back is not seen at open)', () => {
    const path = home();
    damageIndexRoot(path);
    forgeKept(path);
    expect(openError(path)).toBeUndefined();
  });

  it('any change to the file is probed again: a write, a touch, a copy over it, a replacement', () => {
    for (const change of ['write', 'touch', 'copy', 'rename'] as const) {
      const path = home();
      openDatabase(path, { now: later }).close();
      expect(existsSync(checkedPath(path))).toBe(true);
      if (change === 'write') {
        damageIndexRoot(path);
      } else {
        // Damage first, and a status kept for it (see above); then the change.
        damageIndexRoot(path);
        forgeKept(path);
        const stamp = fileStamp(path)!;
        if (change === 'touch') utimesSync(path, minutesAgo(1), minutesAgo(1));
        if (change === 'copy') {
          copyFileSync(path, `${path}.copy`);
          copyFileSync(`${path}.copy`, path);
        }
        if (change === 'rename') {
          copyFileSync(path, `${path}.new`);
          renameSync(`${path}.new`, path);
        }
        expect(fileStamp(path)).not.toBe(stamp);
      }
      const err = openError(path);
      expect(err, change).toBeInstanceOf(StoreError);
      expect((err as StoreError).code, change).toBe('damaged');
    }
  });

  it('a damaged file keeps no status: every open finds the damage again', () => {
    const path = home();
    damageIndexRoot(path);
    expect((openError(path) as StoreError).code).toBe('damaged');
    expect(existsSync(checkedPath(path))).toBe(false);
    expect((openError(path) as StoreError).code).toBe('damaged');
  });
});
