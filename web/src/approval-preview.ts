/**
 * What an approval is about, shown before the user answers: the diff a file write or
 * edit would make (removed and added lines coloured; from the server, which reads the
 * file), a new file's content, a patch, or the whole command line. Everything goes in
 * as text.
 */
import { h } from './dom.js';
import { type DiffLine, lineDiff } from './line-diff.js';
import { prettyArgs } from './text.js';
import type { AgentEvent } from './types.js';

/** Tools whose `command` argument is a shell command line. */
const COMMAND_TOOLS = new Set(['bash', 'bg_start']);

export interface Preview {
  /** The title's wording: "run" for a command, otherwise "change". */
  kind: 'command' | 'change' | 'arguments';
  node: HTMLElement;
}

/** The diff the server computed against the file as it is now (see the approval_request event). */
export type FileDiff = NonNullable<Extract<AgentEvent, { type: 'approval_request' }>['diff']>;

/**
 * The preview of a tool call waiting for approval. `part` is the piece of a shell
 * command line that needs the approval (marked inside the command); `diff`, what a
 * file write would change in the file as it is now (without it, only what the
 * arguments say can be shown).
 */
export function approvalPreview(
  tool: string,
  args: Record<string, unknown>,
  part?: string,
  diff?: FileDiff,
): Preview {
  const command = str(args.command);
  if (COMMAND_TOOLS.has(tool) && command !== undefined)
    return { kind: 'command', node: commandView(command, part) };
  if (diff) return { kind: 'change', node: fileDiffView(tool, args, diff) };
  const path = str(args.path) ?? '';
  if (tool === 'edit_file') {
    const edits = editsOf(args);
    if (edits.length > 0) return { kind: 'change', node: editView(path, edits, args.replace_all === true) };
  }
  const content = str(args.content);
  if ((tool === 'write_file' || tool === 'append_file') && content !== undefined) {
    const caption = tool === 'write_file' ? `New content of ${path}` : `Added to the end of ${path}`;
    return { kind: 'change', node: diffView(caption, lineDiff('', content)) };
  }
  const code = str(args.code);
  if ((tool === 'tool_create' || tool === 'tool_update') && code !== undefined)
    return { kind: 'change', node: diffView(`Code of the tool ${str(args.name) ?? ''}`, lineDiff('', code)) };
  const patch = str(args.patch);
  if (tool === 'apply_patch' && patch !== undefined)
    return { kind: 'change', node: diffView('Patch', patchLines(patch)) };
  return {
    kind: 'arguments',
    node: h('pre', { class: 'tool-args approval-args', 'data-testid': 'approval-args' }, prettyArgs(args)),
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

interface Edit {
  before: string;
  after: string;
}

function editsOf(args: Record<string, unknown>): Edit[] {
  const list = Array.isArray(args.edits) ? args.edits : [args];
  return list.flatMap((e: unknown) => {
    if (typeof e !== 'object' || e === null) return [];
    const { old_string: before, new_string: after } = e as Record<string, unknown>;
    return typeof before === 'string' && typeof after === 'string' ? [{ before, after }] : [];
  });
}

function editView(path: string, edits: Edit[], all: boolean): HTMLElement {
  const lines: DiffLine[] = [];
  edits.forEach((edit, i) => {
    if (edits.length > 1) lines.push({ kind: 'hunk', text: `@@ edit ${i + 1} of ${edits.length} @@` });
    lines.push(...lineDiff(edit.before, edit.after));
  });
  return diffView(`Changes to ${path}${all ? ' (every occurrence)' : ''}`, lines);
}

/** A write, append or edit as the diff of the file: "New file" only when it does not exist yet. */
function fileDiffView(tool: string, args: Record<string, unknown>, diff: FileDiff): HTMLElement {
  if (diff.created) {
    // All of it is added: the `@@ -0,0 +1,n @@` header says nothing more.
    const lines = unifiedLines(diff.text).filter((l) => l.kind !== 'hunk');
    return diffView(`New file ${diff.path}`, lines);
  }
  if (diff.text === '')
    return diffView(`${diff.path} already has this content`, [{ kind: 'ctx', text: '(no change)' }]);
  const caption =
    tool === 'append_file'
      ? `Added to the end of ${diff.path}`
      : `Changes to ${diff.path}${args.replace_all === true ? ' (every occurrence)' : ''}`;
  return diffView(caption, unifiedLines(diff.text));
}

/** The lines of a unified diff; its `---`/`+++` headers are left out (the caption names the file). */
function unifiedLines(text: string): DiffLine[] {
  return text
    .split('\n')
    .filter((line) => !line.startsWith('--- ') && !line.startsWith('+++ '))
    .map((line): DiffLine => {
      if (line.startsWith('@@')) return { kind: 'hunk', text: line };
      if (line.startsWith('+')) return { kind: 'add', text: line.slice(1) };
      if (line.startsWith('-')) return { kind: 'del', text: line.slice(1) };
      return { kind: 'ctx', text: line.startsWith(' ') ? line.slice(1) : line };
    });
}

function diffView(caption: string, lines: DiffLine[]): HTMLElement {
  const pre = h('pre', { class: 'diff', 'data-testid': 'approval-diff' });
  const mark = { add: '+', del: '-', ctx: ' ', hunk: '', file: '' } as const;
  for (const line of lines) {
    const text = `${mark[line.kind]}${line.text}`;
    pre.appendChild(h('span', { class: `diff-line diff-${line.kind}` }, text === '' ? ' ' : text));
  }
  return h('div', { class: 'approval-preview' }, h('div', { class: 'tool-section-label' }, caption), pre);
}

/** The `*** Begin Patch` envelope, line by line (`+`/`-`/context, `@@`, `*** … File:`). */
function patchLines(patch: string): DiffLine[] {
  return patch
    .replace(/\n$/, '')
    .split('\n')
    .map((line): DiffLine => {
      if (line.startsWith('***')) return { kind: 'file', text: line };
      if (line.startsWith('@@')) return { kind: 'hunk', text: line };
      if (line.startsWith('+')) return { kind: 'add', text: line.slice(1) };
      if (line.startsWith('-')) return { kind: 'del', text: line.slice(1) };
      return { kind: 'ctx', text: line.startsWith(' ') ? line.slice(1) : line };
    });
}

function commandView(command: string, part: string | undefined): HTMLElement {
  const pre = h('pre', { class: 'approval-command', 'data-testid': 'approval-command' });
  const at = part && part !== command ? command.indexOf(part) : -1;
  if (part && at >= 0) {
    pre.append(
      command.slice(0, at),
      h('mark', { title: 'This part needs your approval' }, part),
      command.slice(at + part.length),
    );
  } else {
    pre.textContent = command;
  }
  return pre;
}
