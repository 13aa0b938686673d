/**
 * The user's commands (runtime/user-commands.ts) as MCP prompts. A command's
 * arguments get names from its `argument-hint` (`<issue> [branch]`: `issue` required,
 * `branch` optional), in the order `$1`, `$2`… take them; positions the hint does not
 * name are `arg<N>`. A command that uses only `$ARGUMENTS`, or no placeholder at all,
 * takes one optional `arguments`. Expansion is the commands' own: one pass, text an
 * argument brings in is never expanded again.
 */
import {
  McpContentError,
  type ServedContent,
  type ServedPromptArgument,
} from '../tools/mcp/serve-content.js';
import { loadUserCommands, type UserCommand } from './user-commands.js';

/** The arguments of a command, in positional order (`$1` is the first). */
export function promptArguments(command: Pick<UserCommand, 'body' | 'argumentHint'>): {
  positional: ServedPromptArgument[];
  all: boolean;
} {
  const used = [...command.body.matchAll(/\$([1-9])/g)].map((m) => Number(m[1]));
  const highest = used.length ? Math.max(...used) : 0;
  const hinted: ServedPromptArgument[] = [];
  for (const m of (command.argumentHint ?? '').matchAll(/<([^>]+)>|\[([^\]]+)\]|(\S+)/g)) {
    const raw = (m[1] ?? m[2] ?? m[3] ?? '').trim();
    const name = raw
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, '_')
      .replace(/^_+|_+$/g, '');
    if (!name || hinted.some((h) => h.name === name)) continue;
    hinted.push({ name, description: raw, required: m[2] === undefined });
  }
  if (highest === 0) {
    // $ARGUMENTS or nothing: the hint's names (joined with spaces), else one free-text argument.
    return hinted.length > 0
      ? { positional: hinted, all: true }
      : {
          positional: [{ name: 'arguments', description: 'the text after the command', required: false }],
          all: true,
        };
  }
  const positional = Array.from(
    { length: Math.max(highest, hinted.length) },
    (_, i) => hinted[i] ?? { name: `arg${i + 1}`, description: `$${i + 1}`, required: false },
  );
  return { positional, all: false };
}

/** The prompt text of `command` with named `args`; throws naming an unknown or missing argument. */
export function expandPrompt(command: UserCommand, args: Record<string, string>): string {
  const { positional } = promptArguments(command);
  const names = positional.map((p) => p.name);
  for (const key of Object.keys(args))
    if (!names.includes(key))
      throw new McpContentError(
        `unknown argument "${key}" for prompt ${command.name}; it takes: ${names.join(', ')}`,
      );
  const missing = positional.filter((p) => p.required && !(args[p.name] ?? '').trim());
  if (missing.length)
    throw new McpContentError(
      `prompt ${command.name} needs ${missing.map((p) => `"${p.name}"`).join(', ')} (arguments: ${names.join(', ')})`,
    );
  const values = positional.map((p) => args[p.name] ?? '');
  const all = values.filter((v) => v !== '').join(' ');
  let used = false;
  const out = command.body.replace(/\$(ARGUMENTS|[1-9])/g, (_m, key: string) => {
    used = true;
    return key === 'ARGUMENTS' ? all : (values[Number(key) - 1] ?? '');
  });
  return used || all === '' ? out : `${out}\n\n${all}`;
}

/** The prompts side of `ServedContent` for a workspace. */
export function servedPrompts(opts: {
  cwd: string;
  home: string;
  warn?: (m: string) => void;
}): NonNullable<ServedContent['prompts']> {
  const load = () =>
    loadUserCommands({ cwd: opts.cwd, home: opts.home, ...(opts.warn ? { warn: opts.warn } : {}) });
  return {
    async list() {
      return (await load()).map((c) => ({
        name: c.name,
        description: c.description,
        arguments: promptArguments(c).positional,
      }));
    },
    async get(name, args) {
      const command = (await load()).find((c) => c.name === name);
      if (!command) throw new McpContentError(`no prompt named "${name}"`, 'not_found');
      return {
        description: command.description,
        messages: [{ role: 'user', content: { type: 'text', text: expandPrompt(command, args) } }],
      };
    },
  };
}
