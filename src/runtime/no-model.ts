/**
 * The stand-in provider of a runtime with no model configured. Sessions still open and
 * run the prompts a rule answers (agent/rules/); the session refuses every other prompt
 * with `noModel` before a model call, so this provider is only reached by what slips
 * past that (a follow-up queued meanwhile), and fails it with the same message.
 */
import { LlmError } from '../llm/errors.js';
import type { Delta, ModelInfo, Provider } from '../llm/types.js';
import { RuntimeError } from './errors.js';
import type { ModelPool } from './models.js';

/** The model id sessions started without a model are stored with. */
export const NO_MODEL_ID = 'none';
/** The context window a face shows for it (nothing is ever sent). */
export const NO_MODEL_CONTEXT_WINDOW = 8192;

export function noModelProvider(profile: string, message: string): Provider {
  const info: ModelInfo = {
    profile,
    provider: 'openai',
    model: NO_MODEL_ID,
    baseUrl: '',
    contextWindow: NO_MODEL_CONTEXT_WINDOW,
    maxOutputTokens: 1024,
  };
  return {
    info,
    // biome-ignore lint/correctness/useYield: it fails before its first delta
    async *stream(): AsyncGenerator<Delta> {
      throw new LlmError('auth', message, { profile, retryable: false });
    },
  };
}

/**
 * `profile`'s provider; with no model configured at all, a stand-in and the message
 * saying how to configure one (the agent's sessions still run rules without a model).
 */
export function providerOrStandIn(
  models: ModelPool,
  profile: string,
): { provider: Provider; noModel?: string } {
  try {
    return { provider: models.provider(profile) };
  } catch (e) {
    if (!(e instanceof RuntimeError && e.code === 'no_model')) throw e;
    return { provider: noModelProvider(profile, e.message), noModel: e.message };
  }
}
