/**
 * Gates 2-4 as programs: the repository's own TypeScript compiler, Biome and Vitest
 * from its node_modules, run at the repository root with fixed arguments and
 * machine-readable reports. Each gate answers pass or fail with the output that
 * matters (first errors with file:line), trimmed for the model.
 *
 * The commands are Tea's, not the package.json scripts run as they are: only the
 * tsconfig files are taken from `scripts.typecheck` (`tsc -p <file>`), so the gates
 * cannot be weakened by a script (and the patch may not touch package.json anyway).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { type ProcResult, runProcess, stripAnsi } from './proc.js';

export interface GateRun {
  root: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  timeoutMs: number;
  /** A directory outside the repository for reports. */
  tmpDir: string;
}

export type GateOutcome = { ok: true; summary: string } | { ok: false; output: string; timedOut?: boolean };

/** Raised when the call's signal stops a gate. */
export class GateCancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'GateCancelled';
  }
}

const MAX_SHOWN = 3_000;

function trim(text: string, max = MAX_SHOWN): string {
  const t = stripAnsi(text).trim();
  return t.length <= max ? t : `${t.slice(0, max)}\n… (${t.length - max} more characters)`;
}

function binary(root: string, name: string): string {
  return path.join(root, 'node_modules', '.bin', name);
}

function missing(root: string, name: string, pkg: string): GateOutcome | undefined {
  if (existsSync(binary(root, name))) return undefined;
  return {
    ok: false,
    output: `${pkg} is not installed in the repository (node_modules/.bin/${name}); run npm install`,
  };
}

/** Runs a tool from node_modules/.bin; a timeout or cancel becomes an outcome or GateCancelled. */
async function run(g: GateRun, name: string, args: readonly string[]): Promise<ProcResult> {
  const result = await runProcess(binary(g.root, name), args, {
    cwd: g.root,
    env: g.env,
    timeoutMs: g.timeoutMs,
    signal: g.signal,
  });
  if (result.cancelled) throw new GateCancelled();
  return result;
}

function timedOut(name: string, ms: number, r: ProcResult): GateOutcome {
  const tail = trim(`${r.stdout}\n${r.stderr}`.split('\n').slice(-20).join('\n'), 1_500);
  return {
    ok: false,
    timedOut: true,
    output: `${name} timed out after ${Math.round(ms / 1000)} s and was stopped (a hang: an endless loop, a test that never ends?)${tail ? `\nlast output:\n${tail}` : ''}`,
  };
}

/** The tsconfig files `scripts.typecheck` checks (`tsc -p <file>`), else tsconfig.json (and web/tsconfig.json). */
export function typecheckProjects(root: string): string[] {
  let script = '';
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts?: Record<string, unknown>;
    };
    script = typeof pkg.scripts?.typecheck === 'string' ? pkg.scripts.typecheck : '';
  } catch {
    // No scripts: the defaults below.
  }
  const found: string[] = [];
  for (const part of script.split(/&&|;|\|\|/)) {
    const m = /^\s*(?:npx\s+)?tsc\b.*?(?:-p|--project)[ =](\S+)/.exec(part);
    const file = m?.[1];
    if (file && !file.split('/').includes('..') && existsSync(path.join(root, file))) found.push(file);
  }
  if (found.length > 0) return [...new Set(found)];
  return ['tsconfig.json', 'web/tsconfig.json'].filter((f) => existsSync(path.join(root, f)));
}

/** Gate 2: `tsc --noEmit -p <project>` for each project. */
export async function typecheck(g: GateRun): Promise<GateOutcome> {
  const projects = typecheckProjects(g.root);
  if (projects.length === 0) return { ok: false, output: 'no tsconfig.json at the repository root' };
  const absent = missing(g.root, 'tsc', 'typescript');
  if (absent) return absent;
  for (const project of projects) {
    const r = await run(g, 'tsc', ['--noEmit', '--pretty', 'false', '-p', project]);
    if (r.timedOut) return timedOut(`tsc -p ${project}`, g.timeoutMs, r);
    if (r.code === 0) continue;
    const lines = stripAnsi(`${r.stdout}\n${r.stderr}`)
      .split('\n')
      .filter((l) => l.trim() !== '');
    const errors = lines.filter((l) => /error TS\d+/.test(l));
    const shown = (errors.length > 0 ? errors : lines).slice(0, 15);
    const more = errors.length > shown.length ? `\n… ${errors.length - shown.length} more errors` : '';
    return {
      ok: false,
      output: `tsc -p ${project}: ${errors.length || 'the'} error(s)\n${trim(shown.join('\n'))}${more}`,
    };
  }
  return { ok: true, summary: `${projects.length} project${projects.length > 1 ? 's' : ''}` };
}

export interface Finding {
  /** What identifies it across runs: category, file and message (not the line, which moves). */
  key: string;
  /** file:line category message, for the model. */
  shown: string;
}

interface BiomeReport {
  diagnostics?: Array<{
    category?: string;
    message?: string;
    severity?: string;
    location?: { path?: string | { file?: string }; start?: { line?: number } };
  }>;
}

