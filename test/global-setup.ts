import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** CLI tests spawn the shipped bundle, so build dist/ fresh before any test runs. */
export default function setup(): void {
  // For quick runs of tests that do not spawn the CLI while dist/ is known fresh.
  if (process.env.TEA_SKIP_BUILD === '1') return;
  const root = path.resolve(import.meta.dirname, '..');
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
}
