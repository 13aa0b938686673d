/**
 * Config files validated once per content: the built CLI remembers a file's
 * validated settings under `<home>/cache/config/`, one entry per file, holding the
 * exact text it validated and the config code of this build, so the next command with
 * the same file skips the YAML parser and the schema (~25 ms of every command). Any
 * edit, or another build, misses the cache and validates afresh. The entry is found by
 * a hash of the file's path and content (FNV-1a: no node:crypto to load, ~4 ms) and
 * trusted only when its text is the file's, byte for byte. The copy holds what the file
 * holds (keys included), so it is written owner-only (0600) beside the home's own
 * files. Runs from the sources (no build id) never use it.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type ConfigSource, configSource } from './source.js';

/** Set by scripts/build.mjs: a hash of the config code and the package version. */
declare const __TEA_CONFIG_BUILD__: string | undefined;

function buildId(): string | undefined {
  return typeof __TEA_CONFIG_BUILD__ === 'string' ? __TEA_CONFIG_BUILD__ : undefined;
}

/** FNV-1a, 64 bits, in hex: an entry's name (its content is checked in full). */
function fnv64(data: Uint8Array): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of data) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}

export function configCacheDir(home: string): string {
  return path.join(home, 'cache', 'config');
}

/** `<file key>-<content key>.json`: one entry per config file, replaced when it changes. */
function entryName(file: string, bytes: Buffer, build: string): { prefix: string; name: string } {
  const prefix = fnv64(Buffer.from(path.resolve(file)));
  return { prefix, name: `${prefix}-${fnv64(Buffer.concat([bytes, Buffer.from(`\0${build}`)]))}.json` };
}

/** An entry: the file's text as validated, this build, and the validated settings. */
interface Entry {
  text: string;
  build: string;
  raw: ConfigSource['raw'];
}

function remembered(dir: string, name: string, text: string, build: string): ConfigSource['raw'] | undefined {
  try {
    const entry = JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as Partial<Entry> | null;
    if (entry === null || typeof entry !== 'object' || entry.text !== text || entry.build !== build)
      return undefined;
    const raw = entry.raw;
    return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : undefined;
  } catch {
    return undefined;
  }
}

function remember(dir: string, prefix: string, name: string, entry: Entry): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify(entry), { mode: 0o600 });
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
  // Latin-1: one character per byte, so equal texts are equal bytes.
  const text = bytes?.toString('latin1');
  const entry = bytes && build ? entryName(file, bytes, build) : undefined;
  if (bytes && build && entry && text !== undefined) {
    const raw = remembered(dir, entry.name, text, build);
    if (raw !== undefined) return configSource(raw, bytes);
  }
  const { readConfigSource } = await import('./read.js');
  // The very bytes read above are parsed: what is remembered is what was validated.
  const source = readConfigSource(file, { ...opts, ...(bytes ? { bytes } : {}) });
  if (source && build && entry && text !== undefined)
    remember(dir, entry.prefix, entry.name, { text, build, raw: source.raw });
  return source;
}
