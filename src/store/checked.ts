/**
 * Probing once per change of the database file instead of at every open.
 *
 * The probe (probe.ts) reads the first page of every b-tree, so that a file damaged
 * there stops a command before it writes anything. What damages those pages is
 * something other than SQLite writing into the file: the trial's `dd … conv=notrunc`,
 * a sync tool or a copy over it, a restore by hand, a failing disk surfacing through
 * the file system. Each of those changes the file's status: its modification and
 * change times (the change time cannot be set back from user space), and its size
 * or inode when it replaces the file. In WAL mode SQLite itself writes the main file
 * only when it checkpoints the log; a process's commits go to the -wal.
 *
 * So after a probe finds the file sound, its status (as it was just before the probe)
 * is kept beside it in `<db>-checked`. A later open whose file has exactly that status
 * skips the probe: the main file is byte for byte what was probed, and everything
 * since is in the log, written by SQLite. Any change (a checkpoint included) and the
 * next open probes again. A log replaced from elsewhere is not covered, as before: its
 * frames carry checksums, and SQLite drops those that do not match.
 *
 * Timestamps are coarse (the kernel's clock ticks every few ms; some file systems keep
 * whole seconds, FAT two): a write in the same tick as the probed state would leave the
 * status unchanged. A status is therefore kept only when the file had not changed for a
 * while before it was taken, so that any later write lands in a later tick (as git does
 * with its index): FINE_RACY_MS when its times have sub-second digits (ext4, XFS,
 * btrfs, APFS, NTFS: ns or 100 ns, stamped from a clock that ticks every 1–10 ms;
 * exFAT: 10 ms), RACY_MS when they are whole seconds (HFS+, FAT).
 * Bit rot on the disk, with no write at all, is not seen here; it is found by the
 * query that reads it, by the daily backup (which reads every page) and `tea db check`.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { PRIVATE_FILE } from './modes.js';

/** A status is kept only for a file unchanged this long before it was taken… */
export const RACY_MS = 3000;
/** …or this long, on a file system whose times have sub-second digits. */
export const FINE_RACY_MS = 100;

/** Where the status of the last probe of the database at `file` is kept. */
export function checkedPath(file: string): string {
  return `${file}-checked`;
}

/** The file's identity and status (device, inode, size, modification and change times in ns); undefined when missing. */
export function fileStamp(file: string): string | undefined {
  try {
    const s = statSync(file, { bigint: true });
    return `v1 ${s.dev} ${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** Whether `stamp` is the status kept by the last probe that found the file sound. */
export function probedAsIs(file: string, stamp: string): boolean {
  try {
    return readFileSync(checkedPath(file), 'utf8') === stamp;
  } catch {
    return false;
  }
}

/**
 * Whether a status taken at `now` can be kept: the file's newer time (modification or
 * change) is at least FINE_RACY_MS old, or RACY_MS when its times are whole seconds.
 */
export function settled(stamp: string, now: number): boolean {
  const [, , , , mtime = '0', ctime = '0'] = stamp.split(' ');
  const [m, c] = [BigInt(mtime), BigInt(ctime)];
  const second = 1_000_000_000n;
  const fine = m % second !== 0n || c % second !== 0n;
  const changedMs = Number((m > c ? m : c) / 1_000_000n);
  return now - changedMs >= (fine ? FINE_RACY_MS : RACY_MS);
}

/**
 * Keeps `stamp` (taken before a probe that found the file sound) when it is `settled`
 * at `now`. Best effort: when it cannot be written, the next open probes again.
 */
export function keepProbed(file: string, stamp: string, now: number): void {
  if (!settled(stamp, now)) return;
  try {
    writeFileSync(checkedPath(file), stamp, { mode: PRIVATE_FILE });
  } catch {
    // a read-only data home: probe every time, as before
  }
}
