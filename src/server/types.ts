/** What the HTTP app needs from the runtime; built by `tea serve` (and by tests). */

import type { Agent } from '../agent/index.js';
import type { TeaConfig } from '../config/types.js';
import type { LongTermMemory } from '../memory/api.js';
import type { EvolveService } from '../runtime/evolve-service.js';
import type { JournalService } from '../runtime/journal.js';
import type { McpManager } from '../runtime/mcp.js';
import type { SessionsService } from '../runtime/sessions.js';
import type { SkillsService } from '../runtime/skills.js';
import type { WorkflowsService } from '../runtime/workflows.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';

export interface ProfileInfo {
  name: string;
  /** The underlying model id. */
  model: string;
}

/** Agents per model profile, sharing one store, tool registry and memory. */
export interface AgentSource {
  /** The profile used when a request names none (`POST /v1/config/switch` changes it). */
  active: string;
  profiles(): ProfileInfo[];
  /**
   * The canonical profile name for what a request named (a profile name, `tea`, a
   * profile's model id, or a YAML profile file); undefined names the active profile.
   * Throws ApiError 404 `model_not_found` for an unknown name.
   */
  resolve(name: string | undefined, param?: string): Promise<string>;
  /** The agent for a resolved profile; `deny` when nobody can answer approvals (the OpenAI endpoint). */
  agent(profile: string, approvals: 'ask' | 'deny'): Agent;
}

export interface RateLimitOptions {
  /** Requests each client may make per minute, on average. */
  perMinute: number;
  /** Requests a client may make in a burst (default: `perMinute`). */
  burst?: number;
}

export interface ServerDeps {
  config: TeaConfig;
  sessions: SessionsService;
  /** The operation journal (undo/redo); absent: its routes answer 404 journal_off. */
  journal?: JournalService;
  tools: ToolRegistry;
  /** The configured MCP servers (the MCP panel's routes); absent: none. */
  mcp?: McpManager | undefined;
  memory: LongTermMemory;
  agents: AgentSource;
  /** The workflows service, built on first use (the first workflow request loads it). */
  workflows: () => Promise<WorkflowsService>;
  /** The skills service (installed skills and the inbox), built on first use. */
  skills: () => Promise<SkillsService>;
  /** Prompt versions and the rest of self-evolution, built on first use. */
  evolve: () => Promise<EvolveService>;
  /** The workspace new sessions and tool runs use. */
  cwd: string;
  /** The server's permission mode: sessions run under it; `/v1/tools/{name}/run` obeys it. */
  permissionMode: PermissionMode;
  /** Its rules (the config's, then `--allow`'s): sessions and `/v1/tools/{name}/run` get the same. */
  permissionRules: readonly PermissionRule[];
  /** Directories besides `cwd` file tools may use (the config's and `--add-dir`'s). */
  allowedRoots: readonly string[];
  version: string;
  /** Bearer token; when set every route but `/health` needs it. */
  token?: string;
  /** Allowed CORS origins; CORS is off when empty or absent. These may also send writes. */
  cors?: string[];
  /**
   * Host values answered besides the bound address and the loopback names
   * (`name` for any port, `name:port`): names behind a proxy or in /etc/hosts.
   */
  allowedHosts?: string[];
  /** Where reasoning goes in chat-completion chunks (default `reasoning_content`). */
  reasoningField?: string;
  /** Largest request body in bytes (default 10 MB). */
  bodyLimitBytes?: number;
  /** Open connections answered; a request on one past it gets 503 (default 2,000). */
  maxConnections?: number;
  /** Time for a request's headers to arrive (default 10 s). */
  headersTimeoutMs?: number;
  /** Time for a whole request, body included, to arrive; 408 after it (default 30 s). */
  requestTimeoutMs?: number;
  /** Per-client rate limit (default 600/min); false turns it off. */
  rateLimit?: RateLimitOptions | false;
  /** The built web UI served at `/` (absent: no UI, API only). */
  webDir?: string;
  /**
   * Keep-alive interval of event streams (default 15 s; `tea serve --keep-alive`): `: ping` on
   * session and workflow events, `: keep-alive` on silent chat-completion and response streams.
   * 0 turns them off (workflow event streams still ping every 15 s: the ping also checks the run).
   */
  pingIntervalMs?: number;
  /** Events kept per live session for reconnects (default 2,000). */
  eventBufferSize?: number;
  /** Idle live sessions kept in memory before the oldest are dropped (default 200). */
  maxLiveSessions?: number;
  /** How long `DELETE ?force=true` waits for a cancelled turn to wind down (default 5 s). */
  cancelWaitMs?: number;
}

export const DEFAULT_BODY_LIMIT = 10 * 1024 * 1024;
