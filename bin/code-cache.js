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
 *   checksum of its own; a cache that fails it, or that V8 rejects, is ignored and replaced.
 */
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const MAGIC = 0x54454143; // 'TEAC'
const HEADER = 12; // magic, checksum, payload length (uint32 LE each)
/** Caches kept per kind of run in one directory (other builds, Node versions or flags). */
const KEEP = 4;

/** FNV-1a over a short string: the cache key's hash of Node's options. */
function fnv(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * A checksum of the payload (its byte offset a multiple of 4): FNV-style, four words
 * a step in four lanes, which keeps the loop short while it still runs interpreted.
 */
function checksum(bytes) {
  const words = new Int32Array(bytes.buffer, bytes.byteOffset, bytes.length >>> 2);
  const P = 0x01000193;
  let a = 0x811c9dc5 | 0;
  let b = 1;
  let c = 2;
  let d = 3;
  const lanes = words.length & ~3;
  for (let i = 0; i < lanes; i += 4) {
    a = Math.imul(a ^ words[i], P);
    b = Math.imul(b ^ words[i + 1], P);
    c = Math.imul(c ^ words[i + 2], P);
    d = Math.imul(d ^ words[i + 3], P);
  }
  for (let i = lanes; i < words.length; i++) a = Math.imul(a ^ words[i], P);
  for (let i = words.length << 2; i < bytes.length; i++) a = Math.imul(a ^ bytes[i], P);
  return (a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b) ^ Math.imul(d, 0xc2b2ae35)) >>> 0;
}

/** The payload of a cache file, or undefined when it is missing, short or damaged. */
function readCache(file) {
  let data;
  try {
    data = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (data.length < HEADER || data.readUInt32LE(0) !== MAGIC) return undefined;
  if (data.readUInt32LE(8) !== data.length - HEADER) return undefined;
  let payload = data.subarray(HEADER);
  if (payload.byteOffset % 4 !== 0) payload = new Uint8Array(payload);
  return checksum(payload) === data.readUInt32LE(4) ? payload : undefined;
}

function teaHome() {
  const os = require('node:os');
  const fromEnv = process.env.TEA_HOME?.trim();
  if (!fromEnv) return path.join(os.homedir(), '.tea');
  if (fromEnv === '~' || fromEnv.startsWith('~/')) return path.join(os.homedir(), fromEnv.slice(1));
  return path.resolve(fromEnv);
}

/** Writes the cache into the first directory that takes it; old caches of this kind beyond KEEP go. */
function writeCache(dirs, name, kind, payload) {
  const bytes = new Uint8Array(payload.buffer, payload.byteOffset, payload.length);
  const aligned = bytes.byteOffset % 4 === 0 ? bytes : new Uint8Array(bytes);
  const header = Buffer.alloc(HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(checksum(aligned), 4);
  header.writeUInt32LE(aligned.length, 8);
  for (const place of dirs) {
    const dir = place.dir();
    const mode = place.mode;
    const tmp = path.join(dir, `.${name}.${process.pid}.tmp`);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: mode === 0o600 ? 0o700 : 0o755 });
      const fd = fs.openSync(tmp, 'w', mode);
      try {
        fs.writeSync(fd, header);
        fs.writeSync(fd, aligned);
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
  let cachedData;
  for (const { dir } of dirs) {
    cachedData = readCache(path.join(dir(), name));
    if (cachedData) break;
  }
  const script = new vm.Script(source, { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  if (!cachedData || script.cachedDataRejected) {
    process.once('exit', () => writeCache(dirs, name, kind, script.createCachedData()));
  }
  const mod = { exports: {} };
  script.runInThisContext()(mod.exports, createRequire(bundle), mod, bundle, path.dirname(bundle));
  return mod.exports;
}

module.exports = { load };
