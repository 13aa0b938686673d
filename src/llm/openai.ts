/**
 * Provider for the OpenAI-compatible chat-completions wire (OpenAI, Ollama, vLLM,
 * DeepSeek, Qwen, OpenRouter…) over `node:http`/`node:https` (see http.ts). No retries or timeouts
 * here: the resilience layer wraps this provider.
 */
import { LlmError } from './errors.js';
import { buildRequestBody, type CallContext, parseWireJson, postJson, readSse, readText } from './http.js';
import { OpenAIStreamState } from './openai-stream.js';
import { buildOpenAIBody, type OpenAIRequestBody } from './openai-wire.js';
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
    for await (const event of readSse(res, ctx, { complete: () => done })) {
      if (event.data.trim() === '[DONE]') {
        done = true;
        break;
      }
      if (event.data.trim() === '') continue;
      yield* state.handle(parseWireJson(event.data, ctx.profile));
    }
    if (!done && !state.finished) {
      throw new LlmError('network', `${ctx.profile}: the stream ended before the model finished`, {
        profile: ctx.profile,
      });
    }
    yield* state.end();
  }
}
