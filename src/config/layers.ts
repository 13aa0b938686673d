/**
 * Config files as layers: each validated file is normalised (aliases resolved,
 * camelCase, seconds to milliseconds) and later layers are merged over earlier
 * ones key by key, objects deeply, lists replaced.
 */
import type { ProviderKind } from '../util/provider-kinds.js';
import { ConfigError, displayPath } from './errors.js';
import { emptyModes, mergeModes, toModes, type WorkModesConfig } from './modes.js';
import { toUserRules } from './rules.js';
import { type SandboxEntry, toSandboxEntry } from './sandbox.js';
import type { RawEndpoint, RawFile, RawMcpServer } from './schema.js';
import { emptySections, mergeSections, type SectionsLayer, toSections } from './sections.js';
import { emptyServerLayer, mergeServerLayers, type ServerLayer } from './server.js';
import type { McpServerSettings, McpServerSpec, ModelOverride, UserRuleConfig } from './types.js';

/** A model or embedding endpoint as one or more files describe it (possibly incomplete). */
export interface PartialEndpoint {
  provider?: ProviderKind;
  baseUrl?: string;
  apiKey?: string;
  apiKeyEnv?: string;
  model?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
  thinkingBudget?: number;
  contextThresholds?: { compressAt?: number; briefAt?: number; finalAt?: number };
  dimensions?: number;
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** The file that set `api_key` / `api_key_env`. */
  keyFile?: string;
  /** The last file that set any key of this endpoint. */
  file: string;
  /** The dotted key of this endpoint in its file, e.g. `profiles.deepseek`. */
  key: string;
}

export interface Layer {
  mainModel?: PartialEndpoint;
  cheapModel?: PartialEndpoint;
  embedding?: PartialEndpoint;
  profiles: Record<string, PartialEndpoint>;
  fallback?: { names: string[]; file: string };
  agent: {
    maxIterations?: number;
    maxParallelTools?: number;
    autoTitle?: boolean;
    sessionWaitMs?: number;
    turnTimeoutMs?: number;
  };
  memory: { extract?: boolean; tune?: boolean; judge?: boolean };
  evolve: { drafts?: boolean; lessons?: boolean };
  journal: { enabled?: boolean; maxFiles?: number; maxFileBytes?: number; timeoutMs?: number };
  mcpSampling: { maxTokens?: number; sessionTokens?: number };
  mcpElicitation: { unattended?: 'decline' | 'defaults' };
  subagents: {
    maxParallel?: number;
    maxTasksPerCall?: number;
    maxDepth?: 1 | 2;
    timeoutMs?: number;
    maxTokens?: number;
    maxCostUsd?: number;
  };
  llm: {
    timeoutMs?: number;
    callTimeoutMs?: number;
    streamMaxMs?: number;
    maxRetries?: number;
    retryBaseMs?: number;
    failureThreshold?: number;
    recoveryMs?: number;
  };
  models: Record<string, ModelOverride>;
  sections: SectionsLayer;
  server: ServerLayer;
  /** `sandbox` of every file, in file order. */
  sandbox: SandboxEntry[];
  /** `mcp_servers` entries of every file, in file order (later ones replace earlier ones). */
  mcpServers: McpServerEntry[];
  /** `modes` and `default_mode`, merged key by key. */
  modes: WorkModesConfig;
  /** `rules` of every file, in file order (added up: a project's rules come after the user's). */
  rules: UserRuleConfig[];
  rulesFastPath?: boolean;
}

export interface McpServerEntry {
  name: string;
  value: McpServerSpec;
  file: string;
}

export function emptyLayer(): Layer {
  return {
    profiles: {},
    agent: {},
    memory: {},
    evolve: {},
    journal: {},
    mcpSampling: {},
    mcpElicitation: {},
    subagents: {},
    llm: {},
    models: {},
    sections: emptySections(),
    server: emptyServerLayer(),
    sandbox: [],
    mcpServers: [],
    modes: emptyModes(),
    rules: [],
  };
}

/** Picks a key or its legacy alias; both set to different values is an error. */
function aliased<T>(
  file: string,
  key: string,
  modern: [string, T | undefined],
  legacy: [string, T | undefined],
): T | undefined {
  const [modernName, modernValue] = modern;
  const [legacyName, legacyValue] = legacy;
  if (modernValue !== undefined && legacyValue !== undefined && modernValue !== legacyValue) {
    const fix = `keep only ${modernName} (${legacyName} is its old name).`;
    throw new ConfigError(
      `${displayPath(file)}: ${key}: both ${modernName} and ${legacyName} are set, to different values. Fix: ${fix}`,
      { file, key: `${key}.${legacyName}`, fix },
    );
  }
  return modernValue ?? legacyValue;
}

const seconds = (s: number | undefined): number | undefined =>
  s === undefined ? undefined : Math.round(s * 1000);

/** Drops undefined fields so that spreading a layer never erases an earlier value. */
function defined<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

