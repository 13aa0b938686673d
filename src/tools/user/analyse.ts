/**
 * The static approval check of a user tool: what its code can do, read from the
 * module esbuild bundled (compile.ts), never from the source as written. esbuild has
 * parsed the code, folded constant strings ('node:' + 'child_process'), and left
 * marks this check reads as plain text:
 *
 * - every module the code imports or requires by a fixed name is `require("__tea_mod:…")`
 *   (anything else esbuild refused already);
 * - every free use of a powerful global (`process`, `fetch`, `eval`, the global object…)
 *   is renamed to a `__tea_g_…` name (esbuild's `define` renames free uses only, so a
 *   local variable called `fetch` is not one).
 *
 * So any such capability in the code shows up as text here, whatever aliasing the
 * source used. The check over-approximates: the same words inside a string count too.
 * It is a tripwire for tools that declare less than they do, not a sandbox: code can
 * still reach the Function constructor through reflection without naming it. The gates
 * in gate.ts enforce the declared class again when the tool runs, and saving a tool
 * is itself approved by a person who sees the code.
 */
import { builtinModules } from 'node:module';
import type { ApprovalClass } from '../types.js';
import { join } from './classes.js';

/** What a module path becomes in the bundle (compile.ts), and what the loader's `require` takes (gate.ts). */
export const MODULE_PREFIX = '__tea_mod:';
/** The prefix of the names powerful globals are renamed to. */
export const GLOBAL_PREFIX = '__tea_g_';

/** The globals renamed in the bundle, by the name the gates receive them under. */
export const GATED_GLOBALS = [
  'process',
  'fetch',
  'WebSocket',
  'EventSource',
  'eval',
  'Function',
  'WebAssembly',
] as const;
export type GatedGlobal = (typeof GATED_GLOBALS)[number];

/** A capability the code shows, with the class it needs ('refused': not allowed in a tool at all). */
export interface Evidence {
  needs: ApprovalClass | 'refused';
  /** The code as it shows it: `require("node:child_process")`, `process.binding`, `fetch`. */
  what: string;
  why: string;
}

export interface Analysis {
  /** The least approval class that covers everything the code does. */
  needs: ApprovalClass;
  evidence: Evidence[];
  /** Evidence of things no tool may do (code built from strings, dynamic import). */
  refused: Evidence[];
}

const NONE_MODULES = new Set([
  'assert',
  'assert/strict',
  'async_hooks',
  'buffer',
  'console',
  'constants',
  'crypto',
  'diagnostics_channel',
  'events',
  'fs',
  'fs/promises',
  'os',
  'path',
  'path/posix',
  'path/win32',
  'perf_hooks',
  'punycode',
  'querystring',
  'readline',
  'readline/promises',
  'stream',
  'stream/consumers',
  'stream/promises',
  'stream/web',
  'string_decoder',
  'sys',
  'timers',
  'timers/promises',
  'url',
  'util',
  'util/types',
  'zlib',
]);
const NETWORK_MODULES = new Set(['http', 'https', 'http2', 'net', 'tls', 'dgram', 'dns', 'dns/promises']);
export const FS_MODULES = new Set(['fs', 'fs/promises']);

/** fs functions that change files (their promise and callback forms share the name). */
export const FS_WRITE_NAMES = [
  'appendFile',
  'appendFileSync',
  'chmod',
  'chmodSync',
  'chown',
  'chownSync',
  'copyFile',
  'copyFileSync',
  'cp',
  'cpSync',
  'createWriteStream',
  'fchmod',
  'fchmodSync',
  'fchown',
  'fchownSync',
  'ftruncate',
  'ftruncateSync',
  'futimes',
  'futimesSync',
  'lchmod',
  'lchown',
  'lchownSync',
  'link',
  'linkSync',
  'lutimes',
  'lutimesSync',
  'mkdir',
  'mkdirSync',
  'mkdtemp',
  'mkdtempSync',
  'rename',
  'renameSync',
  'rm',
  'rmSync',
  'rmdir',
  'rmdirSync',
  'symlink',
  'symlinkSync',
  'truncate',
  'truncateSync',
  'unlink',
  'unlinkSync',
  'utimes',
  'utimesSync',
  'write',
  'writeFile',
  'writeFileSync',
  'writeSync',
  'writev',
  'writevSync',
] as const;

/** What `process.<name>` may read without `exec`: facts about the process, never control of it. */
export const SAFE_PROCESS = new Set([
  'arch',
  'argv',
  'argv0',
  'cpuUsage',
  'cwd',
  'emitWarning',
  'env',
  'execPath',
  'features',
  'hrtime',
  'memoryUsage',
  'nextTick',
  'pid',
  'platform',
  'ppid',
  'release',
  'title',
  'uptime',
  'version',
  'versions',
]);

const BUILTINS = new Set(builtinModules.map((m) => m.replace(/^node:/, '')));

/** The class a module needs, by its path as imported (`zod`, `node:fs`, `child_process`). */
export function moduleNeeds(spec: string): { needs: ApprovalClass | 'refused'; why: string } {
  if (spec === 'zod') return { needs: 'none', why: 'zod' };
  const bare = spec.replace(/^node:/, '');
  if (bare === 'vm') return { needs: 'refused', why: 'node:vm runs code built from strings' };
  if (!BUILTINS.has(bare) && !spec.startsWith('node:'))
    return { needs: 'refused', why: 'a tool may import only zod and node: built-ins' };
  if (NONE_MODULES.has(bare)) return { needs: 'none', why: 'a harmless built-in' };
  if (NETWORK_MODULES.has(bare)) return { needs: 'network', why: `node:${bare} reaches the network` };
  return {
    needs: 'exec',
    why: ['child_process', 'worker_threads', 'cluster'].includes(bare)
      ? `node:${bare} starts processes or threads`
      : `node:${bare} can run or load other code`,
  };
}

