/**
 * What the ACP face needs from the runtime beyond one agent: the sessions service
 * (list, fork, delete, rename, a session's profile), the model profiles, and agents
 * by profile. Absent (in-process tests with a bare agent), `session/list`,
 * `session/delete`, `session/fork` and `session/set_title` answer "method not found"
 * and config options offer the permission mode only.
 */
import type { Agent } from '../agent/index.js';
import type { ProfileInfo } from '../runtime/models.js';
import type { SessionsService } from '../runtime/sessions.js';

export interface AcpModels {
  /** The profile a session without its own runs on. */
  readonly active: string;
  /** The configured profiles (throws when no model is configured at all). */
  profiles(): ProfileInfo[];
}

export interface AcpBackend {
  sessions: Pick<
    SessionsService,
    | 'list'
    | 'get'
    | 'delete'
    | 'fork'
    | 'rename'
    | 'setProfile'
    | 'profileOf'
    | 'agentOf'
    | 'modes'
    | 'runner'
  >;
  models: AcpModels;
  /** The agent (approvals asked of the editor) for `profile` (default: the active one). */
  agentFor(profile?: string): Agent;
}
