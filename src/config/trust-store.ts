/**
 * The user's decisions about project config files, kept in the data home
 * (`$TEA_HOME/trusted-projects.json`). A decision holds for one project directory
 * and one exact content of its `.tea/config.yaml` (SHA-256): any edit of the file
 * makes it untrusted again. A missing or damaged store trusts nothing.
 */
import { mkdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export const TRUST_FILE = 'trusted-projects.json';

/** `trusted`: its restricted settings apply. `denied`: the user said no when asked (no more asking). */
export type TrustDecision = 'trusted' | 'denied';

export interface TrustRecord {
  /** The project config file: the real path of the project directory + `.tea/config.yaml`. */
  file: string;
  /** The project directory (the one holding `.tea/`), as a real path. */
  dir: string;
  /** SHA-256 (hex) of the file's content the decision was made on. */
  sha256: string;
  decision: TrustDecision;
  /** When the decision was made (ISO 8601). */
  at: string;
}

/**
 * A project file's standing: `trusted` (this exact content), `changed` (trusted,
 * but the content differs now), `denied` (the user declined this content) or
 * `untrusted` (no decision).
 */
export type TrustState = 'trusted' | 'changed' | 'denied' | 'untrusted';

function storePath(home: string): string {
  return join(home, TRUST_FILE);
}

/**
 * The key of a project config file: its project directory resolved to a real path
 * (so `~/src/app` and a symlinked path to it are one project), with the `.tea` part
 * kept as written (so a repository whose `.tea` links to a trusted project's does
 * not inherit that trust).
 */
export function trustKey(file: string): { file: string; dir: string } {
  const full = resolve(file);
  const teaDir = dirname(full);
  const project = dirname(teaDir);
  let dir = project;
  try {
    dir = realpathSync(project);
  } catch {
    // a project that no longer exists keeps its written path
  }
  return { file: join(dir, basename(teaDir), basename(full)), dir };
}

function isRecord(value: unknown): value is TrustRecord {
  if (value === null || typeof value !== 'object') return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.file === 'string' &&
    typeof r.dir === 'string' &&
    typeof r.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(r.sha256) &&
    (r.decision === 'trusted' || r.decision === 'denied') &&
    typeof r.at === 'string'
  );
}

/** Every recorded decision; entries that do not parse are dropped. */
export function readTrustRecords(home: string): TrustRecord[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(storePath(home), 'utf8'));
  } catch {
    return [];
  }
  const projects = (parsed as { projects?: unknown } | null)?.projects;
  return Array.isArray(projects) ? projects.filter(isRecord) : [];
}

function writeTrustRecords(home: string, records: TrustRecord[]): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const target = storePath(home);
  const temp = `${target}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, projects: records }, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, target);
}

/** The standing of `file` with content `sha256`. */
export function trustStateOf(home: string, file: string, sha256: string): TrustState {
  const key = trustKey(file).file;
  const record = readTrustRecords(home).find((r) => r.file === key);
  if (!record) return 'untrusted';
  if (record.sha256 === sha256) return record.decision;
  return record.decision === 'trusted' ? 'changed' : 'untrusted';
}

/** Records the user's decision on this content of `file`, replacing any earlier one. */
export function recordTrustDecision(
  home: string,
  file: string,
  sha256: string,
  decision: TrustDecision,
  now: Date = new Date(),
): TrustRecord {
  const key = trustKey(file);
  const record: TrustRecord = { ...key, sha256, decision, at: now.toISOString() };
  const others = readTrustRecords(home).filter((r) => r.file !== key.file);
  writeTrustRecords(home, [...others, record]);
  return record;
}

/** Forgets every decision about `file`; returns the records removed. */
export function revokeTrust(home: string, file: string): TrustRecord[] {
  const key = trustKey(file).file;
  const records = readTrustRecords(home);
  const removed = records.filter((r) => r.file === key);
  if (removed.length > 0)
    writeTrustRecords(
      home,
      records.filter((r) => r.file !== key),
    );
  return removed;
}
