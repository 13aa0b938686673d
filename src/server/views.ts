/** JSON views of stored rows: sessions, messages and memories in the API's snake_case shapes. */

import type { Part } from '../llm/types.js';
import type { MemorySearchHit } from '../memory/api.js';
import type { Memory } from '../memory/types.js';
import type {
  SessionInfo,
  SessionsService,
  StoredMessage,
  SubagentSummary,
  ToolCallRow,
} from '../runtime/sessions.js';
import { isFinished } from '../runtime/tool-record.js';

export interface SessionView {
  id: string;
  title: string | null;
  cwd: string;
  model: string | null;
  profile: string | null;
  created_at: number;
  updated_at: number;
  message_count: number;
  busy: boolean;
  /** Its sub-agents' usage included; `subagents`: their share (all depths). */
  usage: {
    input_tokens: number;
    output_tokens: number;
    cost_usd: number;
    subagents: { count: number; input_tokens: number; output_tokens: number; cost_usd: number };
  };
  /** A sub-agent's session: its parent, the parent's call that started it, its role and depth (0: top level). */
  parent_id: string | null;
  parent_call_id: string | null;
  role: string | null;
  depth: number;
  /** The work mode (`develop`, `review`, …); null for a sub-agent's session, which runs its role. */
  work_mode: string | null;
  /** The ids of client tool calls the last turn stopped for, whose results the API client has not sent yet. */
  awaiting_client_calls: string[];
}

export function sessionView(
  sessions: SessionsService,
  row: SessionInfo,
  busy: boolean,
  messageCount?: number,
): SessionView {
  const totals = sessions.usageWithSubagents(row.id);
  const sub = totals.subagents;
  return {
    id: row.id,
    title: row.title,
    cwd: row.cwd,
    model: row.model,
    profile: row.profile,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    message_count: messageCount ?? sessions.messageCount(row.id),
    busy,
    usage: {
      input_tokens: totals.inputTokens,
      output_tokens: totals.outputTokens,
      cost_usd: totals.costUsd,
      subagents: {
        count: sub.count,
        input_tokens: sub.inputTokens,
        output_tokens: sub.outputTokens,
        cost_usd: sub.costUsd,
      },
    },
    parent_id: row.parentId ?? null,
    parent_call_id: row.parentCallId ?? null,
    role: row.role ?? null,
    depth: row.depth,
    work_mode: row.role ? null : sessions.workMode(row.id),
    awaiting_client_calls: sessions.clientCalls(row.id)?.calls.map((c) => c.id) ?? [],
  };
}

/** One sub-agent of a session (`GET /v1/sessions/{id}/children`). */
export function subagentView(c: SubagentSummary): Record<string, unknown> {
  return {
    id: c.id,
    label: c.label,
    description: c.description,
    role: c.role,
    depth: c.depth,
    parent_call_id: c.parentCallId,
    status: c.status,
    usage: {
      input_tokens: c.usage.inputTokens,
      output_tokens: c.usage.outputTokens,
      cost_usd: c.usage.costUsd,
    },
    children: c.children,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

/**
 * Stored parts as they are; a tool call with its state now, and a tool result with its
 * call's final state (`status`) and duration, from the tool-call log.
 */
function partView(part: Part, calls: Map<string, ToolCallRow>): Record<string, unknown> {
  if (part.type === 'tool-call') {
    const call = calls.get(part.id);
    return call ? { ...part, state: call.state } : { ...part };
  }
  if (part.type !== 'tool-result') return { ...part };
  const call = calls.get(part.callId);
  return {
    ...part,
    status: call && isFinished(call.state) ? call.state : part.isError ? 'error' : 'completed',
    ...(call?.durationMs != null ? { durationMs: call.durationMs } : {}),
  };
}

export function messagesView(sessions: SessionsService, sessionId: string): Array<Record<string, unknown>> {
  const calls = new Map(sessions.toolCalls(sessionId).map((c) => [c.callId, c]));
  return sessions.messages(sessionId).map((m: StoredMessage) => ({
    id: m.id,
    seq: m.seq,
    role: m.role,
    parts: m.parts.map((p) => partView(p, calls)),
    status: m.status,
    created_at: m.createdAt,
  }));
}

/** A memory in the API's shape: every route that returns memories uses this one view. */
export interface MemoryView {
  id: number;
  content: string;
  priority: number;
  importance: number;
  category: string;
  tags: string[];
  content_hash: string;
  expires_at: number | null;
  pinned: boolean;
  created_at: number;
  accessed_at: number | null;
  access_count: number;
  valid_from: number;
  valid_to: number | null;
  superseded_by: number | null;
  subject: string | null;
  attribute: string | null;
  source_session_id: string | null;
  source_message_id: number | null;
  scope: string;
  deleted_at: number | null;
}

export function memoryView(m: Memory): MemoryView {
  return {
    id: m.id,
    content: m.content,
    priority: m.priority,
    importance: m.importance,
    category: m.category,
    tags: m.tags,
    content_hash: m.contentHash,
    expires_at: m.expiresAt,
    pinned: m.pinned,
    created_at: m.createdAt,
    accessed_at: m.accessedAt,
    access_count: m.accessCount,
    valid_from: m.validFrom,
    valid_to: m.validTo,
    superseded_by: m.supersededBy,
    subject: m.subject,
    attribute: m.attribute,
    source_session_id: m.sourceSessionId,
    source_message_id: m.sourceMessageId,
    scope: m.scope,
    deleted_at: m.deletedAt,
  };
}

/**
 * A search hit: the memory that answers, its 0–1 score, the fact's other versions
 * (newest first), and `newer`: the id of a newer answer ranked above it that is
 * probably a later version of it.
 */
export function memoryHitView(
  hit: MemorySearchHit,
): MemoryView & { score: number; versions: MemoryView[]; newer?: number } {
  return {
    ...memoryView(hit.memory),
    score: hit.score,
    versions: hit.versions.map(memoryView),
    ...(hit.newer === undefined ? {} : { newer: hit.newer }),
  };
}
