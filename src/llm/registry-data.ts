/**
 * What we know about a model: its limits and list prices.
 * Prices are US dollars per million tokens; absent means unknown (priced at 0).
 */
export interface ModelSpec {
  contextWindow: number;
  maxOutputTokens: number;
  inputPrice?: number;
  outputPrice?: number;
  /** Price of prompt tokens served from the provider's cache. */
  cachedInputPrice?: number;
  /**
   * Whether the model takes images (tool results with images are sent to it). Absent:
   * unknown, decided by the registry (see `ModelRegistry.lookup`) and the provider.
   */
  images?: boolean;
}

/** Used for a model we know nothing about: small enough to be safe almost anywhere. */
export const DEFAULT_SPEC: ModelSpec = { contextWindow: 32_768, maxOutputTokens: 4096 };

const K = 1024;

function spec(
  contextWindow: number,
  maxOutputTokens: number,
  prices?: [input: number, output: number, cachedInput?: number],
): ModelSpec {
  const out: ModelSpec = { contextWindow, maxOutputTokens };
  if (prices) {
    out.inputPrice = prices[0];
    out.outputPrice = prices[1];
    if (prices[2] !== undefined) out.cachedInputPrice = prices[2];
  }
  return out;
}

/** A model that takes images. */
const seeing = (s: ModelSpec): ModelSpec => ({ ...s, images: true });
/** A model that takes text only. */
const textOnly = (s: ModelSpec): ModelSpec => ({ ...s, images: false });

/**
 * Built-in table, keyed by model id or family prefix (lower case). Lookups match an
 * exact id first, then the longest key that prefixes the id at a boundary, so
 * `gpt-4o-2024-08-06` finds `gpt-4o` and `claude-sonnet-4-5-20250929` finds
 * `claude-sonnet-4-5`. List prices as published by the vendors; local models
 * (Ollama names) carry no price. Config overrides correct anything stale.
 */
