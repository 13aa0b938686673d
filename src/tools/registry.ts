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

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specCache = new Map<string, ToolSpec>();

  /**
   * Adds a tool; throws on a duplicate or invalid name or a non-object schema. The
   * JSON schema is built on first use (start-up registers every tool, but the
   * first request needs only the core tier).
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
  }

  private spec(name: string): ToolSpec | undefined {
    let spec = this.specCache.get(name);
    if (spec === undefined) {
      const tool = this.tools.get(name);
      if (tool === undefined) return undefined;
      spec = deepFreeze(buildSpec(tool));
      this.specCache.set(name, spec);
    }
    return spec;
  }

  registerAll(tools: Iterable<Tool>): void {
    for (const tool of tools) this.register(tool);
  }

  /** Removes a tool; returns whether it was there. */
  unregister(name: string): boolean {
    this.specCache.delete(name);
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** All tools in registration order. */
  list(): Tool[] {
    return [...this.tools.values()];
  }

  names(): string[] {
    return [...this.tools.keys()];
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
