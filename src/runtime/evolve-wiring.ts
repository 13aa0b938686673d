/**
 * How the runtime plugs the evolve layer into its agents and faces: the active prompt
 * version's instructions for each agent it builds (one indexed read, once), the evolve
 * service on first use, and background upkeep for `tea serve`. Nothing of evolve/ is
 * loaded until a face asks for it.
 */
import type { Agent } from '../agent/index.js';
import type { UpkeepResult } from '../evolve/upkeep/run.js';
import type { BackgroundUpkeep, Scheduler } from '../evolve/upkeep/schedule.js';
import type { Provider } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { EvolveService } from './evolve-service.js';

/** How `tea serve` runs upkeep in the background (tests inject the scheduler and clock). */
export interface UpkeepInBackground {
  onResult(result: UpkeepResult): void;
  onError(error: unknown): void;
  scheduler?: Scheduler;
  now?: () => number;
  everyMs?: number;
}

export interface EvolveWiringDeps {
  store: () => Store;
  home: string;
  cwd: string;
  cheap: () => Provider;
  tools: ToolRegistry;
  /** The agents built so far (a new prompt version reaches them). */
  agents: () => Iterable<Agent>;
}

export class EvolveWiring {
  private cached: { text: string | undefined } | undefined;
  private service: Promise<EvolveService> | undefined;

  constructor(private readonly deps: EvolveWiringDeps) {}

  /** The active version's instructions for a new agent (undefined: the built-in text). */
  instructions(): string | undefined {
    if (!this.cached) {
      const row = this.deps.store().prompts.active();
      this.cached = { text: row && row.source !== 'builtin' ? row.content : undefined };
    }
    return this.cached.text;
  }

  /**
   * Reads the active version again (one indexed read) and hands a change to the agents
   * built already: a version set by another process (`tea evolve prompts set` beside a
   * running `tea serve`) reaches the sessions started after it.
   */
  refresh(): void {
    if (!this.cached) return;
    const row = this.deps.store().prompts.active();
    const text = row && row.source !== 'builtin' ? row.content : undefined;
    if (text !== this.cached.text) this.setInstructions(text);
  }

  /** A version activated here reaches the agents built already: their sessions started from now on use it. */
  private setInstructions(text: string | undefined): void {
    this.cached = { text };
    for (const agent of this.deps.agents()) agent.settings.instructions = text;
  }

  evolve(): Promise<EvolveService> {
    this.service ??= import('./evolve-service.js').then(({ createEvolveService }) =>
      createEvolveService({
        store: this.deps.store,
        home: this.deps.home,
        cwd: this.deps.cwd,
        cheap: this.deps.cheap,
        tools: this.deps.tools,
        onInstructions: (text) => this.setInstructions(text),
      }),
    );
    return this.service;
  }

  async upkeepInBackground(o: UpkeepInBackground): Promise<BackgroundUpkeep> {
    const [service, { scheduleUpkeep }] = await Promise.all([
      this.evolve(),
      import('../evolve/upkeep/schedule.js'),
    ]);
    const last = service.lastUpkeep();
    return scheduleUpkeep({
      run: () => service.upkeep(),
      ...(last ? { lastRunAt: last.at } : {}),
      onResult: o.onResult,
      onError: o.onError,
      ...(o.scheduler ? { scheduler: o.scheduler } : {}),
      ...(o.now ? { now: o.now } : {}),
      ...(o.everyMs !== undefined ? { everyMs: o.everyMs } : {}),
    });
  }
}
