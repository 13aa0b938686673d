import { type BreakerOptions, BreakerRegistry } from './breaker.js';
import { defaultTakesImages } from './images.js';
import { providerBuilder } from './providers.js';
import { createRegistry, type ModelRegistry } from './registry.js';
import { type ResilientOptions, ResilientProvider } from './resilient.js';
import type { SleepFn } from './retry.js';
import type { Timers } from './timers.js';
import type { ContextThresholds, ModelInfo, Provider, ProviderKind } from './types.js';

/** One model profile, as resolved by the config layer. */
export interface ProfileConfig {
  /** The profile's name, e.g. `main_model`; shown in retry/fallback events. */
  name: string;
  provider: ProviderKind;
  /** OpenAI wire: up to and including `/v1`. Anthropic: the host (the adapter appends `/v1/messages`). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Overrides the registry's context window for this model. */
  contextWindow?: number;
  /** Overrides the registry's max output tokens for this model. */
  maxOutputTokens?: number;
  headers?: Record<string, string>;
  /** Idle timeout for this profile, overriding the chain's. */
  timeoutMs?: number;
  /** Anthropic only: extended-thinking token budget. */
  thinkingBudget?: number;
  /** Context-engine thresholds for this profile (shares of the window). */
  contextThresholds?: ContextThresholds;
}

export interface ProviderFactoryOptions {
  /** Where limits and prices come from; the built-in registry when absent. */
  registry?: ModelRegistry;
}

export interface ModelChainOptions extends ProviderFactoryOptions {
  /** Idle timeout of one attempt. */
  timeoutMs: number;
  /** Deadline of one call per profile (default 180 s): see `ResilientOptions.callTimeoutMs`. */
  callTimeoutMs?: number;
  /** The longest one streamed answer may last (default 600 s). */
  streamMaxMs?: number;
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs?: number;
  maxRetryAfterMs?: number;
  /** Share one breaker registry across the process; a new one is made when absent. */
  breakers?: BreakerRegistry;
  /** Thresholds for the breaker registry made when `breakers` is absent. */
  breaker?: BreakerOptions;
  /** Test seams. */
  sleep?: SleepFn;
  timers?: Timers;
  random?: () => number;
}

/** Fills what the profile leaves out (context window, output limit, prices) from the registry. */
export function toModelInfo(profile: ProfileConfig, registry: ModelRegistry = createRegistry()): ModelInfo {
  validateProfile(profile);
  const spec = registry.lookup(profile.model);
  const info: ModelInfo = {
    profile: profile.name,
    provider: profile.provider,
    model: profile.model,
    baseUrl: profile.baseUrl,
    contextWindow: profile.contextWindow ?? spec.contextWindow,
    maxOutputTokens: profile.maxOutputTokens ?? spec.maxOutputTokens,
    images: spec.images ?? defaultTakesImages(profile.provider, profile.baseUrl),
  };
  if (profile.contextThresholds) info.contextThresholds = { ...profile.contextThresholds };
  if (spec.inputPrice !== undefined) info.inputPrice = spec.inputPrice;
  if (spec.outputPrice !== undefined) info.outputPrice = spec.outputPrice;
  if (spec.cachedInputPrice !== undefined) info.cachedInputPrice = spec.cachedInputPrice;
  return info;
}

/** The adapter for one profile, with no retries or fallback around it. */
export function createProvider(profile: ProfileConfig, opts: ProviderFactoryOptions = {}): Provider {
  const info = toModelInfo(profile, opts.registry);
  return providerBuilder(profile.provider)(info, profile);
}

/** The primary profile plus its fallbacks, wrapped in timeouts, retries and breakers. */
export function createModelChain(profiles: ProfileConfig[], opts: ModelChainOptions): ResilientProvider {
  if (profiles.length === 0) {
    throw new Error(
      'no model profile configured: add one to ~/.tea/ config or set OPENAI_API_KEY / TEA_MODEL',
    );
  }
  const seen = new Set<string>();
  for (const p of profiles) {
    if (seen.has(p.name)) throw new Error(`model profile '${p.name}' appears twice in the fallback chain`);
    seen.add(p.name);
  }
  const registry = opts.registry ?? createRegistry();
  const providers = profiles.map((p) => createProvider(p, { registry }));
  const profileTimeoutsMs: Record<string, number> = {};
  for (const p of profiles) if (p.timeoutMs !== undefined) profileTimeoutsMs[p.name] = p.timeoutMs;

  const resilient: ResilientOptions = {
    timeoutMs: opts.timeoutMs,
    profileTimeoutsMs,
    maxRetries: opts.maxRetries,
    baseDelayMs: opts.baseDelayMs,
    breakers: opts.breakers ?? new BreakerRegistry(opts.breaker),
  };
  if (opts.callTimeoutMs !== undefined) resilient.callTimeoutMs = opts.callTimeoutMs;
  if (opts.streamMaxMs !== undefined) resilient.streamMaxMs = opts.streamMaxMs;
  if (opts.timers) resilient.timers = opts.timers;
  if (opts.maxDelayMs !== undefined) resilient.maxDelayMs = opts.maxDelayMs;
  if (opts.maxRetryAfterMs !== undefined) resilient.maxRetryAfterMs = opts.maxRetryAfterMs;
  if (opts.sleep) resilient.sleep = opts.sleep;
  if (opts.random) resilient.random = opts.random;
  return new ResilientProvider(providers, resilient);
}

function validateProfile(p: ProfileConfig): void {
  const where = `model profile '${p.name}'`;
  if (typeof p.name !== 'string' || p.name.trim() === '')
    throw new Error('model profile: name must not be empty');
  try {
    providerBuilder(p.provider);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
  if (typeof p.model !== 'string' || p.model.trim() === '')
    throw new Error(`${where}: model must not be empty`);
  let url: URL;
  try {
    url = new URL(p.baseUrl);
  } catch {
    throw new Error(`${where}: baseUrl ${JSON.stringify(p.baseUrl)} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`${where}: baseUrl must be http or https, got ${JSON.stringify(p.baseUrl)}`);
  }
  for (const field of ['contextWindow', 'maxOutputTokens', 'timeoutMs', 'thinkingBudget'] as const) {
    const value = p[field];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) {
      throw new Error(`${where}: ${field} must be a positive integer, got ${JSON.stringify(value)}`);
    }
  }
}
