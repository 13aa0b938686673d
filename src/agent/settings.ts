/**
 * What every face derives the same way from the config: the model chain options
 * and the agent settings that do not depend on the face. One place, so the CLI,
 * the server's per-profile agents and the editor face cannot drift apart.
 */
import path from 'node:path';
import type { TeaConfig } from '../config/types.js';
import type { BreakerRegistry } from '../llm/breaker.js';
import type { ModelChainOptions } from '../llm/factory.js';
import { createRegistry } from '../llm/registry.js';
import type { AgentOptions } from './agent.js';

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

/** The agent options that come straight from the config. */
export function agentSettings(
  config: TeaConfig,
): Pick<
  AgentOptions,
  | 'maxIterations'
  | 'maxParallelTools'
  | 'maxOutputChars'
  | 'toolLoading'
  | 'toolOutputRoot'
  | 'home'
  | 'titles'
  | 'memoryJobs'
  | 'lease'
  | 'turnTimeoutMs'
> {
  return {
    maxIterations: config.agent.maxIterations,
    maxParallelTools: config.agent.maxParallelTools,
    maxOutputChars: config.tools.maxOutputChars,
    toolLoading: config.tools.loading,
    toolOutputRoot: path.join(config.home, 'tool-output'),
    home: config.home,
    titles: config.agent.autoTitle,
    memoryJobs: config.memory,
    lease: { waitMs: config.agent.sessionWaitMs },
    turnTimeoutMs: config.agent.turnTimeoutMs,
  };
}
