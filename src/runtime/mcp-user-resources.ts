/**
 * User resources served by `tea mcp serve` (the module format: tools/user/resources.ts).
 * Read from `TEA_HOME/resources` and, when the user trusts the project's config
 * (`tea trust`), the workspace's `.tea/resources`, whose modules win on the same URI.
 * Each request reads the folders again, so an added, edited or removed module counts
 * from the next request on; a module that fails its checks is skipped with one warning.
 *
 * Template variables are checked before a module sees them: `{name}` takes one path
 * segment (no `/`, `\`, `.` or `..` once decoded), `{+name}` a path without `..`
 * segments; neither may hold control characters. A read has `READ_TIMEOUT_MS`.
 */
import { watch as watchFile } from 'node:fs';
import path from 'node:path';
import {
  McpContentError,
  type ServedContents,
  type ServedResource,
  type ServedTemplate,
} from '../tools/mcp/serve-content.js';
import type { UserResourceModule, UserTemplateDef } from '../tools/user/resources.js';

export const READ_TIMEOUT_MS = 30_000;
/** Module files read per folder. */
export const MAX_MODULE_FILES = 100;
const MODULE_FILE = /^[\p{L}\p{N}][\p{L}\p{N}_.-]{0,63}\.(js|mjs|ts)$/u;

export interface UserResourcesSetup {
  cwd: string;
  home: string;
  /** The project directory whose `.tea/config.yaml` the user trusts: its `.tea/resources` modules run. */
  trustedProject?: string;
  warn?: (message: string) => void;
}

/** The folders to read, project first. */
export function resourceDirs(setup: Pick<UserResourcesSetup, 'cwd' | 'home' | 'trustedProject'>): {
  project: string;
  user: string;
} {
  return {
    project: path.join(setup.trustedProject ?? setup.cwd, '.tea', 'resources'),
    user: path.join(setup.home, 'resources'),
  };
}

/** A template as a matcher: the variables a URI gives it, or undefined when it does not match. */
export function matchTemplate(template: string, uri: string): Record<string, string> | undefined {
  const names: Array<{ name: string; reserved: boolean }> = [];
  let pattern = '';
  let last = 0;
  for (const m of template.matchAll(/\{(\+?)([A-Za-z_][A-Za-z0-9_]{0,63})\}/g)) {
    pattern += template.slice(last, m.index).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern += m[1] ? '(.+?)' : '([^/?#]+?)';
    names.push({ name: m[2]!, reserved: m[1] === '+' });
    last = m.index + m[0].length;
  }
  pattern += template.slice(last).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`^${pattern}$`).exec(uri);
  if (!found) return undefined;
  const params: Record<string, string> = {};
  names.forEach(({ name, reserved }, i) => {
    let value: string;
    try {
      value = decodeURIComponent(found[i + 1]!);
    } catch {
      throw new McpContentError(`${uri}: the value of {${name}} is not valid percent-encoding`);
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(value))
      throw new McpContentError(`${uri}: the value of {${name}} holds control characters`);
    const segments = value.split(/[\\/]/);
    if (!reserved && (segments.length > 1 || value === '.' || value === '..'))
      throw new McpContentError(
        `${uri}: {${name}} takes one path segment, not ${JSON.stringify(value)} (a "/", "\\", "." or ".." is refused)`,
      );
    if (reserved && segments.includes('..'))
      throw new McpContentError(`${uri}: {+${name}} must not hold ".." segments`);
    params[name] = value;
  });
  return params;
}

