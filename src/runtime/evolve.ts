/**
 * The evolve layer's hooks for this runtime's agents, composed from its parts: the
 * skills block of L0, and the jobs that run after each prompt (each one's failure
 * is its own; the others still run).
 */
import type { EvolveHooks, HookContext, PromptRecord, SkillsOffer } from '../agent/evolve-hooks.js';
import type { TeaConfig } from '../config/types.js';
import { type ExperienceHookOptions, experienceHook } from '../evolve/experience/hook.js';
import type { RuntimeSkills } from './skills.js';

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

/** This runtime's hooks: the skills offer, then the experience job after each prompt. */
export function runtimeHooks(o: {
  skills: RuntimeSkills;
  store: ExperienceHookOptions['store'];
  memory: ExperienceHookOptions['memory'];
  config: TeaConfig;
  opts: { userHome?: string | undefined };
}): EvolveHooks | undefined {
  const { config } = o;
  const experience = experienceHook({
    store: o.store,
    memory: o.memory,
    home: config.home,
    ...(o.opts.userHome ? { userHome: o.opts.userHome } : {}),
    settings: config.evolve,
  });
  return composeHooks({ skills: o.skills.hook, afterPrompt: [experience] });
}
