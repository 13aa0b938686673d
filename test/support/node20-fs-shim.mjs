/**
 * Test-only: node:fs plus the `globSync` Node 22 added, for code written against Node 22
 * run on Node 20 (see node20-fs.mjs). Used with string patterns and `{ cwd }`, as the
 * conformance runner does (`globSync('**\/checks.json', { cwd })`): returns paths relative to
 * cwd (files and directories that match), as node's fs.globSync does.
 */
import fs from 'node:fs';
import { globSync as tinyGlobSync } from 'tinyglobby';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  if (options.withFileTypes) throw new Error('node20-fs shim: globSync withFileTypes is not supported');
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const ignore = typeof options.exclude === 'function' ? undefined : options.exclude;
  return tinyGlobSync(patterns, {
    cwd: options.cwd === undefined ? process.cwd() : String(options.cwd),
    ...(ignore ? { ignore } : {}),
    expandDirectories: false,
    onlyFiles: false,
  });
}
