/**
 * A fluent builder of one scripted model reply. The same `Reply` can be served on
 * either wire (OpenAI chat completions or Anthropic messages); the server renders it.
 */

export type ReasoningField = 'reasoning_content' | 'reasoning';

export type ReplyItem =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string; signature: string | undefined }
  | {
      kind: 'tool-call';
      id: string | undefined;
      name: string;
      rawArgs: string;
      /** The complete call arrives in one chunk (Ollama style). */
      whole: boolean;
      /** OpenAI wire: leave out `index` on the tool-call delta. */
      noIndex: boolean;
    };

export interface ScriptedUsage {
  input: number;
  output: number;
  cached?: number;
  reasoning?: number;
}

export interface ScriptedError {
  status: number;
  message?: string;
  /** Seconds, sent as the `retry-after` header. */
  retryAfter?: number;
  /** Milliseconds, sent as the `retry-after-ms` header. */
  retryAfterMs?: number;
}

/** One scripted reply, as plain data. */
export interface Reply {
  items: ReplyItem[];
  reasoningField: ReasoningField;
  usage: ScriptedUsage | undefined;
  finish: string | undefined;
  error: ScriptedError | undefined;
  /** Accept the request and never send headers. */
  hang: boolean;
  /** Send this many chunks, then stall forever. */
  stallAfter: number | undefined;
  /** Send this many chunks, then destroy the socket. */
  cutAfter: number | undefined;
  /** Send the headers, then hold the stream until the test calls `server.release(gate)`. */
  gate: string | undefined;
  chunkDelayMs: number;
  /** Characters per streamed text/thinking/argument piece. */
  chunkSize: number;
}

export interface ToolCallOptions {
  id?: string;
  whole?: boolean;
  /** OpenAI wire: send the call with no `id` (the client must generate one). */
  noId?: boolean;
  /** OpenAI wire: send the call with no `index` field. */
  noIndex?: boolean;
}

let callCounter = 0;

export class ReplyBuilder {
  private readonly reply: Reply = {
    items: [],
    reasoningField: 'reasoning_content',
    usage: undefined,
    finish: undefined,
    error: undefined,
    hang: false,
    stallAfter: undefined,
    cutAfter: undefined,
    gate: undefined,
    chunkDelayMs: 0,
    chunkSize: 8,
  };

  /** Streamed as several small chunks (split every `chunkSize` characters, default 8). */
  text(s: string): this {
    this.reply.items.push({ kind: 'text', text: s });
    return this;
  }

  /** OpenAI: `delta.reasoning_content` (or `reasoning`); Anthropic: a thinking block with a signature. */
  thinking(s: string, opts: { signature?: string } = {}): this {
    this.reply.items.push({ kind: 'thinking', text: s, signature: opts.signature });
    return this;
  }

  reasoningField(field: ReasoningField): this {
    this.reply.reasoningField = field;
    return this;
  }

  toolCall(name: string, args: Record<string, unknown>, opts: ToolCallOptions = {}): this {
    return this.toolCallRaw(name, JSON.stringify(args), opts);
  }

  /** A tool call whose arguments are sent exactly as given (malformed JSON etc.). */
  toolCallRaw(name: string, rawArgs: string, opts: ToolCallOptions = {}): this {
    callCounter += 1;
    this.reply.items.push({
      kind: 'tool-call',
      id: opts.noId ? undefined : (opts.id ?? `call_scripted_${callCounter}`),
      name,
      rawArgs,
      whole: opts.whole ?? false,
      noIndex: opts.noIndex ?? false,
    });
    return this;
  }

  usage(input: number, output: number, extra: { cached?: number; reasoning?: number } = {}): this {
    this.reply.usage = { input, output, ...extra };
    return this;
  }

  /**
   * Overrides finish_reason / stop_reason. Names of the other wire are translated
   * (e.g. `length` is sent as `max_tokens` on the Anthropic wire); others pass unchanged.
   */
  finish(reason: string): this {
    this.reply.finish = reason;
    return this;
  }

  /** An HTTP error response instead of a stream. */
  error(status: number, opts: { message?: string; retryAfter?: number; retryAfterMs?: number } = {}): this {
    this.reply.error = { status, ...opts };
    return this;
  }

  hang(): this {
    this.reply.hang = true;
    return this;
  }

  hangAfter(chunks: number): this {
    this.reply.stallAfter = chunks;
    return this;
  }

  cutAfter(chunks: number): this {
    this.reply.cutAfter = chunks;
    return this;
  }

  /** Holds the reply (after its headers) until `server.release(gate)`: a slow model on a signal, not a timer. */
  holdUntil(gate: string): this {
    this.reply.gate = gate;
    return this;
  }

  chunkDelay(ms: number): this {
    this.reply.chunkDelayMs = ms;
    return this;
  }

  chunkSize(chars: number): this {
    if (!Number.isInteger(chars) || chars < 1)
      throw new Error(`chunkSize must be a positive integer, got ${chars}`);
    this.reply.chunkSize = chars;
    return this;
  }

  build(): Reply {
    return structuredClone(this.reply);
  }
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

/** Splits a string into pieces of at most `size` characters (never inside a surrogate pair). */
export function splitPieces(s: string, size: number): string[] {
  const chars = Array.from(s);
  const pieces: string[] = [];
  for (let i = 0; i < chars.length; i += size) pieces.push(chars.slice(i, i + size).join(''));
  return pieces;
}

export function hasToolCalls(r: Reply): boolean {
  return r.items.some((item) => item.kind === 'tool-call');
}
