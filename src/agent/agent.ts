import { TokenCalibrator } from '../context/tokens.js';
import type { LongTermMemory } from '../memory/api.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, ClientShell } from '../tools/types.js';
import { usedFeature } from '../util/code-cache-feature.js';
import { toModelMessages } from './history.js';
import type { Interactions } from './interactions.js';
import { memoryScopes } from './memory-jobs.js';
import { MEMORY_TOOL_INFO, MEMORY_TOOL_PARAMETERS } from './memory-tool-info.js';
import type { AgentServices, AgentSetup } from './services.js';
import { Session, type SessionOptions } from './session.js';
import { type AgentSettings, agentSettings, type SettingsInput, withSettings } from './settings.js';

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

/** A sub-agent's session: what it inherits from its parent, and what it is narrowed to. */
export interface ChildSessionOptions {
  /**
   * The parent session, its tool call that starts the child, and the parent's depth;
   * absent: a top-level session running a role (a workflow's agent node).
   */
  parent?: { id: string; callId: string; depth: number };
  role: string;
  title: string;
  cwd: string;
  /** The tools the child may use (a subset of its parent's). */
  tools: ToolRegistry;
  /** On top of the agent's settings: the role's prompt, turns, budget, permission mode. */
  settings: SettingsInput;
  /** Its policy: never more than the parent's. */
  policy: PermissionPolicy;
  /** The parent's: a child's approvals and questions are answered on the parent session. */
  interactions: Interactions;
  fs?: ClientFs;
  shell?: ClientShell;
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
      ...(opts.shell ? { shell: opts.shell } : {}),
      storedCount: 0,
    });
  }

  /**
   * A new session running a role: a sub-agent's under its parent's tool call (stored with
   * the link to it), or a workflow node's.
   */
  childSession(opts: ChildSessionOptions): Session {
    const { store, provider } = this.services;
    const row = store.sessions.create({
      cwd: opts.cwd,
      title: opts.title,
      model: provider.info.model,
      profile: provider.info.profile,
      role: opts.role,
      ...(opts.parent
        ? { parent: { id: opts.parent.id, callId: opts.parent.callId, depth: opts.parent.depth + 1 } }
        : {}),
    });
    const setup: AgentSetup = {
      services: { ...this.services, tools: opts.tools },
      settings: withSettings(this.settings, opts.settings),
    };
    return new Session(setup, row, [], {
      storedCount: 0,
      interactions: opts.interactions,
      policy: opts.policy,
      ...(opts.fs ? { fs: opts.fs } : {}),
      ...(opts.shell ? { shell: opts.shell } : {}),
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
