/**
 * Intent-aware tool loading: only a core tier goes to the model as full schemas;
 * every other tool is a name in a one-line catalog until the model loads it with
 * `tool_search`, or the user's words pre-load it (mentions.ts), within a budget that
 * keeps the first request small.
 */

import { wordRuns } from '../util/words.js';
import { type MentionOptions, mentionedTools, specTokens } from './mentions.js';
import type { ToolDiscoverer, ToolRegistry } from './registry.js';
import type { ToolInfo, ToolSet } from './types.js';

export { specTokens } from './mentions.js';

export type ToolLoading = 'intent' | 'all';

/** Sent with every request (when registered). */
export const CORE_TOOLS: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_dir',
  'grep',
  'bash',
  'tool_search',
];

/**
 * The tools whose schemas go to the model: the core tier, then `preload` (a work
 * mode's first tools), then those loaded.
 */
export function activeToolNames(
  registry: ToolRegistry,
  loaded: ReadonlySet<string>,
  mode: ToolLoading,
  preload: readonly string[] = [],
): string[] {
  if (mode === 'all') return registry.names();
  const names = CORE_TOOLS.filter((n) => registry.has(n));
  for (const n of preload) if (registry.has(n) && !names.includes(n)) names.push(n);
  for (const n of loaded) if (registry.has(n) && !names.includes(n)) names.push(n);
  return names;
}

/**
 * The catalog of tools that are not sent as schemas (neither core nor `preload`):
 * their names, one line. Names only (tool_search finds them by intent too), so it
 * stays small as tools are added.
 */
export function catalogBlock(registry: ToolRegistry, preload: readonly string[] = []): string {
  const names = registry.names().filter((n) => !CORE_TOOLS.includes(n) && !preload.includes(n));
  if (names.length === 0) return '';
  return `More tools (load with tool_search before use): ${names.join(' ')}`;
}

/** The first request of a session (system prompt + tool schemas) stays within this many tokens (characters / 4). */
export const FIRST_REQUEST_TOKENS = 1500;

/**
 * Tokens left for pre-loaded schemas in a request with this system prompt and these
 * tools already sent, under `FIRST_REQUEST_TOKENS` (characters / 4).
 */
export function preloadBudget(
  registry: ToolRegistry,
  systemPrompt: string,
  active: readonly string[],
): number {
  const sent = active.reduce((sum, name) => sum + specTokens(registry, name), 0);
  return Math.max(0, FIRST_REQUEST_TOKENS - Math.ceil(systemPrompt.length / 4) - sent);
}

const hasCjk = (s: string): boolean => /[\u3000-\u9fff\uac00-\ud7af]/.test(s);

function words(text: string): string[] {
  return wordRuns(text.toLowerCase())
    .flatMap((w) => [w, ...w.split('_')])
    .filter((w) => w.length > 1);
}

/**
 * Non-core tools the user's words ask for, best first (see mentions.ts): at most
 * `max` (default 3), within `budgetTokens` of schemas when given.
 */
export function toolsMentioned(
  registry: ToolRegistry,
  text: string,
  opts: Omit<MentionOptions, 'exclude'> = {},
): string[] {
  return mentionedTools(registry, text, { ...opts, exclude: new Set(CORE_TOOLS) });
}

function scoreTool(tool: ToolInfo, query: string, queryWords: readonly string[]): number {
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
export function rankTools(registry: Pick<ToolSet, 'list'>, query: string, limit = 5): ToolInfo[] {
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

export type { ToolDiscoverer } from './registry.js';

/** Adds a discoverer for `registry` (see `ToolRegistry.discover`); the returned function removes it. */
export function addToolDiscoverer(registry: ToolRegistry, discover: ToolDiscoverer): () => void {
  return registry.addDiscoverer(discover);
}

/** Runs every discoverer of `registry` and of the registries it overlays, at once. */
export function discoverTools(registry: ToolRegistry): Promise<void> {
  return registry.discover();
}
