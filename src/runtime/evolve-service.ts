/**
 * The self-evolution service every face uses (`tea evolve`, `/v1/prompts`): prompt
 * versions, prompt evolution on the cheap model, the report and upkeep. Built by the
 * runtime on first use (`rt.evolve()`), so a run that never asks loads none of it.
 */

import { evaluationSource } from '../evolve/experience/index.js';
import { type EvolveOutcome, evolveCandidate } from '../evolve/prompts/evolve.js';
import { PromptVersions } from '../evolve/prompts/service.js';
import { buildReport, type EvolveReport } from '../evolve/report.js';
import type { EvaluationSource } from '../evolve/types.js';
import { directoryInventory, type Inventory } from '../evolve/upkeep/inventory.js';
import type { ToolDoc } from '../evolve/upkeep/reference.js';
import { lastUpkeep, type ReferenceTarget, runUpkeep, type UpkeepResult } from '../evolve/upkeep/run.js';
import type { Provider } from '../llm/types.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { listedTools } from './tools.js';

export interface EvolveServiceDeps {
  store: () => Store;
  home: string;
  cwd: string;
  /** The cheap model for prompt evolution (undefined: none is configured). */
  cheap: () => Provider | undefined;
  /** This runtime's tools: the reference outside Tea's repository documents them. */
  tools: ToolRegistry;
  /** Told the active instructions after a change (undefined: the built-in text). */
  onInstructions?: (instructions: string | undefined) => void;
  /** Task evaluations (default: the store's, written after each prompt by evolve/experience/). */
  evaluations?: EvaluationSource;
  /** User tools and skills (default: their folders under TEA_HOME and the project). */
  inventory?: Inventory;
  now?: () => number;
}

export interface EvolveService {
  readonly prompts: PromptVersions;
  /** Asks the cheap model for a revision and stores it as a candidate (see evolve/prompts/evolve.ts). */
  evolvePrompt(opts?: { days?: number; signal?: AbortSignal }): Promise<EvolveOutcome>;
  report(opts?: { days?: number }): Promise<EvolveReport>;
  /** One upkeep round now. */
  upkeep(opts?: { days?: number }): Promise<UpkeepResult>;
  /** The last stored upkeep round. */
  lastUpkeep(): UpkeepResult | undefined;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the reference says of each tool in `registry`. */
export function toolDocs(registry: ToolRegistry): ToolDoc[] {
  return registry.list().map((t) => ({
    name: t.name,
    category: t.category,
    description: t.description,
    approval: t.approval,
    readOnly: t.readOnly,
    concurrencySafe: t.concurrencySafe,
    parameters: registry.specs([t.name])[0]!.parameters,
  }));
}

/**
 * The tools Tea ships, whatever this machine adds: the built-in ones, `memory`,
 * delegation with the built-in roles only, `skill` (never run from here).
 */
export async function shippedTools(): Promise<ToolRegistry> {
  return listedTools();
}

export function createEvolveService(deps: EvolveServiceDeps): EvolveService {
  const now = deps.now ?? Date.now;
  const evaluations = deps.evaluations ?? evaluationSource(deps.store);
  const db = () => deps.store().db;
  const prompts = new PromptVersions(deps.store().prompts, deps.onInstructions);
  const referenceTools = async (target: ReferenceTarget): Promise<ToolDoc[]> => {
    const shipped = await shippedTools();
    if (target === 'repo') return toolDocs(shipped);
    // Here: this runtime's tools (MCP, user tools…), with the shipped ones it has not registered yet.
    const mine = toolDocs(deps.tools);
    const names = new Set(mine.map((t) => t.name));
    return [...mine, ...toolDocs(shipped).filter((t) => !names.has(t.name))];
  };
  return {
    prompts,
    evolvePrompt: (opts = {}) =>
      evolveCandidate({
        versions: prompts,
        db: db(),
        provider: deps.cheap,
        now: now(),
        ...(opts.days !== undefined ? { windowMs: opts.days * DAY_MS } : {}),
        evaluations,
        ...(opts.signal ? { signal: opts.signal } : {}),
      }),
    report: (opts = {}) =>
      buildReport({
        db: db(),
        state: deps.store().evolveState,
        versions: prompts,
        now: now(),
        ...(opts.days !== undefined ? { days: opts.days } : {}),
        evaluations,
      }),
    upkeep: (opts = {}) =>
      runUpkeep({
        db: db(),
        state: deps.store().evolveState,
        home: deps.home,
        cwd: deps.cwd,
        inventory: deps.inventory ?? directoryInventory({ home: deps.home, cwd: deps.cwd }),
        referenceTools,
        now,
        ...(opts.days !== undefined ? { windowMs: opts.days * DAY_MS } : {}),
      }),
    lastUpkeep: () => lastUpkeep(deps.store().evolveState),
  };
}
