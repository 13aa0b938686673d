/**
 * Config files validated once per content: the built CLI remembers a file's
 * validated settings under `<home>/cache/config/`, keyed by the SHA-256 of its exact
 * bytes and of the config code of this build, so the next command with the same
 * file skips the YAML parser and the schema (~25 ms of every command). Any edit,
 * or another build, misses the cache and validates afresh. The copy holds what the
 * file holds (keys included), so it is written owner-only (0600) beside the home's
 * own files. Runs from the sources (no build id) never use it.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ConfigSource } from './read.js';

/** Set by scripts/build.mjs: a hash of the config code and the package version. */
declare const __TEA_CONFIG_BUILD__: string | undefined;

function buildId(): string | undefined {
  return typeof __TEA_CONFIG_BUILD__ === 'string' ? __TEA_CONFIG_BUILD__ : undefined;
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

export function configCacheDir(home: string): string {
  return path.join(home, 'cache', 'config');
}

/** `<file key>-<content key>.json`: one entry per config file, replaced when it changes. */
function entryName(file: string, bytes: Buffer, build: string): { prefix: string; name: string } {
  const prefix = sha256(path.resolve(file)).slice(0, 16);
  return { prefix, name: `${prefix}-${sha256(Buffer.concat([bytes, Buffer.from(`\0${build}`)]))}.json` };
}

function remembered(dir: string, name: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
  } catch {
    return undefined;
  }
}

function remember(dir: string, prefix: string, name: string, raw: unknown): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(raw), { mode: 0o600 });
    renameSync(tmp, path.join(dir, name));
    for (const other of readdirSync(dir)) {
      if (other.startsWith(`${prefix}-`) && other !== name) rmSync(path.join(dir, other), { force: true });
    }
  } catch {
    // A cache that cannot be written only costs the next command the validation.
  }
}

/**
 * Reads one config file: its validated settings from the cache when this build
 * validated these exact bytes before, else parsed and validated (read.ts, loaded
 * only then) and remembered. Errors are read.ts's, naming the file, key and fix.
 */
export async function readConfigCached(
  home: string,
  file: string,
  opts: { optional?: boolean } = {},
): Promise<ConfigSource | undefined> {
  const build = buildId();
  let bytes: Buffer | undefined;
  try {
    bytes = build === undefined ? undefined : readFileSync(file);
  } catch {
    bytes = undefined; // read.ts says why (missing, a directory, unreadable)
  }
  const dir = configCacheDir(home);
  const entry = bytes && build ? entryName(file, bytes, build) : undefined;
  if (bytes && entry) {
    const raw = remembered(dir, entry.name);
    if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      return { raw: raw as ConfigSource['raw'], sha256: sha256(bytes) };
    }
  }
  const { readConfigSource } = await import('./read.js');
  const source = readConfigSource(file, opts);
  if (source && entry && bytes && sha256(bytes) === source.sha256)
    remember(dir, entry.prefix, entry.name, source.raw);
  return source;
}