export const BUILTIN_MODELS: Readonly<Record<string, ModelSpec>> = {
  // OpenAI
  'gpt-3.5-turbo': textOnly(spec(16_385, 4096, [0.5, 1.5])),
  'gpt-4': textOnly(spec(8192, 8192, [30, 60])),
  'gpt-4-turbo': seeing(spec(128_000, 4096, [10, 30])),
  'gpt-4o': seeing(spec(128_000, 16_384, [2.5, 10, 1.25])),
  'gpt-4o-mini': seeing(spec(128_000, 16_384, [0.15, 0.6, 0.075])),
  'gpt-4.1': seeing(spec(1_047_576, 32_768, [2, 8, 0.5])),
  'gpt-4.1-mini': seeing(spec(1_047_576, 32_768, [0.4, 1.6, 0.1])),
  'gpt-4.1-nano': seeing(spec(1_047_576, 32_768, [0.1, 0.4, 0.025])),
  o1: seeing(spec(200_000, 100_000, [15, 60, 7.5])),
  'o1-mini': textOnly(spec(128_000, 65_536, [1.1, 4.4, 0.55])),
  o3: seeing(spec(200_000, 100_000, [2, 8, 0.5])),
  'o3-mini': textOnly(spec(200_000, 100_000, [1.1, 4.4, 0.55])),
  'o3-pro': seeing(spec(200_000, 100_000, [20, 80])),
  'o4-mini': seeing(spec(200_000, 100_000, [1.1, 4.4, 0.275])),
  'gpt-5': seeing(spec(400_000, 128_000, [1.25, 10, 0.125])),
  'gpt-5-mini': seeing(spec(400_000, 128_000, [0.25, 2, 0.025])),
  'gpt-5-nano': seeing(spec(400_000, 128_000, [0.05, 0.4, 0.005])),
  'gpt-5-chat': seeing(spec(128_000, 16_384, [1.25, 10, 0.125])),
  'gpt-5-codex': seeing(spec(400_000, 128_000, [1.25, 10, 0.125])),
  'gpt-5.1': seeing(spec(400_000, 128_000, [1.25, 10, 0.125])),
  'gpt-oss-20b': textOnly(spec(131_072, 32_768)),
  'gpt-oss-120b': textOnly(spec(131_072, 32_768)),
  'gpt-oss': textOnly(spec(131_072, 32_768)),

  // Anthropic (cached = cache-read price)
  'claude-3-5-haiku': seeing(spec(200_000, 8192, [0.8, 4, 0.08])),
  'claude-3-5-sonnet': seeing(spec(200_000, 8192, [3, 15, 0.3])),
  'claude-3-7-sonnet': seeing(spec(200_000, 64_000, [3, 15, 0.3])),
  'claude-sonnet-4': seeing(spec(200_000, 64_000, [3, 15, 0.3])),
  'claude-sonnet-4-5': seeing(spec(200_000, 64_000, [3, 15, 0.3])),
  'claude-opus-4': seeing(spec(200_000, 32_000, [15, 75, 1.5])),
  'claude-opus-4-1': seeing(spec(200_000, 32_000, [15, 75, 1.5])),
  'claude-opus-4-5': seeing(spec(200_000, 64_000, [5, 25, 0.5])),
  'claude-haiku-4-5': seeing(spec(200_000, 64_000, [1, 5, 0.1])),

  // Google (through OpenAI-compatible gateways such as OpenRouter)
  'gemini-2.5-pro': seeing(spec(1_048_576, 65_536, [1.25, 10, 0.31])),
  'gemini-2.5-flash': seeing(spec(1_048_576, 65_536, [0.3, 2.5, 0.075])),

  // DeepSeek (cached = cache-hit price)
  'deepseek-chat': textOnly(spec(128_000, 8192, [0.28, 0.42, 0.028])),
  'deepseek-reasoner': textOnly(spec(128_000, 65_536, [0.28, 0.42, 0.028])),

  // Qwen (DashScope international list prices)
  'qwen-max': textOnly(spec(32_768, 8192, [1.6, 6.4])),
  'qwen-plus': textOnly(spec(131_072, 16_384, [0.4, 1.2])),
  'qwen-turbo': textOnly(spec(1_000_000, 8192, [0.05, 0.2])),
  'qwen3-max': textOnly(spec(262_144, 65_536, [1.2, 6])),
  'qwen3-coder-plus': textOnly(spec(1_000_000, 65_536, [1, 5])),
  // Qwen open weights (local, e.g. Ollama `qwen3:8b`)
  qwen3: textOnly(spec(40 * K, 8192)),
  'qwen3-coder': textOnly(spec(256 * K, 65_536)),
  'qwen2.5': textOnly(spec(32 * K, 8192)),
  'qwen2.5-coder': textOnly(spec(32 * K, 8192)),

  // Llama and other common Ollama names
  llama3: textOnly(spec(8192, 4096)),
  'llama3.1': textOnly(spec(128_000, 4096)),
  'llama3.2': textOnly(spec(128_000, 4096)),
  'llama3.3': textOnly(spec(128_000, 4096)),
  llama4: seeing(spec(10_000_000, 8192)),
  mistral: textOnly(spec(32 * K, 4096)),
  'mistral-nemo': textOnly(spec(128_000, 4096)),
  mixtral: textOnly(spec(32 * K, 4096)),
  gemma2: textOnly(spec(8192, 4096)),
  gemma3: seeing(spec(128_000, 8192)),
  phi3: textOnly(spec(128_000, 4096)),
  phi4: textOnly(spec(16 * K, 4096)),
  'deepseek-r1': textOnly(spec(128_000, 32_768)),
  'deepseek-v3': textOnly(spec(128_000, 8192)),
  codellama: textOnly(spec(16 * K, 4096)),
  llava: seeing(spec(4096, 2048)),
};