function normaliseEndpoint(raw: RawEndpoint, file: string, key: string): PartialEndpoint {
  if (raw.api_key !== undefined && raw.api_key_env !== undefined) {
    const fix = 'keep one: `api_key_env` (the name of an environment variable, preferred) or `api_key`.';
    throw new ConfigError(`${displayPath(file)}: ${key}: both api_key and api_key_env are set. Fix: ${fix}`, {
      file,
      key: `${key}.api_key`,
      fix,
    });
  }
  const legacyWindow = raw.max_context_tokens === 0 ? undefined : raw.max_context_tokens;
  const endpoint: PartialEndpoint = defined({
    provider: raw.provider,
    baseUrl: aliased(file, key, ['base_url', raw.base_url], ['api_url', raw.api_url]),
    apiKey: raw.api_key,
    apiKeyEnv: raw.api_key_env,
    model: aliased(file, key, ['model', raw.model], ['model_name', raw.model_name]),
    contextWindow: aliased(
      file,
      key,
      ['context_window', raw.context_window],
      ['max_context_tokens', legacyWindow],
    ),
    maxOutputTokens: raw.max_output,
    thinkingBudget: raw.thinking_budget,
    contextThresholds:
      'compress_at' in raw || 'brief_at' in raw || 'final_at' in raw
        ? defined({ compressAt: raw.compress_at, briefAt: raw.brief_at, finalAt: raw.final_at })
        : undefined,
    dimensions: raw.dimensions,
    timeoutMs: seconds(raw.timeout_s),
    headers: raw.headers,
    keyFile: raw.api_key !== undefined || raw.api_key_env !== undefined ? file : undefined,
    file,
    key,
  });
  return endpoint;
}

/** Top-level sections whose names a profile may not take. */
const RESERVED_NAMES = ['main_model', 'cheap_model', 'embedding'];

/** Normalises one validated file into a layer. */
export function toLayer(raw: RawFile, file: string): Layer {
  const layer = emptyLayer();
  if (raw.main_model) layer.mainModel = normaliseEndpoint(raw.main_model, file, 'main_model');
  if (raw.cheap_model) layer.cheapModel = normaliseEndpoint(raw.cheap_model, file, 'cheap_model');
  if (raw.embedding) layer.embedding = normaliseEndpoint(raw.embedding, file, 'embedding');
  for (const [name, profile] of Object.entries(raw.profiles ?? {})) {
    if (RESERVED_NAMES.includes(name)) {
      const fix = `rename the profile, or configure it as the top-level \`${name}:\`.`;
      throw new ConfigError(`${displayPath(file)}: profiles.${name}: this name is reserved. Fix: ${fix}`, {
        file,
        key: `profiles.${name}`,
        fix,
      });
    }
    layer.profiles[name] = normaliseEndpoint(profile, file, `profiles.${name}`);
  }
  if (raw.fallback) layer.fallback = { names: raw.fallback, file };
  layer.agent = defined({
    maxIterations: raw.agent?.max_iterations,
    maxParallelTools: raw.agent?.max_parallel_tools,
    autoTitle: raw.agent?.auto_title,
    sessionWaitMs: seconds(raw.agent?.session_wait_s),
    turnTimeoutMs: seconds(raw.agent?.turn_timeout_s),
  });
  layer.memory = defined({ extract: raw.memory?.extract, tune: raw.memory?.tune, judge: raw.memory?.judge });
  layer.evolve = defined({ drafts: raw.evolve?.drafts, lessons: raw.evolve?.lessons });
  layer.journal = defined({
    enabled: raw.journal?.enabled,
    maxFiles: raw.journal?.max_files,
    maxFileBytes: raw.journal?.max_file_bytes,
    timeoutMs: seconds(raw.journal?.timeout_s),
  });
  layer.mcpSampling = defined({
    maxTokens: raw.mcp_sampling?.max_tokens,
    sessionTokens: raw.mcp_sampling?.session_tokens,
  });
  layer.mcpElicitation = defined({ unattended: raw.mcp_elicitation?.unattended });
  layer.subagents = defined({
    maxParallel: raw.subagents?.max_parallel,
    maxTasksPerCall: raw.subagents?.max_tasks_per_call,
    maxDepth: raw.subagents?.max_depth,
    timeoutMs: seconds(raw.subagents?.timeout_s),
    maxTokens: raw.subagents?.max_tokens,
    maxCostUsd: raw.subagents?.max_cost_usd,
  });
  layer.llm = defined({
    timeoutMs: seconds(raw.llm?.timeout_s),
    callTimeoutMs: seconds(raw.llm?.call_timeout_s),
    streamMaxMs: seconds(raw.llm?.stream_max_s),
    maxRetries: raw.llm?.max_retries,
    retryBaseMs: raw.llm?.retry_base_ms,
    failureThreshold: raw.llm?.breaker?.failure_threshold,
    recoveryMs: seconds(raw.llm?.breaker?.recovery_s),
  });
  for (const [id, model] of Object.entries(raw.models ?? {})) {
    layer.models[id] = defined({
      contextWindow: model.context_window,
      maxOutputTokens: model.max_output,
      inputPrice: model.input_price,
      outputPrice: model.output_price,
      cachedInputPrice: model.cached_input_price,
      images: model.images,
    });
  }
  layer.sections = toSections(raw.permissions, raw.tools, file);
  if (raw.server?.allowed_hosts) layer.server.allowedHosts.push({ value: raw.server.allowed_hosts, file });
  layer.sandbox = toSandboxEntry(raw.sandbox, file);
  for (const [name, server] of Object.entries(raw.mcp_servers ?? {})) {
    layer.mcpServers.push({ name, value: normaliseMcpServer(server), file });
  }
  layer.modes = toModes(raw.modes, raw.default_mode, file);
  layer.rules = toUserRules(raw.rules, file);
  if (raw.rules_fast_path !== undefined) layer.rulesFastPath = raw.rules_fast_path;
  return layer;
}

