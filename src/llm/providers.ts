/**
 * The provider registry: how to build the adapter of each provider kind. The kinds
 * and their config defaults live in util/provider-kinds.ts (config/ reads them too);
 * this adds the builder. A new provider: its adapter file, a line in
 * util/provider-kinds.ts and a line here.
 */
import {
  type BuiltinProviderKind,
  isProviderKind,
  type ProviderDefaults,
  type ProviderKind,
  providerKinds,
  registerProviderKind,
} from '../util/provider-kinds.js';
import { AnthropicProvider } from './anthropic.js';
import { OpenAICompatibleProvider } from './openai.js';
import type { ModelInfo, Provider } from './types.js';

export { isProviderKind, type ProviderKind, providerKinds };

/** What a profile gives its adapter besides the model info. */
export interface ProviderSettings {
  apiKey?: string;
  headers?: Record<string, string>;
  /** Anthropic only: extended-thinking token budget. */
  thinkingBudget?: number;
}

export type CreateProvider = (info: ModelInfo, settings: ProviderSettings) => Provider;

function common(s: ProviderSettings): { apiKey?: string; headers?: Record<string, string> } {
  const out: { apiKey?: string; headers?: Record<string, string> } = {};
  if (s.apiKey !== undefined) out.apiKey = s.apiKey;
  if (s.headers !== undefined) out.headers = s.headers;
  return out;
}

const BUILTIN: Record<BuiltinProviderKind, CreateProvider> = {
  openai: (info, s) => new OpenAICompatibleProvider(info, common(s)),
  anthropic: (info, s) =>
    new AnthropicProvider(
      info,
      s.thinkingBudget === undefined ? common(s) : { ...common(s), thinkingBudget: s.thinkingBudget },
    ),
};

const builders = new Map<string, CreateProvider>(Object.entries(BUILTIN));

/** The builder for a kind; throws naming the known kinds for an unknown one. */
export function providerBuilder(kind: string): CreateProvider {
  const create = isProviderKind(kind) ? builders.get(kind) : undefined;
  if (!create) {
    const known = providerKinds().map((k) => `'${k}'`);
    const list = `${known.slice(0, -1).join(', ')} or ${known.at(-1)}`;
    throw new Error(`provider must be ${list}, got ${JSON.stringify(kind)}`);
  }
  return create;
}

/**
 * Adds a provider at run time (a plugin, a test): its config defaults and its
 * builder. The config layer accepts `provider: <name>` from then on. Returns the
 * checked name and a function that removes the provider again.
 */
export function registerProvider(
  name: string,
  defaults: ProviderDefaults,
  create: CreateProvider,
): { kind: ProviderKind; unregister: () => void } {
  const added = registerProviderKind(name, defaults);
  builders.set(name, create);
  return {
    kind: added.kind,
    unregister: () => {
      builders.delete(name);
      added.unregister();
    },
  };
}
