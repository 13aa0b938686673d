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
import type { PartialEndpoint } from './layers.js';

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
/** The Anthropic adapter appends `/v1/messages` to this. */
export const DEFAULT_ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-sonnet-4-5';

type Provider = 'openai' | 'anthropic';

/** A trimmed env value; empty counts as unset. */
export function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function defaultBaseUrl(provider: Provider): string {
  return provider === 'anthropic' ? DEFAULT_ANTHROPIC_BASE_URL : DEFAULT_OPENAI_BASE_URL;
}

export function defaultModel(provider: Provider): string {
  return provider === 'anthropic' ? DEFAULT_ANTHROPIC_MODEL : DEFAULT_OPENAI_MODEL;
}

/** What the env says about one provider. */
export interface ProviderEnv {
  provider: Provider;
  baseUrl?: string;
  apiKey?: string;
  keyVariable: string;
  baseUrlVariable: string;
}

export function providerEnv(env: NodeJS.ProcessEnv, provider: Provider): ProviderEnv {
  const prefix = provider === 'anthropic' ? 'ANTHROPIC' : 'OPENAI';
  return {
    provider,
    baseUrl: envValue(env, `${prefix}_BASE_URL`),
    apiKey: envValue(env, `${prefix}_API_KEY`),
    keyVariable: `${prefix}_API_KEY`,
    baseUrlVariable: `${prefix}_BASE_URL`,
  };
}

/**
 * The provider the env points at: a key wins (OpenAI first), then a base URL
 * together with `TEA_MODEL` (a local server without a key). Undefined when the
 * env configures no main model.
 */
export function envProvider(env: NodeJS.ProcessEnv): ProviderEnv | undefined {
  const openai = providerEnv(env, 'openai');
  const anthropic = providerEnv(env, 'anthropic');
  if (openai.apiKey) return openai;
  if (anthropic.apiKey) return anthropic;
  if (envValue(env, 'TEA_MODEL')) {
    if (openai.baseUrl) return openai;
    if (anthropic.baseUrl) return anthropic;
  }
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
