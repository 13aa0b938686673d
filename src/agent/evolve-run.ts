/** How a session calls the evolve layer's hooks: never failing a turn, jobs tracked as background work. */
import type { Message } from '../llm/types.js';
import type { SessionRow } from '../store/index.js';
import type { SessionContext } from './context.js';
import type { EvolveHooks, PromptRecord } from './evolve-hooks.js';
import type { AgentServices } from './services.js';

/** The evolve layer's hooks for a session a person started (sub-agents and workflow steps get none). */
export function evolveHooks(
  row: Pick<SessionRow, 'parentId' | 'role'>,
  services: Pick<AgentServices, 'evolve'>,
): EvolveHooks | undefined {
  return row.parentId === undefined && row.role === undefined ? services.evolve : undefined;
}

/** The skills block for this input (L0); without hooks, or when they fail, empty. */
export async function skillsBlock(
  hooks: EvolveHooks | undefined,
  input: string,
  cwd: string,
): Promise<string> {
  try {
    return (await hooks?.skills?.(input, cwd)) ?? '';
  } catch {
    return '';
  }
}

/** The user's words of the last user message before `end` in `history`. */
function userTextBefore(history: readonly Message[], end: number): string | undefined {
  const previous = history.slice(0, end).findLast((m) => m.role === 'user');
  return previous?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/** Starts the after-prompt hook as a tracked background job (a face about to exit waits for it). */
export function afterPromptInBackground(
  row: Pick<SessionRow, 'parentId' | 'role'>,
  services: AgentServices,
  context: SessionContext,
  history: readonly Message[],
  record: Omit<PromptRecord, 'previousInput'>,
): void {
  const after = evolveHooks(row, services)?.afterPrompt;
  const cheap = services.cheapProvider;
  if (!after) return;
  const previousInput = userTextBefore(history, history.length - record.messages.length);
  const full: PromptRecord = { ...record, ...(previousInput !== undefined ? { previousInput } : {}) };
  const job = after(full, {
    ...(cheap ? { cheap } : {}),
    signal: context.backgroundSignal,
    recordUsage: (label, model, usage) => context.recordUsage(label, model, usage),
  }).catch(() => {});
  context.track(job, 'evolve');
}
