/**
 * What a self-patch would do, worked out in memory before anything is touched: every
 * path checked against the repository's boundaries, every file read and every hunk
 * applied. A refusal here leaves the tree as it was (nothing has been written).
 *
 * The boundaries (each refusal names the path and why):
 * - a path is relative, in `/` form, with no `.`/`..` segment, no control character
 *   or backslash: nothing outside the repository is reachable by name;
 * - no segment is `.git` (any case): git's own data is not the agent's to edit;
 * - no existing part of the path is a symbolic link, and the file itself is a regular
 *   file: a link cannot carry a write outside the repository;
 * - ignored paths (node_modules, dist) are refused: they are not source, and a commit
 *   could not hold them;
 * - the gates' configuration is refused (package.json and lock files, tsconfig*.json,
 *   biome.json(c), vitest/vite config, .gitignore, .gitattributes, .gitmodules, .npmrc):
 *   a patch must not be able to weaken the checks that judge it; such changes need
 *   a person;
 * - a patch may not delete a test file (or rename it to a name that is not a test):
 *   tests that vanish cannot fail; deleting tests needs a person;
 * - only UTF-8 text without NUL bytes is changed or written.
 */
import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ignoredOf } from './git.js';
import { type FileEdit, PatchRefused } from './patch.js';

export type ChangeKind = 'add' | 'modify' | 'delete';

/** One file's planned change (repository-relative path). */
export interface PlannedChange {
  path: string;
  kind: ChangeKind;
  /** New bytes (add, modify). */
  after?: Buffer;
  /** A new file's mode. */
  mode?: number;
}

/** Files bigger than this are not patched. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;

const GATE_CONFIG: readonly RegExp[] = [
  /^package\.json$/,
  /^package-lock\.json$/,
  /^npm-shrinkwrap\.json$/,
  /^yarn\.lock$/,
  /^pnpm-lock\.yaml$/,
  /^\.npmrc$/,
  /^[tj]sconfig(\..*)?\.json$/,
  /^biome\.jsonc?$/,
  /^vitest\.(config|workspace|setup)\.[cm]?[jt]s$/,
  /^vite\.config\.[cm]?[jt]s$/,
  /^\.gitignore$/,
  /^\.gitattributes$/,
  /^\.gitmodules$/,
];

/** A file vitest would collect as tests (its default pattern). */
export const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;

const CONFIG_HINT =
  'the gates (typecheck, lint, tests) read that file, so a self-patch may not change it; leave it out of the patch, or ask the user to make that change';

function refuse(message: string, hint: string): never {
  throw new PatchRefused(message, hint);
}

/** The repository-relative form of a path the patch names; refuses paths that could leave the repository. */
export function checkName(name: string): string {
  const bad = (why: string): never =>
    refuse(
      `the patch names "${name.slice(0, 200)}", ${why}`,
      'name files by their path relative to the repository root, e.g. src/agent/loop.ts',
    );
  if (name === '') bad('an empty path');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(name)) bad('which holds a control character');
  if (name.includes('\\')) bad('which holds a backslash');
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name))
    bad('an absolute path; self_modify changes only its own repository');
  const segments = name.split('/');
  if (segments.some((s) => s === '..'))
    bad('which climbs out with ".."; self_modify changes only its own repository');
  if (segments.some((s) => s === '' || s === '.')) bad('which has an empty or "." segment');
  if (segments.some((s) => s.toLowerCase() === '.git'))
    refuse(
      `the patch touches ${name}, inside .git`,
      "git's own data is not part of the source; leave it alone",
    );
  const base = segments.at(-1) ?? '';
  if (GATE_CONFIG.some((re) => re.test(base.toLowerCase())))
    refuse(`the patch changes ${name}, which configures the gates`, CONFIG_HINT);
  return name;
}

type Kind = 'file' | 'missing' | 'other';

/** What is at `rel` (no part of it may be a symbolic link, and its parents must be directories). */
async function inspect(root: string, rel: string): Promise<Kind> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const sub = parts.slice(0, i).join('/');
    const info = await lstat(path.join(root, sub)).catch(() => undefined);
    if (info === undefined) return 'missing';
    if (info.isSymbolicLink())
      refuse(
        `the patch touches ${rel}, but ${sub} is a symbolic link`,
        'self_modify never writes through a link (it could point outside the repository); patch the real file',
      );
    if (i < parts.length && !info.isDirectory())
      refuse(`the patch touches ${rel}, but ${sub} is not a directory`, 'check the path');
    if (i === parts.length) return info.isFile() ? 'file' : 'other';
  }
  return 'missing';
}

