'use strict';
/**
 * Runs the bundled CLI (dist/tea.cjs) from a V8 code cache. Node 20 compiles every
 * start afresh (it has no compile cache for ES modules or application code); with a
 * cache, V8 reads back the bytecode of the functions an earlier run compiled instead
 * of parsing and compiling the bundle again (bench/run.ts has the figures).
 *
 * - Where: `dist/cache/` beside the bundle when it can be written there (one cache
 *   for every user of this copy, rebuilt with dist/), else `<TEA_HOME or ~/.tea>/cache/code/`.
 * - Which: the file name holds the bundle's build id (a hash of its content, set by
 *   scripts/build.mjs), Node's version and architecture, a hash of Node's options
 *   (V8 rejects a cache made under other flags) and the kind of run (bin/tea.js: a
 *   prompt run, or which subcommand), as each compiles its own part of the bundle.
 * - When: at the exit of a run that found no usable cache, so it holds every function
 *   that run compiled. Written to a temporary file and renamed into place: two tea
 *   processes writing at once leave one whole cache, never a mix.
 * - Damage: V8 checks a cache's version, flags and length but not its content (release
 *   builds skip the checksum) and crashes on damaged bytecode, so the file carries a
 *   checksum of its own (scripts/checksum.wat, run as WebAssembly; without WebAssembly,
 *   as under --jitless, no cache is used); a cache that fails it, or that V8 rejects, is
 *   ignored and replaced.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const MAGIC = 0x54454143; // 'TEAC'
/**
 * Magic, checksum, V8 data length, flags (uint32 LE each), then V8's data (16-aligned)
 * and the features of the runs it holds (`a,b,c`, ASCII); the checksum covers both.
 * Flag COMPLETE: written by a run that did its whole job (see `load`).
 */
const HEADER = 16;
const COMPLETE = 1;
/** Caches kept per kind of run in one directory (other builds, Node versions or flags). */
const KEEP = 4;
/** scripts/checksum.wat, compiled by scripts/checksum-wasm.mjs. */
const CHECKSUM_WASM =
  'AGFzbQEAAAABBwFgAn9/AX8DAgEABQMBAAEHFQIGbWVtb3J5AgAIY2hlY2tzdW0AAAqcAQGZAQEGf0HFu/KIeCEEQQEhBUECIQZBAyEHIAAhAiAAIAFqIQMCQANAIAIgA08NASAEIAIoAgBzQZODgAhsIQQgBSACKAIEc0GTg4AIbCEFIAYgAigCCHNBk4OACGwhBiAHIAIoAgxzQZODgAhsIQcgAkEQaiECDAALCyAEIAVBsfPd8XlscyAGQeuUr694bCAHQbXcypV8bHNzCw==';

/** FNV-1a over a short string: the cache key's hash of Node's options. */
function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

let wasm;

/**
 * The first `size` bytes of the checksum module's memory, with 16 zero-filled bytes of
 * room after them: files are read straight into it and checked there, no copy.
 * Undefined when WebAssembly is off (node --jitless): then no cache is used.
 */
function room(size) {
  try {
    wasm ??= new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(CHECKSUM_WASM, 'base64'))).exports;
  } catch {
    return undefined;
  }
  const pages = Math.ceil((size + 16) / 65536) - wasm.memory.buffer.byteLength / 65536;
  if (pages > 0) wasm.memory.grow(pages);
  const bytes = new Uint8Array(wasm.memory.buffer, 0, size + 16);
  bytes.fill(0, size);
  return bytes.subarray(0, size);
}

/** The checksum of the payload behind the header in `room`, zero-padded to 16 bytes. */
const checksum = (length) => wasm.checksum(HEADER, Math.ceil(length / 16) * 16) >>> 0;

/** A cache file's V8 data, flags and features, or undefined when it is missing, short or damaged. */
function readCache(file) {
  let fd;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const bytes = size > HEADER ? room(size) : undefined;
    if (!bytes || fs.readSync(fd, bytes, 0, size, 0) !== size) return undefined;
    const header = new DataView(bytes.buffer, 0, HEADER);
    const length = header.getUint32(8, true);
    if (header.getUint32(0, true) !== MAGIC || length > size - HEADER) return undefined;
    if (checksum(size - HEADER) !== header.getUint32(4, true)) return undefined;
    const listed = Buffer.from(
      bytes.buffer,
      bytes.byteOffset + HEADER + length,
      size - HEADER - length,
    ).toString('latin1');
    return {
      payload: bytes.subarray(HEADER, HEADER + length),
      complete: (header.getUint32(12, true) & COMPLETE) !== 0,
      features: new Set(listed === '' ? [] : listed.split(',')),
    };
  } finally {
    fs.closeSync(fd);
  }
}

