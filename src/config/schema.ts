/**
 * The on-disk shape of a config file (snake_case), validated with zod.
 * Every key is optional here: a file may hold only part of the config and is
 * merged with the others; completeness is checked after merging.
 */
import * as z from 'zod/mini';
import { isProviderKind, type ProviderKind } from '../util/provider-kinds.js';
import { parseHostEntry } from './server.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const envName = z.string().check(z.regex(ENV_NAME));
const httpUrl = z.string().check(z.refine(isHttpUrl));
const nonEmpty = z.string().check(z.trim(), z.minLength(1));
const positiveInt = z.int().check(z.positive());
const wholeNumber = z.int().check(z.nonnegative());
const positiveNumber = z.number().check(z.positive());
const seconds = z.number().check(z.nonnegative());
const price = z.number().check(z.nonnegative());
const share = z.number().check(z.gt(0), z.lte(1));
const headers = z.record(z.string(), z.string());

/** Keys shared by model profiles and the embedding section. */
const endpointKeys = {
  base_url: z.optional(httpUrl),
  /** Legacy alias of `base_url` (Python seed). */
  api_url: z.optional(httpUrl),
  api_key: z.optional(nonEmpty),
  api_key_env: z.optional(envName),
  model: z.optional(nonEmpty),
  /** Legacy alias of `model`. */
  model_name: z.optional(nonEmpty),
  timeout_s: z.optional(positiveNumber),
  headers: z.optional(headers),
};

export const profileSchema = z.strictObject({
  /** A name from util/provider-kinds.ts (checked when read, so a registered one counts). */
  provider: z.optional(z.custom<ProviderKind>(isProviderKind)),
  ...endpointKeys,
  context_window: z.optional(positiveInt),
  /** Legacy alias of `context_window`; 0 means unset. */
  max_context_tokens: z.optional(wholeNumber),
  max_output: z.optional(positiveInt),
  /** Anthropic only: extended-thinking token budget. */
  thinking_budget: z.optional(positiveInt),
  /** Context engine: trim / ask for brevity / stop offering tools at these shares of the window. */
  compress_at: z.optional(share),
  brief_at: z.optional(share),
  final_at: z.optional(share),
});

export const embeddingSchema = z.strictObject({
  provider: z.optional(z.enum(['openai'])),
  ...endpointKeys,
  dimensions: z.optional(positiveInt),
});

const modelOverrideSchema = z.strictObject({
  context_window: z.optional(positiveInt),
  max_output: z.optional(positiveInt),
  input_price: z.optional(price),
  output_price: z.optional(price),
  cached_input_price: z.optional(price),
  /** The model takes images (tool results with images are sent to it). */
  images: z.optional(z.boolean()),
});

const agentSchema = z.strictObject({
  max_iterations: z.optional(positiveInt),
  max_parallel_tools: z.optional(positiveInt),
  auto_title: z.optional(z.boolean()),
  /** How long a run waits for a session another tea process is using (0: refuse at once). */
  session_wait_s: z.optional(seconds),
  /** The overall deadline of one turn. */
  turn_timeout_s: z.optional(positiveNumber),
});

const subagentsSchema = z.strictObject({
  /** Sub-agents of one session running at once. */
  max_parallel: z.optional(positiveInt),
  /** Sub-tasks one `delegate_tasks` call may hold. */
  max_tasks_per_call: z.optional(positiveInt),
  /** How deep delegation goes: 1, children only; 2, children may delegate once more. */
  max_depth: z.optional(z.union([z.literal(1), z.literal(2)])),
  /** One sub-agent's time limit. */
  timeout_s: z.optional(positiveNumber),
  /** One sub-agent's default budgets (a call may set lower or higher ones). */
  max_tokens: z.optional(positiveInt),
  max_cost_usd: z.optional(positiveNumber),
});

const memorySchema = z.strictObject({
  extract: z.optional(z.boolean()),
  tune: z.optional(z.boolean()),
  judge: z.optional(z.boolean()),
});

/** Self-evolution after each prompt (src/evolve/experience/). */
const evolveSchema = z.strictObject({
  /** Draft skills into the inbox after a succeeded multi-step task. */
  drafts: z.optional(z.boolean()),
  /** Write a lesson memory after a failed task. */
  lessons: z.optional(z.boolean()),
});

/** What MCP servers' sampling requests may use of the session's model. */
const mcpSamplingSchema = z.strictObject({
  /** The most tokens one answer may hold (a server asking for more gets this many). */
  max_tokens: z.optional(positiveInt),
  /** The most tokens (prompt and answer) sampling may use in one session; 0 turns sampling off. */
  session_tokens: z.optional(z.int().check(z.nonnegative())),
});

/** How MCP servers' elicitation requests are answered where nobody can answer them. */
const mcpElicitationSchema = z.strictObject({
  /** decline (default), or defaults: accept a form whose every required field has a default, with the defaults. */
  unattended: z.optional(z.enum(['decline', 'defaults'])),
});

