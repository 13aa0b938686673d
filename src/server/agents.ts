/**
 * The server's view of the runtime: agents per profile (built by the runtime on
 * first use), with a profile the runtime cannot resolve turned into an
 * OpenAI-style 4xx, and the deps every route reads.
 */
import type { Runtime } from '../runtime/runtime.js';
import { apiError } from './errors.js';
import type { AgentSource, ServerDeps } from './types.js';

/** Agents by profile from the runtime; a bad name is 404 `model_not_found` (400 `invalid_config_path` for a bad file). */
export function agentSource(rt: Runtime): AgentSource {
  return {
    get active() {
      return rt.models.active;
    },
    set active(name: string) {
      rt.models.active = name;
    },
    profiles: () => rt.models.profiles(),
    async resolve(name, param = 'model') {
      try {
        return await rt.models.resolve(name);
      } catch (e) {
        if (!(e instanceof Error && e.name === 'RuntimeError')) throw e;
        const usage = (e as { code?: string }).code === 'usage';
        throw apiError(usage ? 400 : 404, e.message, {
          param,
          code: usage ? 'invalid_config_path' : 'model_not_found',
        });
      }
    },
    agent: (profile, approvals) => rt.agentFor(profile, { approvals }),
  };
}

/** What the HTTP app reads of the runtime; the rest of ServerDeps is the server's own settings. */
export type RuntimeDeps = Pick<
  ServerDeps,
  | 'config'
  | 'sessions'
  | 'journal'
  | 'tools'
  | 'mcp'
  | 'memory'
  | 'agents'
  | 'workflows'
  | 'skills'
  | 'evolve'
  | 'cwd'
  | 'permissionMode'
  | 'permissionRules'
  | 'allowedRoots'
>;

export function runtimeDeps(rt: Runtime): RuntimeDeps {
  return {
    config: rt.config,
    sessions: rt.sessions,
    journal: rt.journal,
    tools: rt.tools,
    mcp: rt.mcp,
    memory: rt.memory,
    agents: agentSource(rt),
    workflows: () => rt.workflows(),
    skills: () => rt.skills(),
    evolve: () => rt.evolve(),
    cwd: rt.cwd,
    permissionMode: rt.permissionMode,
    permissionRules: rt.permissionRules,
    allowedRoots: rt.allowedRoots,
  };
}
