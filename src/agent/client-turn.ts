/** The types of client tools (agent/client-tools.ts), apart so that the turn and the recorder can name them. */
import type { ModelRequest, ResponseFormat, ToolChoice, ToolSpec } from '../llm/types.js';

/** What a client adds to one prompt: its tools, the tool choice and the final answer's shape. */
export interface ClientTurn {
  /** Offered beside Tea's tools (names must not collide: see `clientToolCollision`). */
  tools: ToolSpec[];
  /**
   * `auto` and `none` hold for every model call of the prompt; `required` and a named
   * tool hold for its first model call only (later calls are `auto`, or the loop
   * would never end).
   */
  toolChoice?: ToolChoice;
  /** The final answer's shape, sent to the model with every call (any call may be the last). */
  responseFormat?: ResponseFormat;
  /** Sampling the client asked for, on every model call of the prompt. */
  sampling?: Pick<ModelRequest, 'temperature' | 'maxOutputTokens'>;
  /** Checks the final answer (built from `responseFormat`): valid, repaired once, else the turn fails. */
  answer?: AnswerCheck;
}

/** A final-answer check: `value` is the parsed answer; `error` says what is wrong, for the repair round. */
export interface AnswerCheck {
  check(text: string): { ok: true; value: unknown } | { ok: false; error: string };
  /** The message asking the model, once, to correct an answer `check` refused. */
  repairPrompt(error: string): string;
  /** The client's name for the format, in the failure (`response_format`, `text.format`). */
  param?: string;
}

/** A client's result for one of its tools' calls. */
export interface ClientToolResult {
  callId: string;
  output: string;
  isError?: boolean;
}

/** The calls a turn stopped for, waiting for the client (kept in the session's state). */
export interface AwaitingClientCalls {
  turnId: string;
  calls: { id: string; name: string; args: Record<string, unknown> }[];
}
