/**
 * Which tools a user's message asks for by its words, for pre-loading their schemas
 * with the first request. Pre-loading saves the model a `tool_search` call, but every
 * schema makes every request bigger, so a tool is loaded only on clear evidence and
 * within a token budget:
 *
 * - a keyword counts `1 / n` when `n` tools share it ("git" is one tenth of each git
 *   tool), and a quarter of that when it is an everyday word ("add a line" is no
 *   reason for `git_add`, "on this machine" none for `system_info`);
 * - a keyword that is a word of the tool's own name and of no other tool's name
 *   counts fully ("commit" for `git_commit`, "fetch" for `web_fetch`);
 * - the tool's name written out ("git log", "git_log") counts fully;
 * - a Chinese keyword inside a longer one that matched counts for nothing
 *   ("提交" in "提交记录" is the log, not a commit).
 *
 * A tool needs a score of 1; the best ones are taken, at most `max`, while their
 * schemas fit the budget. Only the head and tail of a long message are read (the
 * request is there, not in the megabytes pasted after it), so the cost is bounded.
 */
import { wordRuns } from '../util/words.js';
import type { ToolRegistry } from './registry.js';
import type { ToolInfo } from './types.js';

/** Everyday words that say little about which tool is wanted. */
const EVERYDAY = new Set([
  'add',
  'changes',
  'code',
  'compute',
  'contents',
  'create',
  'dir',
  'directory',
  'edit',
  'file',
  'files',
  'find',
  'json',
  'folder',
  'lines',
  'list',
  'locate',
  'log',
  'machine',
  'name',
  'new',
  'open',
  'package.json',
  'path',
  'project',
  'read',
  'save',
  'search',
  'show',
  'system',
  'text',
  'view',
  'where',
]);

const hasCjk = (s: string): boolean => /[\u3000-\u9fff\uac00-\ud7af]/.test(s);

/** Words of a text (lower case), with snake_case and dotted words also split into parts. */
function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const raw of wordRuns(text.toLowerCase(), true)) {
    const w = raw.replace(/^\.+|\.+$/g, '');
    for (const part of [w, ...w.split(/[_.]/)]) if (part.length > 1) out.add(part);
  }
  return out;
}

/** Start offsets of every occurrence of `needle` in `text`. */
function occurrences(text: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) at.push(i);
  return at;
}

/** The CJK keywords present in `text` that are not only parts of a longer present one. */
function cjkMentions(text: string, keywords: ReadonlySet<string>): Set<string> {
  const present = [...keywords].filter((k) => text.includes(k));
  const spans = present.flatMap((k) =>
    occurrences(text, k).map((start) => ({ k, start, end: start + k.length })),
  );
  const out = new Set<string>();
  for (const k of present) {
    const own = occurrences(text, k);
    const covered = own.every((start) =>
      spans.some((s) => s.k.length > k.length && s.start <= start && s.end >= start + k.length),
    );
    if (!covered) out.add(k);
  }
  return out;
}

export interface MentionOptions {
  /** At most this many tools (default 3). */
  max?: number;
  /** The schemas of the chosen tools fit in this many tokens (characters / 4; default: no limit). */
  budgetTokens?: number;
  /** Tools that are already sent (never chosen again). */
  exclude?: ReadonlySet<string>;
}

/** Token counts by spec (specs are built once per registry and frozen). */
const specSizes = new WeakMap<object, number>();

/** A tool's schema as it goes over the wire, in tokens (characters / 4). */
export function specTokens(registry: ToolRegistry, name: string): number {
  const spec = registry.specs([name])[0]!;
  let tokens = specSizes.get(spec);
  if (tokens === undefined) {
    // `{"type":"function","function":…}` around each spec on the OpenAI wire.
    tokens = Math.ceil((JSON.stringify(spec).length + 32) / 4);
    specSizes.set(spec, tokens);
  }
  return tokens;
}

/** How much of a message is read: its first HEAD and last TAIL characters. */
const HEAD = 2000;
const TAIL = 500;

/** What the tools' names and keywords say, built once per registry (an overlay has its own) and revision. */
interface MentionIndex {
  revision: number;
  /** Per tool: its lower-case name, the parts of the name, its distinct keywords. */
  entries: Array<{ tool: ToolInfo; name: string; parts: Set<string>; keywords: string[] }>;
  /** How many tools list each keyword. */
  shared: Map<string, number>;
  /** How many tool names hold each name part. */
  nameWords: Map<string, number>;
  cjk: Set<string>;
}

const indexes = new WeakMap<ToolRegistry, MentionIndex>();

function mentionIndex(registry: ToolRegistry): MentionIndex {
  const revision = registry.revision;
  const known = indexes.get(registry);
  if (known?.revision === revision) return known;
  const index: MentionIndex = {
    revision,
    entries: [],
    shared: new Map(),
    nameWords: new Map(),
    cjk: new Set(),
  };
  for (const tool of registry.list()) {
    const name = tool.name.toLowerCase();
    const keywords = [...new Set((tool.keywords ?? []).map((k) => k.toLowerCase()))];
    const parts = new Set(name.split('_'));
    index.entries.push({ tool, name, parts, keywords });
    for (const k of keywords) {
      index.shared.set(k, (index.shared.get(k) ?? 0) + 1);
      if (hasCjk(k)) index.cjk.add(k);
    }
    for (const part of parts) index.nameWords.set(part, (index.nameWords.get(part) ?? 0) + 1);
  }
  indexes.set(registry, index);
  return index;
}

/** Tools (not in `exclude`) the text asks for by its words, best first. */
export function mentionedTools(registry: ToolRegistry, text: string, opts: MentionOptions = {}): string[] {
  const read = text.length <= HEAD + TAIL ? text : `${text.slice(0, HEAD)}\n${text.slice(-TAIL)}`;
  const lower = read.toLowerCase();
  const words = wordsOf(lower);
  const { entries, shared, nameWords, cjk } = mentionIndex(registry);
  const cjkHere = cjkMentions(lower, cjk);
  const said = (k: string): boolean =>
    hasCjk(k) ? cjkHere.has(k) : k.includes(' ') ? lower.includes(k) : words.has(k);

  const scored: Array<{ name: string; score: number }> = [];
  for (const { tool, name, parts, keywords } of entries) {
    if (opts.exclude?.has(tool.name)) continue;
    let score =
      name.includes('_') && (lower.includes(name) || lower.includes(name.replaceAll('_', ' '))) ? 1 : 0;
    for (const k of keywords) {
      if (!said(k)) continue;
      const everyday = EVERYDAY.has(k);
      if (!everyday && parts.has(k) && nameWords.get(k) === 1) score += 1;
      else score += (everyday ? 0.25 : 1) / (shared.get(k) ?? 1);
    }
    if (score >= 1) scored.push({ name: tool.name, score });
  }
  scored.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));

  const chosen: string[] = [];
  let budget = opts.budgetTokens ?? Number.POSITIVE_INFINITY;
  for (const { name } of scored) {
    if (chosen.length >= (opts.max ?? 3)) break;
    const cost = specTokens(registry, name);
    if (cost > budget) continue;
    chosen.push(name);
    budget -= cost;
  }
  return chosen;
}
