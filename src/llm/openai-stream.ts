/**
 * Turns OpenAI chat-completion chunks (or one whole completion) into deltas.
 * Pure state, no I/O: `handle` each parsed chunk, then `end` once the stream is over.
 */
import { randomUUID } from '../util/random-id.js';
import { LlmError } from './errors.js';
import { parseToolArgs } from './json.js';
import { ThinkTagSplitter } from './think-tags.js';
import type { Delta, FinishReason, ToolCallPart, Usage } from './types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function generatedCallId(): string {
  return `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

interface PendingCall {
  id: string;
  name: string;
  args: string;
}

/**
 * Assembles tool calls from deltas: pieces by `index` (OpenAI), whole calls in one
 * chunk (Ollama), several calls sharing an index or carrying none.
 */
export class ToolCallAssembler {
  private readonly calls: PendingCall[] = [];
  private readonly byIndex = new Map<number, PendingCall>();

  add(delta: Json): void {
    const id = typeof delta.id === 'string' ? delta.id : '';
    const fn = isObject(delta.function) ? delta.function : {};
    const name = typeof fn.name === 'string' ? fn.name : '';
    const call = this.slotFor(delta.index, id, name);
    if (id !== '' && call.id === '') call.id = id;
    if (name !== '' && call.name === '') call.name = name;
    const args = fn.arguments;
    if (typeof args === 'string') call.args += args;
    else if (isObject(args)) call.args = JSON.stringify(args);
  }

  private slotFor(index: unknown, id: string, name: string): PendingCall {
    if (typeof index === 'number') {
      const existing = this.byIndex.get(index);
      // A different id at a known index is a new call (servers that send every call as index 0).
      if (existing && !(id !== '' && existing.id !== '' && existing.id !== id)) return existing;
      const call = this.open();
      this.byIndex.set(index, call);
      return call;
    }
    if (id !== '') return this.calls.find((c) => c.id === id) ?? this.open();
    if (name !== '') return this.open();
    return this.calls.at(-1) ?? this.open();
  }

  private open(): PendingCall {
    const call: PendingCall = { id: '', name: '', args: '' };
    this.calls.push(call);
    return call;
  }

  get size(): number {
    return this.calls.length;
  }

  /** The finished calls, in order, with parsed arguments and generated ids where missing. */
  finish(): ToolCallPart[] {
    return this.calls.map((c) => {
      const parsed = parseToolArgs(c.args);
      const part: ToolCallPart = {
        type: 'tool-call',
        id: c.id || generatedCallId(),
        name: c.name,
        args: parsed.args,
      };
      if (c.name === '') part.argsError = 'the model sent a tool call without a name';
      else if (parsed.error !== undefined) part.argsError = parsed.error;
      return part;
    });
  }
}

const FINISH_REASONS: Record<string, FinishReason> = {
  stop: 'stop',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  length: 'length',
  content_filter: 'content-filter',
};

export function mapOpenAIFinish(reason: string | undefined, hasCalls: boolean): FinishReason {
  if (reason === undefined) return hasCalls ? 'tool-calls' : 'stop';
  const mapped = FINISH_REASONS[reason] ?? 'other';
  // Some servers (older Ollama) report `stop` although the reply carries tool calls.
  return mapped === 'stop' && hasCalls ? 'tool-calls' : mapped;
}

export function mapOpenAIUsage(u: Json): Usage {
  const usage: Usage = {
    inputTokens: num(u.prompt_tokens) ?? 0,
    outputTokens: num(u.completion_tokens) ?? 0,
  };
  const promptDetails = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const cached = num(promptDetails.cached_tokens) ?? num(u.prompt_cache_hit_tokens);
  if (cached !== undefined) usage.cachedInputTokens = cached;
  const completionDetails = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const reasoning = num(completionDetails.reasoning_tokens);
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}

export class OpenAIStreamState {
  private readonly splitter = new ThinkTagSplitter();
  private readonly tools = new ToolCallAssembler();
  private usage: Usage | undefined;
  private finishReason: string | undefined;

  constructor(private readonly profile: string) {}

  /** True once a choice reported its finish reason. */
  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  /** One parsed chunk → the text/thinking deltas it carries. Tool calls wait for `end`. */
  handle(chunk: unknown): Delta[] {
    if (!isObject(chunk)) {
      throw new LlmError('invalid-response', `${this.profile}: stream chunk is not a JSON object`, {
        profile: this.profile,
      });
    }
    if (chunk.error !== undefined && chunk.error !== null) throw this.streamError(chunk.error);
    if (isObject(chunk.usage)) this.usage = mapOpenAIUsage(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice: unknown = choices[0];
    if (!isObject(choice)) return [];
    const out: Delta[] = [];
    const delta = isObject(choice.delta) ? choice.delta : isObject(choice.message) ? choice.message : {};
    const reasoning = [delta.reasoning_content, delta.reasoning].find(
      (r) => typeof r === 'string' && r !== '',
    );
    if (typeof reasoning === 'string') out.push({ type: 'thinking', text: reasoning });
    if (typeof delta.content === 'string' && delta.content !== '') {
      for (const seg of this.splitter.push(delta.content)) out.push({ type: seg.type, text: seg.text });
    }
    if (Array.isArray(delta.tool_calls)) {
      for (const call of delta.tool_calls) if (isObject(call)) this.tools.add(call);
    }
    if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '') {
      this.finishReason = choice.finish_reason;
    }
    return out;
  }

  /** The closing deltas: held-back text, complete tool calls, usage, finish. */
  end(): Delta[] {
    const out: Delta[] = this.splitter.flush().map((seg) => ({ type: seg.type, text: seg.text }));
    for (const call of this.tools.finish()) out.push({ type: 'tool-call', call });
    if (this.usage) out.push({ type: 'usage', usage: this.usage });
    out.push({ type: 'finish', reason: mapOpenAIFinish(this.finishReason, this.tools.size > 0) });
    return out;
  }

  /** An error object sent inside the stream (OpenRouter, vLLM do this). */
  private streamError(error: unknown): LlmError {
    const obj = isObject(error) ? error : {};
    const message =
      typeof error === 'string' ? error : typeof obj.message === 'string' ? obj.message : 'unknown error';
    const code = num(obj.code) ?? num(obj.status);
    // Without a usable code, treat it as an upstream server failure (worth a retry).
    const status = code !== undefined && code >= 400 && code < 600 ? code : 500;
    return new LlmError('http', `${this.profile}: error in stream (${status}): ${message}`, {
      profile: this.profile,
      status,
    });
  }
}
