import {
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkedPath, FINE_RACY_MS, fileStamp, RACY_MS, settled } from '../../src/store/checked.js';
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
  it('a status is kept only for a file settled long enough for a later write to land in a later tick', () => {
    const at = (ms: number, subsecond: boolean) => `${BigInt(ms) * 1_000_000n + (subsecond ? 123n : 0n)}`;
    const stamp = (mtime: string, ctime: string) => `v1 1 2 3 ${mtime} ${ctime}`;
    const T = 1_767_000_000_000;
    // Times with sub-second digits (ext4, APFS…): FINE_RACY_MS after the newer of the two.
    expect(settled(stamp(at(T, true), at(T - 60_000, true)), T + FINE_RACY_MS - 1)).toBe(false);
    expect(settled(stamp(at(T, true), at(T - 60_000, true)), T + FINE_RACY_MS)).toBe(true);
    expect(settled(stamp(at(T - 60_000, true), at(T, true)), T + FINE_RACY_MS - 1)).toBe(false);
    // Whole seconds (HFS+, FAT): RACY_MS.
    expect(settled(stamp(at(T, false), at(T, false)), T + FINE_RACY_MS)).toBe(false);
    expect(settled(stamp(at(T, false), at(T, false)), T + RACY_MS)).toBe(true);
  });

  it('a probe that finds the file sound keeps its status; a file that just changed keeps none', () => {
    const path = home();
    // The moment the file last changed (its change time): a later write could share its timestamp.
    const changed = Number(statSync(path, { bigint: true }).ctimeNs / 1_000_000n);
    openDatabase(path, { now: () => changed }).close();
    expect(existsSync(checkedPath(path))).toBe(false);
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
