/** Turning merged, possibly incomplete endpoints into resolved profiles. */

import {
  DEFAULT_PROVIDER_KIND,
  type ProviderKind,
  providerDefaults,
  providerKinds,
} from '../util/provider-kinds.js';
import { defaultBaseUrl, defaultModel, envProvider, envValue, providerEnv } from './env.js';
import { badValue, ConfigError, displayPath } from './errors.js';
import type { PartialEndpoint } from './layers.js';
import { suggestKey } from './suggest.js';
import type { EmbeddingConfig, KeySource, ProfileConfig } from './types.js';

/** The named provider, else the one whose URL hint the base URL holds (e.g. anthropic.com), else openai. */
export function inferProvider(endpoint: { provider?: ProviderKind; baseUrl?: string }): ProviderKind {
  if (endpoint.provider) return endpoint.provider;
  const url = endpoint.baseUrl;
  const hinted = url
    ? providerKinds().find((kind) => {
        const hint = providerDefaults(kind).urlHint;
        return hint !== undefined && url.includes(hint);
      })
    : undefined;
  return hinted ?? DEFAULT_PROVIDER_KIND;
}

/** Drops trailing slashes; for Anthropic also a trailing `/v1` (the adapter adds `/v1/messages`). */
export function normaliseBaseUrl(url: string, provider: ProviderKind): string {
  let out = url.replace(/\/+$/, '');
  if (providerDefaults(provider).hostOnlyBaseUrl) out = out.replace(/\/v1$/, '');
  return out;
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * Fills what the files left unset in `main_model` from the env (see env.ts for
 * the precedence): provider, base URL, key (only for the env's own host) and,
 * on a provider's official endpoint, its default model.
 */
export function fillMainFromEnv(fromFiles: PartialEndpoint, env: NodeJS.ProcessEnv): PartialEndpoint {
  const provider =
    fromFiles.provider ??
    (fromFiles.baseUrl ? inferProvider(fromFiles) : envProvider(env)?.provider) ??
    DEFAULT_PROVIDER_KIND;
  const fromEnv = providerEnv(env, provider);
  const envUrl = fromEnv.baseUrl ?? defaultBaseUrl(provider);
  const filled: PartialEndpoint = { ...fromFiles, provider, baseUrl: fromFiles.baseUrl ?? envUrl };
  const keyless = fromFiles.apiKey === undefined && fromFiles.apiKeyEnv === undefined;
  if (keyless && fromEnv.apiKey && (!fromFiles.baseUrl || sameOrigin(fromFiles.baseUrl, envUrl))) {
    filled.apiKeyEnv = fromEnv.keyVariable;
  }
  if (filled.model === undefined && filled.baseUrl === defaultBaseUrl(provider)) {
    filled.model = defaultModel(provider);
  }
  return filled;
}

function keyOf(endpoint: PartialEndpoint, env: NodeJS.ProcessEnv): { apiKey?: string; source: KeySource } {
  if (endpoint.apiKey !== undefined) {
    return { apiKey: endpoint.apiKey, source: { kind: 'file', file: endpoint.keyFile ?? endpoint.file } };
  }
  if (endpoint.apiKeyEnv !== undefined) {
    const apiKey = envValue(env, endpoint.apiKeyEnv);
    const source: KeySource = { kind: 'env', variable: endpoint.apiKeyEnv, set: apiKey !== undefined };
    if (endpoint.keyFile) source.file = endpoint.keyFile;
    return apiKey === undefined ? { source } : { apiKey, source };
  }
  return { source: { kind: 'none' } };
}

function requireModel(endpoint: PartialEndpoint): string {
  if (endpoint.model !== undefined) return endpoint.model;
  const key = `${endpoint.key}.model`;
  const orEnv = endpoint.key === 'main_model' ? ' (or set TEA_MODEL)' : '';
  const fix = `add \`model: <id>\` with the model id the server knows, e.g. gpt-4o${orEnv}.`;
  // Env-only endpoints carry `$VARIABLE` instead of a file and always have a model.
  const file = endpoint.file.startsWith('$') ? undefined : endpoint.file;
  throw badValue({ file, key, expected: 'a model id', fix }, 'nothing');
}

export interface Resolved<T> {
  value: T;
  keySource: KeySource;
}

/** A complete profile from a merged endpoint, or a ConfigError naming what is missing. */
export function finaliseProfile(
  name: string,
  endpoint: PartialEndpoint,
  env: NodeJS.ProcessEnv,
): Resolved<ProfileConfig> {
  const provider = inferProvider(endpoint);
  const { apiKey, source } = keyOf(endpoint, env);
  const profile: ProfileConfig = {
    name,
    provider,
    baseUrl: normaliseBaseUrl(endpoint.baseUrl ?? defaultBaseUrl(provider), provider),
    model: requireModel(endpoint),
  };
  if (apiKey !== undefined) profile.apiKey = apiKey;
  if (endpoint.contextWindow !== undefined) profile.contextWindow = endpoint.contextWindow;
  if (endpoint.maxOutputTokens !== undefined) profile.maxOutputTokens = endpoint.maxOutputTokens;
  if (endpoint.thinkingBudget !== undefined) profile.thinkingBudget = endpoint.thinkingBudget;
  if (endpoint.contextThresholds !== undefined) profile.contextThresholds = { ...endpoint.contextThresholds };
  if (endpoint.headers !== undefined) profile.headers = { ...endpoint.headers };
  if (endpoint.timeoutMs !== undefined) profile.timeoutMs = endpoint.timeoutMs;
  return { value: profile, keySource: source };
}

export function finaliseEmbedding(
  endpoint: PartialEndpoint,
  env: NodeJS.ProcessEnv,
): Resolved<EmbeddingConfig> {
  const { apiKey, source } = keyOf(endpoint, env);
  const embedding: EmbeddingConfig = {
    provider: 'openai',
    baseUrl: normaliseBaseUrl(endpoint.baseUrl ?? defaultBaseUrl('openai'), 'openai'),
    model: requireModel(endpoint),
  };
  if (apiKey !== undefined) embedding.apiKey = apiKey;
  if (endpoint.dimensions !== undefined) embedding.dimensions = endpoint.dimensions;
  if (endpoint.headers !== undefined) embedding.headers = { ...endpoint.headers };
  if (endpoint.timeoutMs !== undefined) embedding.timeoutMs = endpoint.timeoutMs;
  return { value: embedding, keySource: source };
}

/** Every fallback name must be a defined profile (or `cheap_model`). */
export function checkFallback(names: string[], file: string, profiles: Record<string, ProfileConfig>): void {
  const known = [...Object.keys(profiles), 'cheap_model'];
  names.forEach((name, i) => {
    if (known.includes(name)) return;
    const key = `fallback[${i}]`;
    const suggestion = suggestKey(name, known);
    const fix = suggestion
      ? `did you mean "${suggestion}"? Known profiles: ${known.join(', ')}.`
      : `define it under \`profiles:\` or use one of: ${known.join(', ')}.`;
    throw new ConfigError(`${displayPath(file)}: ${key}: unknown profile "${name}". Fix: ${fix}`, {
      file,
      key,
      expected: `one of ${known.join(', ')}`,
      fix,
    });
  });
}

/**
 * `profile`, on the same endpoint with the same key, with the tuning an untrusted
 * project file set on it (model name, context limits, timeout). Another model
 * drops the limits that were set for the old one (the model registry knows its own).
 */
export function tuneProfile(
  profile: ProfileConfig,
  tuning: PartialEndpoint,
  opts: { keepModel?: boolean } = {},
): ProfileConfig {
  const out: ProfileConfig = { ...profile };
  if (tuning.model !== undefined && !opts.keepModel && tuning.model !== profile.model) {
    out.model = tuning.model;
    delete out.contextWindow;
    delete out.maxOutputTokens;
    delete out.thinkingBudget;
    delete out.contextThresholds;
  }
  if (tuning.contextWindow !== undefined) out.contextWindow = tuning.contextWindow;
  if (tuning.maxOutputTokens !== undefined) out.maxOutputTokens = tuning.maxOutputTokens;
  if (tuning.thinkingBudget !== undefined) out.thinkingBudget = tuning.thinkingBudget;
  if (tuning.contextThresholds !== undefined) out.contextThresholds = { ...tuning.contextThresholds };
  if (tuning.timeoutMs !== undefined) out.timeoutMs = tuning.timeoutMs;
  return out;
}
