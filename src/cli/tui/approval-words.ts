/**
 * The words of an approval in the terminal UI: the question (naming the tool, and its
 * subject only when the lines above it do not already show it) and what the `always`
 * answer allows for the rest of the session, as the request says.
 */
import { stripVTControlCharacters } from 'node:util';
import type { AgentEvent } from '../../agent/index.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

/** Subjects longer than this are cut in the `always` label. */
const SUBJECT_CHARS = 60;

/** Whether `body` (the diff or command shown above the question) shows `subject` already. */
function shows(body: string, subject: string): boolean {
  const plain = stripVTControlCharacters(body);
  if (plain.includes(subject)) return true;
  // A multi-line command is shown line by line, each with its own indent.
  const lines = subject.split('\n').filter((l) => l.trim() !== '');
  return lines.length > 1 && lines.every((l) => plain.includes(l));
}

/** `Allow write_file?`, `Allow web_fetch: https://…?`, or a sub-agent's `… wants to run bash. Allow it?` */
export function approvalQuestion(e: ApprovalRequest, body: string): string {
  const what = e.subject && !shows(body, e.subject) ? `${e.tool}: ${e.subject}` : e.tool;
  // A shell line names the piece that needs the approval.
  const why = e.part === undefined ? '' : ` (${e.reason})`;
  const who = e.agent ? `${e.agent.label} wants to run ${what}. Allow it?` : `Allow ${what}?`;
  return `${who}${why}`;
}

/** The `[a]` choice: `always allow write_file on notes.txt (this session)`. */
export function alwaysLabel(e: ApprovalRequest): string {
  const scope = e.always;
  if (!scope) return 'always (this session)';
  if (scope.subject === undefined) return `always allow every ${scope.tool} call (this session)`;
  if (e.approval === 'exec' && typeof e.args.command === 'string' && scope.subject === e.subject)
    return `always allow ${scope.tool} for this exact command (this session)`;
  const subject =
    scope.subject.length > SUBJECT_CHARS ? `${scope.subject.slice(0, SUBJECT_CHARS - 1)}…` : scope.subject;
  return `always allow ${scope.tool} on ${subject} (this session)`;
}
