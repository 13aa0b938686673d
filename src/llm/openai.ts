/**
 * Provider for the OpenAI-compatible chat-completions wire (OpenAI, Ollama, vLLM,
 * DeepSeek, Qwen, OpenRouter…) over `node:http`/`node:https` (see http.ts). No retries or timeouts
 * here: the resilience layer wraps this provider.
 */

import { coalesce } from './coalesce.js';
import { LlmError } from './errors.js';
import { buildRequestBody, type CallContext, parseWireJson, postJson, readText } from './http.js';
import { OpenAIStreamState } from './openai-stream.js';
import { buildOpenAIBody, type OpenAIRequestBody } from './openai-wire.js';
import { readSseBatches } from './sse-read.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from './types.js';

export interface OpenAIProviderOptions {
  apiKey?: string;
  headers?: Record<string, string>;
}

export class OpenAICompatibleProvider implements Provider {
  readonly info: ModelInfo;
  private readonly apiKey: string | undefined;
  private readonly headers: Record<string, string>;

  constructor(info: ModelInfo, opts: OpenAIProviderOptions = {}) {
    this.info = info;
    this.apiKey = opts.apiKey || undefined;
    this.headers = opts.headers ?? {};
  }

  get url(): string {
    return `${this.info.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  }

  /** The wire body this provider would send; exposed for diagnostics and tests. */
  buildBody(request: ModelRequest): OpenAIRequestBody {
    return buildRequestBody(this.info.profile, () => buildOpenAIBody(this.info, request));
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<Delta> {
    const ctx: CallContext = {
      profile: this.info.profile,
      signal,
      secrets: this.apiKey ? [this.apiKey] : [],
    };
    const headers: Record<string, string> = { ...this.headers };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const res = await postJson(this.url, headers, this.buildBody(request), ctx);
    const state = new OpenAIStreamState(ctx.profile);

    if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
      // A server that ignored `stream: true` and answered with one JSON completion.
      yield* state.handle(parseWireJson(await readText(res, ctx), ctx.profile));
      yield* state.end();
      return;
    }

    let done = false;
    // Events that arrived in one read leave as one step, their text joined (see `coalesce`).
    for await (const batch of readSseBatches(res, ctx, { complete: () => done })) {
      const deltas: Delta[] = [];
      for (const event of batch) {
        const data = event.data.trim();
        if (data === '[DONE]') {
          done = true;
          break;
        }
        if (data === '') continue;
        for (const d of state.handle(parseWireJson(event.data, ctx.profile))) coalesce(deltas, d);
      }
      for (const d of deltas) yield d;
      if (done) break;
    }
    if (!done && !state.finished) {
      throw new LlmError('network', `${ctx.profile}: the stream ended before the model finished`, {
        profile: ctx.profile,
      });
    }
    yield* state.end();
  }
}
