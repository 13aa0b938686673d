/**
 * What a user tool's code receives for the modules it requires and the globals
 * esbuild renamed (analyse.ts): the real thing when its declared approval class
 * covers it, otherwise a stand-in that throws naming the class it would need. This
 * enforces the declared class again while the tool runs, for what the static check
 * cannot see (a module name computed at run time, an fs function picked by a
 * computed key). It is not a sandbox (see analyse.ts).
 */
import { constants, type promises as FsPromises } from 'node:fs';
import { createRequire } from 'node:module';
import type { ApprovalClass } from '../types.js';
import {
  FS_MODULES,
  FS_WRITE_NAMES,
  GATED_GLOBALS,
  type GatedGlobal,
  MODULE_PREFIX,
  moduleNeeds,
  SAFE_PROCESS,
} from './analyse.js';
import { covers } from './classes.js';

const nodeRequire = createRequire(import.meta.url);

export interface Gates {
  require(id: string): unknown;
  globals: Record<GatedGlobal | 'global', unknown>;
}

function refusal(tool: string, declared: ApprovalClass, what: string, needs: string): Error {
  return new Error(
    `${what} needs approval "${needs}", and the tool ${tool} is declared "${declared}" (update it with tool_update declaring "${needs}")`,
  );
}

const WRITE_BITS =
  constants.O_WRONLY | constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND;

function readOnlyFlags(flags: unknown): boolean {
  if (flags === undefined || flags === null) return true;
  if (typeof flags === 'number') return (flags & WRITE_BITS) === 0;
  return flags === 'r' || flags === 'rs' || flags === 'sr';
}

/** fs (or fs/promises) whose functions that change files throw. */
function readOnlyFs<T extends object>(fs: T, block: (what: string) => Error): T {
  const out: Record<string, unknown> = { ...(fs as Record<string, unknown>) };
  for (const name of FS_WRITE_NAMES) {
    if (name in fs)
      out[name] = () => {
        throw block(`fs ${name}`);
      };
  }
  for (const name of ['open', 'openSync'] as const) {
    const real = (fs as Record<string, unknown>)[name];
    if (typeof real !== 'function') continue;
    out[name] = (path: unknown, flags?: unknown, ...rest: unknown[]) => {
      if (!readOnlyFlags(flags)) throw block(`fs ${name} with flags ${String(flags)}`);
      return (real as (...a: unknown[]) => unknown).call(fs, path, flags, ...rest);
    };
  }
  const promises = (fs as { promises?: typeof FsPromises }).promises;
  if (promises) out.promises = readOnlyFs(promises, block);
  return out as T;
}

/** A stand-in that throws when called or constructed (`new WebSocket(…)`). */
function thrower(error: () => Error): () => never {
  return function gated(): never {
    throw error();
  };
}

/** `process` with only what `SAFE_PROCESS` names readable (below `exec`). */
function safeProcess(block: (what: string) => Error): unknown {
  return new Proxy(process, {
    get(target, key) {
      if (typeof key !== 'string' || !SAFE_PROCESS.has(key)) throw block(`process.${String(key)}`);
      // As it is (not bound): process.hrtime.bigint and memoryUsage.rss stay reachable.
      return Reflect.get(target, key);
    },
    set(_target, key) {
      throw block(`setting process.${String(key)}`);
    },
  });
}

/** The gates for a tool declared `declared`; `zod` is what `import … from 'zod'` gives. */
export function gatesFor(tool: string, declared: ApprovalClass, zod: unknown): Gates {
  const block =
    (needs: string) =>
    (what: string): Error =>
      refusal(tool, declared, what, needs);
  const net = covers(declared, 'network');
  const globals: Record<string, unknown> = {
    process: declared === 'exec' ? process : safeProcess(block('exec')),
    fetch: net ? globalThis.fetch : thrower(() => block('network')('fetch')),
    WebSocket: net
      ? (globalThis as Record<string, unknown>).WebSocket
      : thrower(() => block('network')('WebSocket')),
    EventSource: net
      ? (globalThis as Record<string, unknown>).EventSource
      : thrower(() => block('network')('EventSource')),
  };
  for (const name of ['eval', 'Function', 'WebAssembly'])
    globals[name] = thrower(
      () => new Error(`${name} is not allowed in a tool (it builds code from strings)`),
    );
  globals.global = new Proxy(globalThis, {
    get(target, key) {
      if (typeof key === 'string' && key in globals) return globals[key];
      if (key === 'global' || key === 'globalThis' || key === 'self') return globals.global;
      return Reflect.get(target, key);
    },
  });
  const require = (id: string): unknown => {
    if (!id.startsWith(MODULE_PREFIX))
      throw new Error(`require("${id}"): ${tool} may require only zod and node: built-ins`);
    const spec = id.slice(MODULE_PREFIX.length);
    if (spec === 'zod') return zod;
    const { needs, why } = moduleNeeds(spec);
    if (needs === 'refused') throw new Error(`require("${spec}"): ${why}`);
    if (!covers(declared, needs)) throw block(needs)(`require("${spec}")`);
    const mod = nodeRequire(spec.startsWith('node:') ? spec : `node:${spec}`) as object;
    const bare = spec.replace(/^node:/, '');
    return FS_MODULES.has(bare) && !covers(declared, 'write') ? readOnlyFs(mod, block('write')) : mod;
  };
  return { require, globals: globals as Gates['globals'] };
}

/** The parameter names the compiled function takes for the gated globals, in `GATED_GLOBALS` order then the global object. */
export const GATE_PARAMS: readonly string[] = [...GATED_GLOBALS, 'global'];
