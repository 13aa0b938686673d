/**
 * A sub-agent's first message. `isolated`: only its task and the files the parent
 * named (their text attached, within a size cap). `fork`: a digest of the parent's
 * conversation so far, then the task.
 */
import { readFile } from 'node:fs/promises';
import type { ParentSeat } from '../agent/seat.js';
import type { Message } from '../llm/types.js';
import { displayPath, resolvePath } from '../tools/workspace.js';

export type ChildContext = 'isolated' | 'fork';

/** One attached file's text at most; a bigger file is named, for the child to read. */
export const FILE_CHARS = 40_000;
/** All attached files' text at most. */
export const FILES_CHARS = 160_000;
/** The parent's conversation in a fork's digest at most (its newest part is kept). */
export const DIGEST_CHARS = 24_000;

export interface BriefInput {
  prompt: string;
  context: ChildContext;
  files?: readonly string[];
  seat: Pick<ParentSeat, 'cwd' | 'roots' | 'history' | 'fs'>;
}

/** The child's first message. A named file outside the workspace (or missing) is an error for the parent to fix. */
export async function childBrief(input: BriefInput): Promise<string> {
  const parts: string[] = [];
  if (input.context === 'fork') {
    const digest = conversationDigest(input.seat.history);
    if (digest) parts.push(`## The conversation so far (from the agent that delegated this task)\n${digest}`);
  }
  parts.push(`## Your task\n${input.prompt.trim()}`);
  if (input.files && input.files.length > 0) parts.push(await attachFiles(input.seat, input.files));
  return parts.join('\n\n');
}

async function attachFiles(seat: BriefInput['seat'], files: readonly string[]): Promise<string> {
  const roots = { cwd: seat.cwd, allowedRoots: seat.roots };
  let left = FILES_CHARS;
  const blocks: string[] = [];
  for (const file of files) {
    const abs = resolvePath(roots, file, { mustExist: true });
    const shown = displayPath(roots, abs);
    const text = seat.fs ? await seat.fs.readTextFile(abs) : await readFile(abs, 'utf8');
    if (text.length > FILE_CHARS || text.length > left) {
      blocks.push(`### ${shown}\n(${text.length} characters: too long to attach; read it with read_file)`);
      continue;
    }
    left -= text.length;
    blocks.push(`### ${shown}\n\`\`\`\n${text}\n\`\`\``);
  }
  return `## Files for this task\n${blocks.join('\n\n')}`;
}

const clip = (text: string, n: number): string => (text.length > n ? `${text.slice(0, n)}…` : text);

/** The parent's transcript in short lines: who said what, which tools ran and what they gave. */
export function conversationDigest(history: readonly Message[], limit = DIGEST_CHARS): string {
  const lines: string[] = [];
  for (const m of history) {
    for (const p of m.parts) {
      if (p.type === 'text' && p.text.trim()) {
        const who = m.role === 'user' ? 'User' : 'Assistant';
        lines.push(`${who}: ${clip(p.text.trim(), 2000)}`);
      } else if (p.type === 'tool-call') {
        lines.push(`Assistant called ${p.name} ${clip(JSON.stringify(p.args), 300)}`);
      } else if (p.type === 'tool-result') {
        lines.push(`  ${p.isError ? 'error' : 'result'}: ${clip(p.output.replace(/\s+/g, ' ').trim(), 400)}`);
      }
    }
  }
  // The newest lines are kept (and the first request, which says what the work is about).
  const kept: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 1; i--) {
    size += lines[i]!.length + 1;
    if (size > limit) {
      kept.push('(earlier conversation left out)');
      break;
    }
    kept.push(lines[i]!);
  }
  if (lines.length > 0) kept.push(lines[0]!);
  return kept.reverse().join('\n');
}
