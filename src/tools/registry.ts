/** The set of tools an agent can call, and the cached JSON specs sent to models. */
import { distance } from 'fastest-levenshtein';
import type { ToolSpec } from '../llm/types.js';
import { buildSpec } from './schema.js';
import type { Tool, ToolInfo, ToolSet } from './types.js';

/** Names the OpenAI and Anthropic APIs both accept. */
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function normalizeName(name: string): string {
  return name.toLowerCase().replace(/[_\-\s.]/g, '');
}

function tokens(name: string): Set<string> {
  return new Set(
    name
      .replace(/([a-z])([A-Z])/g, '$1_$2')
      .toLowerCase()
      .split(/[_\-\s.]+/)
      .filter((t) => t.length > 0),
  );
}

/** Lower is closer: edit distance, minus bonuses for substring, prefix and shared words. */
function nameScore(query: string, candidate: string): number {
  const q = normalizeName(query);
  const c = normalizeName(candidate);
  let score = distance(q, c);
  if (q.length > 0 && (c.includes(q) || q.includes(c))) score -= 3;
  if (q.length > 0 && (c.startsWith(q) || q.startsWith(c))) score -= 2;
  const qt = tokens(query);
  const ct = tokens(candidate);
  for (const t of ct) if (qt.has(t)) score -= 2;
  // The same words in another order (file_read → read_file) is almost certainly the one.
  if (qt.size > 1 && qt.size === ct.size && [...qt].every((t) => ct.has(t))) score -= 6;
  return score;
}

/**
 * Finds tools that are not registered yet (an MCP server with no cached tool list
 * connects and registers its tools); must not throw.
 */
export type ToolDiscoverer = () => Promise<void>;

/**
 * A tool known by its facts and JSON schema until its first use loads its code (a
 * built-in tool family is a module imported on first call; see tools/builtin/).
 */
export interface LazyTool {
  info: ToolInfo;
  /** The JSON schema of its arguments, as `buildSpec` makes it from the zod schema (asked when first offered). */
  parameters(): ToolSpec['parameters'];
  /** The tool itself; called once (again after a failure), however many calls wait. */
  load(): Promise<Tool>;
}

/** One registered tool: its facts and spec, and its code once loaded. */
interface Entry {
  info: ToolInfo;
  tool?: Tool;
  /** Absent for a tool registered whole. */
  load?: () => Promise<Tool>;
  loading?: Promise<Tool>;
  /** A lazy tool's JSON schema (its spec is made from it on first use). */
  parameters?: () => ToolSpec['parameters'];
  spec?: ToolSpec;
}

/**
 * The tools an agent can call, and the cached JSON specs sent to models.
 *
 * A tool is registered whole (`register`) or by its facts and a loader
 * (`registerLazy`): offering, listing and finding tools, and deciding how calls run,
 * use the facts (`get`, `list`, `specs`); validating, authorising and running a call
 * needs the tool itself (`load`).
 *
 * A registry may overlay a base one (`base.overlay()`): tools registered on the
 * overlay are seen only through it (one session's MCP servers, later a sub-agent's
 * or a user's tools). Names resolve overlay-first (an overlay tool shadows a base
 * tool of the same name), listings hold the base's tools and then the overlay's,
 * and tools added to the base later show through. Everything that runs or offers
 * tools for a session takes the session's registry, overlay or not. A lazy tool is
 * loaded once for a base and every overlay of it.
 */
export class ToolRegistry implements ToolSet {
  private readonly entries = new Map<string, Entry>();
  private readonly discoverers = new Set<ToolDiscoverer>();
  private changes = 0;

  /**
   * @param base the registry this one overlays (absent: a base registry).
   * @param keep which of the base's tools show through (absent: all of them).
   */
  constructor(
    readonly base?: ToolRegistry,
    private readonly keep?: (info: ToolInfo) => boolean,
  ) {}

  /** A new, empty overlay of this registry. */
  overlay(): ToolRegistry {
    return new ToolRegistry(this);
  }

