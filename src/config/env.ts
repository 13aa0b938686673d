/**
 * Environment variables as a source of the main model.
 *
 * Precedence, highest first:
 *  1. `TEA_MODEL` — an explicit per-run choice: it overrides `main_model.model`
 *     wherever the main model came from (file, env or a detected Ollama).
 *  2. The project `.tea/config.yaml` (nearest one from the cwd up to the git root).
 *  3. The user `~/.tea/config.yaml` (`$TEA_HOME/config.yaml`).
 *  4. `OPENAI_API_KEY` / `OPENAI_BASE_URL`, then `ANTHROPIC_API_KEY` /
 *     `ANTHROPIC_BASE_URL`: they configure the main model when no file does, and
 *     otherwise only fill what the files leave unset. An env key is only sent to
 *     the host the env (or the provider default) names, never to a base URL a file
 *     set to some other host.
 *  5. A local Ollama, probed only when nothing above configured a main model.
 *  6. Built-in defaults.
 */
import { type ProviderKind, providerDefaults, providerKinds } from '../util/provider-kinds.js';
import type { PartialEndpoint } from './layers.js';

/** A trimmed env value; empty counts as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function defaultBaseUrl(provider: ProviderKind): string {
  return providerDefaults(provider).baseUrl;
}

export function defaultModel(provider: ProviderKind): string {
  return providerDefaults(provider).model;
}

/** What the env says about one provider. */
export interface ProviderEnv {
  provider: ProviderKind;
  baseUrl?: string;
  apiKey?: string;
  keyVariable: string;
  baseUrlVariable: string;
}

export function providerEnv(env: NodeJS.ProcessEnv, provider: ProviderKind): ProviderEnv {
  const prefix = providerDefaults(provider).envPrefix;
  return {
    provider,
    baseUrl: envValue(env, `${prefix}_BASE_URL`),
    apiKey: envValue(env, `${prefix}_API_KEY`),
    keyVariable: `${prefix}_API_KEY`,
    baseUrlVariable: `${prefix}_BASE_URL`,
  };
}

/**
 * The provider the env points at: a key wins (in registry order: OpenAI first), then
 * a base URL together with `TEA_MODEL` (a local server without a key). Undefined
 * when the env configures no main model.
 */
export function envProvider(env: NodeJS.ProcessEnv): ProviderEnv | undefined {
  const all = providerKinds().map((kind) => providerEnv(env, kind));
  const keyed = all.find((p) => p.apiKey);
  if (keyed) return keyed;
  if (envValue(env, 'TEA_MODEL')) return all.find((p) => p.baseUrl);
  return undefined;
}

/** The main model from env vars alone, or undefined. `TEA_MODEL` is applied later. */
export function envMainModel(env: NodeJS.ProcessEnv): PartialEndpoint | undefined {
  const chosen = envProvider(env);
  if (!chosen) return undefined;
  return {
    provider: chosen.provider,
    baseUrl: chosen.baseUrl ?? defaultBaseUrl(chosen.provider),
    ...(chosen.apiKey ? { apiKeyEnv: chosen.keyVariable } : {}),
    model: defaultModel(chosen.provider),
    file: `$${chosen.apiKey ? chosen.keyVariable : chosen.baseUrlVariable}`,
    key: 'main_model',
  };
}
