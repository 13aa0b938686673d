/** loadConfig: files, env and local detection merged into one validated TeaConfig. */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envMainModel, envValue } from './env.js';
import { CONFIG_FILE, findProjectConfig, teaHome } from './files.js';
import { checkFallback, fillMainFromEnv, finaliseEmbedding, finaliseProfile } from './finalize.js';
import { emptyLayer, finaliseMcpServers, type Layer, mergeLayers, toLayer } from './layers.js';
import { DEFAULT_OLLAMA_TIMEOUT_MS, detectOllama } from './ollama.js';
import { finaliseSandbox } from './sandbox.js';
import { finaliseSections } from './sections.js';
import type { KeySource, MainModelOrigin, ProfileConfig, TeaConfig } from './types.js';

export interface LoadConfigOptions {
  /** Where to look for a project `.tea/config.yaml` (default: `process.cwd()`). */
  cwd?: string;
  /** Environment to read (default: `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The data home (default: `teaHome(env)`). */
  home?: string;
  /** Probe a local Ollama when nothing else configures a main model (default: true). */
  detectOllama?: boolean;
  /** How long the Ollama probe may take (default: 300 ms). */
  ollamaTimeoutMs?: number;
}

export const DEFAULTS = {
  maxIterations: 25,
  maxParallelTools: 4,
  timeoutMs: 120_000,
  maxRetries: 3,
  retryBaseMs: 1000,
  failureThreshold: 5,
  recoveryMs: 60_000,
} as const;

/** The main model from files and env, before Ollama detection and TEA_MODEL. */
function mainFromFilesAndEnv(layer: Layer, env: NodeJS.ProcessEnv) {
  if (layer.mainModel) {
    const origin: MainModelOrigin = 'file';
    return { endpoint: fillMainFromEnv(layer.mainModel, env), origin };
  }
  const fromEnv = envMainModel(env);
  const origin: MainModelOrigin = 'env';
  return fromEnv ? { endpoint: fromEnv, origin } : undefined;
}

async function resolveMain(
  layer: Layer,
  env: NodeJS.ProcessEnv,
  opts: LoadConfigOptions,
): Promise<{ profile: ProfileConfig; keySource: KeySource; origin: MainModelOrigin } | undefined> {
  const teaModel = envValue(env, 'TEA_MODEL');
  const found = mainFromFilesAndEnv(layer, env);
  if (found) {
    const endpoint = teaModel ? { ...found.endpoint, model: teaModel } : found.endpoint;
    const { value, keySource } = finaliseProfile('main_model', endpoint, env);
    return { profile: value, keySource, origin: found.origin };
  }
  if (opts.detectOllama === false) return undefined;
  const ollama = await detectOllama(env, opts.ollamaTimeoutMs ?? DEFAULT_OLLAMA_TIMEOUT_MS);
  const model = teaModel ?? ollama?.models[0];
  if (!ollama || !model) return undefined;
  const profile: ProfileConfig = { name: 'main_model', provider: 'openai', baseUrl: ollama.baseUrl, model };
  return { profile, keySource: { kind: 'none' }, origin: 'ollama' };
}

/**
 * Loads the effective config: `$TEA_HOME/config.yaml`, then the nearest project
 * `.tea/config.yaml`, then env vars and, only when still needed, a local Ollama
 * (precedence in env.ts). Missing files are fine; a bad file throws ConfigError.
 * With no model anywhere, `mainModel` is undefined (see `describeMissingModel`).
 */
export async function loadConfig(opts: LoadConfigOptions = {}): Promise<TeaConfig> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? teaHome(env);
  const userFile = join(home, CONFIG_FILE);
  const files: string[] = [];
  let layer = emptyLayer();
  const candidates = [userFile, findProjectConfig(opts.cwd ?? process.cwd(), userFile)];
  for (const file of candidates) {
    if (file === undefined || (file === userFile && !existsSync(file))) continue;
    // The YAML parser and schema load only when there is a file to read.
    const { readConfigFile } = await import('./read.js');
    const raw = readConfigFile(file);
    if (raw === undefined) continue;
    files.push(file);
    layer = mergeLayers(layer, toLayer(raw, file));
  }

  const keySources: Record<string, KeySource> = {};
  const profiles: Record<string, ProfileConfig> = {};
  for (const [name, endpoint] of Object.entries(layer.profiles)) {
    const { value, keySource } = finaliseProfile(name, endpoint, env);
    profiles[name] = value;
    keySources[name] = keySource;
  }
  const fallback = layer.fallback?.names ?? [];
  if (layer.fallback) checkFallback(fallback, layer.fallback.file, profiles);

  const sections = finaliseSections(layer.sections, userFile, env);
  const mcp = finaliseMcpServers(layer.mcpServers, (file) => resolve(file) === resolve(userFile));
  const sandbox = finaliseSandbox(layer.sandbox, (file) => resolve(file) === resolve(userFile));
  const config: TeaConfig = {
    home,
    files,
    profiles,
    fallback,
    agent: {
      maxIterations: layer.agent.maxIterations ?? DEFAULTS.maxIterations,
      maxParallelTools: layer.agent.maxParallelTools ?? DEFAULTS.maxParallelTools,
      autoTitle: layer.agent.autoTitle ?? true,
    },
    memory: {
      extract: layer.memory.extract ?? true,
      tune: layer.memory.tune ?? true,
      judge: layer.memory.judge ?? true,
    },
    llm: {
      timeoutMs: layer.llm.timeoutMs ?? DEFAULTS.timeoutMs,
      maxRetries: layer.llm.maxRetries ?? DEFAULTS.maxRetries,
      retryBaseMs: layer.llm.retryBaseMs ?? DEFAULTS.retryBaseMs,
      breaker: {
        failureThreshold: layer.llm.failureThreshold ?? DEFAULTS.failureThreshold,
        recoveryMs: layer.llm.recoveryMs ?? DEFAULTS.recoveryMs,
      },
    },
    models: layer.models,
    keySources,
    ...sections,
    sandbox: sandbox.sandbox,
    mcpServers: mcp.mcpServers,
    warnings: [...sections.warnings, ...sandbox.warnings, ...mcp.warnings],
  };

  if (layer.cheapModel) {
    const { value, keySource } = finaliseProfile('cheap_model', layer.cheapModel, env);
    config.cheapModel = value;
    keySources.cheap_model = keySource;
  }
  if (layer.embedding) {
    const { value, keySource } = finaliseEmbedding(layer.embedding, env);
    config.embedding = value;
    keySources.embedding = keySource;
  }

  const main = await resolveMain(layer, env, opts);
  if (main) {
    config.mainModel = main.profile;
    config.mainModelOrigin = main.origin;
    keySources.main_model = main.keySource;
    if (!config.cheapModel) {
      config.cheapModel = { ...main.profile, name: 'cheap_model' };
      keySources.cheap_model = main.keySource;
    }
  }
  return config;
}