  /**
   * A live view of this registry showing only the tools `keep` accepts (a work mode's
   * tool set): unlike `subset`, tools added to this registry later show through when
   * kept. Offering, finding and running tools through the view never reach the others.
   */
  view(keep: (info: ToolInfo) => boolean): ToolRegistry {
    return new ToolRegistry(this, keep);
  }

  /** The base's entry for `name` when this registry lets it show through. */
  private fromBase(name: string): Entry | undefined {
    const entry = this.base?.entry(name);
    return entry && (this.keep === undefined || this.keep(entry.info)) ? entry : undefined;
  }

  /**
   * A new base registry with the tools seen through this one that `keep` accepts
   * (`tea mcp serve` offers a subset): each shares its facts, spec and loaded code.
   */
  subset(keep: (info: ToolInfo) => boolean): ToolRegistry {
    const out = new ToolRegistry();
    for (const info of this.list()) {
      if (!keep(info)) continue;
      out.add(info.name, this.entry(info.name)!);
    }
    return out;
  }

  /**
   * Counts changes to the tools seen through this registry (its own and its bases'),
   * so caches of derived data can tell when to rebuild.
   */
  get revision(): number {
    return this.changes + (this.base?.revision ?? 0);
  }

  private add(name: string, entry: Entry): void {
    if (!NAME_PATTERN.test(name)) {
      throw new Error(`Invalid tool name "${name}": use 1-64 letters, digits, "_" or "-"`);
    }
    if (this.entries.has(name)) throw new Error(`Duplicate tool name "${name}"`);
    this.entries.set(name, entry);
    this.changes++;
  }

  /**
   * Adds a tool; throws on a duplicate or invalid name or a non-object schema (an
   * overlay may shadow a base tool's name). The JSON schema is built on first use
   * (start-up registers every tool, but the first request needs only the core tier).
   */
  register(tool: Tool): void {
    if (!isObjectSchema(tool)) {
      throw new Error(`Tool "${tool.name}": parameters must be a z.object(...) schema`);
    }
    this.add(tool.name, { info: tool, tool });
  }

  /** Adds a tool by its facts and schema; its code loads on the first `load` (see `LazyTool`). */
  registerLazy(lazy: LazyTool): void {
    this.add(lazy.info.name, { info: lazy.info, parameters: () => lazy.parameters(), load: lazy.load });
  }

  registerAll(tools: Iterable<Tool>): void {
    for (const tool of tools) this.register(tool);
  }

  private entry(name: string): Entry | undefined {
    return this.entries.get(name) ?? this.fromBase(name);
  }

  private spec(name: string): ToolSpec | undefined {
    const entry = this.entry(name);
    if (entry === undefined) return undefined;
    // Made once per entry, shared by every overlay and subset that sees it.
    entry.spec ??= deepFreeze(
      entry.parameters ? lazySpec(entry.info, entry.parameters()) : buildSpec(entry.tool!),
    );
    return entry.spec;
  }

  /** Removes a tool of this registry (never a base's); returns whether it was there. */
  unregister(name: string): boolean {
    const removed = this.entries.delete(name);
    if (removed) this.changes++;
    return removed;
  }

  /** What is known of a tool without loading it. */
  get(name: string): ToolInfo | undefined {
    return this.entry(name)?.info;
  }

  /**
   * The tool itself, loading its code on first use (one load however many calls wait;
   * a failed load is tried again by the next call). Undefined: no such tool. Rejects
   * with an error naming the tool when its code cannot be loaded.
   */
  load(name: string): Promise<Tool | undefined> {
    const entry = this.entry(name);
    if (entry === undefined) return Promise.resolve(undefined);
    if (entry.tool !== undefined) return Promise.resolve(entry.tool);
    entry.loading ??= loadEntry(name, entry);
    return entry.loading;
  }

  /** The tool itself if its code is loaded already (every tool registered whole is). */
  loaded(name: string): Tool | undefined {
    return this.entry(name)?.tool;
  }

