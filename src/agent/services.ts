/**
 * What an agent runs with, in one object shared by the agent and every session it
 * makes (a session with tools of its own gets a copy holding its tool overlay).
 */
import type { TokenCalibrator } from '../context/tokens.js';
import type { Provider } from '../llm/types.js';
import type { LongTermMemory } from '../memory/api.js';
import type { Store } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { EvolveHooks } from './evolve-hooks.js';
import type { Journal } from './journal/journal.js';
import type { AgentSettings } from './settings.js';
import type { Tracer } from './trace.js';

export interface AgentServices {
  provider: Provider;
  /** The cheap model for background summaries, titles and memory jobs (none run without it). */
  cheapProvider?: Provider;
  tools: ToolRegistry;
  store: Store;
  /** Long-term memory: recalled into every turn, and the `memory` tool. */
  memory?: LongTermMemory;
  /** Token-estimate calibration per model. */
  calibrator: TokenCalibrator;
  /** Where the spans of prompts, model calls and tool calls go (default: the global OpenTelemetry API). */
  tracer?: Tracer;
  /** The operation journal (undo/redo of what turns changed in the workspace); absent: off. */
  journal?: Journal;
  /** Skills for L0 and the after-prompt jobs of the evolve layer (top-level sessions only). */
  evolve?: EvolveHooks;
  /**
   * Set when no model is configured (`provider` is then a stand-in that fails): how to
   * configure one. Prompts a rule answers still run; any other gets this message.
   */
  noModel?: string;
}

/** What a session is made with: its agent's services and settings, by reference. */
export interface AgentSetup {
  readonly services: AgentServices;
  readonly settings: AgentSettings;
}
