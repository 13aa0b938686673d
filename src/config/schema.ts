/**
 * The on-disk shape of a config file (snake_case), validated with zod.
 * Every key is optional here: a file may hold only part of the config and is
 * merged with the others; completeness is checked after merging.
 */
import * as z from 'zod';
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

const httpUrl = z.string().refine(isHttpUrl);
const nonEmpty = z.string().trim().min(1);
const positiveInt = z.number().int().positive();
const wholeNumber = z.number().int().nonnegative();
const positiveNumber = z.number().positive();
const price = z.number().nonnegative();
const share = z.number().gt(0).lte(1);
const headers = z.record(z.string(), z.string());

/** Keys shared by model profiles and the embedding section. */
const endpointKeys = {
  base_url: httpUrl.optional(),
  /** Legacy alias of `base_url` (Python seed). */
  api_url: httpUrl.optional(),
  api_key: nonEmpty.optional(),
  api_key_env: z.string().regex(ENV_NAME).optional(),
  model: nonEmpty.optional(),
  /** Legacy alias of `model`. */
  model_name: nonEmpty.optional(),
  timeout_s: positiveNumber.optional(),
  headers: headers.optional(),
};

export const profileSchema = z.strictObject({
  provider: z.enum(['openai', 'anthropic']).optional(),
  ...endpointKeys,
  context_window: positiveInt.optional(),
  /** Legacy alias of `context_window`; 0 means unset. */
  max_context_tokens: wholeNumber.optional(),
  max_output: positiveInt.optional(),
  /** Anthropic only: extended-thinking token budget. */
  thinking_budget: positiveInt.optional(),
  /** Context engine: trim / ask for brevity / stop offering tools at these shares of the window. */
  compress_at: share.optional(),
  brief_at: share.optional(),
  final_at: share.optional(),
});

export const embeddingSchema = z.strictObject({
  provider: z.enum(['openai']).optional(),
  ...endpointKeys,
  dimensions: positiveInt.optional(),
});

const modelOverrideSchema = z.strictObject({
  context_window: positiveInt.optional(),
  max_output: positiveInt.optional(),
  input_price: price.optional(),
  output_price: price.optional(),
  cached_input_price: price.optional(),
});

const agentSchema = z.strictObject({
  max_iterations: positiveInt.optional(),
  max_parallel_tools: positiveInt.optional(),
  auto_title: z.boolean().optional(),
});

const memorySchema = z.strictObject({
  extract: z.boolean().optional(),
  tune: z.boolean().optional(),
  judge: z.boolean().optional(),
});

const breakerSchema = z.strictObject({
  failure_threshold: positiveInt.optional(),
  recovery_s: positiveNumber.optional(),
});

const llmSchema = z.strictObject({
  timeout_s: positiveNumber.optional(),
  max_retries: wholeNumber.optional(),
  retry_base_ms: wholeNumber.optional(),
  breaker: breakerSchema.optional(),
});

const ruleSchema = z.strictObject({
  tool: nonEmpty,
  pattern: nonEmpty.optional(),
  action: z.enum(['allow', 'ask', 'deny']),
});

const permissionsSchema = z.strictObject({
  mode: z.enum(['read-only', 'ask', 'auto-edit', 'yolo']).optional(),
  rules: z.array(ruleSchema).optional(),
  roots: z.array(nonEmpty).optional(),
});

const webSearchSchema = z.strictObject({
  provider: z.enum(['searxng', 'brave', 'tavily']),
  url: httpUrl.optional(),
  api_key: nonEmpty.optional(),
  api_key_env: z.string().regex(ENV_NAME).optional(),
});

const toolsSchema = z.strictObject({
  loading: z.enum(['intent', 'all']).optional(),
  max_output_chars: positiveInt.optional(),
  env_allow: z.array(z.string().regex(ENV_NAME)).optional(),
  web_search: webSearchSchema.optional(),
});

const serverSchema = z.strictObject({
  allowed_hosts: z.array(z.string().refine((h) => parseHostEntry(h) !== undefined)).optional(),
});
const sandboxMode = z.enum(['auto', 'on', 'off']);

