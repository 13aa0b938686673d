import { TokenCalibrator } from '../context/tokens.js';
import type { LongTermMemory } from '../memory/api.js';
import type { ToolRegistry } from '../tools/registry.js';
import { usedFeature } from '../util/code-cache-feature.js';
import { toModelMessages } from './history.js';
import { memoryScopes } from './memory-jobs.js';
import { MEMORY_TOOL_INFO, MEMORY_TOOL_PARAMETERS } from './memory-tool-info.js';
import type { AgentServices, AgentSetup } from './services.js';
import { Session, type SessionOptions } from './session.js';
import { type AgentSettings, agentSettings, type SettingsInput } from './settings.js';

/** An agent's services (flat), its workspace and its settings (the defaults for any left out). */
export interface AgentOptions extends Omit<AgentServices, 'calibrator'> {
  /** Workspace for new sessions; resumed sessions keep their own. */
  cwd: string;
  /** Token-estimate calibration to start from (e.g. loaded from disk); a fresh one otherwise. */
  calibrator?: TokenCalibrator;
  settings?: SettingsInput;
}

/**
 * The tools one session sees: an overlay of the agent's registry (`tools.overlay()`)
 * holding tools for that session alone (an editor's MCP servers); default: the
 * agent's registry.
 */
export interface SessionTools {
  tools?: ToolRegistry;
}

/** Creates and resumes sessions that share one set of services and settings. */
export class Agent implements AgentSetup {
  readonly services: AgentServices;
  readonly settings: AgentSettings;
  private readonly cwd: string;

  constructor(opts: AgentOptions) {
    const { cwd, settings, calibrator, ...services } = opts;
    this.cwd = cwd;
    this.services = { ...services, calibrator: calibrator ?? new TokenCalibrator() };
    this.settings = agentSettings(settings);
    if (services.memory && !services.tools.has('memory')) {
      registerMemoryTool(services.tools, services.memory, memoryScopes);
    }
  }

  /** A new session in `cwd` (default: the agent's workspace). */
  newSession(opts: { title?: string; cwd?: string } & SessionOptions & SessionTools = {}): Session {
    const { store, provider } = this.services;
    const row = store.sessions.create({
      cwd: opts.cwd ?? this.cwd,
      title: opts.title,
      model: provider.info.model,
      profile: provider.info.profile,
    });
    return new Session(this.setup(opts.tools), row, [], {
      ...(opts.fs ? { fs: opts.fs } : {}),
      storedCount: 0,
    });
  }

  /** Reopens a stored session by id or unique prefix with its full transcript. */
  resumeSession(idOrPrefix: string, opts: SessionOptions & SessionTools = {}): Session {
    const { tools, ...rest } = opts;
    const { store } = this.services;
    const row = store.sessions.resolve(idOrPrefix);
    const rows = store.messages.list(row.id);
    return new Session(this.setup(tools), row, toModelMessages(rows), { ...rest, storedCount: rows.length });
  }

  /** The agent itself, or for a session with tools of its own, its services with that overlay. */
  private setup(tools: ToolRegistry | undefined): AgentSetup {
    if (!tools || tools === this.services.tools) return this;
    return { services: { ...this.services, tools }, settings: this.settings };
  }
}

/**
 * Registers the `memory` tool over `service` on `registry`, its code loaded on first
 * use; `scopes(cwd)` names the scopes of the workspace a call runs in.
 */
export function registerMemoryTool(
  registry: ToolRegistry,
  service: LongTermMemory,
  scopes: (cwd: string) => string[],
): void {
  registry.registerLazy({
    info: MEMORY_TOOL_INFO,
    parameters: () => MEMORY_TOOL_PARAMETERS,
    load: async () => {
      usedFeature('tools:memory');
      return (await import('./memory-tool.js')).memoryTool(service, scopes);
    },
  });
}