function normaliseMcpServer(raw: RawMcpServer): McpServerSpec {
  const common = defined({
    timeoutMs: seconds(raw.timeout_s),
    disabled: raw.disabled,
    roots: raw.roots,
  });
  if (raw.url !== undefined) {
    const o = raw.oauth;
    const oauth =
      o === undefined || o === false
        ? o
        : defined({
            clientId: o.client_id,
            clientSecret: o.client_secret,
            clientMetadataUrl: o.client_metadata_url,
            scope: o.scope,
            callbackPort: o.callback_port,
            grant: o.grant,
            privateKeyFile: o.private_key_file,
            signingAlgorithm: o.signing_algorithm,
          });
    return defined({ url: raw.url, headers: raw.headers, transport: raw.transport, oauth, ...common });
  }
  const sandbox =
    raw.sandbox === undefined || raw.sandbox === false
      ? undefined
      : { network: raw.sandbox === true ? false : raw.sandbox.network === true };
  return defined({
    command: raw.command ?? '',
    args: raw.args,
    env: raw.env,
    cwd: raw.cwd,
    sandbox,
    ...common,
  });
}

/**
 * The effective MCP servers: a later file's entry replaces an earlier one of the same
 * name, but only a trusted file (the user's own, or a project file the user trusts)
 * may start commands. screen.ts already leaves out every server of an untrusted
 * project file; this check stands behind it.
 */
export function finaliseMcpServers(
  entries: readonly McpServerEntry[],
  trusted: (file: string) => boolean,
): { mcpServers: Record<string, McpServerSettings>; warnings: string[] } {
  const mcpServers: Record<string, McpServerSettings> = {};
  const warnings: string[] = [];
  for (const entry of entries) {
    const isTrusted = trusted(entry.file);
    if ('command' in entry.value && !isTrusted) {
      warnings.push(
        `${displayPath(entry.file)}: mcp_servers.${entry.name} ignored: a project file may not start commands (add stdio servers to your own config)`,
      );
      continue;
    }
    mcpServers[entry.name] = { ...entry.value, trusted: isTrusted };
  }
  return { mcpServers, warnings };
}

/** `over` wins key by key; a layer that sets either key field replaces both. */
function mergeEndpoint(base: PartialEndpoint | undefined, over: PartialEndpoint | undefined) {
  if (!base || !over) return over ?? base;
  const merged: PartialEndpoint = { ...base, ...over };
  if (over.keyFile !== undefined) {
    merged.apiKey = over.apiKey;
    merged.apiKeyEnv = over.apiKeyEnv;
  }
  if (base.headers && over.headers) merged.headers = { ...base.headers, ...over.headers };
  return defined(merged);
}

/** Merges `over` onto `base` (neither is modified). */
export function mergeLayers(base: Layer, over: Layer): Layer {
  const profiles: Record<string, PartialEndpoint> = { ...base.profiles };
  for (const [name, profile] of Object.entries(over.profiles)) {
    profiles[name] = mergeEndpoint(profiles[name], profile) ?? profile;
  }
  const models: Record<string, ModelOverride> = { ...base.models };
  for (const [id, model] of Object.entries(over.models)) models[id] = { ...models[id], ...model };
  return defined({
    mainModel: mergeEndpoint(base.mainModel, over.mainModel),
    cheapModel: mergeEndpoint(base.cheapModel, over.cheapModel),
    embedding: mergeEndpoint(base.embedding, over.embedding),
    profiles,
    fallback: over.fallback ?? base.fallback,
    agent: { ...base.agent, ...over.agent },
    memory: { ...base.memory, ...over.memory },
    evolve: { ...base.evolve, ...over.evolve },
    journal: { ...base.journal, ...over.journal },
    mcpSampling: { ...base.mcpSampling, ...over.mcpSampling },
    mcpElicitation: { ...base.mcpElicitation, ...over.mcpElicitation },
    subagents: { ...base.subagents, ...over.subagents },
    llm: { ...base.llm, ...over.llm },
    models,
    sections: mergeSections(base.sections, over.sections),
    server: mergeServerLayers(base.server, over.server),
    sandbox: [...base.sandbox, ...over.sandbox],
    mcpServers: [...base.mcpServers, ...over.mcpServers],
    modes: mergeModes(base.modes, over.modes),
    rules: [...base.rules, ...over.rules],
    rulesFastPath: over.rulesFastPath ?? base.rulesFastPath,
  });
}