function teaHome() {
  const os = require('node:os');
  const fromEnv = process.env.TEA_HOME?.trim();
  if (!fromEnv) return path.join(os.homedir(), '.tea');
  if (fromEnv === '~' || fromEnv.startsWith('~/')) return path.join(os.homedir(), fromEnv.slice(1));
  return path.resolve(fromEnv);
}

/** Writes the cache into the first directory that takes it; old caches of this kind beyond KEEP go. */
function writeCache(dirs, name, kind, payload, complete, features) {
  const listed = Buffer.from([...features].sort().join(','), 'latin1');
  const bytes = room(HEADER + payload.length + listed.length);
  if (!bytes) return;
  bytes.set(payload, HEADER);
  bytes.set(listed, HEADER + payload.length);
  const header = new DataView(bytes.buffer, 0, HEADER);
  header.setUint32(0, MAGIC, true);
  header.setUint32(4, checksum(payload.length + listed.length), true);
  header.setUint32(8, payload.length, true);
  header.setUint32(12, complete ? COMPLETE : 0, true);
  for (const place of dirs) {
    const dir = place.dir();
    const mode = place.mode;
    const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: mode === 0o600 ? 0o700 : 0o755 });
      const fd = fs.openSync(tmp, 'w', mode);
      try {
        fs.writeSync(fd, bytes);
        fs.fsyncSync(fd); // on disk before it has the name: a crash leaves the old file or the new one
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, path.join(dir, name));
    } catch {
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // no such directory
      }
      continue; // not writable here: the next place
    }
    prune(dir, kind);
    return;
  }
}

function prune(dir, kind) {
  try {
    const mine = fs
      .readdirSync(dir)
      .filter((f) => f.startsWith('tea-') && f.endsWith(`-${kind}.cache`))
      .map((f) => ({ f, at: fs.statSync(path.join(dir, f)).mtimeMs }))
      .sort((x, y) => y.at - x.at);
    for (const { f } of mine.slice(KEEP)) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    // another process pruned first
  }
}

/**
 * Compiles and runs the bundle and returns its exports. The bundle (scripts/build.mjs) is
 * ASCII, starts with `//tea-build:<id>`, and is one function expression taking what Node
 * passes a CommonJS module. `kind` names the kind of run (a cache per kind).
 *
 * A cache holds what the run that wrote it compiled. A run that stops early (a usage
 * error, a missing API key) compiles little, so its cache is marked incomplete and the
 * next run that completes (exit code 0 and the bundle's `ranToCompletion()`: a command
 * ran, not just help) replaces it. Parts of the bundle load only when used (a tool
 * family, the memory service): the bundle names each part it loaded in a set at
 * `globalThis[Symbol.for('tea.codeCache.features')]`, the cache lists those of the runs
 * it holds, and a completed run that used a part the cache lacks writes it again, with
 * what it had (V8's data of a run includes every function the cache gave it) and the new
 * part. So after a run that called no tool, the first run that reads a file adds the file
 * tools, instead of compiling them on every later run.
 */
function load(bundle, kind) {
  const bytes = fs.readFileSync(bundle);
  const id = /^\/\/tea-build:([0-9a-f]+)/.exec(bytes.latin1Slice(0, 40))?.[1];
  // A built bundle is ASCII (scripts/build.mjs): read as Latin-1, there is nothing to decode.
  const source = id ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
  const options = fnv(`${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}`);
  const name = `tea-${id ?? 'dev'}-${process.version}-${process.arch}-${options}-${kind}.cache`;
  // Directories as functions: the home (and node:os) only when the first has no usable cache.
  const dirs = [
    { dir: () => path.join(path.dirname(bundle), 'cache'), mode: 0o644 },
    { dir: () => path.join(teaHome(), 'cache', 'code'), mode: 0o600 },
  ];
  let cached;
  for (const { dir } of dirs) {
    cached = readCache(path.join(dir(), name));
    if (cached) break;
  }
  const script = new vm.Script(source, {
    filename: bundle,
    ...(cached ? { cachedData: cached.payload } : {}),
  });
  const mod = { exports: {} };
  const usable = cached !== undefined && !script.cachedDataRejected;
  const had = usable ? cached.features : new Set();
  process.once('exit', (code) => {
    const complete = code === 0 && mod.exports.ranToCompletion?.() === true;
    const used = globalThis[Symbol.for('tea.codeCache.features')] ?? new Set();
    const adds = [...used].some((f) => !had.has(f));
    // Without a usable cache, any run writes one; else only a completed run that improves it.
    if (usable && !(complete && (!cached.complete || adds))) return;
    const features = new Set(complete ? [...had, ...used] : used);
    writeCache(dirs, name, kind, script.createCachedData(), complete, features);
  });
  script.runInThisContext()(mod.exports, createRequire(bundle), mod, bundle, path.dirname(bundle));
  return mod.exports;
}

module.exports = { load, CHECKSUM_WASM };
