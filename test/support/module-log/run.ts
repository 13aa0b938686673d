/**
 * Runs `tea` from the sources (tsx, as a developer runs it) with the module hook of this
 * folder, which logs each source file it loads to `TEA_MODULE_LOG` (only those whose path
 * contains `TEA_MODULE_LOG_MATCH`, when set). The bundle has no module boundaries to count.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const REGISTER = path.join(ROOT, 'test', 'support', 'module-log', 'register.mjs');
const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

/** The source files (relative to src/) a run logged so far, in load order. */
export function loggedModules(log: string): string[] {
  return existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
}

/** Runs `tea …args` from the sources in `ROOT` with `env` (set TEA_MODULE_LOG there); resolves with its output. */
export function teaFromSources(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  const entry = `const { main } = await import(${JSON.stringify(MAIN)}); process.exitCode = await main(process.argv.slice(1));`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--import', REGISTER, '--input-type=module', '-e', entry, '--', ...args],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}