/** The operation journal (undo/redo of what turns change in the workspace). */
const journalSchema = z.strictObject({
  enabled: z.optional(z.boolean()),
  /** A workspace with more files (not ignored) is not journaled for the round. */
  max_files: z.optional(positiveInt),
  /** A new or changed file larger than this turns the round's journal off. */
  max_file_bytes: z.optional(positiveInt),
  /** One snapshot's time limit. */
  timeout_s: z.optional(positiveNumber),
});

const breakerSchema = z.strictObject({
  failure_threshold: z.optional(positiveInt),
  recovery_s: z.optional(positiveNumber),
});

const llmSchema = z.strictObject({
  /** Idle timeout of one attempt: the longest wait for the first byte or between chunks. */
  timeout_s: z.optional(positiveNumber),
  /** One model call gives up when the model has not answered within this, retries included. */
  call_timeout_s: z.optional(positiveNumber),
  /** The longest one streamed answer may last. */
  stream_max_s: z.optional(positiveNumber),
  max_retries: z.optional(wholeNumber),
  retry_base_ms: z.optional(wholeNumber),
  breaker: z.optional(breakerSchema),
});

const ruleSchema = z.strictObject({
  tool: nonEmpty,
  pattern: z.optional(nonEmpty),
  action: z.enum(['allow', 'ask', 'deny']),
});

const permissionsSchema = z.strictObject({
  mode: z.optional(z.enum(['read-only', 'ask', 'auto-edit', 'yolo'])),
  rules: z.optional(z.array(ruleSchema)),
  roots: z.optional(z.array(nonEmpty)),
});

/**
 * A user rule of the rule-engine fast path: a prompt matching `pattern` (a regular
 * expression over the whole prompt) runs `tool` with `args` without a model call;
 * `$1`… in string values take the captures. Checked further when the file is read
 * (config/rules.ts).
 */
const userRuleSchema = z.strictObject({
  pattern: nonEmpty,
  tool: nonEmpty,
  args: z.optional(z.record(z.string(), z.unknown())),
  /** Shown with the rules that work (e.g. when no model is configured). */
  description: z.optional(z.string()),
});

const webSearchSchema = z.strictObject({
  provider: z.enum(['searxng', 'brave', 'tavily']),
  url: z.optional(httpUrl),
  api_key: z.optional(nonEmpty),
  api_key_env: z.optional(envName),
});

const toolsSchema = z.strictObject({
  loading: z.optional(z.enum(['intent', 'all'])),
  max_output_chars: z.optional(positiveInt),
  env_allow: z.optional(z.array(envName)),
  web_search: z.optional(webSearchSchema),
});

const serverSchema = z.strictObject({
  allowed_hosts: z.optional(z.array(z.string().check(z.refine((h) => parseHostEntry(h) !== undefined)))),
});
const sandboxMode = z.enum(['auto', 'on', 'off']);

/** `sandbox: auto | on | off`, or the long form with `network`. */
const sandboxObjectSchema = z.strictObject({
  mode: z.optional(sandboxMode),
  network: z.optional(z.boolean()),
});
const sandboxSchema = z.union([sandboxMode, sandboxObjectSchema]);

/** An MCP stdio server opts in with `sandbox: true` (network off) or `sandbox: { network: true }`. */
const mcpSandboxObjectSchema = z.strictObject({ network: z.optional(z.boolean()) });
const mcpSandboxSchema = z.union([z.boolean(), mcpSandboxObjectSchema]);

/** How Tea logs in to a remote MCP server (`oauth:`); `false` never logs in. */
const mcpOAuthObjectSchema = z.strictObject({
  client_id: z.optional(nonEmpty),
  client_secret: z.optional(nonEmpty),
  client_metadata_url: z.optional(z.string().check(z.refine((v) => /^https:\/\/[^/]+\/./.test(v)))),
  scope: z.optional(nonEmpty),
  callback_port: z.optional(z.int().check(z.gte(1), z.lte(65_535))),
  grant: z.optional(z.enum(['authorization_code', 'client_credentials'])),
  private_key_file: z.optional(nonEmpty),
  signing_algorithm: z.optional(nonEmpty),
});
const mcpOAuthSchema = z.union([z.literal(false), mcpOAuthObjectSchema]);

/** Profile names: letters, digits, `_`, `.` and `-`. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** YAML writes `PORT: 3001` as a number; environment values are strings. */
const envValue = z.pipe(z.union([z.string(), z.number(), z.boolean()]), z.transform(String));

/** One MCP server: `command` (stdio, with args/env/cwd) or `url` (streamable HTTP, with headers). */
export const mcpServerSchema = z
  .strictObject({
    command: z.optional(nonEmpty),
    args: z.optional(z.array(z.string())),
    env: z.optional(z.record(z.string(), envValue)),
    cwd: z.optional(nonEmpty),
    url: z.optional(httpUrl),
    headers: z.optional(headers),
    timeout_s: z.optional(positiveNumber),
    disabled: z.optional(z.boolean()),
    sandbox: z.optional(mcpSandboxSchema),
    transport: z.optional(z.enum(['http', 'sse'])),
    oauth: z.optional(mcpOAuthSchema),
    /** Offer the server Tea's roots (default: unless its arguments name a directory). */
    roots: z.optional(z.boolean()),
  })
  .check(
    z.superRefine((server, ctx) => {
      if ((server.command === undefined) === (server.url === undefined)) {
        ctx.addIssue({ code: 'custom', message: 'either command or url', path: [] });
        return;
      }
      const wrong =
        server.url !== undefined
          ? (['args', 'env', 'cwd', 'sandbox'] as const)
          : (['headers', 'transport', 'oauth'] as const);
      for (const key of wrong) {
        if (server[key] !== undefined)
          ctx.addIssue({ code: 'custom', message: `no ${key} here`, path: [key] });
      }
    }),
  );

