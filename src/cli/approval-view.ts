/**
 * What the terminal shows before asking to approve a call: for a file edit, the diff
 * it would make (computed from the file as it is now; coloured on a terminal), for a
 * command the whole command line, for anything else the full arguments. Nothing is
 * cut at a line's width: a long diff is capped at MAX_LINES with a count of the rest.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../agent/index.js';
import { unifiedDiff } from '../tools/builtin/diff-text.js';
import { expandHome } from '../tools/workspace.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

const MAX_LINES = 120;
const MAX_FILE_BYTES = 2 * 1024 * 1024;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The file's text now; '' when it does not exist yet; undefined when it cannot be shown (binary, huge). */
function current(file: string): string | undefined {
  try {
    if (statSync(file).size > MAX_FILE_BYTES) return undefined;
    const text = readFileSync(file, 'utf8');
    return text.includes('\0') ? undefined : text;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? '' : undefined;
  }
}

interface Edit {
  old: string;
  next: string;
  all: boolean;
}

function editsOf(args: Record<string, unknown>): Edit[] {
  const list = Array.isArray(args.edits) ? (args.edits as Array<Record<string, unknown>>) : [args];
  return list
    .map((e) => ({ old: str(e.old_string), next: str(e.new_string), all: e.replace_all === true }))
    .filter((e): e is Edit => e.old !== undefined && e.next !== undefined);
}

/** The file's text after the edits, or undefined when an edit does not match exactly. */
function applyEdits(before: string, edits: readonly Edit[]): string | undefined {
  let text = before;
  for (const e of edits) {
    if (e.old === '' || !text.includes(e.old)) return undefined;
    text = e.all ? text.split(e.old).join(e.next) : text.replace(e.old, () => e.next);
  }
  return text;
}

/** `-`/`+` lines of the edits themselves, when they cannot be placed in the file. */
function editLines(edits: readonly Edit[]): string {
  return edits
    .map(
      (e) =>
        `${e.old
          .split('\n')
          .map((l) => `-${l}`)
          .join('\n')}\n${e.next
          .split('\n')
          .map((l) => `+${l}`)
          .join('\n')}`,
    )
    .join('\n@@\n');
}

async function fileDiff(
  tool: string,
  args: Record<string, unknown>,
  cwd: string,
): Promise<string | undefined> {
  const rel = str(args.path);
  if (rel === undefined) return undefined;
  const file = path.resolve(cwd, expandHome(rel));
  const before = current(file);
  if (before === undefined) return undefined;
  let after: string | undefined;
  if (tool === 'write_file') after = str(args.content);
  else if (tool === 'append_file') {
    const content = str(args.content);
    after = content === undefined ? undefined : before + content;
  } else if (tool === 'edit_file') {
    const edits = editsOf(args);
    if (edits.length === 0) return undefined;
    after = applyEdits(before, edits);
    if (after === undefined) return `--- ${rel}\n+++ ${rel}\n${editLines(edits)}`;
  }
  if (after === undefined) return undefined;
  const label = before === '' ? '/dev/null' : rel;
  return (await unifiedDiff(label, rel, before, after, Number.POSITIVE_INFINITY)).text || '(no change)';
}

function cap(lines: string[]): string[] {
  if (lines.length <= MAX_LINES) return lines;
  return [...lines.slice(0, MAX_LINES), `… ${lines.length - MAX_LINES} more lines`];
}

const paint = (code: string, s: string): string => `\u001b[${code}m${s}\u001b[0m`;

function colourDiff(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return paint('1', line);
  if (line.startsWith('+')) return paint('32', line);
  if (line.startsWith('-')) return paint('31', line);
  if (line.startsWith('@@')) return paint('36', line);
  return line;
}

/**
 * The lines to show above an approval question (ending in a newline), or '' when
 * the question says it all. `colour`: ANSI colours for a terminal.
 */
export async function approvalView(e: ApprovalRequest, cwd: string, colour: boolean): Promise<string> {
  let body: string[];
  let diff = false;
  const command = str(e.args.command);
  if (e.tool === 'apply_patch' && str(e.args.patch)) {
    body = str(e.args.patch)!.replace(/\n$/, '').split('\n');
    diff = true;
  } else if (['write_file', 'append_file', 'edit_file'].includes(e.tool)) {
    const text = await fileDiff(e.tool, e.args, cwd).catch(() => undefined);
    if (text === undefined) body = JSON.stringify(e.args, null, 2).split('\n');
    else {
      body = text.split('\n');
      diff = true;
    }
  } else if (e.approval === 'exec' && command !== undefined) {
    body = command.split('\n').map((l, i) => `${i === 0 ? '$ ' : '  '}${l}`);
  } else {
    const json = JSON.stringify(e.args, null, 2);
    if (json === '{}') return '';
    body = json.split('\n');
  }
  const shown = cap(body).map((l) => (colour && diff ? colourDiff(l) : l));
  return `${shown.map((l) => `  ${l}`).join('\n')}\n`;
}
