import type { ToolCallPart, Usage } from '../llm/types.js';
import type { ToolCallRecord } from '../store/tool-record.js';
import type { ApprovalClass, PlanItem } from '../tools/types.js';

export type {
  ToolCallKind,
  ToolCallOutcome,
  ToolCallRecord,
  ToolCallState,
  ToolContent,
} from '../store/tool-record.js';

/**
 * Why a turn stopped; `budget`: a sub-agent used up its token or cost budget;
 * `client_tools`: the model called a client's tools, the turn waits for their results
 * (the `done` event's `clientCalls`; continue with `Session.prompt` and `toolResults`).
 */
export type StopReason =
  | 'completed'
  | 'max_iterations'
  | 'cancelled'
  | 'doom_loop'
  | 'budget'
  | 'error'
  | 'client_tools';

/** A sub-agent as faces show it: its session, label, role and depth. */
export interface SubagentInfo {
  /** The child's own session (its transcript: the sessions API, `tea sessions show`). */
  sessionId: string;
  /** How faces name it, e.g. `reviewer #2`. */
  label: string;
  role: string;
  /** 1 for a child of a top-level session, 2 for a grandchild. */
  depth: number;
}

/** How a face answers an approval request. */
export type ApprovalDecision = 'once' | 'always' | 'reject';

/**
 * Everything a face shows comes from this one stream. A face never reaches into
 * the loop; the loop never knows which face listens.
 */
export type AgentEvent =
  | {
      type: 'turn_start';
      sessionId: string;
      turnId: string;
      input: string;
      /** The turn runs the stored last message again (`Session.retry`): it is no new message. */
      retry?: boolean;
    }
  /** A message the user sent while the turn ran (`Session.steer`), given to the model now. */
  | { type: 'steering'; text: string }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | {
      /**
       * A tool call changed state: pending → awaiting_approval → running → completed |
       * error | denied | cancelled | skipped. Validation and the permission check come
       * before `running`, so a refused call never shows as started.
       */
      type: 'tool_update';
      record: ToolCallRecord;
    }
  | {
      /** A tool call needs the user's approval; answer with `Session.approve(requestId, …)`. */
      type: 'approval_request';
      requestId: string;
      callId: string;
      tool: string;
      args: Record<string, unknown>;
      subject?: string;
      approval: ApprovalClass;
      reason: string;
      /** For a shell command line: the sub-command (or redirection, construct) that needs the approval. */
      part?: string;
      /** A sub-agent's call: it waits for the same answer, given on this (the parent's) session. */
      agent?: SubagentInfo;
      /**
       * What the answer `always` allows for the rest of the session: calls of `tool` with
       * exactly this `subject` (the path, URL or whole command line), or every call of
       * `tool` when `subject` is absent.
       */
      always?: { tool: string; subject?: string };
      /**
       * For a file write or edit: the unified diff it would make to the file as it is now
       * (`created`: the file does not exist yet). The agent leaves it out; `tea serve` adds it.
       */
      diff?: { path: string; created: boolean; text: string };
    }
  | { type: 'approval_result'; requestId: string; decision: ApprovalDecision; message?: string }
  | {
      /** The model asks the user something; answer with `Session.answer(requestId, text)`. */
      type: 'question';
      requestId: string;
      callId: string;
      question: string;
      options?: string[];
      /** Asked by a sub-agent: answered on this (the parent's) session. */
      agent?: SubagentInfo;
    }
  | { type: 'plan'; kind: 'todo' | 'plan'; title?: string; items: PlanItem[] }
  | { type: 'notice'; title: string; body: string }
  | { type: 'tools_loaded'; names: string[]; by: 'keywords' | 'tool_search' }
  | {
      /** The context was trimmed to fit the model's window (nothing is lost: see history_search). */
      type: 'compaction';
      tokensBefore: number;
      tokensAfter: number;
      limit: number;
      steps: string[];
      /**
       * With step `cut-last-message`: the last message (the user's new input, or a tool
       * result) was longer than the window; the model sees its first and last characters.
       */
      cut?: { role: string; chars: number; kept: number; tokens: number };
    }
  | { type: 'usage'; model: string; usage: Usage; costUsd: number }
  | {
      /** A model call failed and is tried again after `delayMs` (retry `attempt` of `maxRetries`). */
      type: 'retry';
      attempt: number;
      maxRetries: number;
      delayMs: number;
      reason: string;
      /** The failure's kind: `timeout` when the model did not answer in time. */
      kind: string;
      profile: string;
      /**
       * The failed attempt had already streamed text, thinking or tool calls: a face drops
       * what it showed of this model call (the store never kept it), as for a `fallback`.
       */
      discard: boolean;
    }
  | { type: 'fallback'; from: string; to: string; reason: string }
  | {
      /**
       * An event of a sub-agent that the tool call `callId` (e.g. `task`) runs, as it
       * happens. Its approval requests and questions come unwrapped instead (with `agent`).
       */
      type: 'subagent';
      callId: string;
      agent: SubagentInfo;
      event: AgentEvent;
    }
  | {
      type: 'error';
      message: string;
      kind: string;
      /** The model's HTTP status, when it answered the failed call with one (a 400: it rejected the request). */
      status?: number;
    }
  | {
      /**
       * The session's automatic title was stored (a background job after its first turn,
       * so after that turn's `done`): not in `prompt`'s stream, but told to `Session.onTitle`.
       */
      type: 'title';
      sessionId: string;
      title: string;
    }
  | {
      /**
       * A round of the operation journal ended (after its `turn_end`): the turn changed
       * these files in the workspace; `Runtime.journal.undo(sessionId)` reverts them.
       */
      type: 'journal';
      sessionId: string;
      roundId: number;
      turnId: string;
      files: { path: string; change: 'added' | 'modified' | 'deleted' }[];
    }
  | { type: 'turn_end'; turnId: string; reason: StopReason; iterations: number }
  | {
      type: 'done';
      sessionId: string;
      reason: StopReason;
      /** The final assistant text of the last turn. */
      text: string;
      /** A human-readable note when the stop was not a normal completion. */
      message?: string;
      /** The prompt's usage, its sub-agents' included. */
      usage: Usage;
      costUsd: number;
      /** The sub-agents' share of `usage` and `costUsd` (absent: none ran). */
      subagents?: { count: number; usage: Usage; costUsd: number };
      /** With `client_tools`: the client tools' calls the turn waits for, in the model's order. */
      clientCalls?: ToolCallPart[];
    };

export type AgentEventType = AgentEvent['type'];
