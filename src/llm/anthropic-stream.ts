/**
 * Turns Anthropic message-stream events into deltas. Pure state, no I/O.
 * A thinking block's signature is emitted when the block closes, as a thinking
 * delta with empty text and the `signature` set.
 */
import { LlmError } from './errors.js';
import { parseToolArgs } from './json.js';
import type { Delta, FinishReason, ToolCallPart, Usage } from './types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

interface OpenBlock {
  type: string;
  id: string;
  name: string;
  json: string;
  /** `input` of the block start, used when no input_json_delta follows. */
  startInput: Json | undefined;
  signature: string;
}

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool-calls',
  max_tokens: 'length',
  refusal: 'content-filter',
};

export function mapAnthropicStop(reason: string | undefined): FinishReason {
  if (reason === undefined) return 'stop';
  return STOP_REASONS[reason] ?? 'other';
}

/** Status codes Anthropic uses for the error types it may send inside a stream. */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export class AnthropicStreamState {
  private readonly blocks = new Map<number, OpenBlock>();
  private inputTokens = 0;
  private cacheRead: number | undefined;
  private cacheWrite = 0;
  private outputTokens = 0;
  private stopReason: string | undefined;
  private stopped = false;

  constructor(private readonly profile: string) {}

  /** True once `message_stop` arrived. */
  get finished(): boolean {
    return this.stopped;
  }

  handle(event: unknown): Delta[] {
    if (!isObject(event)) {
      throw new LlmError('invalid-response', `${this.profile}: stream event is not a JSON object`, {
        profile: this.profile,
      });
    }
    switch (event.type) {
      case 'message_start':
        if (isObject(event.message) && isObject(event.message.usage)) this.readUsage(event.message.usage);
        return [];
      case 'content_block_start':
        return this.startBlock(
          num(event.index) ?? 0,
          isObject(event.content_block) ? event.content_block : {},
        );
      case 'content_block_delta':
        return this.blockDelta(num(event.index) ?? 0, isObject(event.delta) ? event.delta : {});
      case 'content_block_stop':
        return this.stopBlock(num(event.index) ?? 0);
      case 'message_delta':
        if (isObject(event.delta) && typeof event.delta.stop_reason === 'string') {
          this.stopReason = event.delta.stop_reason;
        }
        if (isObject(event.usage)) this.readUsage(event.usage);
        return [];
      case 'message_stop':
        this.stopped = true;
        return [];
      case 'error':
        throw this.streamError(isObject(event.error) ? event.error : {});
      default:
        return []; // ping and event types added later
    }
  }

  /** The closing deltas: usage then finish. */
  end(): Delta[] {
    const usage: Usage = {
      inputTokens: this.inputTokens + (this.cacheRead ?? 0) + this.cacheWrite,
      outputTokens: this.outputTokens,
    };
    if (this.cacheRead !== undefined) usage.cachedInputTokens = this.cacheRead;
    return [
      { type: 'usage', usage },
      { type: 'finish', reason: mapAnthropicStop(this.stopReason) },
    ];
  }

  /** Usage counts are cumulative: a later event replaces an earlier value. */
  private readUsage(u: Json): void {
    const input = num(u.input_tokens);
    if (input !== undefined) this.inputTokens = input;
    const output = num(u.output_tokens);
    if (output !== undefined) this.outputTokens = output;
    const read = num(u.cache_read_input_tokens);
    if (read !== undefined) this.cacheRead = read;
    const write = num(u.cache_creation_input_tokens);
    if (write !== undefined) this.cacheWrite = write;
  }

  private startBlock(index: number, block: Json): Delta[] {
    const type = str(block.type);
    this.blocks.set(index, {
      type,
      id: str(block.id),
      name: str(block.name),
      json: '',
      startInput: isObject(block.input) ? block.input : undefined,
      signature: str(block.signature),
    });
    if (type === 'text' && str(block.text) !== '') return [{ type: 'text', text: str(block.text) }];
    if (type === 'thinking' && str(block.thinking) !== '')
      return [{ type: 'thinking', text: str(block.thinking) }];
    return [];
  }

  private blockDelta(index: number, delta: Json): Delta[] {
    const block = this.blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        return str(delta.text) === '' ? [] : [{ type: 'text', text: str(delta.text) }];
      case 'thinking_delta':
        return str(delta.thinking) === '' ? [] : [{ type: 'thinking', text: str(delta.thinking) }];
      case 'signature_delta':
        if (block) block.signature += str(delta.signature);
        return [];
      case 'input_json_delta':
        if (block) block.json += str(delta.partial_json);
        return [];
      default:
        return [];
    }
  }

  private stopBlock(index: number): Delta[] {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (!block) return [];
    if (block.type === 'thinking' && block.signature !== '') {
      return [{ type: 'thinking', text: '', signature: block.signature }];
    }
    if (block.type !== 'tool_use') return [];
    const call: ToolCallPart = { type: 'tool-call', id: block.id, name: block.name, args: {} };
    if (block.json === '' && block.startInput) {
      call.args = block.startInput;
    } else {
      const parsed = parseToolArgs(block.json);
      call.args = parsed.args;
      if (parsed.error !== undefined) call.argsError = parsed.error;
    }
    return [{ type: 'tool-call', call }];
  }

  private streamError(error: Json): LlmError {
    const type = str(error.type) || 'unknown_error';
    const message = str(error.message) || 'no message';
    const status = ERROR_STATUS[type] ?? 500;
    const kind = status === 401 || status === 403 ? 'auth' : 'http';
    return new LlmError(kind, `${this.profile}: error in stream (${type}, ${status}): ${message}`, {
      profile: this.profile,
      status,
    });
  }
}