const NETWORK_GLOBALS = new Set(['fetch', 'WebSocket', 'EventSource']);
const CODE_GLOBALS = new Set(['eval', 'Function', 'WebAssembly']);
const CODE_WHY = 'builds code from strings at run time, which no check can see';

const PROPERTY = /^\s*\.\s*([A-Za-z_$][\w$]*)/;

/** The use of `process` that follows a mark, from the text after it. */
function processUse(after: string, shown: string): Evidence {
  const prop = PROPERTY.exec(after)?.[1];
  if (prop === undefined)
    return {
      needs: 'exec',
      what: shown,
      why: 'process used as a value or with a computed property (it can spawn and load code)',
    };
  if (SAFE_PROCESS.has(prop)) return { needs: 'none', what: `${shown}.${prop}`, why: 'reads facts' };
  return { needs: 'exec', what: `${shown}.${prop}`, why: 'controls the process or loads native code' };
}

/** The use of a renamed global, from the mark's name and the text after it. */
function globalUse(name: string, after: string): Evidence {
  if (name === 'process') return processUse(after, 'process');
  if (NETWORK_GLOBALS.has(name)) return { needs: 'network', what: name, why: 'reaches the network' };
  if (CODE_GLOBALS.has(name)) return { needs: 'refused', what: name, why: CODE_WHY };
  if (name !== 'global')
    return { needs: 'refused', what: `${GLOBAL_PREFIX}${name}`, why: 'a name reserved for the checker' };
  const prop = PROPERTY.exec(after);
  if (!prop)
    return {
      needs: 'exec',
      what: 'globalThis',
      why: 'the global object used as a value or with a computed property',
    };
  const [matched, key] = [prop[0], prop[1]!];
  if (key === 'process') return processUse(after.slice(matched.length), 'globalThis.process');
  if (key === 'global' || key === 'globalThis' || key === 'self' || key === 'require')
    return { needs: 'exec', what: `globalThis.${key}`, why: 'reaches the global object again' };
  if (NETWORK_GLOBALS.has(key) || CODE_GLOBALS.has(key)) return globalUse(key, after.slice(matched.length));
  return { needs: 'none', what: `globalThis.${key}`, why: 'a harmless global' };
}

const REQUIRE_CALL = /^require\(\s*"([^"\\]*)"\s*\)/;

function requireUses(code: string, found: Evidence[]): Set<string> {
  const modules = new Set<string>();
  // `require` as code (esbuild prints a punctuator or keyword after it), not a word in a string.
  for (const m of code.matchAll(/\brequire(?=\s*(?:[^\sA-Za-z0-9_$]|$|in\b|instanceof\b))/g)) {
    const call = REQUIRE_CALL.exec(code.slice(m.index, m.index + 300));
    if (!call || !call[1]!.startsWith(MODULE_PREFIX)) {
      const shown = /^require\s*(?:\([^)\n]{0,40}\)?)?/.exec(code.slice(m.index, m.index + 60))![0];
      found.push({ needs: 'exec', what: shown, why: 'require used with a computed name or passed around' });
      continue;
    }
    const spec = call[1]!.slice(MODULE_PREFIX.length);
    modules.add(spec);
    const { needs, why } = moduleNeeds(spec);
    found.push({ needs, what: `require("${spec}")`, why });
  }
  return modules;
}

/** Reads what the bundled code of a tool can do (see the module comment). */
export function analyse(code: string): Analysis {
  const found: Evidence[] = [];
  const modules = requireUses(code, found);
  if (/\bimport\s*\(/.test(code))
    found.push({ needs: 'refused', what: 'import()', why: 'dynamic import loads code the check cannot see' });
  for (const m of code.matchAll(new RegExp(`\\b${GLOBAL_PREFIX}(\\w+)`, 'g'))) {
    found.push(globalUse(m[1]!, code.slice(m.index + m[0].length, m.index + m[0].length + 200)));
  }
  if (/\.\s*constructor\b|["'`]constructor["'`]/.test(code))
    found.push({
      needs: 'refused',
      what: '.constructor',
      why: `reaches the Function constructor, which ${CODE_WHY}`,
    });
  if ([...modules].some((s) => FS_MODULES.has(s.replace(/^node:/, '')))) {
    const names = new RegExp(`\\b(${FS_WRITE_NAMES.join('|')})\\b`, 'g');
    for (const m of code.matchAll(names))
      found.push({ needs: 'write', what: `fs ${m[1]}`, why: 'changes files' });
  }
  const evidence = dedupe(found.filter((e) => e.needs !== 'none'));
  let needs: ApprovalClass = 'none';
  for (const e of evidence) if (e.needs !== 'refused') needs = join(needs, e.needs);
  return {
    needs,
    evidence: evidence.filter((e) => e.needs !== 'refused'),
    refused: evidence.filter((e) => e.needs === 'refused'),
  };
}

function dedupe(list: Evidence[]): Evidence[] {
  const seen = new Set<string>();
  return list.filter((e) => {
    const key = `${e.needs}\u0000${e.what}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The evidence as a short list for a message: `require("node:child_process") (starts processes)`. */
export function evidenceText(list: readonly Evidence[], max = 5): string {
  const shown = list.slice(0, max).map((e) => `${e.what} (${e.why})`);
  if (list.length > max) shown.push(`and ${list.length - max} more`);
  return shown.join('; ');
}