function isText(bytes: Buffer): boolean {
  return !bytes.includes(0) && Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

async function readText(root: string, rel: string): Promise<string> {
  const bytes = await readFile(path.join(root, rel));
  if (bytes.length > MAX_FILE_BYTES)
    refuse(`${rel} is larger than 4 MB`, 'self_modify patches source files only');
  if (!isText(bytes))
    refuse(
      `${rel} is not UTF-8 text (binary?)`,
      'self_modify changes text files only; leave binary files to the user',
    );
  return bytes.toString('utf8');
}

function newBytes(rel: string, text: string): Buffer {
  if (text.includes('\0'))
    refuse(`the patch writes a NUL byte into ${rel}`, 'self_modify writes text files only');
  return Buffer.from(text, 'utf8');
}

/** The changes `edits` make in the repository at `root`; throws `PatchRefused` naming the first problem. */
export async function planChanges(root: string, edits: readonly FileEdit[]): Promise<PlannedChange[]> {
  const changes: PlannedChange[] = [];
  const claimed = new Set<string>();
  const claim = (rel: string): void => {
    if (claimed.has(rel))
      refuse(
        `the patch changes ${rel} twice`,
        'put every change to one file in a single section of the patch',
      );
    claimed.add(rel);
  };
  for (const edit of edits) {
    const from = edit.from === undefined ? undefined : checkName(edit.from);
    const to = edit.to === undefined ? undefined : checkName(edit.to);
    let old = '';
    let oldMode = 0o644;
    if (from !== undefined) {
      const kind = await inspect(root, from);
      if (kind === 'missing')
        refuse(
          `the patch changes ${from}, which does not exist`,
          'read the file first; a new file needs "--- /dev/null"',
        );
      if (kind === 'other') refuse(`${from} is not a regular file`, 'self_modify changes regular files only');
      old = await readText(root, from);
      oldMode = (await lstat(path.join(root, from))).mode & 0o777;
    }
    const result = edit.apply(old);
    if (typeof result !== 'string')
      refuse(
        `the patch does not apply: ${result.misfit}`,
        'read the file again and rebuild the patch from its current text (context and "-" lines exactly as they are)',
      );
    if (to === undefined) {
      if (from === undefined) continue;
      if (result !== '')
        refuse(
          `the patch deletes ${from}, but its hunks leave text in it`,
          'a deletion removes every line of the file',
        );
      claim(from);
      changes.push({ path: from, kind: 'delete' });
      continue;
    }
    if (to === from) {
      claim(from);
      changes.push({ path: from, kind: 'modify', after: newBytes(to, result) });
      continue;
    }
    if ((await inspect(root, to)) !== 'missing')
      refuse(
        `the patch creates ${to}, which already exists`,
        'change it with a diff against its current text',
      );
    claim(to);
    changes.push({ path: to, kind: 'add', after: newBytes(to, result), mode: edit.mode ?? oldMode });
    if (from !== undefined && edit.keepFrom !== true) {
      claim(from);
      changes.push({ path: from, kind: 'delete' });
    }
  }
  if (changes.length === 0) refuse('the patch changes nothing', 'send a patch with at least one change');
  refuseLostTests(changes);
  const ignored = await ignoredOf(
    root,
    changes.map((c) => c.path),
  );
  if (ignored.length > 0)
    refuse(
      `the patch touches ignored paths: ${ignored.join(', ')}`,
      'ignored files (dependencies, build output) are not source; change the source instead',
    );
  return changes;
}

/** A test file that goes away (deleted, or renamed to a name vitest does not collect) is refused. */
function refuseLostTests(changes: readonly PlannedChange[]): void {
  const addedTests = changes.filter((c) => c.kind === 'add' && TEST_FILE.test(c.path)).length;
  const deletedTests = changes.filter((c) => c.kind === 'delete' && TEST_FILE.test(c.path));
  if (deletedTests.length > addedTests)
    refuse(
      `the patch deletes the test file${deletedTests.length > 1 ? 's' : ''} ${deletedTests.map((c) => c.path).join(', ')}`,
      'tests that are deleted cannot fail: keep them (change them if the behaviour changed); deleting tests needs a person',
    );
}
