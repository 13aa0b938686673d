/** How a session calls the evolve layer's hooks: never failing a turn, jobs tracked as background work. */
import type { Message } from '../llm/types.js';
import type { SessionRow } from '../store/index.js';
import type { SessionContext } from './context.js';
import type { EvolveHooks, PromptRecord, SkillsOffer } from './evolve-hooks.js';
import { loadTools, type SessionHost } from './host.js';
import type { AgentServices } from './services.js';

/** The evolve layer's hooks for a session a person started (sub-agents and workflow steps get none). */
export function evolveHooks(
  row: Pick<SessionRow, 'parentId' | 'role'>,
  services: Pick<AgentServices, 'evolve'>,
): EvolveHooks | undefined {
  return row.parentId === undefined && row.role === undefined ? services.evolve : undefined;
}

/** The skills offered for this input (the L0 block and what it needs); without hooks, or when they fail, none. */
export async function skillsOffer(
  hooks: EvolveHooks | undefined,
  input: string,
  cwd: string,
): Promise<SkillsOffer> {
  try {
    const offer = (await hooks?.skills?.(input, cwd)) ?? '';
    return typeof offer === 'string' ? { block: offer } : offer;
  } catch {
    return { block: '' };
  }
}

/**
 * Offers the skills for this input: the L0 block goes into `context`, the tools that
 * load skills are offered from the first request on. Returns the folders the file
 * tools may read during the prompt (the offered skills' own).
 */
export async function offerSkills(
  hooks: EvolveHooks | undefined,
  host: SessionHost,
  context: Pick<SessionContext, 'skills'>,
  input: string,
  cwd: string,
): Promise<readonly string[]> {
  const offer = await skillsOffer(hooks, input, cwd);
  context.skills = offer.block;
  if (offer.block && offer.tools) loadTools(host, offer.tools);
  return offer.readRoots ?? [];
}

/** The user's words of the last user message before `end` in `history`. */
function userTextBefore(history: readonly Message[], end: number): string | undefined {
  const previous = history.slice(0, end).findLast((m) => m.role === 'user');
  return previous?.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
}

/**
 * A turn the client's tool results continued: where it began (its user message, before
 * `first`, the first message of the continuation) and what that message said.
 */
export function resumedTurn(history: readonly Message[], first: number): { start: number; input: string } {
  const start = history.slice(0, first).findLastIndex((m) => m.role === 'user');
  if (start < 0) return { start: first, input: '' };
  return { start, input: userTextBefore(history, start + 1) ?? '' };
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
