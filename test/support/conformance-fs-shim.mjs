/** Test-only: node:fs plus Node 22's `globSync` (string patterns, `{ cwd }`), for conformance-fs-hook.mjs. */
import fs from 'node:fs';
import { globSync as glob } from 'tinyglobby';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  return glob(Array.isArray(pattern) ? pattern : [pattern], {
    cwd: options.cwd === undefined ? process.cwd() : String(options.cwd),
    expandDirectories: false,
    onlyFiles: false,
  });
}
