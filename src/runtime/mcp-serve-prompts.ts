/**
 * The user's commands (runtime/user-commands.ts) as MCP prompts. A command's
 * arguments get names from its `argument-hint` (`<issue> [branch]`: `issue` required,
 * `branch` optional), in the order `$1`, `$2`… take them; positions the hint does not
 * name are `arg<N>`. A command that uses only `$ARGUMENTS`, or no placeholder at all,
 * takes one optional `arguments`. Expansion is the commands' own: one pass, text an
 * argument brings in is never expanded again.
 *
 * A template line `@image <path|uri>` becomes an image message and `@resource <path|uri>`
 * an embedded resource (a path is a workspace file; both are read as resources/read
 * reads them, with the same checks); the text between them becomes text messages.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  McpContentError,
  type PromptContent,
  type ServedContent,
  type ServedContents,
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
    // An identifier (`resourceUri`) keeps its spelling; words (`pr number`) become `pr_number`.
    const name = /^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)
      ? raw
      : raw
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

/** The values of the positional arguments; throws naming an unknown or missing argument. */
function argumentValues(
  command: UserCommand,
  args: Record<string, string>,
): { values: string[]; all: string } {
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
  return { values, all: values.filter((v) => v !== '').join(' ') };
}

/** A filler of `$ARGUMENTS` and `$1`…`$9` in one pass; `used` tells whether any was there. */
function filler(values: string[], all: string) {
  const state = { used: false };
  const fill = (text: string) =>
    text.replace(/\$(ARGUMENTS|[1-9])/g, (_m, key: string) => {
      state.used = true;
      return key === 'ARGUMENTS' ? all : (values[Number(key) - 1] ?? '');
    });
  return { fill, state };
}

/** The prompt text of `command` with named `args`; throws naming an unknown or missing argument. */
export function expandPrompt(command: UserCommand, args: Record<string, string>): string {
  const { values, all } = argumentValues(command, args);
  const { fill, state } = filler(values, all);
  const out = fill(command.body);
  return state.used || all === '' ? out : `${out}\n\n${all}`;
}

/** A line of a command that embeds a file or resource: `@image <path|uri>`, `@resource <path|uri>`. */
export const EMBED_LINE = /^@(image|resource)[ \t]+(\S+)[ \t]*$/;

/** One piece of a prompt: text, or something to embed (its target with the arguments filled in). */
export type PromptPiece = { type: 'text'; text: string } | { type: 'image' | 'resource'; target: string };

/**
 * The pieces of `command` with named `args`: its text, and an embed for each line of
 * the template that is `@image …` or `@resource …`. Only the template's own lines embed:
 * an argument that holds such a line stays text. A template that uses no placeholder
 * gets the arguments appended, as `expandPrompt` does.
 */
export function promptPieces(command: UserCommand, args: Record<string, string>): PromptPiece[] {
  const { values, all } = argumentValues(command, args);
  const { fill, state } = filler(values, all);
  const pieces: PromptPiece[] = [];
  let text: string[] = [];
  const flush = () => {
    const joined = fill(text.join('\n')).trim();
    if (joined !== '') pieces.push({ type: 'text', text: joined });
    text = [];
  };
  for (const line of command.body.split('\n')) {
    const m = EMBED_LINE.exec(line);
    if (!m) {
      text.push(line);
      continue;
    }
    flush();
    pieces.push({ type: m[1] as 'image' | 'resource', target: fill(m[2]!) });
  }
  flush();
  if (!state.used && all !== '') pieces.push({ type: 'text', text: all });
  return pieces;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** A piece as MCP prompt content; `read` gives a URI's contents, `uriOf` a workspace path's URI. */
async function contentOf(
  piece: PromptPiece,
  read: (uri: string) => Promise<ServedContents[]>,
  uriOf: (file: string) => string,
): Promise<PromptContent> {
  if (piece.type === 'text') return piece;
  // A scheme of two letters or more is a URI; anything else (`docs/a.md`, `C:\\x`) a workspace path.
  const uri = /^[a-z][a-z0-9+.-]+:/i.test(piece.target) ? piece.target : uriOf(piece.target);
  const [contents] = await read(uri);
  if (!contents) throw new McpContentError(`@${piece.type} ${piece.target}: ${uri} has no contents`);
  if (piece.type === 'resource') return { type: 'resource', resource: contents };
  if (!('blob' in contents) || !contents.mimeType || !IMAGE_TYPES.has(contents.mimeType))
    throw new McpContentError(
      `@image ${piece.target}: ${uri} is ${contents.mimeType ?? 'of no known type'}, not a PNG, JPEG, GIF or WebP image`,
    );
  return { type: 'image', data: contents.blob, mimeType: contents.mimeType };
}

/** The prompts side of `ServedContent` for a workspace. */
export function servedPrompts(opts: {
  cwd: string;
  home: string;
  warn?: (m: string) => void;
  /** Reads a resource for `@image` and `@resource` lines (with the resources' own checks). */
  read?: (uri: string) => Promise<ServedContents[]>;
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
      const commands = await load();
      const command = commands.find((c) => c.name === name);
      // An unknown prompt name is invalid params (-32602), as the MCP spec's prompts page says.
      if (!command)
        throw new McpContentError(
          `no prompt named "${name}"; the prompts are: ${commands.map((c) => c.name).join(', ') || 'none'}`,
        );
      const pieces = promptPieces(command, args);
      const read =
        opts.read ??
        (async (uri: string): Promise<ServedContents[]> => {
          throw new McpContentError(`${uri}: resources are not served here`);
        });
      const uriOf = (file: string) => pathToFileURL(path.resolve(opts.cwd, file)).href;
      const messages = [];
      for (const piece of pieces)
        messages.push({ role: 'user' as const, content: await contentOf(piece, read, uriOf) });
      if (messages.length === 0)
        messages.push({ role: 'user' as const, content: { type: 'text' as const, text: '' } });
      return { description: command.description, messages };
    },
  };
}
