/**
 * What the terminal shows before asking to approve a call: for a file edit, the diff
 * it would make (computed from the file as it is now; coloured on a terminal), for a
 * command the whole command line, for anything else the full arguments. Nothing is
 * cut at a line's width: a long diff is capped at MAX_LINES with a count of the rest.
 */
import type { AgentEvent } from '../agent/index.js';
import { FILE_WRITERS, type ProposedEdit, proposedChange, unifiedDiff } from '../runtime/edits.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

const MAX_LINES = 120;

/** Tools whose `code` argument is a tool module to save (shown whole: it is what the person approves). */
const CODE_TOOLS: ReadonlySet<string> = new Set(['tool_create', 'tool_update']);

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** `-`/`+` lines of the edits themselves, when they cannot be placed in the file. */
function editLines(edits: readonly ProposedEdit[]): string {
  const mark = (text: string, sign: string) =>
    text
      .split('\n')
      .map((l) => `${sign}${l}`)
      .join('\n');
  return edits.map((e) => `${mark(e.old, '-')}\n${mark(e.next, '+')}`).join('\n@@\n');
}

async function fileDiff(
  tool: string,
  args: Record<string, unknown>,
  cwd: string,
): Promise<string | undefined> {
  const change = await proposedChange(tool, args, cwd);
  if (change === undefined) return undefined;
  const { shown, before, after } = change;
  if (after === undefined) return `--- ${shown}\n+++ ${shown}\n${editLines(change.edits)}`;
  const label = change.created ? '/dev/null' : shown;
  return (await unifiedDiff(label, shown, before, after, Number.POSITIVE_INFINITY)).text || '(no change)';
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
  } else if (FILE_WRITERS.has(e.tool)) {
    const text = await fileDiff(e.tool, e.args, cwd).catch(() => undefined);
    if (text === undefined) body = JSON.stringify(e.args, null, 2).split('\n');
    else {
      body = text.split('\n');
      diff = true;
    }
  } else if (CODE_TOOLS.has(e.tool) && str(e.args.code) !== undefined) {
    // Saving a tool: the person approves the code itself, so all of it is shown.
    const code = str(e.args.code)!.replace(/\n$/, '').split('\n');
    const lines = [`tool ${String(e.args.name)}:`, ...code.map((l) => `│ ${l}`)];
    return `${lines.map((l) => `  ${l}`).join('\n')}\n`;
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
