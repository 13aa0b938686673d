/**
 * Intent-aware tool loading: only a core tier goes to the model as full schemas;
 * every other tool is a name in a one-line-per-category catalog until the model
 * loads it with `tool_search`, or the user's words pre-load it by keyword.
 */
import type { ToolRegistry } from './registry.js';
import type { Tool } from './types.js';

export type ToolLoading = 'intent' | 'all';

/** Sent with every request (when registered). */
export const CORE_TOOLS: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_dir',
  'glob',
  'grep',
  'bash',
  'todo_write',
  'tool_search',
  'ask_user',
];

/** The tools whose schemas go to the model: the core tier plus those loaded. */
export function activeToolNames(
  registry: ToolRegistry,
  loaded: ReadonlySet<string>,
  mode: ToolLoading,
): string[] {
  if (mode === 'all') return registry.names();
  const names = CORE_TOOLS.filter((n) => registry.has(n));
  for (const n of loaded) if (registry.has(n) && !names.includes(n)) names.push(n);
  return names;
}

/** The catalog of tools that are not sent as schemas, one line per category. */
export function catalogBlock(registry: ToolRegistry): string {
  const byCategory = new Map<string, string[]>();
  for (const tool of registry.list()) {
    if (CORE_TOOLS.includes(tool.name)) continue;
    byCategory.set(tool.category, [...(byCategory.get(tool.category) ?? []), tool.name]);
  }
  if (byCategory.size === 0) return '';
  const lines = [...byCategory].map(([category, names]) => `${category}: ${names.join(', ')}`);
  return [
    '<available-tools>',
    ...lines,
    '</available-tools>',
    'Load one with tool_search (intent or names) before calling it.',
  ].join('\n');
}

const WORD = /[\p{L}\p{N}_]+/gu;
const hasCjk = (s: string): boolean => /[\u3000-\u9fff\uac00-\ud7af]/.test(s);

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? [])
    .flatMap((w) => [w, ...w.split('_')])
    .filter((w) => w.length > 1);
}

/** Does `text` mention `keyword`? Whole words for Latin scripts, substrings for CJK. */
function mentions(text: string, textWords: ReadonlySet<string>, keyword: string): boolean {
  const k = keyword.toLowerCase();
  if (hasCjk(k)) return text.includes(k);
  if (k.includes(' ')) return text.includes(k);
  return textWords.has(k);
}

/** Non-core tools whose keywords the text mentions (at most `max`, best first). */
export function toolsMentioned(registry: ToolRegistry, text: string, max = 8): string[] {
  const lower = text.toLowerCase();
  const textWords = new Set(words(lower));
  const scored: Array<{ name: string; score: number }> = [];
  for (const tool of registry.list()) {
    if (CORE_TOOLS.includes(tool.name)) continue;
    const score = (tool.keywords ?? []).filter((k) => mentions(lower, textWords, k)).length;
    if (score > 0) scored.push({ name: tool.name, score });
  }
  return scored
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((s) => s.name);
}

function scoreTool(tool: Tool, query: string, queryWords: readonly string[]): number {
  const name = tool.name.toLowerCase();
  if (name === query) return 100;
  let score = 0;
  const nameParts = new Set(name.split('_'));
  const keywords = (tool.keywords ?? []).map((k) => k.toLowerCase());
  const description = new Set(words(tool.description));
  for (const w of queryWords) {
    if (nameParts.has(w) || name === w) score += 6;
    else if (name.includes(w)) score += 3;
    if (tool.category.toLowerCase() === w) score += 4;
    if (keywords.includes(w)) score += 5;
    else if (keywords.some((k) => k.includes(w) || (hasCjk(k) && w.includes(k)))) score += 2;
    if (description.has(w)) score += 1;
  }
  for (const k of keywords) if (hasCjk(k) && query.includes(k)) score += 5;
  return score;
}

/** Tools ranked by how well they fit a free-text intent, best first. */
export function rankTools(registry: ToolRegistry, query: string, limit = 5): Tool[] {
  const q = query.trim().toLowerCase();
  const queryWords = words(q);
  return registry
    .list()
    .map((tool) => ({ tool, score: scoreTool(tool, q, queryWords) }))
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name))
    .slice(0, limit)
    .map((s) => s.tool);
}

/**
 * Finds tools that are not registered yet (an MCP server with no cached tool list
 * connects and registers its tools). `tool_search` and `tool_list` run every
 * discoverer of their registry before they look; a discoverer must not throw.
 */
export type ToolDiscoverer = () => Promise<void>;

const discoverers = new WeakMap<ToolRegistry, Set<ToolDiscoverer>>();

/** Adds a discoverer for `registry`; the returned function removes it. */
export function addToolDiscoverer(registry: ToolRegistry, discover: ToolDiscoverer): () => void {
  let set = discoverers.get(registry);
  if (!set) {
    set = new Set();
    discoverers.set(registry, set);
  }
  set.add(discover);
  return () => {
    set.delete(discover);
  };
}

/** Runs every discoverer of `registry` at once (nothing to do, and no cost, when there are none). */
export async function discoverTools(registry: ToolRegistry): Promise<void> {
  const set = discoverers.get(registry);
  if (!set || set.size === 0) return;
  await Promise.all([...set].map((discover) => discover().catch(() => undefined)));
}
