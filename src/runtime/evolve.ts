/**
 * The evolve layer's hooks for this runtime's agents, composed from its parts: the
 * skills block of L0, and the jobs that run after each prompt (each one's failure
 * is its own; the others still run).
 */
import type { EvolveHooks, HookContext, PromptRecord, SkillsOffer } from '../agent/evolve-hooks.js';

export type AfterPrompt = (record: PromptRecord, ctx: HookContext) => Promise<void>;

export interface EvolveParts {
  skills?: (input: string, cwd: string) => Promise<string | SkillsOffer>;
  afterPrompt: AfterPrompt[];
}

export function composeHooks(parts: EvolveParts): EvolveHooks | undefined {
  const { skills, afterPrompt } = parts;
  if (!skills && afterPrompt.length === 0) return undefined;
  return {
    ...(skills ? { skills } : {}),
    ...(afterPrompt.length > 0
      ? {
          afterPrompt: async (record, ctx) => {
            await Promise.allSettled(afterPrompt.map((job) => job(record, ctx)));
          },
        }
      : {}),
  };
}
