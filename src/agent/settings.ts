/**
 * Every knob of an agent in one object, with its defaults filled in here and
 * nowhere else. An agent builds its `AgentSettings` once; its sessions, their
 * turns and the tool runs read that same object by reference.
 */
import path from 'node:path';
import type { TeaConfig } from '../config/types.js';
import type { BreakerRegistry } from '../llm/breaker.js';
import type { ModelChainOptions } from '../llm/factory.js';
import { createRegistry } from '../llm/registry.js';
import type { ToolLoading } from '../tools/loading.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import { DEFAULT_MAX_OUTPUT_CHARS } from '../tools/run.js';
import { DEFAULT_LEASE, type LeaseSettings } from './lease.js';
import { NO_RULES, type RuleSettings } from './rules/match.js';
import { compileUserRules } from './rules/user.js';
import type { WorkModeSet } from './work-modes.js';

export interface AgentSettings {
  /** Replaces the default system prompt (the permission mode and the tool catalogue are still added). */
  systemPrompt?: string;
  /**
   * The instruction part of the default system prompt (the active prompt version, which
   * the runtime reads once per agent); absent: the built-in text. `systemPrompt` wins.
   */
  instructions?: string;
  /**
   * A line added after the system prompt (default or `systemPrompt`): the runtime's note
   * on the mode it runs in, e.g. self-evolution in Tea's own repository. Absent: none.
   */
  promptNote?: string;
  /** Model calls per turn before the loop stops. */
  maxIterations: number;
  /** Concurrency-safe tools run at most this many at once. */
  maxParallelTools: number;
  /** Tool outputs longer than this are cut head+tail (the full text saved under `toolOutputRoot`). */
  maxOutputChars: number;
  /** Default approvals per tool class. */
  permissionMode: PermissionMode;
  /** Ordered rules on top of the mode; the last match wins. */
  permissionRules: readonly PermissionRule[];
  /** Directories besides the workspace that file tools may use. */
  allowedRoots: readonly string[];
  /** 'ask' when a face answers approvals and questions; 'deny' when nobody can (tea -p). */
  approvals: 'ask' | 'deny';
  /** 'intent': core tools + tool_search; 'all': every schema on every request. */
  toolLoading: ToolLoading;
  /** Truncated tool outputs are saved in full under `<toolOutputRoot>/<session id>/`; absent: not saved. */
  toolOutputRoot?: string;
  /** Tea's data home: `<home>/AGENTS.md` is a global instruction file; absent: none. */
  home?: string;
  /** Name new sessions on the cheap model after their first turn. */
  titles: boolean;
  /** With memory and a cheap model: extract memories after each turn, and tune priorities / reflect now and then. */
  memoryJobs: { extract: boolean; tune: boolean };
  /** One runner per session across processes: a turn waits up to `waitMs` (0 refuses at once) for another runner's lease. */
  lease: LeaseSettings;
  /** The deadline of one prompt (its turn and the follow-ups queued meanwhile). */
  turnTimeoutMs: number;
  /**
   * A sub-agent's budget: the turn stops (reason `budget`) before a model call once the
   * prompt has used this many tokens (input + output) or this much money. Checked between
   * model calls, so one call may go past it. Absent: no budget.
   */
  budget?: { maxTokens?: number; maxCostUsd?: number };
  /** Recall long-term memories for each prompt (sub-agents do not: they get only their task). */
  recall: boolean;
  /** The work modes top-level sessions switch between, and their default (absent: the built-in six, `develop`). */
  workModes?: WorkModeSet;
  /** The rule-engine fast path: prompts that run one tool without a model call (agent/rules/). */
  rules: RuleSettings;
}

/** Some settings; whatever is left out (or undefined) takes its default. */
export type SettingsInput = Partial<Omit<AgentSettings, 'memoryJobs' | 'lease'>> & {
  memoryJobs?: Partial<AgentSettings['memoryJobs']>;
  lease?: Partial<LeaseSettings>;
};

/** The default deadline of one prompt: an hour. */
export const DEFAULT_TURN_TIMEOUT_MS = 60 * 60 * 1000;

export const DEFAULT_SETTINGS: Readonly<AgentSettings> = Object.freeze({
  maxIterations: 25,
  maxParallelTools: 4,
  maxOutputChars: DEFAULT_MAX_OUTPUT_CHARS,
  permissionMode: 'ask',
  permissionRules: [],
  allowedRoots: [],
  approvals: 'ask',
  toolLoading: 'intent',
  titles: true,
  memoryJobs: { extract: true, tune: true },
  lease: DEFAULT_LEASE,
  turnTimeoutMs: DEFAULT_TURN_TIMEOUT_MS,
  recall: true,
  rules: NO_RULES,
});

/** The fields of `o` that are set: an undefined field means "the default", not "nothing". */
function defined<T extends object>(o: T | undefined): Partial<T> {
  if (!o) return {};
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** `over` on top of `base`, field by field (the nested `memoryJobs` and `lease` too). */
function layer<T extends SettingsInput>(base: T, over: SettingsInput): T {
  return {
    ...base,
    ...defined(over),
    memoryJobs: { ...base.memoryJobs, ...defined(over.memoryJobs) },
    lease: { ...base.lease, ...defined(over.lease) },
  };
}

/** `base` with `over` on top (a sub-agent's settings from its parent's). */
export function withSettings(base: AgentSettings, over: SettingsInput): AgentSettings {
  return layer<AgentSettings>(base, over);
}

/** The full settings from some of them (tests, library users): the defaults for the rest. */
export function agentSettings(input: SettingsInput = {}): AgentSettings {
  return layer<AgentSettings>(DEFAULT_SETTINGS, input);
}

/**
 * An agent's settings from the config, then `overrides` (a face's flags: --max-turns,
 * the permission mode, rules and roots it resolved, approvals, titles).
 */
export function settingsFrom(config: TeaConfig, overrides: SettingsInput = {}): AgentSettings {
  const fromConfig: SettingsInput = {
    maxIterations: config.agent.maxIterations,
    maxParallelTools: config.agent.maxParallelTools,
    maxOutputChars: config.tools.maxOutputChars,
    toolLoading: config.tools.loading,
    toolOutputRoot: path.join(config.home, 'tool-output'),
    home: config.home,
    titles: config.agent.autoTitle,
    memoryJobs: { extract: config.memory.extract, tune: config.memory.tune },
    lease: { waitMs: config.agent.sessionWaitMs },
    turnTimeoutMs: config.agent.turnTimeoutMs,
    rules: { fastPath: config.rules.fastPath, user: compileUserRules(config.rules.user) },
  };
  return agentSettings(layer(fromConfig, overrides));
}

/**
 * Timeouts, retries, breakers and the model registry for a chain. The cheap model
 * retries once: its jobs run in the background and must not hold a run open.
 */
export function chainOptions(
  config: TeaConfig,
  opts: { cheap?: boolean; breakers?: BreakerRegistry } = {},
): ModelChainOptions {
  return {
    timeoutMs: config.llm.timeoutMs,
    callTimeoutMs: config.llm.callTimeoutMs,
    streamMaxMs: config.llm.streamMaxMs,
    maxRetries: opts.cheap ? 1 : config.llm.maxRetries,
    baseDelayMs: config.llm.retryBaseMs,
    ...(opts.breakers ? { breakers: opts.breakers } : { breaker: config.llm.breaker }),
    registry: createRegistry(config.models),
  };
}
