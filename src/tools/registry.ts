/** The set of tools an agent can call, and the cached JSON specs sent to models. */
import { distance } from 'fastest-levenshtein';
import * as z from 'zod';
import type { ToolSpec } from '../llm/types.js';
import { buildSpec } from './schema.js';
import type { Tool } from './types.js';

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
 * The tools an agent can call, and the cached JSON specs sent to models.
 *
 * A registry may overlay a base one (`base.overlay()`): tools registered on the
 * overlay are seen only through it (one session's MCP servers, later a sub-agent's
 * or a user's tools). Names resolve overlay-first (an overlay tool shadows a base
 * tool of the same name), listings hold the base's tools and then the overlay's,
 * and tools added to the base later show through. Everything that runs or offers
 * tools for a session takes the session's registry, overlay or not.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specCache = new Map<string, ToolSpec>();
  private readonly discoverers = new Set<ToolDiscoverer>();
  private changes = 0;

  /** @param base the registry this one overlays (absent: a base registry). */
  constructor(readonly base?: ToolRegistry) {}

  /** A new, empty overlay of this registry. */
  overlay(): ToolRegistry {
    return new ToolRegistry(this);
  }

  /**
   * Counts changes to the tools seen through this registry (its own and its bases'),
   * so caches of derived data can tell when to rebuild.
   */
  get revision(): number {
    return this.changes + (this.base?.revision ?? 0);
  }

  /**
   * Adds a tool; throws on a duplicate or invalid name or a non-object schema (an
   * overlay may shadow a base tool's name). The JSON schema is built on first use
   * (start-up registers every tool, but the first request needs only the core tier).
   */
  register(tool: Tool): void {
    if (!NAME_PATTERN.test(tool.name)) {
      throw new Error(`Invalid tool name "${tool.name}": use 1-64 letters, digits, "_" or "-"`);
    }
    if (this.tools.has(tool.name)) throw new Error(`Duplicate tool name "${tool.name}"`);
    if (!(tool.parameters instanceof z.ZodObject)) {
      throw new Error(`Tool "${tool.name}": parameters must be a z.object(...) schema`);
    }
    this.tools.set(tool.name, tool);
    this.changes++;
  }

  private spec(name: string): ToolSpec | undefined {
    const tool = this.tools.get(name);
    // A base tool's spec is the base's (built once, shared by every overlay).
    if (tool === undefined) return this.base?.spec(name);
    let spec = this.specCache.get(name);
    if (spec === undefined) {
      spec = deepFreeze(buildSpec(tool));
      this.specCache.set(name, spec);
    }
    return spec;
  }

  registerAll(tools: Iterable<Tool>): void {
    for (const tool of tools) this.register(tool);
  }

  /** Removes a tool of this registry (never a base's); returns whether it was there. */
  unregister(name: string): boolean {
    this.specCache.delete(name);
    const removed = this.tools.delete(name);
    if (removed) this.changes++;
    return removed;
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name) ?? this.base?.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name) || this.base?.has(name) === true;
  }

  /** All tools: the base's in registration order (shadowed ones replaced in place), then this registry's. */
  list(): Tool[] {
    if (!this.base) return [...this.tools.values()];
    const seen = this.base.list().map((t) => this.tools.get(t.name) ?? t);
    for (const tool of this.tools.values()) if (!this.base.has(tool.name)) seen.push(tool);
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

  /** The `n` registered names closest to `name`, best first. */
  closest(name: string, n = 3): string[] {
    return this.names()
      .map((candidate) => ({ candidate, score: nameScore(name, candidate) }))
      .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
      .slice(0, Math.max(0, n))
      .map((entry) => entry.candidate);
  }
}
