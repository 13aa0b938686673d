/** What a face passes when it opens a session and when it prompts one. */
import type { PermissionPolicy } from '../tools/permissions.js';
import type { ClientFs, ClientShell } from '../tools/types.js';
import type { ClientToolResult, ClientTurn } from './client-tools.js';
import type { Interactions } from './interactions.js';
import type { TurnInput } from './loop.js';
import type { TraceParent } from './trace.js';

/** Per-session extras a face supplies. */
export interface SessionOptions {
  /** The client's file system and terminal (ACP editors): file tools and bash go through them. */
  fs?: ClientFs;
  shell?: ClientShell;
  /** How many stored messages `history` was built from (default: the store's count now). */
  storedCount?: number;
  /** A sub-agent's session: its parent's pending asks (a child's wait there, answered on the parent). */
  interactions?: Interactions;
  /** A sub-agent's session: its permission policy (never more than its parent's). */
  policy?: PermissionPolicy;
}

export interface PromptOptions {
  signal?: AbortSignal;
  images?: TurnInput['images'];
  /** Instead of the input, run the last message again (see `retry`). */
  retry?: boolean;
  /**
   * A retry's first model call tries a model paused by its circuit breaker at once (the
   * user asked again); false: it waits like any call (an API client's automatic resend).
   */
  probe?: boolean;
  /** A client's instructions for this turn only (Responses API): in its system prompt, never stored. */
  instructions?: string;
  /** Where this prompt's `invoke_agent` span attaches (a sub-agent's: its parent's tool call). */
  traceParent?: TraceParent;
  /** A client's tools, tool choice and response format (agent/client-tools.ts). */
  client?: ClientTurn;
  /** Instead of the input: the client's results for the calls the last turn stopped for; that turn goes on. */
  toolResults?: ClientToolResult[];
  /**
   * A turn that leaves nothing behind (Responses `store: false`): no memories extracted
   * from it and no experience recorded; its session is deleted by the face afterwards.
   */
  ephemeral?: boolean;
}
