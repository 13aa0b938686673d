/** edit_file: exact string replacement with errors that tell the model how to fix its call. */
import { readFile, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath } from '../workspace.js';
import { formatRanges, lineAt, plural, resolveTextFile } from './text.js';

/** Start indices of the non-overlapping occurrences of `needle` in `text`. */
export function findOccurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/**
 * Where `needle` would match if runs of whitespace were allowed to differ (indentation,
 * tabs vs spaces, line endings); undefined when even that does not match.
 */
export function findWhitespaceInsensitive(text: string, needle: string): number | undefined {
  const words = needle.split(/\s+/).filter((w) => w.length > 0);
  if (words.length === 0) return undefined;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const match = new RegExp(escaped.join('\\s+')).exec(text);
  return match?.index;
}

interface Replacement {
  content: string;
  /** Line ranges of the new text in the updated file. */
  ranges: Array<[number, number]>;
}

/** Replaces the occurrences at `indices` and reports where the new text landed. */
export function replaceAt(
  text: string,
  indices: readonly number[],
  oldText: string,
  newText: string,
): Replacement {
  const pieces: string[] = [];
  const starts: number[] = [];
  let cursor = 0;
  let length = 0;
  for (const index of indices) {
    const before = text.slice(cursor, index);
    pieces.push(before, newText);
    length += before.length;
    starts.push(length);
    length += newText.length;
    cursor = index + oldText.length;
  }
  pieces.push(text.slice(cursor));
  const content = pieces.join('');
  const newLines = (newText.match(/\n/g) ?? []).length;
  const span = newText.endsWith('\n') && newLines > 0 ? newLines - 1 : newLines;
  const ranges = starts.map((start): [number, number] => {
    const line = lineAt(content, start);
    return [line, line + span];
  });
  return { content, ranges };
}

/** When the file uses CRLF and the model sent LF, match the file's line endings. */
function adaptLineEndings(file: string, oldText: string, newText: string): [string, string] {
  if (!file.includes('\r\n') || oldText.includes('\r\n') || !oldText.includes('\n'))
    return [oldText, newText];
  const toCrlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');
  return [toCrlf(oldText), toCrlf(newText)];
}

export function editFileTool(): Tool {
  return defineTool({
    name: 'edit_file',
    description:
      'Change part of a file by replacing an exact piece of text. `old_string` must match the current file ' +
      'exactly (including indentation) and be unique unless replace_all is true; read the file first. ' +
      'For new files or full rewrites use write_file.',
    parameters: z.object({
      path: z.string().describe('File to edit, relative to the workspace root or absolute'),
      old_string: z
        .string()
        .describe('The exact text to replace, with enough surrounding lines to be unique'),
      new_string: z.string().describe('The text to put in its place'),
      replace_all: z
        .boolean()
        .optional()
        .describe('Replace every occurrence instead of exactly one (default false)'),
    }),
    category: 'files',
    keywords: ['edit', 'modify', 'change', 'replace', 'patch', 'update', 'fix', 'file'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    async execute(args, ctx) {
      if (args.old_string.length === 0) {
        throw new ToolError('old_string is empty', 'to create a file or replace all of it use write_file');
      }
      if (args.old_string === args.new_string) {
        throw new ToolError(
          'old_string and new_string are identical; nothing would change',
          'pass the new text',
        );
      }
      const abs = await resolveTextFile(ctx, args.path).catch((error: unknown) => {
        if (error instanceof ToolError && error.message.startsWith('No such file')) {
          throw new ToolError(
            `File not found: ${args.path}`,
            'check the path with list_dir or glob; to create a new file use write_file',
          );
        }
        throw error;
      });
      const text = await readFile(abs, 'utf8');
      const [oldText, newText] = adaptLineEndings(text, args.old_string, args.new_string);
      const found = findOccurrences(text, oldText);
      if (found.length === 0) {
        const near = findWhitespaceInsensitive(text, args.old_string);
        if (near !== undefined) {
          const line = lineAt(text, near);
          throw new ToolError(
            `old_string was not found in ${args.path} exactly, but a match that differs only in whitespace exists at line ${line}`,
            `read_file around line ${line} and copy the exact text (indentation, tabs vs spaces, line breaks) into old_string`,
          );
        }
        throw new ToolError(
          `old_string was not found in ${args.path}`,
          'use read_file to see the current text, then copy the exact lines (including indentation) into old_string',
        );
      }
      if (found.length > 1 && args.replace_all !== true) {
        const lines = found.map((i) => lineAt(text, i));
        throw new ToolError(
          `old_string matches ${found.length} times in ${args.path} (at lines ${lines.join(', ')}); it must be unique`,
          'include more surrounding lines in old_string so it matches exactly once, or set replace_all: true to change every occurrence',
        );
      }
      const { content, ranges } = replaceAt(text, found, oldText, newText);
      await writeFile(abs, content, 'utf8');
      const label = ranges.length > 1 || ranges.some(([a, b]) => a !== b) ? 'lines' : 'line';
      return `Edited ${displayPath(ctx, abs)}: replaced ${plural(found.length, 'occurrence')} (${label} ${formatRanges(ranges)})`;
    },
  });
}
