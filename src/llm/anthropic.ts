/**
 * Provider for Anthropic's native messages API over `node:http`/`node:https` (see http.ts).
 * No retries or timeouts here: the resilience layer wraps this provider.
 */
import { AnthropicStreamState } from './anthropic-stream.js';
import { type AnthropicRequestBody, buildAnthropicBody } from './anthropic-wire.js';
import { coalesce } from './coalesce.js';
import { LlmError } from './errors.js';
import { buildRequestBody, type CallContext, parseWireJson, postJson } from './http.js';
import { readSseBatches } from './sse-read.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from './types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicProviderOptions {
  apiKey?: string;
  headers?: Record<string, string>;
  /** Enables extended thinking with this many budget tokens. */
  thinkingBudget?: number;
}

export class AnthropicProvider implements Provider {
  readonly info: ModelInfo;
  private readonly apiKey: string | undefined;
  private readonly headers: Record<string, string>;
  private readonly thinkingBudget: number | undefined;

  constructor(info: ModelInfo, opts: AnthropicProviderOptions = {}) {
    this.info = info;
    this.apiKey = opts.apiKey || undefined;
    this.headers = opts.headers ?? {};
    this.thinkingBudget = opts.thinkingBudget;
  }

  get url(): string {
    return `${this.info.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  }

  /** The wire body this provider would send; exposed for diagnostics and tests. */
  buildBody(request: ModelRequest): AnthropicRequestBody {
    return buildRequestBody(this.info.profile, () =>
      buildAnthropicBody(this.info, request, this.thinkingBudget),
    );
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<Delta> {
    const ctx: CallContext = {
      profile: this.info.profile,
      signal,
      secrets: this.apiKey ? [this.apiKey] : [],
    };
    const headers: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION, ...this.headers };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    const res = await postJson(this.url, headers, this.buildBody(request), ctx);
    const state = new AnthropicStreamState(ctx.profile);
    // Events that arrived in one read leave as one step, their text joined.
    for await (const batch of readSseBatches(res, ctx, { complete: () => state.finished })) {
      const deltas: Delta[] = [];
      for (const event of batch) {
        if (event.data.trim() === '') continue;
        for (const d of state.handle(parseWireJson(event.data, ctx.profile))) coalesce(deltas, d);
        if (state.finished) break;
      }
      for (const d of deltas) yield d;
      if (state.finished) break;
    }
    if (!state.finished) {
      throw new LlmError('network', `${ctx.profile}: the stream ended before the model finished`, {
        profile: ctx.profile,
      });
    }
    yield* state.end();
  }
}