/** What `read` returned, as contents of `uri` (a string is text, bytes are a blob). */
async function contentsOf(
  uri: string,
  mimeType: string | undefined,
  value: unknown,
): Promise<ServedContents[]> {
  const { resourceContents } = await import('../tools/user/result-parts.js');
  const bad = (why: string) =>
    new McpContentError(`the module's read of ${uri} returned content that ${why}`);
  const one = (v: unknown): ServedContents => {
    const given =
      typeof v === 'string'
        ? { text: v }
        : v instanceof Uint8Array
          ? { blob: v }
          : typeof v === 'object' && v !== null
            ? v
            : undefined;
    if (!given) throw bad('is neither text, bytes nor { text | blob }');
    const withUri = { uri, ...(mimeType ? { mimeType } : {}), ...given };
    const { type: _, ...part } = resourceContents(withUri, bad);
    return {
      ...part,
      mimeType: part.mimeType ?? (part.text !== undefined ? 'text/plain' : 'application/octet-stream'),
    } as ServedContents;
  };
  return Array.isArray(value) ? value.slice(0, 64).map(one) : [one(value)];
}

/** Runs a module's `read` with a time limit; its errors become the client's error message. */
async function timed<T>(uri: string, run: (signal: AbortSignal) => unknown): Promise<T> {
  const ac = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ac.abort();
      reject(new McpContentError(`reading ${uri} took longer than ${READ_TIMEOUT_MS / 1000} s`));
    }, READ_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([Promise.resolve().then(() => run(ac.signal)), limit])) as T;
  } catch (e) {
    if (e instanceof McpContentError) throw e;
    throw new McpContentError(`reading ${uri} failed: ${(e as Error)?.message ?? String(e)}`);
  } finally {
    clearTimeout(timer);
  }
}

export interface UserResources {
  list(): Promise<ServedResource[]>;
  templates(): Promise<ServedTemplate[]>;
  /** The contents, or undefined when no user resource or template has `uri`. */
  read(uri: string): Promise<ServedContents[] | undefined>;
  /** A subscription to a user resource (undefined: not one): its `watch`, and edits of its module file. */
  watch(uri: string, changed: () => void): Promise<(() => void) | undefined>;
  complete(uriTemplate: string, variable: string, prefix: string): Promise<string[] | undefined>;
  /** Calls `changed` (at most every 100 ms) when a module folder changes, until the returned function is called. */
  onListChanged(changed: () => void): () => void;
}

