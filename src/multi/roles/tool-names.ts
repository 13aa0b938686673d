/**
 * The tool names a role may list: tea's own (the built-in catalogue, `memory`, the
 * delegation tools, MCP tools) and Claude Code's, which are mapped to tea's.
 */
import { MEMORY_TOOL_INFO } from '../../agent/memory-tool-info.js';
import { closest } from '../../config/suggest.js';
import { CATALOGUE_DATA } from '../../tools/builtin/catalogue-data.js';

/** The delegation tools (src/multi/delegate.ts). */
export const DELEGATION_TOOLS = ['task', 'delegate_tasks'] as const;

let builtinNames: string[] | undefined;

/** Every tool tea itself offers by name: the built-in catalogue, `memory`, the delegation tools. */
export function teaToolNames(): string[] {
  builtinNames ??= [
    ...CATALOGUE_DATA.map(([facts]) => (JSON.parse(facts) as { name: string }).name),
    MEMORY_TOOL_INFO.name,
    ...DELEGATION_TOOLS,
  ];
  return builtinNames;
}

const BG = ['bg_start', 'bg_output', 'bg_input', 'bg_kill', 'bg_list'];
const GIT_READ = ['git_status', 'git_diff', 'git_log', 'git_show', 'git_blame'];
const GIT_WRITE = ['git_branch', 'git_add', 'git_commit', 'git_stash', 'git_checkout_file'];

/**
 * Claude Code's tools as tea's. `Bash` covers what a shell can do that tea has a tool
 * for (processes, git, moving and deleting files); the file tools map to their tea twins.
 */
export const CLAUDE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ['read_file', 'read_many_files'],
  Grep: ['grep'],
  Glob: ['glob', 'find_files'],
  LS: ['list_dir', 'tree', 'file_info'],
  Bash: [
    'bash',
    'which',
    ...BG,
    ...GIT_READ,
    ...GIT_WRITE,
    'move_path',
    'copy_path',
    'delete_path',
    'make_dir',
  ],
  BashOutput: ['bg_output'],
  KillBash: ['bg_kill'],
  KillShell: ['bg_kill'],
  Edit: ['edit_file'],
  MultiEdit: ['edit_file', 'apply_patch'],
  Write: ['write_file', 'append_file', 'make_dir'],
  NotebookRead: ['read_file'],
  NotebookEdit: ['edit_file'],
  WebFetch: ['web_fetch'],
  WebSearch: ['web_search'],
  TodoWrite: ['todo_write', 'todo_read'],
  TodoRead: ['todo_read'],
  ExitPlanMode: ['plan'],
  AskUserQuestion: ['ask_user'],
  Task: [...DELEGATION_TOOLS],
  Agent: [...DELEGATION_TOOLS],
};

/** One entry of a `tools` list, resolved. */
export type ToolEntry =
  | { ok: true; tools: string[]; note?: string }
  | { ok: false; unknown: string; suggestion?: string };

/** `Task(reviewer)` → `Task` and `reviewer`. */
const CALL_FORM = /^([A-Za-z][\w-]*)\s*\((.*)\)$/s;

/** Resolves one listed name to tea tool names: a tea name, a Claude Code name, or an MCP tool. */
export function resolveTool(entry: string, extra: ReadonlySet<string>): ToolEntry {
  const tea = teaToolNames();
  if (tea.includes(entry) || extra.has(entry) || entry.startsWith('mcp__'))
    return { ok: true, tools: [entry] };
  const claude = CLAUDE_TOOLS[entry];
  if (claude) return { ok: true, tools: [...claude] };
  const call = CALL_FORM.exec(entry);
  if (call && (call[1] === 'Task' || call[1] === 'Agent')) {
    return {
      ok: true,
      tools: [...DELEGATION_TOOLS],
      note: `"${entry}" is read as ${DELEGATION_TOOLS.join(' and ')}; tea does not limit which roles it may start`,
    };
  }
  const suggestion = closest(entry, [...tea, ...extra, ...Object.keys(CLAUDE_TOOLS)], 1)[0];
  return { ok: false, unknown: entry, ...(suggestion ? { suggestion } : {}) };
}

/** Some of tea's tool names, for a fix that says what a role may list. */
export function toolNameExamples(): string {
  return 'tea names (read_file, grep, edit_file, bash, …; `tea tools` lists them), Claude Code names (Read, Grep, Glob, Edit, Write, Bash, …) or MCP tools (mcp__server__tool)';
}
