/**
 * The one internal message shape and the one stream of deltas.
 * Provider adapters translate to and from wire formats at the edge; nothing else
 * in the codebase knows a wire format.
 */

import type { ProviderKind } from '../util/provider-kinds.js';
import type { LlmErrorKind } from './errors.js';

export type Role = 'system' | 'user' | 'assistant' | 'tool';

export interface TextPart {
  type: 'text';
  text: string;
}

/** An image, either inline (base64 `data`) or by `url`. */
export interface ImagePart {
  type: 'image';
  mediaType: string;
  data?: string;
  url?: string;
}

export interface ThinkingPart {
  type: 'thinking';
  text: string;
  /** Anthropic's signature for a thinking block, passed back unchanged. */
  signature?: string;
}

export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  args: Record<string, unknown>;
  /**
   * Set when the arguments the model sent were not valid JSON and could not be
   * repaired; `args` is then `{}` and the loop answers the call with an error.
   */
  argsError?: string;
}

export interface ToolResultPart {
  type: 'tool-result';
  callId: string;
  name: string;
  output: string;
  isError: boolean;
  /**
   * Images the tool returned (inline base64), e.g. `read_file` on a PNG or an MCP
   * tool's image content. Wires send them to models that take images; for a
   * text-only model `output` (which describes each image) goes alone.
   */
  images?: ImagePart[];
}

export type Part = TextPart | ImagePart | ThinkingPart | ToolCallPart | ToolResultPart;

/**
 * system: text parts. user: text and image parts. assistant: text, thinking and
 * tool-call parts. tool: tool-result parts (one message may carry several).
 */
export interface Message {
  role: Role;
  parts: Part[];
}

/** A tool as the model sees it: a JSON schema generated from the tool's zod schema. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** Which tool the model must call: any or none, one of them (`required`), or the one named. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * The shape the model's text must have: a JSON object, or a JSON value matching
 * `schema`. The OpenAI wire sends it as `response_format`; Anthropic (which has no such
 * parameter) gets it as an instruction in the system prompt.
 */
export type ResponseFormat =
  | { type: 'json_object' }
  | {
      type: 'json_schema';
      name: string;
      schema: Record<string, unknown>;
      strict?: boolean;
      description?: string;
    };

export interface ModelRequest {
  messages: Message[];
  tools?: ToolSpec[];
  /** Sent only with tools. */
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
  maxOutputTokens?: number;
  temperature?: number;
  /**
   * The user asked for this call again (a Retry): an endpoint whose circuit breaker is
   * open gets it at once as its trial call, instead of failing until the recovery time.
   */
  probe?: boolean;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Prompt tokens served from the provider's cache, when it reports them. */
  cachedInputTokens?: number;
  reasoningTokens?: number;
}

export type FinishReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'other';

/**
 * One stream of deltas, whatever the provider.
 * - `text` / `thinking`: incremental content.
 * - `tool-call`: a complete call, emitted once its arguments are fully assembled.
 * - `usage`: token counts (usually once, at the end).
 * - `finish`: the last delta of a successful stream.
 * - `retry`: emitted by the resilience layer before it tries again; when `discard`
 *   is true the consumer must drop what it received so far from this request.
 * - `fallback`: the resilience layer moved to the next profile in the chain.
 */
export type Delta =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string }
  | { type: 'tool-call'; call: ToolCallPart }
  | {
      type: 'usage';
      usage: Usage;
      /** The model that produced it, when a wrapper knows better than `Provider.info` (fallback). */
      model?: ModelInfo;
    }
  | { type: 'finish'; reason: FinishReason }
  | {
      type: 'retry';
      /** 1 for the first retry. */
      attempt: number;
      /** How many retries the profile gets at most. */
      maxRetries: number;
      delayMs: number;
      reason: string;
      /** The failed attempt's error kind (`timeout`: the model did not answer in time). */
      kind: LlmErrorKind;
      profile: string;
      discard: boolean;
    }
  | { type: 'fallback'; from: string; to: string; reason: string };

export interface ModelInfo {
  /** The profile name this provider was built from (e.g. `main_model`). */
  profile: string;
  provider: ProviderKind;
  model: string;
  baseUrl: string;
  contextWindow: number;
  maxOutputTokens: number;
  /**
   * Shares of the context window at which the context engine trims, asks for
   * brevity, and stops offering tools (defaults depend on the window size).
   */
  contextThresholds?: ContextThresholds;
  /** US dollars per million tokens. */
  inputPrice?: number;
  outputPrice?: number;
  cachedInputPrice?: number;
  /**
   * False: the model takes no images, so images in tool results are described in
   * text instead of sent (see llm/images.ts). Set by `toModelInfo` from the model
   * registry; absent means the model takes them.
   */
  images?: boolean;
}

/** `openai`, `anthropic` or a provider registered at run time (see llm/providers.ts). */
export type { ProviderKind };

export interface ContextThresholds {
  compressAt?: number;
  briefAt?: number;
  finalAt?: number;
}

/**
 * A model endpoint. Injected into the agent, never imported as a singleton.
 * `stream` throws `LlmError` on failure (after its own retries, if any).
 */
export interface Provider {
  readonly info: ModelInfo;
  stream(request: ModelRequest, signal?: AbortSignal): AsyncIterable<Delta>;
}
