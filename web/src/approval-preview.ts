/**
 * What an approval is about, shown before the user answers: the diff an edit would
 * make (removed and added lines coloured), a new file's or an append's content, a
 * patch, or the whole command line. Everything goes in as text.
 */
import { h } from './dom.js';
import { type DiffLine, lineDiff } from './line-diff.js';
import { prettyArgs } from './text.js';

/** Tools whose `command` argument is a shell command line. */
const COMMAND_TOOLS = new Set(['bash', 'bg_start']);

export interface Preview {
  /** The title's wording: "run" for a command, otherwise "change". */
  kind: 'command' | 'change' | 'arguments';
  node: HTMLElement;
}

/**
 * The preview of a tool call waiting for approval. `part` is the piece of a shell
 * command line that needs the approval (marked inside the command).
 */
export function approvalPreview(tool: string, args: Record<string, unknown>, part?: string): Preview {
  const command = str(args.command);
  if (COMMAND_TOOLS.has(tool) && command !== undefined)
    return { kind: 'command', node: commandView(command, part) };
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