  has(name: string): boolean {
    return this.entries.has(name) || this.fromBase(name) !== undefined;
  }

  /** All tools: the base's in registration order (shadowed ones replaced in place), then this registry's. */
  list(): ToolInfo[] {
    const own = (name: string): ToolInfo | undefined => this.entries.get(name)?.info;
    if (!this.base) return [...this.entries.values()].map((e) => e.info);
    const keep = this.keep;
    const base = keep
      ? this.base.list().filter((t) => own(t.name) !== undefined || keep(t))
      : this.base.list();
    const seen = base.map((t) => own(t.name) ?? t);
    const shown = new Set(base.map((t) => t.name));
    for (const [name, entry] of this.entries) if (!shown.has(name)) seen.push(entry.info);
    return seen;
  }

  names(): string[] {
    return this.list().map((t) => t.name);
  }

  /** Adds a discoverer (run by `discover`); the returned function removes it. */
  addDiscoverer(discover: ToolDiscoverer): () => void {
    this.discoverers.add(discover);
    return () => {
      this.discoverers.delete(discover);
    };
  }

  /**
   * Runs the discoverers of this registry and of its bases at once (`tool_search` and
   * `tool_list` do before they look); nothing to do, and no cost, when there are none.
   */
  async discover(): Promise<void> {
    const all: ToolDiscoverer[] = [];
    for (let r: ToolRegistry | undefined = this; r; r = r.base) all.push(...r.discoverers);
    if (all.length === 0) return;
    await Promise.all(all.map((discover) => discover().catch(() => undefined)));
  }

  /**
   * The specs for `names` (default: every tool), in the order asked. Each spec is
   * built once and returned frozen, so this is cheap to call every turn.
   */
  specs(names?: readonly string[]): ToolSpec[] {
    if (names === undefined) return this.names().map((name) => this.spec(name)!);
    return names.map((name) => {
      const spec = this.spec(name);
      if (spec === undefined) {
        const near = this.closest(name);
        const suggestion = near.length > 0 ? ` (did you mean ${near.join(', ')}?)` : '';
        throw new Error(`Unknown tool "${name}"${suggestion}`);
      }
      return spec;
    });
  }

  /**
   * The registered names like `name` (a likely typo: a shared prefix or word, or a
   * few edits), best first; none when nothing is close.
   */
  similar(name: string, n = 3): string[] {
    const limit = Math.max(2, Math.floor(normalizeName(name).length / 3));
    return this.names()
      .map((candidate) => ({ candidate, score: nameScore(name, candidate) }))
      .filter((entry) => entry.score <= limit)
      .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
      .slice(0, Math.max(0, n))
      .map((entry) => entry.candidate);
  }

  /** The `n` registered names closest to `name`, best first. */
  closest(name: string, n = 3): string[] {
    return this.names()
      .map((candidate) => ({ candidate, score: nameScore(name, candidate) }))
      .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
      .slice(0, Math.max(0, n))
      .map((entry) => entry.candidate);
  }
}

/**
 * A z.object(...) schema (a zod schema says its kind in `type`): checked without loading
 * zod's classes, which a run that calls no tool never needs.
 */
function isObjectSchema(tool: Tool): boolean {
  return tool.parameters.type === 'object';
}

function lazySpec(info: ToolInfo, parameters: ToolSpec['parameters']): ToolSpec {
  if (parameters.type !== 'object')
    throw new Error(`Tool "${info.name}": parameters must be an object schema`);
  return { name: info.name, description: info.description, parameters };
}

async function loadEntry(name: string, entry: Entry): Promise<Tool> {
  try {
    const tool = await entry.load!();
    if (tool.name !== name) throw new Error(`its loader gave the tool "${tool.name}"`);
    if (!isObjectSchema(tool)) throw new Error('its parameters are not a z.object(...) schema');
    entry.tool = tool;
    return tool;
  } catch (error) {
    entry.loading = undefined;
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`the tool "${name}" could not be loaded: ${detail}`, { cause: error });
  }
}
