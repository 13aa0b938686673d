import type { Delta, FinishReason, ModelInfo, ModelRequest, Provider, ToolCallPart, Usage } from './types.js';

/** A whole model answer, drained from a stream. */
export interface Completion {
  text: string;
  thinking: string;
  /** Signature of the (last) thinking block, for Anthropic round trips. */
  thinkingSignature?: string;
  toolCalls: ToolCallPart[];
  /** Tokens of every attempt, discarded ones included (they were billed). */
  usage: Usage;
  finishReason: FinishReason;
  /** The model that produced the final usage, when the stream said. */
  model?: ModelInfo;
}

/**
 * Drains `provider.stream` into one `Completion`: for summaries, pings and other
 * cheap-model jobs that do not need the deltas. Honours `retry` deltas with
 * `discard` and `fallback` deltas by dropping what the failed attempt streamed.
 * Errors from the stream propagate unchanged.
 */
export async function complete(
  provider: Provider,
  request: ModelRequest,
  signal?: AbortSignal,
): Promise<Completion> {
  const result = new Collector();
  for await (const delta of provider.stream(request, signal)) result.add(delta);
  return result.finish();
}

/**
 * One question to a (usually cheap) model: a system and a user prompt, the whole
 * answer back. For the background jobs that read JSON or a short text out of it.
 */
export function ask(
  provider: Provider,
  prompt: { system: string; user: string },
  opts: { temperature?: number; signal?: AbortSignal | undefined } = {},
): Promise<Completion> {
  return complete(
    provider,
    {
      messages: [
        { role: 'system', parts: [{ type: 'text', text: prompt.system }] },
        { role: 'user', parts: [{ type: 'text', text: prompt.user }] },
      ],
      temperature: opts.temperature ?? 0,
    },
    opts.signal,
  );
}

/** Accumulates deltas; usable directly by callers that also forward the deltas. */
export class Collector {
  private text = '';
  private thinking = '';
  private signature: string | undefined;
  private toolCalls: ToolCallPart[] = [];
  private billed: Usage = { inputTokens: 0, outputTokens: 0 };
  /** The current attempt's usage; a later usage delta in one attempt supersedes an earlier one. */
  private attemptUsage: Usage | undefined;
  private reason: FinishReason | undefined;
  private model: ModelInfo | undefined;

  add(delta: Delta): void {
    switch (delta.type) {
      case 'text':
        this.text += delta.text;
        break;
      case 'thinking':
        this.thinking += delta.text;
        if (delta.signature !== undefined) this.signature = delta.signature;
        break;
      case 'tool-call':
        this.toolCalls.push(delta.call);
        break;
      case 'usage':
        this.attemptUsage = delta.usage;
        if (delta.model) this.model = delta.model;
        break;
      case 'finish':
        this.reason = delta.reason;
        break;
      case 'retry':
        this.endAttempt(delta.discard);
        break;
      case 'fallback':
        this.endAttempt(true);
        break;
    }
  }

  finish(): Completion {
    const usage = addUsage(this.billed, this.attemptUsage);
    const out: Completion = {
      text: this.text,
      thinking: this.thinking,
      toolCalls: this.toolCalls,
      usage,
      finishReason: this.reason ?? 'other',
    };
    if (this.signature !== undefined) out.thinkingSignature = this.signature;
    if (this.model) out.model = this.model;
    return out;
  }

  private endAttempt(discard: boolean): void {
    this.billed = addUsage(this.billed, this.attemptUsage);
    this.attemptUsage = undefined;
    this.reason = undefined;
    if (!discard) return;
    this.text = '';
    this.thinking = '';
    this.signature = undefined;
    this.toolCalls = [];
  }
}

function addUsage(a: Usage, b: Usage | undefined): Usage {
  if (!b) return { ...a };
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
  const cached = (a.cachedInputTokens ?? 0) + (b.cachedInputTokens ?? 0);
  const reasoning = (a.reasoningTokens ?? 0) + (b.reasoningTokens ?? 0);
  if (a.cachedInputTokens !== undefined || b.cachedInputTokens !== undefined) sum.cachedInputTokens = cached;
  if (a.reasoningTokens !== undefined || b.reasoningTokens !== undefined) sum.reasoningTokens = reasoning;
  return sum;
}
