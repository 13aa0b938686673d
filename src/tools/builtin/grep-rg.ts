/**
 * The ripgrep grep backend: `rg --json`, multi-threaded, parsed as it streams.
 * rg's own .gitignore handling covers the search root and below; the workspace's
 * rules above the root (and .git/info/exclude) are applied to its results after,
 * so both backends honour the same rules (see gitignore.ts).
 */
import { execFile, spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { ToolError } from '../types.js';
import { loadGitignore } from './gitignore.js';
import {
  comparePaths,
  emptyResult,
  type GrepBackend,
  GrepPatternError,
  type GrepRequest,
  type GrepResult,
  ignoresFor,
  linesAround,
  MatchBudget,
  normalizeFileGlob,
} from './grep-core.js';
import { jsGrepBackend } from './grep-js.js';
import { findExecutable } from './which.js';

/** How long `rg --version` may take when checking that a binary works. */
const PROBE_TIMEOUT_MS = 2000;
const MAX_STDERR_CHARS = 4000;

/** The oldest ripgrep with every flag we pass (`--engine`, `--no-require-git`, …). */
const MIN_MAJOR_VERSION = 13;

/** True when `file --version` says it is ripgrep, new enough. */
function answersVersion(file: string): Promise<boolean> {
  return new Promise((resolveProbe) => {
    execFile(file, ['--version'], { timeout: PROBE_TIMEOUT_MS }, (error, stdout) => {
      const major = /^ripgrep (\d+)\./.exec(stdout)?.[1];
      resolveProbe(!error && major !== undefined && Number(major) >= MIN_MAJOR_VERSION);
    });
  });
}

let found: Promise<string | undefined> | undefined;

/**
 * A working ripgrep binary: `rg` on PATH first (when it is version 13 or newer), else
 * the one shipped with @vscode/ripgrep (loaded lazily). Checked once per process.
 */
export function findRipgrep(): Promise<string | undefined> {
  found ??= (async () => {
    const onPath = findExecutable('rg');
    if (onPath !== undefined && (await answersVersion(onPath))) return onPath;
    try {
      const { rgPath } = await import('@vscode/ripgrep');
      if (await answersVersion(rgPath)) return rgPath;
    } catch {
      // no binary for this platform
    }
    return undefined;
  })();
  return found;
}

interface FileHits {
  matches: number[];
  lines: Map<number, string>;
}

interface RgText {
  text?: string;
  bytes?: string;
}

interface RgMessage {
  type: string;
  data?: {
    path?: RgText;
    lines?: RgText;
    line_number?: number;
    stats?: { searches?: number };
  };
}

function decode(value: RgText | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value.text === 'string') return value.text;
  if (typeof value.bytes === 'string') return Buffer.from(value.bytes, 'base64').toString('utf8');
  return undefined;
}

function rgArgs(request: GrepRequest, isDir: boolean): string[] {
  const args = [
    '--json',
    '--no-config',
    '--hidden',
    '--crlf',
    '--encoding=none',
    '--engine=auto',
    `--max-count=${request.maxPerFile + 1}`,
  ];
  if (request.ignoreCase) args.push('--ignore-case');
  if (request.context > 0) args.push(`--context=${request.context}`);
  if (request.ignoreRoot === undefined) args.push('--no-ignore-vcs');
  else {
    args.push('--no-require-git', '--no-ignore-parent', '--no-ignore-global', '--no-ignore-exclude');
  }
  args.push('--no-ignore-dot');
  if (isDir) {
    const glob = request.glob ? normalizeFileGlob(request.glob) : '**/*';
    if (request.glob) args.push(`--glob=${request.glob}`);
    for (const ignore of ignoresFor(glob)) args.push(`--glob=!${ignore.split('/')[1] ?? ''}`);
  }
  args.push('--regexp', request.pattern, '--', isDir ? '.' : basename(request.root));
  return args;
}

interface RgRun {
  hits: Map<string, FileHits>;
  filesSearched: number;
  /** rg was stopped early because too many matches arrived. */
  overflow: boolean;
}

/** Match events collected before rg is stopped; results past it are cut anyway. */
function overflowLimit(request: GrepRequest): number {
  return Math.max(request.maxResults * 4, request.maxResults + 1000);
}

