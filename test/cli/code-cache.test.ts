import { spawn } from 'node:child_process';
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script without type declarations
import { compileChecksum } from '../../scripts/checksum-wasm.mjs';
import { type CliResult, NO_MEMORY_JOBS, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';

/**
 * `tea` runs its bundle from a V8 code cache (bin/code-cache.js). Each test runs a
 * private copy of the built package (bin/, dist/tea.cjs, package.json), so the
 * cache it writes beside the bundle is its own.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

let pkg: string;
let cacheDir: string;
beforeEach(() => {
  pkg = mkdtempSync(path.join(os.tmpdir(), 'tea-pkg-'));
  cpSync(path.join(ROOT, 'bin'), path.join(pkg, 'bin'), { recursive: true });
  mkdirSync(path.join(pkg, 'dist'));
  copyFileSync(path.join(ROOT, 'dist', 'tea.cjs'), path.join(pkg, 'dist', 'tea.cjs'));
  copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(pkg, 'node_modules'));
  cacheDir = path.join(pkg, 'dist', 'cache');
});
afterEach(() => rmSync(pkg, { recursive: true, force: true }));

function tea(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(pkg, 'bin', 'tea.js'), ...args], {
      env: t.ctx.env,
      cwd: t.ctx.work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function prompt(answer = 'ok'): Promise<void> {
  t.server.script(reply().text(answer));
  const r = await tea(['-p', 'hello']);
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(`${answer}\n`);
  expect(r.code).toBe(0);
}

const files = (dir: string) => readdirSync(dir).sort();
const promptCache = () => {
  const names = files(cacheDir).filter((f) => f.endsWith('-prompt.cache'));
  expect(names).toHaveLength(1);
  return path.join(cacheDir, names[0]!);
};
/** Identifies one write of a file: a rewrite is a new file renamed into place. */
const version = (file: string) => `${statSync(file).ino}:${statSync(file).mtimeMs}`;

describe('the code cache', () => {
  it('checks files with the compiled checksum.wat (run `node scripts/checksum-wasm.mjs` after editing it)', async () => {
    const loader = createRequire(import.meta.url)('../../bin/code-cache.js') as { CHECKSUM_WASM: string };
    expect(loader.CHECKSUM_WASM).toBe(await compileChecksum());
  });

  it('is written by a first prompt run beside the bundle and used, unchanged, by the next', async () => {
    await prompt();
    const file = promptCache();
    const buildId = /^\/\/tea-build:([0-9a-f]{16})/.exec(
      readFileSync(path.join(pkg, 'dist', 'tea.cjs'), 'utf8'),
    )!;
    expect(path.basename(file)).toContain(`tea-${buildId[1]}-${process.version}-${process.arch}-`);
    expect(statSync(file).size).toBeGreaterThan(100_000);
    const first = version(file);

    await prompt('again');
    expect(version(file)).toBe(first);
    expect(files(cacheDir)).toEqual([path.basename(file)]);
  });

  it('a run that stops early leaves a cache the next complete run replaces; a complete one stays', async () => {
    // A usage error compiles little: a cache of that alone would slow every later run.
    const early = await tea(['-p', 'hello', '--max-turns', '0']);
    expect(early.code).toBe(2);
    const file = promptCache();
    const small = statSync(file).size;
    const first = version(file);
    await prompt();
    expect(version(file)).not.toBe(first);
    expect(statSync(file).size).toBeGreaterThan(small * 1.5);
    const complete = version(file);
    expect((await tea(['-p', 'hello', '--max-turns', '0'])).code).toBe(2);
    await prompt('again');
    expect(version(file)).toBe(complete);
  });

  it('is written again, with what it had, by a completed run that used a part it lacks', async () => {
    await prompt(); // calls no tool: the cache holds no tool family
    const file = promptCache();
    const bare = version(file);
    const bareSize = statSync(file).size;
    writeFileSync(path.join(t.ctx.work, 'notes.txt'), 'one\n');
    const readNotes = async () => {
      t.server.script(reply().toolCall('read_file', { path: 'notes.txt' }), reply().text('read it'));
      const r = await tea(['-p', 'read notes.txt']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('read it');
    };
    await readNotes(); // loads the files family: the cache gains it
    expect(version(file)).not.toBe(bare);
    expect(statSync(file).size).toBeGreaterThan(bareSize);
    const withFiles = version(file);
    await readNotes(); // nothing new
    await prompt(); // less than the cache has
    expect(version(file)).toBe(withFiles);
    // The features it holds are listed at its end, inside the checksum.
    expect(readFileSync(file).subarray(-40).toString('latin1')).toMatch(/tools:files$/);
  });

  it('keeps a cache of its own for each subcommand', async () => {
    await prompt();
    expect((await tea(['sessions', 'list'])).code).toBe(0);
    expect((await tea(['tools', 'list'])).code).toBe(0);
    expect((await tea(['--help'])).code).toBe(0);
    const kinds = files(cacheDir).map((f) => f.replace(/^.*-/, ''));
    expect(kinds).toEqual(['command.cache', 'prompt.cache', 'sessions.cache', 'tools.cache']);
  });

  it('ignores and replaces a damaged or cut cache (V8 itself would crash on the damaged one)', async () => {
    await prompt();
    const file = promptCache();
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    for (let i = 0; i < 64; i++) damaged[Math.floor(good.length / 2) + i]! ^= 0x5a;
    for (const bad of [damaged, good.subarray(0, good.length - 1000)]) {
      writeFileSync(file, bad);
      await prompt('still fine');
      expect(readFileSync(file).equals(bad)).toBe(false);
      // What replaced it is whole: the next run uses it as it is.
      const rewritten = version(file);
      await prompt();
      expect(version(file)).toBe(rewritten);
    }
  });

  it('goes to TEA_HOME/cache/code, owner-only, when it cannot be written beside the bundle', async () => {
    writeFileSync(cacheDir, 'not a directory');
    await prompt();
    const dir = path.join(t.ctx.home, 'cache', 'code');
    const [name] = files(dir);
    expect(name).toMatch(/-prompt\.cache$/);
    expect(statSync(path.join(dir, name!)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const written = version(path.join(dir, name!));
    await prompt();
    expect(version(path.join(dir, name!))).toBe(written);
  });

  it('is written whole by two runs at once, and no temporary file stays behind', async () => {
    t.server.script(reply().text('one'), reply().text('two'));
    const [a, b] = await Promise.all([tea(['-p', 'first']), tea(['-p', 'second'])]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect([a.stdout, b.stdout].sort()).toEqual(['one\n', 'two\n']);
    const file = promptCache();
    expect(files(cacheDir)).toEqual([path.basename(file)]);
    const written = version(file);
    await prompt();
    expect(version(file)).toBe(written);
  });

  it('keeps the newest four caches of a kind in its directory', async () => {
    mkdirSync(cacheDir);
    const old = Date.now() / 1000 - 3600;
    for (let i = 0; i < 5; i++) {
      const name = path.join(cacheDir, `tea-000000000000000${i}-v0.0.${i}-x64-00000000-prompt.cache`);
      writeFileSync(name, 'from another build');
      utimesSync(name, old + i, old + i);
    }
    writeFileSync(path.join(cacheDir, 'tea-0000000000000000-v0.0.0-x64-00000000-command.cache'), 'x');
    await prompt();
    const left = files(cacheDir);
    expect(left.filter((f) => f.endsWith('-prompt.cache'))).toHaveLength(4);
    expect(left).toContain(path.basename(promptCacheOf(left)));
    expect(left).toContain('tea-0000000000000000-v0.0.0-x64-00000000-command.cache');
    expect(left.some((f) => f.includes('-v0.0.0-') && f.endsWith('-prompt.cache'))).toBe(false);
  });
});

/** The cache this build wrote, among others. */
function promptCacheOf(names: string[]): string {
  const mine = names.find((f) => f.includes(`-${process.version}-`) && f.endsWith('-prompt.cache'));
  expect(mine).toBeDefined();
  return mine!;
}
