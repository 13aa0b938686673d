/**
 * What each config key expects and how to fix a bad value, used to turn
 * validation issues into messages a user can act on.
 */
import { providerDefaults, providerKinds } from '../util/provider-kinds.js';
import { type Hint, mcpHint } from './hints-mcp.js';
import { HOST_ENTRY_HINT } from './server.js';

export type { Hint } from './hints-mcp.js';

/** A model profile's `provider`, from the provider list (so a registered one is named too). */
function providerHint(): Hint {
  const kinds = providerKinds();
  const uses = kinds.map((kind) => `\`${kind}\` for ${providerDefaults(kind).describe}`);
  return {
    expected: `one of ${kinds.join(', ')}`,
    fix: `use ${uses.slice(0, -1).join(', ')} or ${uses.at(-1)}.`,
  };
}
const MAPPING_PROFILE: Hint = {
  expected: 'a mapping of model settings',
  fix: 'write it as a block with provider, base_url, api_key_env and model, e.g. `main_model: { provider: openai, model: gpt-4o }`.',
};

const BASE_URL: Hint = {
  expected: 'an http(s) URL',
  fix: "set it to the API's base URL, e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1.",
};
const MODEL: Hint = { expected: 'a model id', fix: 'set it to the model id the server knows, e.g. gpt-4o.' };
const PRICE = 'a number of US dollars per million tokens (0 or more)';