function runRipgrep(rgPath: string, request: GrepRequest, isDir: boolean): Promise<RgRun> {
  return new Promise((resolveRun, reject) => {
    const cwd = isDir ? request.root : dirname(request.root);
    const child = spawn(rgPath, rgArgs(request, isDir), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: RgRun = { hits: new Map(), filesSearched: 0, overflow: false };
    const limit = overflowLimit(request);
    let matchEvents = 0;
    let sawSummary = false;
    let stderr = '';
    let pending = '';
    let failed: unknown;

    const onAbort = (): void => {
      child.kill('SIGKILL');
    };
    request.signal.addEventListener('abort', onAbort, { once: true });

    const handle = (line: string): void => {
      if (line === '' || run.overflow) return;
      const message = JSON.parse(line) as RgMessage;
      if (message.type === 'summary') {
        sawSummary = true;
        run.filesSearched = message.data?.stats?.searches ?? 0;
        return;
      }
      if (message.type !== 'match' && message.type !== 'context') return;
      const file = decode(message.data?.path);
      const number = message.data?.line_number;
      const text = decode(message.data?.lines);
      if (file === undefined || number === undefined || text === undefined) return;
      const abs = resolve(cwd, file);
      let hits = run.hits.get(abs);
      if (hits === undefined) {
        hits = { matches: [], lines: new Map() };
        run.hits.set(abs, hits);
      }
      hits.lines.set(number, text.replace(/\r?\n$/, ''));
      if (message.type === 'match') {
        hits.matches.push(number);
        if (++matchEvents > limit) {
          run.overflow = true;
          child.kill('SIGKILL');
        }
      }
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline !== -1) {
        try {
          handle(pending.slice(0, newline));
        } catch (error) {
          failed ??= error;
          child.kill('SIGKILL');
        }
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < MAX_STDERR_CHARS) stderr += chunk;
    });
    child.on('error', (error) => {
      request.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      request.signal.removeEventListener('abort', onAbort);
      if (request.signal.aborted) reject(request.signal.reason);
      else if (failed !== undefined) reject(failed);
      else if (run.overflow || code === 0 || code === 1 || sawSummary) resolveRun(run);
      else reject(ripgrepError(stderr, code));
    });
  });
}

function ripgrepError(stderr: string, code: number | null): Error {
  const message = stderr.trim().replace(/^rg: /, '') || `ripgrep exited with code ${code}`;
  if (/regex|parse error|unclosed|unopened|repetition|escape/i.test(message)) {
    return new GrepPatternError(message, 'ripgrep');
  }
  return new ToolError(`ripgrep failed: ${message}`, 'check the path and glob, or simplify the pattern');
}

async function toResult(request: GrepRequest, run: RgRun, isDir: boolean): Promise<GrepResult> {
  const result = emptyResult();
  result.filesSearched = run.filesSearched;
  let files = [...run.hits.keys()].sort(comparePaths);
  if (isDir && request.ignoreRoot !== undefined) {
    const matcher = await loadGitignore(request.ignoreRoot, { alwaysSkip: [] });
    files = files.filter((file) => !matcher.isIgnored(file, false));
  }
  const budget = new MatchBudget(request.maxResults, request.maxPerFile);
  for (const file of files) {
    const hits = run.hits.get(file);
    if (hits === undefined || hits.matches.length === 0) continue;
    const { kept, capped } = budget.take(hits.matches.sort((a, b) => a - b));
    if (kept.length > 0) {
      result.files.push({
        file,
        lines: linesAround(kept, request.context, (n) => hits.lines.get(n)),
        capped,
      });
    }
    if (budget.done) break;
  }
  result.matches = budget.matches;
  result.truncated = budget.truncated || run.overflow;
  return result;
}

/** A backend that runs the ripgrep binary at `rgPath`. */
export function rgGrepBackend(rgPath: string): GrepBackend {
  return {
    name: 'rg',
    async search(request) {
      const isDir = lstatSync(request.root).isDirectory();
      const run = await runRipgrep(rgPath, request, isDir);
      return toResult(request, run, isDir);
    },
  };
}

/** ripgrep when a working binary exists, else the JavaScript backend. */
export const autoGrepBackend: GrepBackend = {
  name: 'auto',
  async search(request) {
    const rg = await findRipgrep();
    return (rg === undefined ? jsGrepBackend : rgGrepBackend(rg)).search(request);
  },
};
