/**
 * The model providers Tea knows, as data: each one's name and the defaults the
 * config layer fills in (base URL, model, env variables). Dependency-free, so that
 * config/ (which may not import llm/) and llm/providers.ts (which adds how to build
 * each one) read the same list.
 *
 * A new provider: its adapter file in llm/, one line below and one line in
 * llm/providers.ts (the compiler asks for the second one).
 */

export interface ProviderDefaults {
  /** What it is for, in the words a config hint uses: "`openai` for …". */
  describe: string;
  /** The base URL when the config names none. */
  baseUrl: string;
  /** The model on `baseUrl` when the config names none. */
  model: string;
  /** `OPENAI` reads `OPENAI_API_KEY` and `OPENAI_BASE_URL`. */
  envPrefix: string;
  /** A base URL containing this picks the provider when the config names none. */
  urlHint?: string;
  /** The adapter appends `/v1/...` itself: a trailing `/v1` in the config is dropped. */
  hostOnlyBaseUrl?: boolean;
}

/** The built-in providers, in env-detection order (the first is the default). */
const BUILTIN = {
  openai: {
    describe: 'any OpenAI-compatible server (OpenAI, Ollama, vLLM, DeepSeek, Qwen, OpenRouter)',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    envPrefix: 'OPENAI',
  },
  anthropic: {
    describe: "Anthropic's messages API",
    baseUrl: 'https://api.anthropic.com',
    model: 'claude-sonnet-4-5',
    envPrefix: 'ANTHROPIC',
    urlHint: 'anthropic.com',
    hostOnlyBaseUrl: true,
  },
} as const satisfies Record<string, ProviderDefaults>;

export type BuiltinProviderKind = keyof typeof BUILTIN;

declare const registered: unique symbol;
/** A provider added at run time (`registerProviderKind`): a checked name the types cannot list. */
export type RegisteredProviderKind = string & { readonly [registered]: true };

export type ProviderKind = BuiltinProviderKind | RegisteredProviderKind;

/** The provider used when neither the config nor the env names one. */
export const DEFAULT_PROVIDER_KIND: BuiltinProviderKind = 'openai';

const kinds = new Map<string, ProviderDefaults>(Object.entries(BUILTIN));

export function isProviderKind(name: unknown): name is ProviderKind {
  return typeof name === 'string' && kinds.has(name);
}

/** Every known provider name, built-in ones first. */
export function providerKinds(): ProviderKind[] {
  return [...kinds.keys()] as ProviderKind[];
}

export function providerDefaults(kind: ProviderKind): ProviderDefaults {
  const found = kinds.get(kind);
  if (!found)
    throw new Error(`unknown provider ${JSON.stringify(kind)}; known: ${providerKinds().join(', ')}`);
  return found;
}

/**
 * Adds a provider's defaults under a new name (llm/providers.ts `registerProvider`
 * calls this with the way to build it). Returns the checked name and a function that
 * removes it again.
 */
export function registerProviderKind(
  name: string,
  defaults: ProviderDefaults,
): { kind: ProviderKind; unregister: () => void } {
  if (!/^[a-z][a-z0-9_-]*$/.test(name)) {
    throw new Error(`provider name ${JSON.stringify(name)} must be lower-case letters, digits, _ or -`);
  }
  if (kinds.has(name)) throw new Error(`provider ${JSON.stringify(name)} is already registered`);
  kinds.set(name, defaults);
  return { kind: name as ProviderKind, unregister: () => void kinds.delete(name) };
}