/** `sandbox: auto | on | off`, or the long form with `network`. */
const sandboxObjectSchema = z.strictObject({
  mode: sandboxMode.optional(),
  network: z.boolean().optional(),
});
const sandboxSchema = z.union([sandboxMode, sandboxObjectSchema]);

/** An MCP stdio server opts in with `sandbox: true` (network off) or `sandbox: { network: true }`. */
const mcpSandboxObjectSchema = z.strictObject({ network: z.boolean().optional() });
const mcpSandboxSchema = z.union([z.boolean(), mcpSandboxObjectSchema]);

/** Profile names: letters, digits, `_`, `.` and `-`. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** YAML writes `PORT: 3001` as a number; environment values are strings. */
const envValue = z.union([z.string(), z.number(), z.boolean()]).transform(String);

/** One MCP server: `command` (stdio, with args/env/cwd) or `url` (streamable HTTP, with headers). */
export const mcpServerSchema = z
  .strictObject({
    command: nonEmpty.optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), envValue).optional(),
    cwd: nonEmpty.optional(),
    url: httpUrl.optional(),
    headers: headers.optional(),
    timeout_s: positiveNumber.optional(),
    disabled: z.boolean().optional(),
    sandbox: mcpSandboxSchema.optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'either command or url', path: [] });
      return;
    }
    const wrong =
      server.url !== undefined ? (['args', 'env', 'cwd', 'sandbox'] as const) : (['headers'] as const);
    for (const key of wrong) {
      if (server[key] !== undefined) ctx.addIssue({ code: 'custom', message: `no ${key} here`, path: [key] });
    }
  });

export const fileSchema = z.strictObject({
  main_model: profileSchema.optional(),
  cheap_model: profileSchema.optional(),
  embedding: embeddingSchema.optional(),
  profiles: z.record(z.string().regex(PROFILE_NAME), profileSchema).optional(),
  fallback: z.array(nonEmpty).optional(),
  agent: agentSchema.optional(),
  memory: memorySchema.optional(),
  llm: llmSchema.optional(),
  models: z.record(nonEmpty, modelOverrideSchema).optional(),
  permissions: permissionsSchema.optional(),
  tools: toolsSchema.optional(),
  sandbox: sandboxSchema.optional(),
  mcp_servers: z.record(z.string().regex(PROFILE_NAME), mcpServerSchema).optional(),
  server: serverSchema.optional(),
});

export type RawProfile = z.infer<typeof profileSchema>;
export type RawEmbedding = z.infer<typeof embeddingSchema>;
export type RawFile = z.infer<typeof fileSchema>;
export type RawPermissions = z.infer<typeof permissionsSchema>;
export type RawTools = z.infer<typeof toolsSchema>;
export type RawMcpServer = z.infer<typeof mcpServerSchema>;

/**
 * The keys a mapping at a (generic) path accepts, for "did you mean" suggestions.
 * Record entries are written as `*` (e.g. `profiles.*`).
 */
export function knownKeysAt(genericPath: string): string[] {
  const shapes: Record<string, z.ZodObject> = {
    '': fileSchema,
    main_model: profileSchema,
    cheap_model: profileSchema,
    'profiles.*': profileSchema,
    embedding: embeddingSchema,
    'models.*': modelOverrideSchema,
    agent: agentSchema,
    memory: memorySchema,
    llm: llmSchema,
    'llm.breaker': breakerSchema,
    permissions: permissionsSchema,
    'permissions.rules.*': ruleSchema,
    tools: toolsSchema,
    'tools.web_search': webSearchSchema,
    sandbox: sandboxObjectSchema,
    'mcp_servers.*': mcpServerSchema,
    server: serverSchema,
    'mcp_servers.*.sandbox': mcpSandboxObjectSchema,
  };
  // Server names may hold dots, so any path below mcp_servers is one server entry.
  const generic = genericPath.startsWith('mcp_servers.')
    ? genericPath.endsWith('.sandbox')
      ? 'mcp_servers.*.sandbox'
      : 'mcp_servers.*'
    : genericPath;
  const shape = shapes[generic];
  return shape ? Object.keys(shape.shape) : [];
}

/** Either a profile or the embedding section (every key optional). */
export type RawEndpoint = Omit<RawProfile, 'provider'> &
  Omit<RawEmbedding, 'provider'> & { provider?: RawProfile['provider'] };