/** A work mode as a file writes it (config/modes.ts checks the rest). */
export const modeSchema = z.strictObject({
  description: z.optional(z.string()),
  prompt: z.optional(z.string()),
  tools: z.optional(z.array(z.string())),
  permission_mode: z.optional(z.enum(['read-only', 'ask', 'auto-edit', 'yolo'])),
});
const modesSchema = z.record(z.string(), modeSchema);

export const fileSchema = z.strictObject({
  main_model: z.optional(profileSchema),
  cheap_model: z.optional(profileSchema),
  embedding: z.optional(embeddingSchema),
  profiles: z.optional(z.record(z.string().check(z.regex(PROFILE_NAME)), profileSchema)),
  fallback: z.optional(z.array(nonEmpty)),
  agent: z.optional(agentSchema),
  subagents: z.optional(subagentsSchema),
  memory: z.optional(memorySchema),
  evolve: z.optional(evolveSchema),
  journal: z.optional(journalSchema),
  llm: z.optional(llmSchema),
  models: z.optional(z.record(nonEmpty, modelOverrideSchema)),
  permissions: z.optional(permissionsSchema),
  tools: z.optional(toolsSchema),
  sandbox: z.optional(sandboxSchema),
  mcp_servers: z.optional(z.record(z.string().check(z.regex(PROFILE_NAME)), mcpServerSchema)),
  mcp_sampling: z.optional(mcpSamplingSchema),
  mcp_elicitation: z.optional(mcpElicitationSchema),
  server: z.optional(serverSchema),
  /** Work modes defined or overridden by the user (config/modes.ts). */
  modes: z.optional(modesSchema),
  /** The work mode new sessions start in. */
  default_mode: z.optional(z.string()),
  /** User rules of the fast path (see userRuleSchema). */
  rules: z.optional(z.array(userRuleSchema)),
  /** false: no prompt is answered by a rule (built-in or user); every prompt goes to the model. */
  rules_fast_path: z.optional(z.boolean()),
});

export type RawProfile = z.infer<typeof profileSchema>;
export type RawMode = z.infer<typeof modeSchema>;
export type RawModes = z.infer<typeof modesSchema>;
export type RawEmbedding = z.infer<typeof embeddingSchema>;
export type RawFile = z.infer<typeof fileSchema>;
export type RawPermissions = z.infer<typeof permissionsSchema>;
export type RawTools = z.infer<typeof toolsSchema>;
export type RawMcpServer = z.infer<typeof mcpServerSchema>;
export type RawUserRule = z.infer<typeof userRuleSchema>;

/**
 * The keys a mapping at a (generic) path accepts, for "did you mean" suggestions.
 * Record entries are written as `*` (e.g. `profiles.*`).
 */
export function knownKeysAt(genericPath: string): string[] {
  const shapes: Record<string, z.ZodMiniObject> = {
    '': fileSchema,
    main_model: profileSchema,
    cheap_model: profileSchema,
    'profiles.*': profileSchema,
    embedding: embeddingSchema,
    'models.*': modelOverrideSchema,
    agent: agentSchema,
    subagents: subagentsSchema,
    memory: memorySchema,
    evolve: evolveSchema,
    journal: journalSchema,
    llm: llmSchema,
    'llm.breaker': breakerSchema,
    permissions: permissionsSchema,
    'permissions.rules.*': ruleSchema,
    tools: toolsSchema,
    'tools.web_search': webSearchSchema,
    sandbox: sandboxObjectSchema,
    'mcp_servers.*': mcpServerSchema,
    mcp_sampling: mcpSamplingSchema,
    mcp_elicitation: mcpElicitationSchema,
    server: serverSchema,
    'rules.*': userRuleSchema,
    'mcp_servers.*.sandbox': mcpSandboxObjectSchema,
    'mcp_servers.*.oauth': mcpOAuthObjectSchema,
    'modes.*': modeSchema,
  };
  // Server names may hold dots, so any path below mcp_servers is one server entry.
  const generic = genericPath.startsWith('mcp_servers.')
    ? genericPath.endsWith('.sandbox')
      ? 'mcp_servers.*.sandbox'
      : genericPath.endsWith('.oauth')
        ? 'mcp_servers.*.oauth'
        : 'mcp_servers.*'
    : genericPath;
  const shape = shapes[generic];
  return shape ? Object.keys(shape.shape) : [];
}

/** Either a profile or the embedding section (every key optional). */
export type RawEndpoint = Omit<RawProfile, 'provider'> &
  Omit<RawEmbedding, 'provider'> & { provider?: RawProfile['provider'] };
