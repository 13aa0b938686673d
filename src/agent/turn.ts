/**
 * What one turn runs with: its agent's services and settings (the agent's own
 * objects, by reference) and the turn's state. The loop and the tool execution
 * read all three; nothing is copied field by field on the way down.
 */
import type { Message } from '../llm/types.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { AwaitingClientCalls, ClientTurn } from './client-turn.js';
import type { SessionContext } from './context.js';
import type { SessionHost } from './host.js';
import type { TurnRecorder, UsageMeter } from './record.js';
import type { AgentServices } from './services.js';
import type { AgentSettings } from './settings.js';
import type { AgentTrace } from './trace.js';

/** What one turn needs of the session's context: building requests, and L2 pairs after it. */
export type TurnContext = Pick<
  SessionContext,
  'build' | 'takeLanded' | 'observe' | 'finishTurn' | 'failedCompactions'
> &
  Partial<Pick<SessionContext, 'skills'>>;

/** The session's side of a turn: what it appends to and answers to while the turn runs. */
export interface TurnState {
  sessionId: string;
  cwd: string;
  /** The session's depth: 0 top-level, 1 a sub-agent's, 2 a sub-agent's sub-agent's. */
  depth: number;
  /** The session's system prompt (its size counts against the tools the loop preloads). */
  systemPrompt: string;
  /** Directories besides the workspace that file tools may use: the settings' and `outputDir`. */
  roots: readonly string[];
  /** Directories file tools may read but not write (the offered skills' folders). */
  readRoots?: readonly string[];
  /** Where truncated tool outputs are saved in full. */
  outputDir?: string;
  /** The in-memory transcript (no system message); the turn appends to it. */
  history: Message[];
  /** Steering messages queued by the user while the turn runs. */
  steering: string[];
  /** Tool-call ids already used in this session (some models reuse `call_0`). */
  callIds: Set<string>;
  policy: PermissionPolicy;
  /** What the session shares with the tools it runs (state, questions, loaded tools, the client's files). */
  host: SessionHost;
  signal: AbortSignal;
  /**
   * Whether `signal` has aborted, as a field the loop reads at every step: each
   * AbortSignal gets a V8 hidden class of its own, so reading `.aborted` on a new
   * turn's signal in the loop's optimised code throws it away (recompiled per turn).
   */
  stop: { readonly aborted: boolean };
  /** Builds each request's messages from the transcript (layers, budget, trims). */
  context: TurnContext;
  /** Every message, tool-call transition and model call's usage goes here (the loop writes nothing itself). */
  recorder: TurnRecorder;
  /** The prompt's usage, added to once per model call. */
  usage: UsageMeter;
  /** The prompt's `invoke_agent` span: its model calls and tool calls are spans under it. */
  trace: AgentTrace;
  /** The work mode's first tools, sent beside the core tier (agent/work-modes.ts). */
  preload?: readonly string[];
  /** The refusal of a call to a tool the session has but its work mode does not offer. */
  refusal?: (toolName: string) => string | undefined;
  /** The client's tools, tool choice and response format for this prompt (OpenAI-compatible faces). */
  client?: ClientTurn;
  /** The client tool calls waiting for results (a turn that stopped for them); set and cleared by the loop. */
  clientCalls?: AwaitingClientCalls;
  /** The turn's round of the operation journal: snapshot before the first call that may change files. */
  round?: { beforeChange(files?: readonly string[]): Promise<void> };
}

export interface Turn {
  /** The loop calls the model and runs tools; it never touches the store or memory. */
  services: Pick<AgentServices, 'provider' | 'tools'>;
  settings: AgentSettings;
  state: TurnState;
}
