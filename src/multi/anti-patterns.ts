/**
 * Batches the delegation tools refuse before any child starts (the seed's anti-pattern
 * check): the same task twice, and two tasks that may write being handed the same file
 * to work on at once (their edits would race).
 */
import type { RoleSource } from './role-like.js';

export interface BatchTask {
  description: string;
  prompt: string;
  role?: string;
  files?: readonly string[];
}

const norm = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** What is wrong with the batch and how to fix it; undefined when nothing is. */
export function batchProblem(
  tasks: readonly BatchTask[],
  roles: RoleSource,
  /** Whether a tool only reads (a role whose tools all do cannot change a file). */
  readOnly: (tool: string) => boolean,
): { message: string; hint: string } | undefined {
  const seen = new Map<string, number>();
  for (const [i, t] of tasks.entries()) {
    const key = `${t.role ?? 'general'}\u0000${norm(t.prompt)}`;
    const first = seen.get(key);
    if (first !== undefined) {
      return {
        message: `tasks ${first + 1} and ${i + 1} are the same task`,
        hint: 'give each task a different part of the work, or send it once',
      };
    }
    seen.set(key, i);
  }
  const writers = new Map<string, number>();
  for (const [i, t] of tasks.entries()) {
    const tools = t.role === undefined || t.role === 'general' ? undefined : roles.get(t.role)?.tools;
    const writes = tools === undefined || tools.some((n) => !readOnly(n));
    if (!writes) continue;
    for (const f of t.files ?? []) {
      const other = writers.get(f);
      if (other !== undefined) {
        return {
          message: `tasks ${other + 1} and ${i + 1} may both change ${f} at the same time`,
          hint: 'give the file to one task, use a read-only role (analyst, reviewer) for the other, or run them one after the other',
        };
      }
      writers.set(f, i);
    }
  }
  return undefined;
}
