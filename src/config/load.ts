/** loadConfig: files, env and local detection merged into one validated TeaConfig. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { envMainModel, envValue } from './env.js';
import { displayPath } from './errors.js';
import { CONFIG_FILE, findProjectConfig, teaHome } from './files.js';
import {
  checkFallback,
  fillMainFromEnv,
  finaliseEmbedding,
  finaliseProfile,
  tuneProfile,
} from './finalize.js';
import {
  emptyLayer,
  finaliseMcpServers,
  type Layer,
  mergeLayers,
  type PartialEndpoint,
  toLayer,
} from './layers.js';
import { DEFAULT_OLLAMA_TIMEOUT_MS, detectOllama } from './ollama.js';
import { finaliseSandbox } from './sandbox.js';
import { screenProject } from './screen.js';
import { finaliseSections } from './sections.js';
import { finaliseServer } from './server.js';
import { trustStateOf } from './trust-store.js';
import type { KeySource, MainModelOrigin, ProfileConfig, ProjectTrust, TeaConfig } from './types.js';

/** The operation journal's limits when the config sets none (the agent's own defaults, agent/journal/shadow.ts). */
const JOURNAL_DEFAULTS = { maxFiles: 50_000, maxFileBytes: 20 * 1024 * 1024, timeoutMs: 30_000 };

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
  /**
   * Apply the project file in full as if the user trusted it, whatever was decided
   * (`project.state` still tells the truth): the dry run of `tea trust`.
   */
  asIfTrusted?: boolean;
}