export function userResources(setup: UserResourcesSetup): UserResources {
  const warn = setup.warn ?? (() => {});
  const dirs = resourceDirs(setup);
  const load = async (): Promise<UserResourceModule[]> => {
    const [{ readdirSync }, { readPlainFile }, { MAX_SOURCE_BYTES }, { loadResourceModule }] =
      await Promise.all([
        import('node:fs'),
        import('../tools/user/manifest.js'),
        import('../tools/user/compile.js'),
        import('../tools/user/resources.js'),
      ]);
    const out: UserResourceModule[] = [];
    const folders = setup.trustedProject ? [dirs.project, dirs.user] : [dirs.user];
    if (!setup.trustedProject) {
      const names = (() => {
        try {
          return readdirSync(dirs.project);
        } catch {
          return [];
        }
      })();
      if (names.some((n) => MODULE_FILE.test(n)))
        warn(
          `user resources in ${dirs.project} not loaded: the project is not trusted (run tea trust in ${setup.cwd} to trust its .tea/config.yaml)`,
        );
    }
    for (const dir of folders) {
      let names: string[];
      try {
        names = readdirSync(dir).sort();
      } catch {
        continue;
      }
      for (const name of names.filter((n) => MODULE_FILE.test(n)).slice(0, MAX_MODULE_FILES)) {
        const file = path.join(dir, name);
        try {
          out.push(await loadResourceModule(file, readPlainFile(file, MAX_SOURCE_BYTES)));
        } catch (e) {
          warn(`user resources ${file} skipped: ${(e as Error).message}`);
        }
      }
    }
    return out;
  };
  /** The modules' entries, the first definition of a URI winning (one warning for each other). */
  const entries = async () => {
    const mods = await load();
    const resources = new Map<string, { def: UserResourceModule['resources'][number]; file: string }>();
    const templates = new Map<string, { def: UserTemplateDef; file: string }>();
    for (const mod of mods) {
      for (const def of mod.resources) {
        const held = resources.get(def.uri);
        if (held) warn(`user resource ${def.uri} in ${mod.file} skipped: ${held.file} defines it already`);
        else resources.set(def.uri, { def, file: mod.file });
      }
      for (const def of mod.templates) {
        const held = templates.get(def.uriTemplate);
        if (held)
          warn(`user template ${def.uriTemplate} in ${mod.file} skipped: ${held.file} defines it already`);
        else templates.set(def.uriTemplate, { def, file: mod.file });
      }
    }
    return { resources, templates };
  };
  const describe = <T extends { name: string; title?: string; description?: string; mimeType?: string }>(
    d: T,
  ) => ({
    name: d.name,
    ...(d.title ? { title: d.title } : {}),
    ...(d.description ? { description: d.description } : {}),
    ...(d.mimeType ? { mimeType: d.mimeType } : {}),
  });
  return {
    async list() {
      const { resources } = await entries();
      return [...resources.values()].map(({ def }) => ({ uri: def.uri, ...describe(def) }));
    },
    async templates() {
      const { templates } = await entries();
      return [...templates.values()].map(({ def }) => ({
        uriTemplate: def.uriTemplate,
        ...describe(def),
        description: def.description ?? `${def.name} (a user resource template)`,
      }));
    },
    async read(uri) {
      const { resources, templates } = await entries();
      const fixed = resources.get(uri);
      if (fixed)
        return contentsOf(
          uri,
          fixed.def.mimeType,
          await timed(uri, (signal) => fixed.def.read({ cwd: setup.cwd, signal })),
        );
      for (const { def } of templates.values()) {
        const params = matchTemplate(def.uriTemplate, uri);
        if (params)
          return contentsOf(
            uri,
            def.mimeType,
            await timed(uri, (signal) => def.read(params, { cwd: setup.cwd, signal })),
          );
      }
      return undefined;
    },
    async watch(uri, changed) {
      const { resources, templates } = await entries();
      const fixed = resources.get(uri);
      const template = fixed
        ? undefined
        : [...templates.values()].find(({ def }) => matchTemplate(def.uriTemplate, uri));
      const file = fixed?.file ?? template?.file;
      if (!file) return undefined;
      const stops: Array<() => void> = [];
      const fileWatcher = watchFile(file, { persistent: false }, () => changed());
      fileWatcher.on('error', () => fileWatcher.close());
      stops.push(() => fileWatcher.close());
      if (fixed?.def.watch) {
        const stop = await timed(uri, () => fixed.def.watch?.(changed));
        if (typeof stop === 'function') stops.push(stop as () => void);
      }
      return () => {
        for (const stop of stops) {
          try {
            stop();
          } catch {
            // a module's stop that throws changes nothing here
          }
        }
      };
    },
    onListChanged(changed) {
      let timer: NodeJS.Timeout | undefined;
      const folders = setup.trustedProject ? [dirs.project, dirs.user] : [dirs.user];
      const watchers = folders.flatMap((dir) => {
        try {
          const w = watchFile(dir, { persistent: false }, () => {
            timer ??= setTimeout(() => {
              timer = undefined;
              changed();
            }, 100);
          });
          w.on('error', () => w.close());
          return [w];
        } catch {
          return []; // a folder that does not exist (yet) has nothing to change
        }
      });
      return () => {
        if (timer) clearTimeout(timer);
        for (const w of watchers) w.close();
      };
    },
    async complete(uriTemplate, variable, prefix) {
      const { templates } = await entries();
      const def = templates.get(uriTemplate)?.def;
      if (!def) return undefined;
      if (!def.complete) return [];
      const values = await timed<unknown>(uriTemplate, () => def.complete?.(variable, prefix));
      return Array.isArray(values)
        ? values.filter((v): v is string => typeof v === 'string' && v.startsWith(prefix))
        : [];
    },
  };
}
