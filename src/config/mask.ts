/** The effective config as YAML, with every secret masked and key origins noted. */
import { Document, isScalar } from 'yaml';
import { displayPath } from './errors.js';
import type { SandboxReport } from './sandbox.js';
import type {
  EmbeddingConfig,
  KeySource,
  McpServerSettings,
  ModelOverride,
  ProfileConfig,
  TeaConfig,
} from './types.js';

const KNOWN_PREFIX = /^(sk-ant-|sk-proj-|sk-or-v1-|sk-|gsk_|xai-|hf_|sk_)/;
const SECRET_NAME = /auth|key|token|secret|cookie|password|signature/i;

/**
 * Masks a secret, keeping a known vendor prefix and at most the last 4
 * characters, and only when the secret is long enough that those reveal little:
 * `sk-…abcd`. Short secrets become `****`.
 */
export function maskSecret(secret: string): string {
  const prefix = KNOWN_PREFIX.exec(secret)?.[0] ?? '';
  if (secret.length - prefix.length < 16) return '****';
  return `${prefix}…${secret.slice(-4)}`;
}

/** Masks a password in the URL's user info and secret-looking query values. */
export function maskUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let changed = false;
  if (url.password) {
    url.password = '****';
    changed = true;
  }
  for (const [name, inner] of url.searchParams) {
    if (SECRET_NAME.test(name) && inner) {
      url.searchParams.set(name, '****');
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = SECRET_NAME.test(name) ? '****' : value;
  return out;
}

function keyOrigin(source: KeySource | undefined): string | undefined {
  if (!source || source.kind === 'none') return undefined;
  if (source.kind === 'file') return `written in ${displayPath(source.file)}`;
  const named = source.file ? ` (named in ${displayPath(source.file)})` : '';
  return source.set
    ? `from $${source.variable}${named}`
    : `set $${source.variable} to use this profile${named}`;
}

type Plain = Record<string, unknown>;

function endpointToPlain(endpoint: ProfileConfig | EmbeddingConfig, source: KeySource | undefined): Plain {
  const out: Plain = {
    provider: endpoint.provider,
    base_url: maskUrl(endpoint.baseUrl),
    model: endpoint.model,
  };
  if ('contextWindow' in endpoint && endpoint.contextWindow !== undefined)
    out.context_window = endpoint.contextWindow;
  if ('maxOutputTokens' in endpoint && endpoint.maxOutputTokens !== undefined) {
    out.max_output = endpoint.maxOutputTokens;
  }
  if ('contextThresholds' in endpoint && endpoint.contextThresholds) {
    const t = endpoint.contextThresholds;
    if (t.compressAt !== undefined) out.compress_at = t.compressAt;
    if (t.briefAt !== undefined) out.brief_at = t.briefAt;
    if (t.finalAt !== undefined) out.final_at = t.finalAt;
  }
  if ('thinkingBudget' in endpoint && endpoint.thinkingBudget !== undefined) {
    out.thinking_budget = endpoint.thinkingBudget;
  }
  if ('dimensions' in endpoint && endpoint.dimensions !== undefined) out.dimensions = endpoint.dimensions;
  if (endpoint.timeoutMs !== undefined) out.timeout_s = endpoint.timeoutMs / 1000;
  if (endpoint.headers) out.headers = maskHeaders(endpoint.headers);
  if (endpoint.apiKey !== undefined) out.api_key = maskSecret(endpoint.apiKey);
  else if (source?.kind === 'env') out.api_key = `<unset: $${source.variable}>`;
  return out;
}

/** An MCP server's environment: values under secret-looking names masked. */
function maskEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    out[name] = SECRET_NAME.test(name) ? maskSecret(value) : value;
  return out;
}

/** Command-line arguments: the value of a secret-looking flag (`--api-key X`, `--token=X`) and key-shaped words masked. */
function maskArgs(args: readonly string[]): string[] {
  const flag = (a: string) => a.startsWith('-') && SECRET_NAME.test(a);
  return args.map((arg, i) => {
    const eq = arg.indexOf('=');
    if (eq > 0 && flag(arg.slice(0, eq))) return `${arg.slice(0, eq + 1)}${maskSecret(arg.slice(eq + 1))}`;
    const before = args[i - 1];
    if ((before !== undefined && flag(before) && !before.includes('=')) || KNOWN_PREFIX.test(arg))
      return maskSecret(arg);
    return arg;
  });
}