/** Gate 3's measurement: every finding `biome check` reports for the whole repository. */
export async function lintFindings(g: GateRun): Promise<Finding[] | { error: string; timedOut?: boolean }> {
  const absent = missing(g.root, 'biome', '@biomejs/biome');
  if (absent && !absent.ok) return { error: absent.output };
  const r = await run(g, 'biome', [
    'check',
    '--reporter=json',
    '--max-diagnostics=none',
    '--no-errors-on-unmatched',
    '--colors=off',
    '.',
  ]);
  if (r.timedOut) {
    const t = timedOut('biome check', g.timeoutMs, r);
    return { error: t.ok ? '' : t.output, timedOut: true };
  }
  let report: BiomeReport;
  try {
    report = JSON.parse(r.stdout) as BiomeReport;
  } catch {
    return {
      error: `biome check gave no report (exit ${r.code}):\n${trim(`${r.stdout}\n${r.stderr}`, 1_500)}`,
    };
  }
  return (report.diagnostics ?? []).map((d) => {
    const loc = d.location?.path;
    const file = typeof loc === 'string' ? loc : (loc?.file ?? '');
    const line = d.location?.start?.line;
    const where = line !== undefined && line > 0 ? `${file}:${line}` : file;
    const category = d.category ?? 'unknown';
    const message = (d.message ?? '').trim();
    return { key: `${category}\u0000${file}\u0000${message}`, shown: `${where} ${category}: ${message}` };
  });
}

/** The findings of `after` that `before` does not have (as many of each as are new). */
export function newFindings(before: readonly Finding[], after: readonly Finding[]): Finding[] {
  const left = new Map<string, number>();
  for (const f of before) left.set(f.key, (left.get(f.key) ?? 0) + 1);
  const fresh: Finding[] = [];
  for (const f of after) {
    const n = left.get(f.key) ?? 0;
    if (n > 0) left.set(f.key, n - 1);
    else fresh.push(f);
  }
  return fresh;
}

interface VitestReport {
  numTotalTests?: number;
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  success?: boolean;
  testResults?: Array<{
    name?: string;
    status?: string;
    message?: string;
    assertionResults?: Array<{ fullName?: string; status?: string; failureMessages?: string[] }>;
  }>;
}

export interface TestCounts {
  files: number;
  passed: number;
  failed: number;
  skipped: number;
}

/** "3 files, 12 passed" (and skipped / failed when any). */
export function countsText(c: TestCounts): string {
  const parts = [`${c.files} file${c.files === 1 ? '' : 's'}`, `${c.passed} passed`];
  if (c.failed > 0) parts.push(`${c.failed} failed`);
  if (c.skipped > 0) parts.push(`${c.skipped} skipped`);
  return parts.join(', ');
}

/**
 * A failure message without the test runner's own stack frames: the message, and the
 * first frames in the repository's code (paths made relative to it).
 */
function relevantLines(message: string, root: string): string {
  const lines = message.split('\n');
  const frames = lines.filter((l) => /^\s+at /.test(l));
  const own = frames.filter((l) => !l.includes('node_modules') && !l.includes('node:') && l.includes(root));
  const text = [...lines.filter((l) => !/^\s+at /.test(l)).slice(0, 8), ...own.slice(0, 3)].join('\n');
  return text
    .split(`${root}/`)
    .join('')
    .replace(/file:\/\//g, '');
}

function failures(report: VitestReport, root: string): string {
  const out: string[] = [];
  for (const file of report.testResults ?? []) {
    const name = path.relative(root, file.name ?? '') || (file.name ?? '?');
    if (file.status === 'failed' && (file.assertionResults ?? []).every((a) => a.status !== 'failed'))
      out.push(`FAIL ${name}\n${trim(relevantLines(file.message || '(the file failed to run)', root), 800)}`);
    for (const a of file.assertionResults ?? []) {
      if (a.status !== 'failed') continue;
      const msg = relevantLines((a.failureMessages ?? []).join('\n'), root);
      out.push(`FAIL ${name} > ${a.fullName ?? '?'}\n${trim(msg, 800)}`);
    }
  }
  const shown = out.slice(0, 6);
  if (out.length > shown.length) shown.push(`… ${out.length - shown.length} more failures`);
  return shown.join('\n\n');
}

/**
 * Gate 4: `vitest related <files> --run` (the tests that import the touched files)
 * when `related` is given, else the whole suite (`vitest run`). The suite must run at
 * least one test, and every test file must load.
 */
export async function tests(g: GateRun, related?: readonly string[]): Promise<GateOutcome> {
  const absent = missing(g.root, 'vitest', 'vitest');
  if (absent) return absent;
  const outFile = path.join(g.tmpDir, `vitest-${related ? 'related' : 'suite'}-${Date.now()}.json`);
  const args = related ? ['related', ...related, '--run', '--passWithNoTests'] : ['run'];
  const r = await run(g, 'vitest', [...args, '--reporter=json', `--outputFile=${outFile}`]);
  const name = related ? 'vitest related' : 'vitest run';
  if (r.timedOut) return timedOut(name, g.timeoutMs, r);
  let report: VitestReport | undefined;
  try {
    report = JSON.parse(await readFile(outFile, 'utf8')) as VitestReport;
  } catch {
    report = undefined;
  } finally {
    await rm(outFile, { force: true });
  }
  if (report === undefined)
    return {
      ok: false,
      output: `${name} gave no report (exit ${r.code}):\n${trim(`${r.stderr}\n${r.stdout}`, 2_000)}`,
    };
  const counts: TestCounts = {
    files: report.testResults?.length ?? 0,
    passed: report.numPassedTests ?? 0,
    failed: report.numFailedTests ?? 0,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  };
  const fileFailed = (report.testResults ?? []).some((f) => f.status === 'failed');
  if (counts.failed > 0 || fileFailed || r.code !== 0 || report.success === false) {
    const detail = failures(report, g.root) || trim(`${r.stderr}\n${r.stdout}`, 2_000);
    return { ok: false, output: `${name}: ${countsText(counts)}\n${detail}` };
  }
  if (!related && counts.passed === 0)
    return {
      ok: false,
      output: `${name}: ${countsText(counts)}: the suite ran no passing test, so it proves nothing (were tests removed or skipped?)`,
    };
  return { ok: true, summary: countsText(counts) };
}
