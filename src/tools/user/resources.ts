/**
 * User resources: modules a user keeps in `TEA_HOME/resources/*.js` (and a trusted
 * project's `.tea/resources/*.js`) that `tea mcp serve` offers as MCP resources. One
 * module's default export:
 *
 * ```js
 * export default {
 *   resources: [{ uri: 'notes://today', name: 'today', mimeType: 'text/markdown',
 *                 description: '…', read(ctx) { return '…' } }],          // optional watch(changed) → stop
 *   templates: [{ uriTemplate: 'notes://day/{date}', name: 'day',
 *                 read(params, ctx) { return { text: '…' } } }],         // optional complete(variable, prefix)
 * };
 * ```
 *
 * A module passes the checks a user tool passes (compile.ts, analyse.ts), under the
 * approval class `none`: it may import zod and harmless built-ins and read files, never
 * write, reach the network or start processes, and never build code from strings. It
 * runs with the gates of that class (gate.ts). Compiled modules are cached by the
 * sha256 of their source, so an edited file is checked and loaded again on the next
 * request (hot reload) and an unchanged one is not recompiled.
 */
import { sha256 } from './hash.js';

/** What `read` receives besides the template's variables. */
export interface UserResourceContext {
  /** The served workspace. */
  cwd: string;
  /** Aborted when the read takes too long or the client goes away. */
  signal: AbortSignal;
}

export interface UserResourceDef {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(ctx: UserResourceContext): unknown;
  /** Calls `changed` when the resource changes; returns the function that stops it. */
  watch?(changed: () => void): unknown;
}

export interface UserTemplateDef {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  read(params: Record<string, string>, ctx: UserResourceContext): unknown;
  complete?(variable: string, prefix: string): unknown;
}

export interface UserResourceModule {
  /** The module file. */
  file: string;
  resources: UserResourceDef[];
  templates: UserTemplateDef[];
}

export const MODULE_SHAPE =
  'export default { resources?: [{ uri, name, mimeType?, description?, read(ctx) }], templates?: [{ uriTemplate, name, mimeType?, description?, read(params, ctx) }] }';
/** Entries one module may define. */
export const MAX_ENTRIES = 1000;

const SCHEME_URI = /^[a-z][a-z0-9+.-]*:[^\s]{1,2040}$/i;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a name may not hold
const NAME = /^[^\s\u0000-\u001f][^\u0000-\u001f]{0,199}$/;
/** `{var}` or `{+var}`: RFC 6570 simple and reserved expansion of one variable. */
export const TEMPLATE_VAR = /\{(\+?)([A-Za-z_][A-Za-z0-9_]{0,63})\}/g;

type Bad = (why: string) => Error;

function optionalText(v: Record<string, unknown>, key: string, bad: Bad, max = 2000): void {
  if (v[key] !== undefined && (typeof v[key] !== 'string' || (v[key] as string).length > max))
    throw bad(`${key} must be a string of at most ${max} characters`);
}

function common(v: unknown, where: string, bad: Bad): Record<string, unknown> {
  if (typeof v !== 'object' || v === null) throw bad(`${where} is not an object`);
  const r = v as Record<string, unknown>;
  if (typeof r.name !== 'string' || !NAME.test(r.name)) throw bad(`${where}.name must be a short name`);
  for (const key of ['title', 'description', 'mimeType']) optionalText(r, key, (w) => bad(`${where}.${w}`));
  if (typeof r.read !== 'function') throw bad(`${where}.read must be a function`);
  return r;
}

/** Why `uri` cannot be a user resource's URI (schemes Tea serves itself are taken). */
export function uriProblem(uri: string): string | undefined {
  if (!SCHEME_URI.test(uri)) return 'it is not a URI with a scheme (e.g. notes://today)';
  const scheme = uri.slice(0, uri.indexOf(':')).toLowerCase();
  if (scheme === 'file' || scheme === 'tea')
    return `${scheme}: URIs are Tea's own (workspace files, sessions, memories); use another scheme`;
  return undefined;
}

/** The default export checked for the module shape; throws naming the first problem. */
export function moduleOf(file: string, value: unknown): UserResourceModule {
  const bad: Bad = (why) => new Error(`${why} (the shape: ${MODULE_SHAPE})`);
  if (typeof value !== 'object' || value === null) throw bad('the module has no default export object');
  const { resources = [], templates = [] } = value as { resources?: unknown; templates?: unknown };
  if (!Array.isArray(resources) || !Array.isArray(templates))
    throw bad('resources and templates must be lists');
  if (resources.length + templates.length > MAX_ENTRIES)
    throw bad(`a module may define at most ${MAX_ENTRIES} resources and templates`);
  if (resources.length + templates.length === 0) throw bad('the module defines no resources or templates');
  const out: UserResourceModule = { file, resources: [], templates: [] };
  resources.forEach((v, i) => {
    const r = common(v, `resources[${i}]`, bad);
    const problem = typeof r.uri === 'string' ? uriProblem(r.uri) : 'it is not a string';
    if (problem) throw bad(`resources[${i}].uri: ${problem}`);
    if (r.watch !== undefined && typeof r.watch !== 'function')
      throw bad(`resources[${i}].watch must be a function`);
    out.resources.push(r as unknown as UserResourceDef);
  });
  templates.forEach((v, i) => {
    const t = common(v, `templates[${i}]`, bad);
    const problem = typeof t.uriTemplate === 'string' ? uriProblem(t.uriTemplate) : 'it is not a string';
    if (problem) throw bad(`templates[${i}].uriTemplate: ${problem}`);
    if ([...(t.uriTemplate as string).matchAll(TEMPLATE_VAR)].length === 0)
      throw bad(`templates[${i}].uriTemplate has no {variable}`);
    if (t.complete !== undefined && typeof t.complete !== 'function')
      throw bad(`templates[${i}].complete must be a function`);
    out.templates.push(t as unknown as UserTemplateDef);
  });
  return out;
}

const cache = new Map<string, UserResourceModule>();

/**
 * The module in `file` with source `source`, checked and evaluated (see the module
 * comment); cached by file and source hash. Throws a message naming what to fix.
 */
export async function loadResourceModule(file: string, source: string): Promise<UserResourceModule> {
  const key = `${file}\u0000${sha256(source)}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const [{ compileTool }, { analyse, evidenceText }, { gatesFor }, { evaluate, userZod }] = await Promise.all(
    [import('./compile.js'), import('./analyse.js'), import('./gate.js'), import('./load.js')],
  );
  const label = file.split(/[\\/]/).pop() ?? 'resource';
  const bundle = await compileTool(label.replace(/\.[^.]+$/, ''), source).catch((e: Error) => {
    throw new Error(e.message.replace(/^the code/, 'the module').replace(/a tool/g, 'a resource module'));
  });
  const analysis = analyse(bundle);
  if (analysis.refused.length > 0)
    throw new Error(`its code does something no module may do: ${evidenceText(analysis.refused)}`);
  if (analysis.needs !== 'none')
    throw new Error(
      `resource modules may only read, and its code needs "${analysis.needs}": ${evidenceText(analysis.evidence)}`,
    );
  let value: unknown;
  try {
    value = evaluate(label, sha256(source).slice(0, 8), bundle, gatesFor(label, 'none', await userZod()));
  } catch (e) {
    throw new Error(`the module threw while loading: ${(e as Error).message}`);
  }
  const mod = moduleOf(file, value);
  for (const k of cache.keys()) if (k.startsWith(`${file}\u0000`)) cache.delete(k);
  cache.set(key, mod);
  return mod;
}
