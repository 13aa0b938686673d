/**
 * The built `tea` loads a built-in tool family only when one of its tools is called:
 * a `tea -p` turn that calls no tool evaluates no family module (nor node:child_process),
 * and one that calls read_file evaluates the files family alone, and records the call
 * as ever (its title naming the file from `pending` on). Read from V8's coverage of
 * the bundle (test/support/bundle-coverage.ts): a family module there is one function
 * that runs when the module is first imported.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BundleCoverage, bundleCoverage } from '../support/bundle-coverage.js';
import { NO_MEMORY_JOBS, runTea, TEA_BIN, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });
const BUNDLE = path.resolve(path.dirname(TEA_BIN), '..', 'dist', 'tea.cjs');

/**
 * Files of src/tools/builtin/ a turn may evaluate without calling a tool: the registry's
 * catalogue, and the patch parser the permission code imports (tools/describe.ts).
 */
const AT_START = ['index.ts', 'families.ts', 'catalogue.ts', 'catalogue-data.ts', 'patch-parse.ts'].map(
  (f) => `src/tools/builtin/${f}`,
);
/** The files family: its module and the modules only it uses (those read_file's call evaluates). */
const FILES_FAMILY = /^src\/tools\/builtin\/(files|read|image|edit|patch|glob|tree|info|fs-ops|text)/;

/** zod's classic API (node_modules may be a link elsewhere: the path is matched by its end). */
const ZOD_CLASSIC = /(^|\/)node_modules\/zod\/v4\/classic\//;

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function teaWithCoverage(
  args: string[],
): Promise<{ out: string; code: number | null; cov: BundleCoverage }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-cov-'));
  dirs.push(dir);
  const r = await runTea(args, { env: { ...t.ctx.env, NODE_V8_COVERAGE: dir }, cwd: t.ctx.work });
  return { out: r.stdout + r.stderr, code: r.code, cov: bundleCoverage(dir, BUNDLE) };
}

const builtinRan = (cov: BundleCoverage): string[] =>
  [...cov.ran].filter((s) => s.startsWith('src/tools/builtin/') && !AT_START.includes(s)).sort();

describe('tea -p loads tool families on first use', () => {
  it('a turn that calls no tool evaluates no tool family module', async () => {
    t.server.script(reply().text('Hello!'));
    const r = await teaWithCoverage(['-p', 'hello']);
    expect(r.out).toContain('Hello!');
    expect(r.code).toBe(0);
    // The families are in the bundle (else this would prove nothing), and none of them ran.
    expect(r.cov.present).toContain('src/tools/builtin/files.ts');
    expect(r.cov.present).toContain('src/tools/builtin/exec.ts');
    expect(builtinRan(r.cov)).toEqual([]);
    expect(r.cov.builtins).not.toContain('node:child_process');
    // Nor Node modules it has no use for before a tool runs: ids come from /dev/urandom and the
    // config file's hash is made only for project trust (crypto, ~4 ms), the background
    // checkpointer is for long-running faces (worker_threads, ~3.5 ms), instruction files are
    // read through the callback API (fs/promises, ~2 ms), and times come from process.hrtime.
    for (const unused of ['node:crypto', 'node:worker_threads', 'node:fs/promises', 'node:perf_hooks'])
      expect(r.cov.builtins).not.toContain(unused);
    // Nor zod's classic API (its classes take several ms to set up; the session state
    // uses zod/mini), nor the memory tool's code (registered by its facts).
    const zodClassic = (paths: Set<string>) => [...paths].filter((s) => ZOD_CLASSIC.test(s));
    expect(zodClassic(r.cov.present)).not.toEqual([]);
    expect(r.cov.present).toContain('src/agent/memory-tool.ts');
    expect(zodClassic(r.cov.ran)).toEqual([]);
    expect(r.cov.ran).not.toContain('src/agent/memory-tool.ts');
    // The model still got every core tool's schema.
    const sent = (t.server.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(sent.map((s) => s.function.name)).toEqual([
      'read_file',
      'write_file',
      'edit_file',
      'list_dir',
      'grep',
      'bash',
      'tool_search',
    ]);
  });

  it('a turn that calls read_file evaluates the files family alone, and records the call as ever', async () => {
    writeFileSync(path.join(t.ctx.work, 'notes.txt'), 'one\ntwo\n');
    t.server.script(reply().toolCall('read_file', { path: 'notes.txt' }), reply().text('Two lines.'));
    const r = await teaWithCoverage(['-p', 'read notes.txt', '--output-format', 'stream-json']);
    expect(r.code).toBe(0);
    const records = r.out
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type: string; record?: Record<string, unknown> })
      .filter((e) => e.type === 'tool_update')
      .map((e) => e.record!);
    expect(records.map((c) => [c.state, c.title, c.kind])).toEqual([
      ['pending', 'read_file: notes.txt', 'read'],
      ['running', 'read_file: notes.txt', 'read'],
      ['completed', 'read_file: notes.txt', 'read'],
    ]);
    expect(JSON.stringify(records.at(-1)!.content)).toContain('1\\tone');
    const ran = builtinRan(r.cov);
    expect(ran).toContain('src/tools/builtin/files.ts');
    expect(ran).toContain('src/tools/builtin/read.ts');
    expect(
      ran.filter(
        (s) => !FILES_FAMILY.test(s) && !/(options|atomic-write|diff-text|edit-match|gitignore)\.ts$/.test(s),
      ),
    ).toEqual([]);
    expect(r.cov.builtins).not.toContain('node:child_process');
    // The model read the file through the tool.
    const second = JSON.stringify(t.server.requests[1]!.body);
    expect(second).toContain('one');
  });
});