/** Hints by generic path (record entries as `*`); checked before `BY_KEY`. */
const BY_PATH: Record<string, Hint> = {
  '': {
    expected: 'a mapping of settings at the top level',
    fix: 'start the file with keys such as `main_model:`.',
  },
  main_model: MAPPING_PROFILE,
  cheap_model: MAPPING_PROFILE,
  'profiles.*': MAPPING_PROFILE,
  profiles: {
    expected: 'a mapping of profile names to model settings',
    fix: 'e.g. `profiles: { deepseek: { provider: openai, base_url: https://api.deepseek.com/v1, model: deepseek-chat } }`.',
  },
  embedding: {
    expected: 'a mapping of embedding settings',
    fix: 'e.g. `embedding: { base_url: http://127.0.0.1:11434/v1, model: nomic-embed-text }`, or remove it to use the built-in offline embedder.',
  },
  'embedding.provider': {
    expected: '`openai` (an OpenAI-compatible /v1/embeddings endpoint)',
    fix: 'set `provider: openai`, or remove the embedding section to use the built-in offline embedder.',
  },
  'models.*': {
    expected: 'a mapping of registry overrides',
    fix: 'e.g. `models: { my-model: { context_window: 8192, max_output: 2048 } }`.',
  },
  models: {
    expected: 'a mapping of model ids to registry overrides',
    fix: 'e.g. `models: { my-model: { context_window: 8192 } }`.',
  },
  agent: { expected: 'a mapping', fix: 'e.g. `agent: { max_iterations: 25, max_parallel_tools: 4 }`.' },
  memory: { expected: 'a mapping', fix: 'e.g. `memory: { extract: true, tune: true, judge: true }`.' },
  evolve: { expected: 'a mapping', fix: 'e.g. `evolve: { drafts: true, lessons: true }`.' },
  journal: { expected: 'a mapping', fix: 'e.g. `journal: { enabled: true, max_files: 50000 }`.' },
  mcp_sampling: {
    expected: 'a mapping',
    fix: 'e.g. `mcp_sampling: { max_tokens: 1000, session_tokens: 10000 }` (session_tokens: 0 turns sampling off).',
  },
  mcp_elicitation: {
    expected: 'a mapping',
    fix: 'e.g. `mcp_elicitation: { unattended: defaults }` (default decline).',
  },
  'mcp_elicitation.unattended': {
    expected: 'decline or defaults',
    fix: 'what a server asking for input gets where nobody can answer: `decline` (default), or `defaults` to accept a form whose required fields all have defaults.',
  },
  'mcp_sampling.session_tokens': {
    expected: 'a whole number, 0 or more',
    fix: "the most tokens MCP servers' sampling may use in one session, e.g. `session_tokens: 10000`; 0 turns it off.",
  },
  'journal.enabled': {
    expected: 'true or false',
    fix: 'use `enabled: false` to turn /undo off (default true).',
  },
  'evolve.drafts': {
    expected: 'true or false',
    fix: 'use `drafts: false` to stop skill drafts after succeeded tasks (default true).',
  },
  'evolve.lessons': {
    expected: 'true or false',
    fix: 'use `lessons: false` to stop lesson memories after failed tasks (default true).',
  },
  subagents: {
    expected: 'a mapping',
    fix: 'e.g. `subagents: { max_parallel: 4, max_tasks_per_call: 6, max_depth: 1, timeout_s: 300 }`.',
  },
  'subagents.max_parallel': {
    expected: 'a whole number of at least 1',
    fix: 'set how many sub-agents of one session may run at once, e.g. 4.',
  },
  'subagents.max_tasks_per_call': {
    expected: 'a whole number of at least 1',
    fix: 'set how many sub-tasks one delegate_tasks call may hold, e.g. 6.',
  },
  'subagents.timeout_s': {
    expected: 'a positive number of seconds',
    fix: "set one sub-agent's time limit, e.g. 300.",
  },
  'subagents.max_tokens': {
    expected: 'a whole number of at least 1',
    fix: "set one sub-agent's token budget (input + output), e.g. 200000; leave it out for none.",
  },
  'subagents.max_cost_usd': {
    expected: 'a positive number of US dollars',
    fix: "set one sub-agent's cost budget, e.g. 0.5; leave it out for none.",
  },
  'subagents.max_depth': {
    expected: '1 or 2',
    fix: 'use 1 (sub-agents may not delegate, the default) or 2 (they may, once).',
  },
  llm: { expected: 'a mapping', fix: 'e.g. `llm: { timeout_s: 60, call_timeout_s: 180, max_retries: 3 }`.' },
  permissions: {
    expected: 'a mapping',
    fix: 'e.g. `permissions: { mode: ask, rules: [{ tool: bash, pattern: "npm test*", action: allow }] }`.',
  },
  modes: {
    expected: 'a mapping of work modes by name',
    fix: 'e.g. `modes: { triage: { prompt: "Sort the open issues.", tools: [read], permission_mode: read-only } }`.',
  },
  'modes.*': {
    expected: 'a mapping with description, prompt, tools and permission_mode',
    fix: 'e.g. `triage: { prompt: "Sort the open issues.", tools: [read] }`.',
  },
  'modes.*.tools': {
    expected: 'a list of tool names or categories',
    fix: 'e.g. `tools: [read, files, git_diff]`, or `["*"]` for every tool.',
  },
  'modes.*.permission_mode': {
    expected: 'read-only, ask, auto-edit or yolo',
    fix: 'e.g. `permission_mode: read-only`.',
  },
  default_mode: { expected: 'a work mode name', fix: 'e.g. `default_mode: review`.' },
  'permissions.mode': {
    expected: 'one of read-only, ask, auto-edit, yolo',
    fix: 'use `mode: ask` (the default).',
  },
  'permissions.rules': {
    expected: 'a list of rules',
    fix: 'e.g. `rules: [{ tool: write_file, pattern: "*.env", action: deny }]`.',
  },
  rules: {
    expected: 'a list of fast-path rules',
    fix: "e.g. `rules: [{ pattern: '^deploy (\\w+)$', tool: bash, args: { command: './deploy.sh $1' } }]`.",
  },
  'rules.*': {
    expected: 'a mapping with pattern, tool and args',
    fix: "e.g. `- { pattern: '^deploy (\\w+)$', tool: bash, args: { command: './deploy.sh $1' } }`.",
  },
  'rules.*.pattern': {
    expected: 'a regular expression over the whole prompt',
    fix: "e.g. `pattern: '^deploy (\\w+)$'` (in single quotes, so YAML keeps the backslashes).",
  },
  'rules.*.tool': { expected: 'a tool name', fix: 'e.g. `tool: bash`; `tea tools` lists the names.' },
  'rules.*.args': {
    expected: "a mapping of the tool's arguments",
    fix: "e.g. `args: { command: './deploy.sh $1' }` (`$1`… take the pattern's captures).",
  },
  rules_fast_path: {
    expected: 'true or false',
    fix: 'use `rules_fast_path: false` to send every prompt to the model (default true).',
  },
  'permissions.rules.*.action': { expected: 'allow, ask or deny', fix: 'e.g. `action: allow`.' },
  tools: { expected: 'a mapping', fix: 'e.g. `tools: { loading: intent }`.' },
  'tools.loading': {
    expected: 'intent or all',
    fix: 'use `loading: intent` (core tools + tool_search) or `all`.',
  },
  'tools.web_search': {
    expected: 'a mapping',
    fix: 'e.g. `web_search: { provider: searxng, url: http://127.0.0.1:8888 }`.',
  },
  'tools.web_search.provider': {
    expected: 'one of searxng, brave, tavily',
    fix: 'e.g. `provider: searxng` with the `url` of your instance, or `brave` / `tavily` with an `api_key_env`.',
  },
  'llm.breaker': { expected: 'a mapping', fix: 'e.g. `breaker: { failure_threshold: 5, recovery_s: 60 }`.' },
  'llm.timeout_s': {
    expected: 'a positive number of seconds',
    fix: 'set the idle timeout of a model call in seconds, e.g. 60.',
  },
  'llm.call_timeout_s': {
    expected: 'a positive number of seconds',
    fix: 'set how long a model call may go unanswered, retries included, e.g. 180.',
  },
  'llm.stream_max_s': {
    expected: 'a positive number of seconds',
    fix: 'set the longest one streamed answer may last, e.g. 600.',
  },
  'agent.session_wait_s': {
    expected: 'a number of seconds (0 or more)',
    fix: 'set how long a run waits for a session another tea process is using, e.g. 60 (0 refuses at once).',
  },
  'agent.turn_timeout_s': {
    expected: 'a positive number of seconds',
    fix: 'set the longest one turn may run, e.g. 3600.',
  },
  sandbox: {
    expected: 'auto, on or off, or a mapping `{ mode: auto | on | off, network: true | false }`',
    fix: 'use `sandbox: auto` (bubblewrap when it is there, the default), `on` (refuse shell tools without it) or `off`; add network with `sandbox: { mode: auto, network: true }`.',
  },
  'sandbox.mode': {
    expected: 'auto, on or off',
    fix: 'use `mode: auto` (the default), `on` or `off`.',
  },
  'sandbox.network': {
    expected: 'true or false',
    fix: 'use `network: true` to let sandboxed commands use the network, or remove it (off).',
  },
  fallback: {
    expected: 'a list of profile names',
    fix: 'list names defined under `profiles`, e.g. `fallback: [deepseek]`.',
  },
  'fallback.*': { expected: 'a profile name', fix: 'use a name defined under `profiles`.' },
  server: { expected: 'a mapping', fix: 'e.g. `server: { allowed_hosts: [tea.example.com] }`.' },
  'server.allowed_hosts': {
    expected: 'a list of host names',
    fix: 'e.g. `allowed_hosts: [tea.example.com, "my-box.local:8080"]`.',
  },
  'server.allowed_hosts.*': HOST_ENTRY_HINT,
};