function mcpToPlain(server: McpServerSettings): Plain {
  const out: Plain = {};
  if ('command' in server) {
    out.command = server.command;
    if (server.args?.length) out.args = maskArgs(server.args);
    if (server.env) out.env = maskEnv(server.env);
    if (server.cwd) out.cwd = server.cwd;
    if (server.sandbox) out.sandbox = server.sandbox.network ? { network: true } : true;
  } else {
    out.url = maskUrl(server.url);
    if (server.headers) out.headers = maskHeaders(server.headers);
    if (server.transport) out.transport = server.transport;
    if (server.oauth === false) out.oauth = false;
    else if (server.oauth) {
      const o = server.oauth;
      const plain: Plain = {};
      if (o.clientId) plain.client_id = o.clientId;
      if (o.clientSecret) plain.client_secret = maskSecret(o.clientSecret);
      if (o.clientMetadataUrl) plain.client_metadata_url = o.clientMetadataUrl;
      if (o.scope) plain.scope = o.scope;
      if (o.callbackPort) plain.callback_port = o.callbackPort;
      if (o.grant) plain.grant = o.grant;
      if (o.privateKeyFile) plain.private_key_file = o.privateKeyFile;
      if (o.signingAlgorithm) plain.signing_algorithm = o.signingAlgorithm;
      out.oauth = plain;
    }
  }
  if (server.timeoutMs !== undefined) out.timeout_s = server.timeoutMs / 1000;
  if (server.disabled) out.disabled = true;
  if (server.roots !== undefined) out.roots = server.roots;
  // A project's server that is not trusted yet is not started.
  if (!server.trusted) out.trusted = false;
  return out;
}

function overrideToPlain(model: ModelOverride): Plain {
  const out: Plain = {};
  if (model.contextWindow !== undefined) out.context_window = model.contextWindow;
  if (model.maxOutputTokens !== undefined) out.max_output = model.maxOutputTokens;
  if (model.inputPrice !== undefined) out.input_price = model.inputPrice;
  if (model.outputPrice !== undefined) out.output_price = model.outputPrice;
  if (model.cachedInputPrice !== undefined) out.cached_input_price = model.cachedInputPrice;
  if (model.images !== undefined) out.images = model.images;
  return out;
}

function sameEndpoint(a: ProfileConfig, b: ProfileConfig): boolean {
  return JSON.stringify({ ...a, name: '' }) === JSON.stringify({ ...b, name: '' });
}

/** Attaches a trailing comment to the scalar at `path`, when there is one. */
function comment(doc: Document, path: string[], text: string | undefined): void {
  if (!text) return;
  const node = doc.getIn(path, true);
  if (isScalar(node)) node.comment = ` ${text}`;
}

/** What the caller probed to show beside the config. */
export interface MaskOptions {
  /** The sandbox's state here: adds `sandbox.status` and `sandbox.sandboxed`. */
  sandbox?: SandboxReport;
}

/**
 * The effective config as plain values (snake_case, like the files) with every
 * secret masked: what `tea config --json` prints and `maskedConfig` writes as YAML.
 */
