/**
 * The experience part of the evolve layer as the runtime plugs it in: an after-prompt
 * job that loads its modules on its first call. What it must know of the prompt's place
 * in the transcript (the seq of its first message) is read when the hook is called, as
 * the prompt ends and before the next can start; the rest runs after a macrotask turn,
 * so the face has the prompt's `done` first. One job at a time per session, in order, so
 * a reaction always finds the evaluation it revises.
 */
import type { HookContext, PromptRecord } from '../../agent/evolve-hooks.js';
import type { LongTermMemory } from '../../memory/api.js';
import type { Store } from '../../store/index.js';
import type { ExperienceReport, ExperienceSettings } from './types.js';

export interface ExperienceHookOptions {
  store: () => Store;
  memory: () => LongTermMemory;
  home: string;
  /** The user's home directory, where other agents keep skills (default: the OS's). */
  userHome?: string;
  settings: ExperienceSettings;
  /** Told each job's report (tests, diagnostics). */
  onReport?: (report: ExperienceReport) => void;
}

export type ExperienceHook = (record: PromptRecord, ctx: HookContext) => Promise<void>;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export function experienceHook(o: ExperienceHookOptions): ExperienceHook {
  const chains = new Map<string, Promise<void>>();
  let run: Promise<typeof import('./run.js')> | undefined;
  return (record, ctx) => {
    let store: Store;
    let seq: number;
    try {
      store = o.store();
      seq = Math.max(1, store.messages.count(record.sessionId) - record.messages.length + 1);
    } catch {
      // The store is gone (closing): nothing to evaluate in, and the other parts still run.
      return Promise.resolve();
    }
    const job = (chains.get(record.sessionId) ?? Promise.resolve())
      .then(nextTurn)
      .then(async () => {
        run ??= import('./run.js');
        const { runExperience } = await run;
        const report = await runExperience(
          {
            store,
            memory: o.memory,
            home: o.home,
            ...(o.userHome ? { userHome: o.userHome } : {}),
            settings: o.settings,
          },
          record,
          seq,
          ctx,
        );
        o.onReport?.(report);
      })
      .catch(() => {});
    chains.set(record.sessionId, job);
    void job.then(() => {
      if (chains.get(record.sessionId) === job) chains.delete(record.sessionId);
    });
    return job;
  };
}