/** Hints by the last key of the path. */
const BY_KEY: Record<string, Hint> = {
  base_url: BASE_URL,
  api_url: BASE_URL,
  api_key: {
    expected: 'a non-empty string',
    fix: 'paste the key in quotes, or better, name an environment variable with `api_key_env: OPENAI_API_KEY`.',
  },
  api_key_env: {
    expected: 'the name of an environment variable',
    fix: 'use letters, digits and underscores, e.g. `api_key_env: OPENAI_API_KEY`.',
  },
  model: MODEL,
  model_name: MODEL,
  timeout_s: { expected: 'a positive number of seconds', fix: 'e.g. `timeout_s: 120`.' },
  headers: {
    expected: 'a mapping of header names to string values',
    fix: 'e.g. `headers: { HTTP-Referer: "https://example.com" }`.',
  },
  context_window: {
    expected: 'a positive integer',
    fix: "set it to the model's context window in tokens, e.g. 128000.",
  },
  max_context_tokens: {
    expected: 'a whole number (0 means unset)',
    fix: "set it to the model's context window in tokens, e.g. 128000 (better: rename it to context_window).",
  },
  max_output: {
    expected: 'a positive integer',
    fix: 'set it to the most tokens the model may write in one reply, e.g. 16384.',
  },
  thinking_budget: {
    expected: 'a positive integer',
    fix: 'set the most tokens an Anthropic model may think before answering, e.g. 8000.',
  },
  compress_at: {
    expected: 'a share of the context window between 0 and 1',
    fix: 'e.g. `compress_at: 0.6` to trim history at 60% of the window (small local models).',
  },
  brief_at: {
    expected: 'a share of the context window between 0 and 1',
    fix: 'e.g. `brief_at: 0.7` to ask the model for short answers at 70% of the window.',
  },
  final_at: {
    expected: 'a share of the context window between 0 and 1',
    fix: 'e.g. `final_at: 0.87` to stop offering tools and ask for a wrap-up at 87%.',
  },
  dimensions: {
    expected: 'a positive integer',
    fix: "set it to the embedding model's vector size, e.g. 768.",
  },
  max_iterations: {
    expected: 'a positive integer',
    fix: 'set the most model calls one turn may make, e.g. 25.',
  },
  max_parallel_tools: {
    expected: 'a positive integer',
    fix: 'set how many tools may run at once, e.g. 4.',
  },
  max_retries: { expected: 'a whole number (0 or more)', fix: 'e.g. `max_retries: 3`.' },
  retry_base_ms: {
    expected: 'a whole number of milliseconds (0 or more)',
    fix: 'e.g. `retry_base_ms: 1000`.',
  },
  failure_threshold: {
    expected: 'a positive integer',
    fix: 'set how many failures in a row open the circuit, e.g. 5.',
  },
  recovery_s: {
    expected: 'a positive number of seconds',
    fix: 'set how long an open circuit waits before a trial call, e.g. 60.',
  },
  input_price: { expected: PRICE, fix: 'e.g. `input_price: 2.5`.' },
  output_price: { expected: PRICE, fix: 'e.g. `output_price: 10`.' },
  cached_input_price: { expected: PRICE, fix: 'e.g. `cached_input_price: 1.25`.' },
  images: {
    expected: 'true or false',
    fix: 'say whether the model takes images, e.g. `models: { llava:13b: { images: true } }`.',
  },
};
/** The hint for a path, or undefined when none is known. */
export function hintFor(genericPath: string, leafKey: string | undefined): Hint | undefined {
  if (genericPath === 'mcp_servers' || genericPath.startsWith('mcp_servers.')) {
    return mcpHint(genericPath, leafKey);
  }
  if (genericPath.endsWith('headers.*')) {
    return { expected: 'a string', fix: 'quote the header value, e.g. `X-Title: "Tea"`.' };
  }
  const byPath = BY_PATH[genericPath];
  if (byPath) return byPath;
  if (leafKey === 'provider') return providerHint();
  return leafKey === undefined ? undefined : BY_KEY[leafKey];
}