export const DEFAULTS = {
  maxIterations: 25,
  maxParallelTools: 4,
  sessionWaitMs: 60_000,
  turnTimeoutMs: 3_600_000,
  /** A model that sends nothing for this long is reported and retried. */
  timeoutMs: 60_000,
  /** A model that has not answered within this (retries included) is given up on. */
  callTimeoutMs: 180_000,
  streamMaxMs: 600_000,
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

/**
 * The main model: files, then env, then a detected Ollama; `tuning` (from an
 * untrusted project file, where no trusted file defines a main model) then sets
 * the model name and limits on that same endpoint, below TEA_MODEL.
 */
async function resolveMain(
  layer: Layer,
  env: NodeJS.ProcessEnv,
  opts: LoadConfigOptions,
  tuning: PartialEndpoint | undefined,
): Promise<{ profile: ProfileConfig; keySource: KeySource; origin: MainModelOrigin } | undefined> {
  const teaModel = envValue(env, 'TEA_MODEL');
  const tune = (profile: ProfileConfig): ProfileConfig =>
    tuning ? tuneProfile(profile, tuning, { keepModel: teaModel !== undefined }) : profile;
  const found = mainFromFilesAndEnv(layer, env);
  if (found) {
    const endpoint = teaModel ? { ...found.endpoint, model: teaModel } : found.endpoint;
    const { value, keySource } = finaliseProfile('main_model', endpoint, env);
    return { profile: tune(value), keySource, origin: found.origin };
  }
  if (opts.detectOllama === false) return undefined;
  const ollama = await detectOllama(env, opts.ollamaTimeoutMs ?? DEFAULT_OLLAMA_TIMEOUT_MS);
  const model = teaModel ?? tuning?.model ?? ollama?.models[0];
  if (!ollama || !model) return undefined;
  const profile: ProfileConfig = { name: 'main_model', provider: 'openai', baseUrl: ollama.baseUrl, model };
  return { profile: tune(profile), keySource: { kind: 'none' }, origin: 'ollama' };
}

/** The config files read, merged, and which of them are trusted. */
interface FileLayers {
  layer: Layer;
  files: string[];
  /** Resolved paths of the trusted files: the user's own, and a project file the user trusts. */
  trusted: Set<string>;
  project?: ProjectTrust;
  /**
   * What an untrusted project set on `main_model` / `cheap_model` where no trusted
   * file defines one: a model name and limits for the endpoint the user has.
   */
  tuning: { main?: PartialEndpoint; cheap?: PartialEndpoint };
}

/**
 * Reads the user file, then the nearest project file. The project file applies
 * in full only when the user trusts this exact content (`tea trust`); otherwise
 * its restricted settings are left out (see screen.ts).
 */
async function readFiles(
  home: string,
  userFile: string,
  cwd: string,
  asIfTrusted: boolean,
): Promise<FileLayers> {
  const out: FileLayers = { layer: emptyLayer(), files: [], trusted: new Set(), tuning: {} };
  const projectFile = findProjectConfig(cwd, userFile);
  const hasUser = existsSync(userFile);
  if (!hasUser && projectFile === undefined) return out;
  // The YAML parser and schema load only when there is a file to read that this
  // build has not validated before (read-cache.ts).
  const { readConfigCached } = await import('./read-cache.js');
  if (hasUser) {
    const source = await readConfigCached(home, userFile);
    if (source) {
      out.files.push(userFile);
      out.trusted.add(resolve(userFile));
      out.layer = toLayer(source.raw, userFile);
    }
  }
  const source = projectFile === undefined ? undefined : await readConfigCached(home, projectFile);
  if (projectFile === undefined || source === undefined) return out;
  out.files.push(projectFile);
  // The whole file is checked, trusted or not, so trusting it later holds no surprise.
  const full = toLayer(source.raw, projectFile);
  const { kept, restricted } = screenProject(source.raw, out.layer);
  const state = trustStateOf(home, projectFile, source.sha256);
  const dir = dirname(dirname(projectFile));
  out.project = { file: projectFile, dir, sha256: source.sha256, state, restricted };
  if (state === 'trusted' || asIfTrusted) {
    out.trusted.add(resolve(projectFile));
    out.layer = mergeLayers(out.layer, full);
    return out;
  }
  const screened = toLayer(kept, projectFile);
  if (!out.layer.mainModel && screened.mainModel) {
    out.tuning.main = screened.mainModel;
    delete screened.mainModel;
  }
  if (!out.layer.cheapModel && screened.cheapModel) {
    out.tuning.cheap = screened.cheapModel;
    delete screened.cheapModel;
  }
  out.layer = mergeLayers(out.layer, screened);
  return out;
}

/** The one warning about an untrusted project file's ignored settings, if any were. */
export function trustWarning(project: ProjectTrust | undefined): string | undefined {
  if (!project || project.state === 'trusted' || project.restricted.length === 0) return undefined;
  const why =
    project.state === 'changed'
      ? 'has changed since you trusted it'
      : project.state === 'denied'
        ? 'is not trusted (you declined)'
        : 'is not trusted';
  const keys = project.restricted.map((s) => s.key).join(', ');
  return (
    `${displayPath(project.file)} ${why}, so these settings in it were ignored: ${keys}. ` +
    `A project's config may not choose model endpoints or keys, MCP servers, env_allow, fast-path rules or looser permissions until you trust it: ` +
    `review the file, then run \`tea trust\` in ${displayPath(project.dir)} (trust lapses when the file changes).`
  );
}

/**
 * Loads the effective config: `$TEA_HOME/config.yaml`, then the nearest project
 * `.tea/config.yaml` (its restricted settings only once the user trusts it), then
 * env vars and, only when still needed, a local Ollama (precedence in env.ts).
 * Missing files are fine; a bad file throws ConfigError.
 * With no model anywhere, `mainModel` is undefined (see `describeMissingModel`).
 */
export async function loadConfig(opts: LoadConfigOptions = {}): Promise<TeaConfig> {
  const env = opts.env ?? process.env;
  const home = opts.home ?? teaHome(env);
  const userFile = join(home, CONFIG_FILE);
  const read = await readFiles(home, userFile, opts.cwd ?? process.cwd(), opts.asIfTrusted === true);
  const { layer, files, tuning } = read;

  const keySources: Record<string, KeySource> = {};
  const profiles: Record<string, ProfileConfig> = {};
  for (const [name, endpoint] of Object.entries(layer.profiles)) {
    const { value, keySource } = finaliseProfile(name, endpoint, env);
    profiles[name] = value;
    keySources[name] = keySource;
  }
  const fallback = layer.fallback?.names ?? [];
  if (layer.fallback) checkFallback(fallback, layer.fallback.file, profiles);

  const trusted = (file: string): boolean => read.trusted.has(resolve(file));
  const sections = finaliseSections(layer.sections, trusted, env);
  const mcp = finaliseMcpServers(layer.mcpServers, trusted);
  // Allowed host names open the server to a name: only the user's own file may add them.
  const server = finaliseServer(layer.server, userFile);
  // A project file may only make the sandbox stricter, unless the user trusts it.
  const sandbox = finaliseSandbox(layer.sandbox, trusted);
  const projectWarning = opts.asIfTrusted ? undefined : trustWarning(read.project);
  const config: TeaConfig = {
    home,
    files,
    profiles,
    fallback,
    agent: {
      maxIterations: layer.agent.maxIterations ?? DEFAULTS.maxIterations,
      maxParallelTools: layer.agent.maxParallelTools ?? DEFAULTS.maxParallelTools,
      autoTitle: layer.agent.autoTitle ?? true,
      sessionWaitMs: layer.agent.sessionWaitMs ?? DEFAULTS.sessionWaitMs,
      turnTimeoutMs: layer.agent.turnTimeoutMs ?? DEFAULTS.turnTimeoutMs,
    },
    subagents: {
      maxParallel: layer.subagents.maxParallel ?? 4,
      maxTasksPerCall: layer.subagents.maxTasksPerCall ?? 6,
      maxDepth: layer.subagents.maxDepth ?? 1,
      timeoutMs: layer.subagents.timeoutMs ?? 300_000,
      ...(layer.subagents.maxTokens === undefined ? {} : { maxTokens: layer.subagents.maxTokens }),
      ...(layer.subagents.maxCostUsd === undefined ? {} : { maxCostUsd: layer.subagents.maxCostUsd }),
    },
    memory: {
      extract: layer.memory.extract ?? true,
      tune: layer.memory.tune ?? true,
      judge: layer.memory.judge ?? true,
    },
    evolve: { drafts: layer.evolve.drafts ?? true, lessons: layer.evolve.lessons ?? true },
    mcpSampling: {
      maxTokens: layer.mcpSampling.maxTokens ?? 1_000,
      sessionTokens: layer.mcpSampling.sessionTokens ?? 10_000,
    },
    mcpElicitation: { unattended: layer.mcpElicitation.unattended ?? 'decline' },
    journal: {
      enabled: layer.journal.enabled ?? true,
      maxFiles: layer.journal.maxFiles ?? JOURNAL_DEFAULTS.maxFiles,
      maxFileBytes: layer.journal.maxFileBytes ?? JOURNAL_DEFAULTS.maxFileBytes,
      timeoutMs: layer.journal.timeoutMs ?? JOURNAL_DEFAULTS.timeoutMs,
    },
    llm: {
      timeoutMs: layer.llm.timeoutMs ?? DEFAULTS.timeoutMs,
      callTimeoutMs: layer.llm.callTimeoutMs ?? DEFAULTS.callTimeoutMs,
      streamMaxMs: layer.llm.streamMaxMs ?? DEFAULTS.streamMaxMs,
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
    server: server.server,
    workModes: layer.modes,
    rules: { fastPath: layer.rulesFastPath ?? true, user: layer.rules },
    ...(read.project ? { project: read.project } : {}),
    warnings: [
      ...(projectWarning ? [projectWarning] : []),
      ...sections.warnings,
      ...sandbox.warnings,
      ...mcp.warnings,
      ...server.warnings,
    ],
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

  const main = await resolveMain(layer, env, opts, tuning.main);
  if (main) {
    config.mainModel = main.profile;
    config.mainModelOrigin = main.origin;
    keySources.main_model = main.keySource;
    if (!config.cheapModel) {
      const cheap: ProfileConfig = { ...main.profile, name: 'cheap_model' };
      config.cheapModel = tuning.cheap ? tuneProfile(cheap, tuning.cheap) : cheap;
      keySources.cheap_model = main.keySource;
    }
  }
  return config;
}
