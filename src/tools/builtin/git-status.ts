/** Parsing `git status --porcelain=v2 --branch --show-stash -z` into a short summary. */

export interface StatusEntry {
  path: string;
  /** For renames and copies: where it came from. */
  from?: string;
  /** One status letter: M, A, D, R, C, T, U (conflict), ? (untracked). */
  code: string;
}

export interface GitStatus {
  /** Branch name; undefined when HEAD is detached. */
  branch: string | undefined;
  /** Commit hash of HEAD; undefined before the first commit. */
  oid: string | undefined;
  upstream: string | undefined;
  ahead: number;
  behind: number;
  stashes: number;
  staged: StatusEntry[];
  unstaged: StatusEntry[];
  untracked: StatusEntry[];
  conflicts: StatusEntry[];
}

const WORDS: Record<string, string> = {
  M: 'modified',
  A: 'added',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type changed',
  U: 'conflict',
};

/** Fields of a porcelain v2 record: the first `count` space-separated fields, then the rest (the path). */
function fields(record: string, count: number): { parts: string[]; rest: string } {
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    const next = record.indexOf(' ', at);
    if (next === -1) return { parts, rest: '' };
    parts.push(record.slice(at, next));
    at = next + 1;
  }
  return { parts, rest: record.slice(at) };
}

function readHeader(status: GitStatus, record: string): void {
  const [, key, ...values] = record.split(' ');
  const value = values.join(' ');
  if (key === 'branch.oid') status.oid = value === '(initial)' ? undefined : value;
  else if (key === 'branch.head') status.branch = value === '(detached)' ? undefined : value;
  else if (key === 'branch.upstream') status.upstream = value;
  else if (key === 'branch.ab') {
    const m = /^\+(\d+) -(\d+)$/.exec(value);
    status.ahead = Number(m?.[1] ?? 0);
    status.behind = Number(m?.[2] ?? 0);
  } else if (key === 'stash') status.stashes = Number(value) || 0;
}

/** Adds an ordinary (`1`) or rename/copy (`2`) record to the staged and unstaged lists. */
function readChange(status: GitStatus, xy: string, path: string, from: string | undefined): void {
  const [x = '.', y = '.'] = xy;
  if (x !== '.') status.staged.push(from === undefined ? { path, code: x } : { path, from, code: x });
  if (y !== '.') status.unstaged.push({ path, code: y });
}

export function parseStatus(output: string): GitStatus {
  const status: GitStatus = {
    branch: undefined,
    oid: undefined,
    upstream: undefined,
    ahead: 0,
    behind: 0,
    stashes: 0,
    staged: [],
    unstaged: [],
    untracked: [],
    conflicts: [],
  };
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    const kind = record[0];
    if (kind === '#') readHeader(status, record);
    else if (kind === '1') {
      const { parts, rest } = fields(record, 8);
      readChange(status, parts[1] ?? '..', rest, undefined);
    } else if (kind === '2') {
      const { parts, rest } = fields(record, 9);
      // With -z the original path follows as its own record.
      readChange(status, parts[1] ?? '..', rest, records[++i]);
    } else if (kind === 'u') {
      const { parts, rest } = fields(record, 10);
      status.conflicts.push({ path: rest, code: parts[1] ?? 'UU' });
    } else if (kind === '?') status.untracked.push({ path: record.slice(2), code: '?' });
  }
  return status;
}

function branchLine(s: GitStatus): string {
  if (s.oid === undefined && s.branch !== undefined) return `On branch ${s.branch} (no commits yet)`;
  const head =
    s.branch === undefined ? `HEAD detached at ${s.oid?.slice(0, 7) ?? '?'}` : `On branch ${s.branch}`;
  if (s.upstream === undefined) return `${head} (no upstream)`;
  const sync = s.ahead === 0 && s.behind === 0 ? 'up to date' : `ahead ${s.ahead}, behind ${s.behind}`;
  return `${head}, tracking ${s.upstream}: ${sync}`;
}

function section(title: string, entries: readonly StatusEntry[], max: number, describe: boolean): string[] {
  if (entries.length === 0) return [];
  const lines = [`${title} (${entries.length}):`];
  for (const e of entries.slice(0, max)) {
    const path = e.from === undefined ? e.path : `${e.from} -> ${e.path}`;
    lines.push(describe ? `  ${WORDS[e.code] ?? e.code}: ${path}` : `  ${path}`);
  }
  if (entries.length > max) lines.push(`  … ${entries.length - max} more`);
  return lines;
}

/** The summary the model reads: branch and sync state, then staged/unstaged/untracked lists. */
export function formatStatus(s: GitStatus, maxPerSection: number): string {
  const lines = [branchLine(s)];
  const conflicts = s.conflicts.map((e) => ({ ...e, path: `${e.code} ${e.path}` }));
  lines.push(...section('Conflicts', conflicts, maxPerSection, false));
  lines.push(...section('Staged', s.staged, maxPerSection, true));
  lines.push(...section('Unstaged', s.unstaged, maxPerSection, true));
  lines.push(...section('Untracked', s.untracked, maxPerSection, false));
  if (s.conflicts.length + s.staged.length + s.unstaged.length + s.untracked.length === 0) {
    lines.push('Working tree clean');
  }
  if (s.stashes > 0) lines.push(`Stashes: ${s.stashes}`);
  return lines.join('\n');
}
