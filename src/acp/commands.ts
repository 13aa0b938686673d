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
import type { ToolRegistry } from '../tools/registry.js';
import { modeState, parseMode } from './modes.js';

export const COMMANDS: AvailableCommand[] = [
  { name: 'help', description: 'List the slash commands' },
  {
    name: 'mode',
    description: 'Show or set the permission mode',
    input: { hint: PERMISSION_MODES.join(' | ') },
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

/** Runs a parsed command; resolves with the text to show. Bad input gets a clear message. */
export async function runCommand(cmd: { name: string; arg: string }, ctx: CommandContext): Promise<string> {
  switch (cmd.name) {
    case 'mode': {
      if (!cmd.arg) return `Permission mode: ${ctx.session.permissionMode}`;
      let mode: ReturnType<typeof parseMode>;
      try {
        mode = parseMode(cmd.arg);
      } catch {
        return `Unknown mode "${cmd.arg}". Use one of: ${PERMISSION_MODES.join(', ')}.`;
      }
      ctx.session.setPermissionMode(mode);
      ctx.send({ sessionUpdate: 'current_mode_update', currentModeId: modeState(mode).currentModeId });
      return `Permission mode set to ${mode}.`;
    }
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
