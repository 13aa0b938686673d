/**
 * The effective configuration every face receives, after files, env vars and
 * local detection have been merged and validated.
 */

import type { ProfileConfig } from '../llm/factory.js';
import type { McpOAuthSettings } from '../util/mcp-oauth.js';
import type { WorkModesConfig } from './modes.js';
import type { SandboxConfig } from './sandbox.js';
import type { PermissionsConfig, ToolsConfig } from './sections.js';
import type { ServerSettings } from './server.js';
import type { TrustState } from './trust-store.js';

export type { ProfileConfig };

/** A remote embedding model on an OpenAI-compatible `/v1/embeddings` endpoint. */
export interface EmbeddingConfig {
  provider: 'openai';
  baseUrl: string;
  apiKey?: string;
  model: string;
  dimensions?: number;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

/** Model-registry overrides for one model id (prices in US dollars per million tokens). */
export interface ModelOverride {
  contextWindow?: number;
  maxOutputTokens?: number;
  inputPrice?: number;
  outputPrice?: number;
  cachedInputPrice?: number;
  /** The model takes images: images in tool results are sent to it (else described in text). */
  images?: boolean;
}

/**
 * Where a profile's API key came from (or was expected to come from), so that
 * `maskedConfig` can explain it without ever showing the key.
 * - `file`: written as `api_key` in that config file.
 * - `env`: read from an environment variable; `file` is the config file that named
 *   it via `api_key_env` (absent when the env-only setup picked it); `set` is false
 *   when the variable was unset.
 * - `none`: no key configured (normal for local servers).
 */
export type KeySource =
  | { kind: 'file'; file: string }
  | { kind: 'env'; variable: string; set: boolean; file?: string }
  | { kind: 'none' };

/**
 * One configured MCP server: started with `command` over stdio, or reached at `url`
 * over streamable HTTP. `trusted` is false for a server from a project file.
 */
export type McpServerSettings = McpServerSpec & { trusted: boolean };

/** An MCP server as one file writes it (before trust is decided). */
export type McpServerSpec = (
  | {
      command: string;
      args?: string[];
      env?: Record<string, string>;
      cwd?: string;
      /** Run the server in the shell sandbox (opt-in), with or without the network. */
      sandbox?: { network: boolean };
    }
  | {
      url: string;
      headers?: Record<string, string>;
      /** `http` or `sse` only; absent: streamable HTTP, falling back to SSE. */
      transport?: 'http' | 'sse';
      /** OAuth login settings; false: never log in. */
      oauth?: McpOAuthSettings | false;
    }
) & { timeoutMs?: number; disabled?: boolean; roots?: boolean };

/** A setting a project file holds that applies only once the user trusts the file. */
export interface RestrictedSetting {
  /** The dotted key as written, e.g. `main_model.base_url`, `permissions.rules[0]`. */
  key: string;
  /** What it is set to, for the trust prompt and `tea trust` (secrets hidden). */
  value: string;
}

/**
 * The project config file in force and whether the user trusts it. Until trusted,
 * its `restricted` settings (endpoints, keys, MCP servers, looser permissions,
 * env_allow…) are ignored; once trusted they apply.
 */
export interface ProjectTrust {
  /** The project's `.tea/config.yaml`. */
  file: string;
  /** The project directory (holding `.tea/`), where `tea trust` is run. */
  dir: string;
  /** SHA-256 of the content read; trust is recorded for exactly this content. */
  sha256: string;
  state: TrustState;
  /** The settings that need trust, whether or not they applied. */
  restricted: RestrictedSetting[];
}

/** What configured the main model. */
export type MainModelOrigin = 'file' | 'env' | 'ollama';

export interface TeaConfig {
  /** The data home (`~/.tea` or `$TEA_HOME`). */
  home: string;
  /** Config files that were read, in order (later ones win). */
  files: string[];
  mainModel?: ProfileConfig;
  /** Summaries and extraction; a copy of `mainModel` (named `cheap_model`) when not configured. */
  cheapModel?: ProfileConfig;
  /** Absent means the built-in offline embedder. */
  embedding?: EmbeddingConfig;
  /** Extra named profiles (`--profile NAME`, fallback chain). */
  profiles: Record<string, ProfileConfig>;
  /** Profile names tried in order after `mainModel` fails. */
  fallback: string[];
  /** `autoTitle`: name new interactive sessions on the cheap model after their first turn. */
  agent: {
    maxIterations: number;
    maxParallelTools: number;
    autoTitle: boolean;
    /** How long a run waits for a session another runner is using (0: refuse at once). */
    sessionWaitMs: number;
    /** The overall deadline of one turn. */
    turnTimeoutMs: number;
  };
  /**
   * `extract`: after each turn, the cheap model extracts long-term memories from the
   * user's new messages. `tune`: it also re-ranks memory priorities and reflects now and then.
   * `judge`: when a new memory is close to stored ones, the cheap model decides
   * whether it is new, an update or a duplicate (otherwise the offline rule alone).
   */
  memory: { extract: boolean; tune: boolean; judge: boolean };
  /**
   * After each prompt (on the cheap model): `lessons`, a failed task leaves a lesson
   * memory recalled for similar tasks; `drafts`, a succeeded multi-step task leaves a
   * skill draft in the inbox (TEA_HOME/skill-inbox) for a person to accept. The task
   * evaluation itself is always kept (no model call).
   */
  evolve: { drafts: boolean; lessons: boolean };
  /**
   * The operation journal (undo/redo): on by default; a round is not journaled when the
   * workspace has more than `maxFiles` files, a changed file is over `maxFileBytes`, or a
   * snapshot takes longer than `timeoutMs`.
   */
  journal: { enabled: boolean; maxFiles: number; maxFileBytes: number; timeoutMs: number };
  /**
   * MCP servers' sampling requests: the most tokens one answer may hold, and the most
   * one session's sampling may use (prompt and answer; 0: sampling off).
   */
  mcpSampling: { maxTokens: number; sessionTokens: number };
  /**
   * MCP servers' elicitation where nobody can answer (`tea -p`, `tea mcp call`, serve with
   * approvals denied): decline, or accept a form with its defaults when every required field has one.
   */
  mcpElicitation: { unattended: 'decline' | 'defaults' };
  /** Delegation to sub-agents (the `task` and `delegate_tasks` tools). */
  subagents: SubagentsConfig;
  llm: {
    /** Idle timeout of one attempt (first byte, and between chunks). */
    timeoutMs: number;
    /** A call gives up when the model has not answered within this, retries included. */
    callTimeoutMs: number;
    /** The longest one streamed answer may last. */
    streamMaxMs: number;
    maxRetries: number;
    retryBaseMs: number;
    breaker: { failureThreshold: number; recoveryMs: number };
  };
  /** Model-registry overrides by model id. */
  models: Record<string, ModelOverride>;
  /** Key provenance by profile name (`main_model`, `cheap_model`, `embedding`, or a profile name). */
  keySources?: Record<string, KeySource>;
  /** What configured `mainModel`, when there is one. */
  mainModelOrigin?: MainModelOrigin;
  /** Approval mode, rules and extra roots (a project file can only make them stricter). */
  permissions: PermissionsConfig;
  tools: ToolsConfig;
  /** Where shell tools run (`sandbox`; a project file can only make it stricter). */
  sandbox: SandboxConfig;
  /** MCP servers by name (`mcp_servers`); a project file cannot add stdio servers. */
  mcpServers: Record<string, McpServerSettings>;
  /** `tea serve` settings (`server`); only the user's own file may add allowed hosts. */
  server: ServerSettings;
  /** The rule-engine fast path (`rules_fast_path`, `rules`). */
  rules: RulesConfig;
  /** The project config file, when there is one, and its trust. */
  project?: ProjectTrust;
  /** Settings that were read but ignored, with the reason. */
  warnings: string[];
  /** Work modes the user defined or overrode, and the default (`modes`, `default_mode`); absent: none. */
  workModes?: WorkModesConfig;
}

/** Limits of delegation to sub-agents (config `subagents`). */
export interface SubagentsConfig {
  /** Sub-agents of one session running at once (default 4). */
  maxParallel: number;
  /** Sub-tasks one `delegate_tasks` call may hold (default 6). */
  maxTasksPerCall: number;
  /** 1: children may not delegate (default); 2: they may, once. */
  maxDepth: 1 | 2;
  /** One sub-agent's time limit (default 300 s). */
  timeoutMs: number;
  /** One sub-agent's default budgets (absent: none). */
  maxTokens?: number;
  maxCostUsd?: number;
}

/** A user rule of the fast path as a config file gives it (checked: config/rules.ts). */
export interface UserRuleConfig {
  /** A regular expression over the whole prompt (its first line, when one line). */
  pattern: string;
  tool: string;
  /** The tool's arguments; `$1`… in string values take the captures. */
  args: Record<string, unknown>;
  description?: string;
  /** Where it was defined, e.g. `~/.tea/config.yaml: rules[0]` (named in errors). */
  source: string;
}

/** `rules_fast_path` (default true) and the user rules of every file, in file order. */
export interface RulesConfig {
  fastPath: boolean;
  user: UserRuleConfig[];
}
