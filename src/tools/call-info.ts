/** How a tool call looks to a face: its kind (an icon) and a one-line title. */
import type { ToolCallKind } from '../store/tool-record.js';
import type { ToolRegistry } from './registry.js';

/** Tools whose kind does not follow from their category. */
const KIND_BY_NAME: Record<string, ToolCallKind> = {
  delete_path: 'delete',
  move_path: 'move',
  replace_in_files: 'edit',
  history_search: 'search',
  tool_search: 'search',
  web_search: 'search',
  web_fetch: 'fetch',
  http_request: 'fetch',
  download_file: 'fetch',
  todo_write: 'think',
  todo_read: 'think',
  plan: 'think',
  bg_output: 'read',
  git_status: 'read',
  git_diff: 'read',
  git_log: 'read',
  git_show: 'read',
  git_blame: 'read',
};

/** The kind of a tool: from its name first, then its category and read-only flag. */
export function toolKind(tools: ToolRegistry, name: string): ToolCallKind {
  const byName = KIND_BY_NAME[name];
  if (byName) return byName;
  const tool = tools.get(name);
  if (!tool) return 'other';
  switch (tool.category) {
    case 'files':
      return tool.readOnly ? 'read' : 'edit';
    case 'search':
      return 'search';
    case 'exec':
      return 'execute';
    case 'git':
      return tool.readOnly ? 'read' : 'execute';
    case 'web':
      return 'fetch';
    default:
      return 'other';
  }
}

/**
 * A one-line title: the tool name and what it acts on (its permission subject). The
 * subject comes from the tool's code: a tool not loaded yet (see `ToolRegistry.load`)
 * is titled by its name alone, so callers load it first.
 */
export function toolTitle(tools: ToolRegistry, name: string, args: Record<string, unknown>): string {
  const tool = tools.loaded(name);
  let subject: string | undefined;
  try {
    subject = tool?.subject?.(args as never);
  } catch {
    subject = undefined;
  }
  if (!subject) return name;
  const short = subject.replace(/\s+/g, ' ').trim();
  return `${name}: ${short.length > 100 ? `${short.slice(0, 99)}…` : short}`;
}

/**
 * Loads the tools `names` name (see `ToolRegistry.load`), so their calls' titles carry
 * their subjects. A tool that fails to load is left out: its call says why when it runs.
 */
export async function loadForTitles(tools: ToolRegistry, names: Iterable<string>): Promise<void> {
  await Promise.all([...new Set(names)].map((name) => tools.load(name).catch(() => undefined)));
}