export function maskedValues(config: TeaConfig, opts: MaskOptions = {}): Record<string, unknown> {
  const sources = config.keySources ?? {};
  const endpoints: [string, ProfileConfig | EmbeddingConfig | undefined][] = [
    ['main_model', config.mainModel],
    ['cheap_model', config.cheapModel],
    ['embedding', config.embedding],
  ];
  const plain: Plain = { home: config.home, files: config.files };
  if (config.project) {
    const { file, state, restricted } = config.project;
    // What `tea trust` would change (or changed): the restricted keys, never their values.
    plain.project_config = { file, trust: state, restricted: restricted.map((s) => s.key) };
  }
  for (const [name, endpoint] of endpoints) {
    if (endpoint) plain[name] = endpointToPlain(endpoint, sources[name]);
  }
  if (!config.embedding) plain.embedding = 'built-in offline embedder';
  const profiles: Plain = {};
  for (const [name, profile] of Object.entries(config.profiles)) {
    profiles[name] = endpointToPlain(profile, sources[name]);
  }
  plain.profiles = profiles;
  plain.fallback = config.fallback;
  plain.subagents = {
    max_parallel: config.subagents.maxParallel,
    max_tasks_per_call: config.subagents.maxTasksPerCall,
    max_depth: config.subagents.maxDepth,
    timeout_s: config.subagents.timeoutMs / 1000,
    ...(config.subagents.maxTokens === undefined ? {} : { max_tokens: config.subagents.maxTokens }),
    ...(config.subagents.maxCostUsd === undefined ? {} : { max_cost_usd: config.subagents.maxCostUsd }),
  };
  plain.agent = {
    max_iterations: config.agent.maxIterations,
    max_parallel_tools: config.agent.maxParallelTools,
    auto_title: config.agent.autoTitle,
    session_wait_s: config.agent.sessionWaitMs / 1000,
    turn_timeout_s: config.agent.turnTimeoutMs / 1000,
  };
  plain.memory = { ...config.memory };
  plain.evolve = { ...config.evolve };
  plain.mcp_sampling = {
    max_tokens: config.mcpSampling.maxTokens,
    session_tokens: config.mcpSampling.sessionTokens,
  };
  plain.mcp_elicitation = { unattended: config.mcpElicitation.unattended };
  plain.journal = {
    enabled: config.journal.enabled,
    max_files: config.journal.maxFiles,
    max_file_bytes: config.journal.maxFileBytes,
    timeout_s: config.journal.timeoutMs / 1000,
  };
  plain.llm = {
    timeout_s: config.llm.timeoutMs / 1000,
    call_timeout_s: config.llm.callTimeoutMs / 1000,
    stream_max_s: config.llm.streamMaxMs / 1000,
    max_retries: config.llm.maxRetries,
    retry_base_ms: config.llm.retryBaseMs,
    breaker: {
      failure_threshold: config.llm.breaker.failureThreshold,
      recovery_s: config.llm.breaker.recoveryMs / 1000,
    },
  };
  plain.models = Object.fromEntries(Object.entries(config.models).map(([id, m]) => [id, overrideToPlain(m)]));
  plain.permissions = {
    mode: config.permissions.mode,
    rules: config.permissions.rules.map((r) => ({ ...r })),
    roots: config.permissions.roots,
  };
  const ws = config.tools.webSearch;
  plain.tools = {
    loading: config.tools.loading,
    max_output_chars: config.tools.maxOutputChars,
    env_allow: config.tools.envAllow,
    web_search: ws
      ? {
          provider: ws.provider,
          ...(ws.url ? { url: ws.url } : {}),
          ...(ws.apiKey ? { api_key: maskSecret(ws.apiKey) } : {}),
        }
      : 'off',
  };
  plain.sandbox = {
    mode: config.sandbox.mode,
    network: config.sandbox.network,
    ...(opts.sandbox ? { status: opts.sandbox.summary, sandboxed: opts.sandbox.sandboxed } : {}),
  };
  plain.mcp_servers = Object.fromEntries(
    Object.entries(config.mcpServers).map(([name, server]) => [name, mcpToPlain(server)]),
  );
  plain.server = { allowed_hosts: config.server.allowedHosts };
  // The user's own modes and overrides (the built-in six are listed by `GET /v1/modes`).
  const modes = config.workModes?.modes ?? {};
  plain.modes = Object.fromEntries(
    Object.entries(modes).map(([name, m]) => [
      name,
      {
        ...(m.description !== undefined ? { description: m.description } : {}),
        ...(m.prompt !== undefined ? { prompt: m.prompt } : {}),
        ...(m.tools ? { tools: m.tools } : {}),
        ...(m.permissionMode ? { permission_mode: m.permissionMode } : {}),
      },
    ]),
  );
  plain.default_mode = config.workModes?.default?.name ?? 'develop';
  plain.rules_fast_path = config.rules.fastPath;
  // A rule's arguments are the user's own text; values under secret-looking names are masked.
  plain.rules = config.rules.user.map((r) => ({
    pattern: r.pattern,
    tool: r.tool,
    args: Object.fromEntries(
      Object.entries(r.args).map(([k, v]) => [k, SECRET_NAME.test(k) && v !== undefined ? '****' : v]),
    ),
    ...(r.description === undefined ? {} : { description: r.description }),
    from: r.source,
  }));
  if (config.warnings.length > 0) plain.warnings = config.warnings;
  return plain;
}

/**
 * YAML of the effective config (snake_case, like the files) with every secret
 * masked, and a comment on each `api_key` saying where it came from.
 */
export function maskedConfig(config: TeaConfig, opts: MaskOptions = {}): string {
  const sources = config.keySources ?? {};
  const doc = new Document(maskedValues(config, opts));
  doc.commentBefore = ' Effective Tea config (secrets masked). Later files override earlier ones.';
  const named: [string, string[]][] = [
    ['main_model', ['main_model']],
    ['cheap_model', ['cheap_model']],
    ['embedding', ['embedding']],
    ...Object.keys(config.profiles).map((name): [string, string[]] => [name, ['profiles', name]]),
  ];
  for (const [name, path] of named) comment(doc, [...path, 'api_key'], keyOrigin(sources[name]));
  if (config.mainModel) {
    const origin = config.mainModelOrigin === 'ollama' ? 'detected local Ollama' : undefined;
    comment(doc, ['main_model', 'model'], origin);
  }
  if (config.mainModel && config.cheapModel && sameEndpoint(config.mainModel, config.cheapModel)) {
    comment(doc, ['cheap_model', 'model'], 'same as main_model');
  }
  return doc.toString();
}
