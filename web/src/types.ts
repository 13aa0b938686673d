/**
 * The shapes of the HTTP API (see the API contract). The web UI talks HTTP only:
 * it imports no runtime code, but the event stream's types come from the one
 * definition the agent uses (type-only imports, erased from the bundle).
 */
import type {
  AgentEvent,
  ApprovalDecision,
  SubagentInfo,
  ToolCallRecord,
  ToolCallState,
  ToolContent,
} from '../../src/agent/events.js';
import type { Usage } from '../../src/llm/types.js';
import type { PlanItem } from '../../src/tools/types.js';

export type {
  AgentEvent,
  ApprovalDecision,
  PlanItem,
  SubagentInfo,
  ToolCallRecord,
  ToolCallState,
  ToolContent,
  Usage,
};

/** A sub-agent's event on the session's stream: the event itself, and who sent it under which call. */
export interface ParentField {
  callId: string;
  sessionId: string;
  label: string;
  role: string;
  depth: number;
}

/** An event of the session's stream (a sub-agent's with `parent`). */
export type StreamEvent = AgentEvent & { parent?: ParentField };

export interface SessionUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  /** The sub-agents' share (included in the totals above). */
  subagents?: { count: number; input_tokens: number; output_tokens: number; cost_usd: number };
}

/** How a sub-agent stands (`stopped`: stopped from outside, until the call's result says why). */
export type SubagentStatus =
  | 'running'
  | 'waiting for approval'
  | 'stopped'
  | 'done'
  | 'budget'
  | 'timeout'
  | 'max turns'
  | 'failed'
  | 'cancelled';

/** One sub-agent of a session (`GET /v1/sessions/{id}/children`). */
export interface SubagentSummary {
  id: string;
  label: string;
  description: string;
  role: string;
  depth: number;
  parent_call_id: string | null;
  status: SubagentStatus;
  usage: { input_tokens: number; output_tokens: number; cost_usd: number };
  children: number;
}

export interface Session {
  id: string;
  title: string | null;
  cwd: string;
  model: string | null;
  profile: string | null;
  created_at: number;
  updated_at: number;
  message_count: number;
  busy: boolean;
  usage: SessionUsage;
  parent_id?: string | null;
  role?: string | null;
  depth?: number;
  /** The work mode; null for a sub-agent's session (absent from an older server). */
  work_mode?: string | null;
  /** Client tool calls waiting for the API client's results (absent from an older server). */
  awaiting_client_calls?: string[];
}

/** One work mode as `GET /v1/modes` lists it. */
export interface WorkModeInfo {
  name: string;
  description: string;
  permission_mode: string;
  tool_count: number;
  builtin: boolean;
}

export type Part =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'image'; mediaType: string; data?: string; url?: string }
  | {
      type: 'tool-call';
      id: string;
      name: string;
      args: Record<string, unknown>;
      /** The call's state now, from the tool-call log (absent for a call never recorded). */
      state?: ToolCallState;
    }
  | {
      type: 'tool-result';
      callId: string;
      name: string;
      output: string;
      /** The call's state from the tool-call log (`completed`, `error`, `denied`, …). */
      status?: ToolCallState;
      isError?: boolean;
      durationMs?: number;
    };

export interface StoredMessage {
  id: number | string;
  seq: number;
  role: 'user' | 'assistant' | 'tool' | 'system';
  parts: Part[];
  created_at: number;
}

export interface Memory {
  id: number;
  content: string;
  category: string;
  priority: number;
  importance: number;
  tags: string[];
  pinned: boolean;
  created_at: number;
  /** When the fact became true / stopped being true (set when another version replaced it). */
  valid_from: number;
  valid_to: number | null;
  /** The version that replaced this one. */
  superseded_by: number | null;
  deleted_at: number | null;
}

/** A search result: the version that answers, its 0–1 score, and the fact's other versions (newest first). */
export interface MemoryHit extends Memory {
  score: number;
  versions: Memory[];
}

export interface RememberResult {
  outcome: 'new' | 'update' | 'duplicate' | 'history';
  memory: Memory;
  /** The memory this one replaced (outcome `update`). */
  superseded: Memory | null;
  judged: boolean;
}

export interface RestoreResult {
  memory: Memory;
  /** The version that had replaced it, now superseded in turn (restore with `replace`). */
  replaced: Memory | null;
}

export interface ImageInput {
  mediaType: string;
  /** Base64, without the `data:` prefix. */
  data: string;
}

export interface ConfigView {
  active_profile: string;
  profiles: string[];
}

/** An entry of `GET /v1/models`: a profile (`id`) and the model it calls. */
export interface ModelEntry {
  id: string;
  model: string;
}

export interface ListOf<T> {
  object: 'list';
  data: T[];
}
