/**
 * The shapes of the HTTP API (see the API contract). The web UI talks HTTP only,
 * so these mirror the JSON on the wire rather than importing server code.
 */

export interface SessionUsage {
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
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
}

export type ToolStatus = 'ok' | 'error' | 'cancelled' | 'skipped' | 'denied';

export type Part =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'image'; mediaType: string; data?: string; url?: string }
  | { type: 'tool-call'; id: string; name: string; args: Record<string, unknown> }
  | {
      type: 'tool-result';
      callId: string;
      name: string;
      output: string;
      status?: ToolStatus;
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
  score?: number;
}

export interface ImageInput {
  mediaType: string;
  /** Base64, without the `data:` prefix. */
  data: string;
}

export type ApprovalDecision = 'once' | 'always' | 'reject';

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface PlanItem {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** The agent's event stream (src/agent/events.ts), as JSON on the wire. */
export type AgentEvent =
  | { type: 'turn_start'; sessionId: string; turnId: string; input: string }
  | { type: 'text_delta'; text: string }
  | { type: 'thinking_delta'; text: string }
  | { type: 'tool_start'; callId: string; name: string; args: Record<string, unknown> }
  | {
      type: 'tool_finish';
      callId: string;
      name: string;
      status: ToolStatus;
      output: string;
      durationMs: number;
    }
  | {
      type: 'approval_request';
      requestId: string;
      callId: string;
      tool: string;
      args: Record<string, unknown>;
      subject?: string;
      approval: string;
      reason: string;
    }
  | { type: 'approval_result'; requestId: string; decision: ApprovalDecision; message?: string }
  | { type: 'question'; requestId: string; callId: string; question: string; options?: string[] }
  | { type: 'plan'; kind: 'todo' | 'plan'; title?: string; items: PlanItem[] }
  | { type: 'notice'; title: string; body: string }
  | { type: 'tools_loaded'; names: string[]; by: string }
  | { type: 'compaction'; tokensBefore: number; tokensAfter: number; limit: number; steps: string[] }
  | { type: 'usage'; model: string; usage: Usage; costUsd: number }
  | { type: 'retry'; attempt: number; delayMs: number; reason: string; profile: string }
  | { type: 'fallback'; from: string; to: string; reason: string }
  | { type: 'error'; message: string; kind: string }
  | { type: 'turn_end'; turnId: string; reason: string; iterations: number }
  | {
      type: 'done';
      sessionId: string;
      reason: string;
      text: string;
      message?: string;
      usage: Usage;
      costUsd: number;
    };

export interface ConfigView {
  active_profile: string;
  profiles: string[];
}

export interface ListOf<T> {
  object: 'list';
  data: T[];
}
