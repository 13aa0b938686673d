/**
 * edit_file: exact string replacement (falling back to a unique whitespace-tolerant
 * line match), one edit or several applied all-or-nothing, answered with a diff.
 */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath } from '../workspace.js';
import { unifiedDiff } from './diff-text.js';
import { type AppliedEdit, applyEdit, type EditSpec } from './edit-match.js';
import type { ResolvedFileOptions } from './file-options.js';
import { formatRanges, plural, resolveFile } from './text.js';
import { displayText, readEditable, writeEdited } from './text-codec.js';

const editSchema = z.object({
  old_string: z.string(),
  new_string: z.string(),
  replace_all: z.boolean().optional(),
});

const parameters = z.object({
  path: z.string().describe('File path'),
  old_string: z.string().optional().describe('Exact text to replace'),
  new_string: z.string().optional().describe('Replacement text'),
  replace_all: z.boolean().optional(),
  edits: z.array(editSchema).optional().describe('Many edits, all or nothing'),
});

type EditArgs = z.infer<typeof parameters>;

/** The edits of a call: `edits`, or the single top-level one. */
function editsOf(args: EditArgs): EditSpec[] {
  const single = args.old_string !== undefined || args.new_string !== undefined;
  if (args.edits !== undefined && single) {
    throw new ToolError(
      'Pass either edits or old_string/new_string, not both',
      'put every change in edits: [{old_string, new_string}, …]',
    );
  }
  if (args.edits !== undefined) {
    if (args.edits.length === 0)
      throw new ToolError('edits is empty', 'pass at least one {old_string, new_string}');
    return args.edits;
  }
  if (args.old_string === undefined || args.new_string === undefined) {
    throw new ToolError(
      `${args.old_string === undefined ? 'old_string' : 'new_string'} is missing`,
      'pass old_string and new_string, or edits: [{old_string, new_string}, …]',
    );
  }
  return [{ old_string: args.old_string, new_string: args.new_string, replace_all: args.replace_all }];
}

function fuzzyNote(applied: AppliedEdit, label: string): string | undefined {
  if (!applied.fuzzy) return undefined;
  const indent = applied.fuzzy.reindented ? '; new_string was re-indented to match the file' : '';
  return `Note: ${label} did not match exactly; it was matched ignoring whitespace at line ${applied.fuzzy.line}${indent}. Check the diff.`;
}

export function editFileTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'edit_file',
    description:
      'Replace exact text in a file (read it first). old_string must match once unless replace_all. Returns a diff.',
    parameters,
    category: 'files',
    keywords: [
      'edit',
      'modify',
      'change',
      'replace',
      'update',
      'fix',
      'refactor',
      'file',
      '修改',
      '编辑',
      '替换',
    ],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const edits = editsOf(args);
      const abs = await resolveFile(ctx, args.path, { write: true }).catch((error: unknown) => {
        if (error instanceof ToolError && error.message.startsWith('No such file')) {
          throw new ToolError(
            `File not found: ${args.path}`,
            'check the path with list_dir or glob; to create a new file use write_file',
          );
        }
        throw error;
      });
      const shown = displayPath(ctx, abs);
      const file = await readEditable(ctx, abs, shown, {
        maxBytes: opts.editMaxFileBytes,
        tool: 'edit_file',
      });
      const original = file.text;
      const multi = args.edits !== undefined;
      let text = original;
      const applied: AppliedEdit[] = [];
      for (const [i, edit] of edits.entries()) {
        try {
          const result = applyEdit(text, edit, args.path);
          applied.push(result);
          text = result.content;
        } catch (error) {
          if (!multi || !(error instanceof ToolError)) throw error;
          throw new ToolError(
            `edit ${i + 1} of ${edits.length} failed: ${error.message}; no edits were written`,
            error.hint,
          );
        }
      }
      if (text === original) {
        throw new ToolError('The edits leave the file unchanged; nothing was written', 'check the edits');
      }
      await writeEdited(ctx, abs, text, file, shown);
      const count = applied.reduce((sum, a) => sum + a.count, 0);
      const lines: string[] = [];
      if (multi) {
        lines.push(
          `Edited ${shown}: applied ${plural(edits.length, 'edit')} (${plural(count, 'replacement')})`,
        );
      } else {
        const ranges = applied[0]?.ranges ?? [];
        const label = ranges.length > 1 || ranges.some(([a, b]) => a !== b) ? 'lines' : 'line';
        lines.push(
          `Edited ${shown}: replaced ${plural(count, 'occurrence')} (${label} ${formatRanges(ranges)})`,
        );
      }
      applied.forEach((a, i) => {
        const note = fuzzyNote(a, multi ? `edit ${i + 1}` : 'old_string');
        if (note) lines.push(note);
      });
      const diff = await unifiedDiff(
        shown,
        shown,
        displayText(original),
        displayText(text),
        opts.diffMaxChars,
      );
      lines.push(diff.text);
      return lines.join('\n');
    },
  });
}
