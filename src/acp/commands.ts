/**
 * Slash commands an editor offers in its prompt box (`available_commands_update`).
 * A prompt that starts with one is answered here, without a model call.
 */
import type { AvailableCommand, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Journal, Session } from '../agent/index.js';
import type { LongTermMemory } from '../memory/api.js';
import type { Memory } from '../memory/types.js';
import { undoText } from '../runtime/journal.js';
import { PERMISSION_MODES } from '../runtime/permissions.js';
import { memoryScopes } from '../runtime/runtime.js';
import {
  expandUserCommand,
  loadUserCommands,
  matchUserCommand,
  type UserCommand,
} from '../runtime/user-commands.js';
import type { ToolRegistry } from '../tools/registry.js';
import { modeState, parseMode } from './modes.js';

export const COMMANDS: AvailableCommand[] = [
  { name: 'help', description: 'List the slash commands' },
  {
    name: 'mode',
    description: 'Show the modes, or switch the work mode (design, develop, …) or the permission mode',
    input: { hint: 'work mode | permission mode' },
  },
  { name: 'tools', description: "List Tea's tools by category", input: { hint: 'category (optional)' } },
  {
    name: 'undo',
    description: 'Revert the file changes of the last turn (refuses if you changed those files since)',
  },
  { name: 'redo', description: 'Re-apply the file changes the last /undo reverted' },
  {
    name: 'memory',
    description: 'List long-term memories, or search them',
    input: { hint: 'search words (optional)' },
  },
];

/**
 * The user commands of a workspace (`.tea/commands`, then the Tea home's `commands`);
 * names of the built-in commands win. Skipped files go to the log, one line each.
 */
export function sessionCommands(
  cwd: string,
  home: string,
  log: (line: string) => void,
): Promise<UserCommand[]> {
  const warn = (m: string): void => log(`tea acp: warning: ${m}`);
  return loadUserCommands({ cwd, home, reserved: COMMANDS.map((c) => c.name), warn });
}

/** The built-in commands and the user's, as `available_commands_update` lists them. */
export function availableCommands(user: readonly UserCommand[]): AvailableCommand[] {
  return [
    ...COMMANDS,
    ...user.map((c) => ({
      name: c.name,
      description: c.description,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    })),
  ];
}

/** A prompt `/name args` naming a user command: the prompt it expands to; undefined otherwise. */
export function expandPrompt(text: string, user: readonly UserCommand[]): string | undefined {
  const hit = matchUserCommand(text, user);
  return hit ? expandUserCommand(hit.command.body, hit.args) : undefined;
}

export interface CommandContext {
  session: Session;
  tools: ToolRegistry;
  memory?: LongTermMemory;
  /** The operation journal (absent: /undo and /redo say it is off). */
  journal?: Pick<Journal, 'undo' | 'redo'>;
  /** Sends a session update (e.g. the new mode) to the client. */
  send(update: SessionUpdate): void;
}

/** A known slash command at the start of a prompt, or undefined (then it goes to the model). */
export function parseCommand(text: string): { name: string; arg: string } | undefined {
  const m = /^\/([a-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m?.[1] || !COMMANDS.some((c) => c.name === m[1])) return undefined;
  return { name: m[1], arg: (m[2] ?? '').trim() };
}

function memoryLine(m: Memory): string {
  return `- #${m.id} [${m.category}] ${m.content}`;
}

async function memoryCommand(ctx: CommandContext, query: string): Promise<string> {
  if (!ctx.memory) return 'Long-term memory is not available in this session.';
  const scopes = memoryScopes(ctx.session.row.cwd);
  if (query) {
    const hits = await ctx.memory.search(query, { limit: 10, scopes });
    return hits.length
      ? `Memories matching "${query}":\n${hits.map((h) => memoryLine(h.memory)).join('\n')}`
      : `No memory matches "${query}".`;
  }
  const rows = await ctx.memory.list({ scopes, limit: 20 });
  return rows.length ? `Memories:\n${rows.map(memoryLine).join('\n')}` : 'No memories yet.';
}

function toolsCommand(ctx: CommandContext, category: string): string {
  const byCategory = new Map<string, string[]>();
  for (const t of ctx.tools.list()) {
    if (category && t.category !== category) continue;
    byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t.name]);
  }
  if (byCategory.size === 0) {
    const known = [...new Set(ctx.tools.list().map((t) => t.category))].join(', ');
    return `No tools in category "${category}". Categories: ${known}.`;
  }
  return [...byCategory].map(([c, names]) => `${c}: ${names.join(', ')}`).join('\n');
}

/**
 * `/mode`: alone, both kinds of mode; with a name, a work mode (which also sets its
 * permission mode, told to the editor as the session mode) or a permission mode (the
 * two sets of names are disjoint: config refuses a work mode named like a permission mode).
 */
function modeCommand(ctx: CommandContext, arg: string): string {
  const { session } = ctx;
  const work = session.workModes;
  const kinds = `Work modes: ${work.join(', ')}. Permission modes: ${PERMISSION_MODES.join(', ')}.`;
  if (!arg)
    return `Work mode: ${session.workMode ?? '(none)'} (${work.join(', ')})\nPermission mode: ${session.permissionMode} (${PERMISSION_MODES.join(', ')})`;
  const tell = (): void =>
    ctx.send({
      sessionUpdate: 'current_mode_update',
      currentModeId: modeState(session.permissionMode).currentModeId,
    });
  if (work.includes(arg)) {
    session.setWorkMode(arg);
    tell();
    return `Work mode set to ${arg} (permission mode: ${session.permissionMode}).`;
  }
  let mode: ReturnType<typeof parseMode>;
  try {
    mode = parseMode(arg);
  } catch {
    return `Unknown mode "${arg}". ${kinds}`;
  }
  session.setPermissionMode(mode);
  tell();
  return `Permission mode set to ${mode}.`;
}

/** Runs a parsed command; resolves with the text to show. Bad input gets a clear message. */
export async function runCommand(cmd: { name: string; arg: string }, ctx: CommandContext): Promise<string> {
  switch (cmd.name) {
    case 'mode':
      return modeCommand(ctx, cmd.arg);
    case 'tools':
      return toolsCommand(ctx, cmd.arg);
    case 'memory':
      return memoryCommand(ctx, cmd.arg);
    case 'undo':
    case 'redo':
      if (!ctx.journal) return 'The operation journal is off here: there is nothing to undo or redo.';
      return undoText(await ctx.journal[cmd.name](ctx.session.id));
    default:
      return COMMANDS.map((c) => `/${c.name}${c.input ? ` <${c.input.hint}>` : ''}: ${c.description}`).join(
        '\n',
      );
  }
}
