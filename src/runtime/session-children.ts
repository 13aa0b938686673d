/**
 * A session's sub-agents as stored: each child session with its label, role, how it
 * ended (read from the parent's delegation call, where a timeout shows) and its usage,
 * and a session's usage with its sub-agents' share. Used by SessionsService.
 */
import type { SessionRow, Store, UsageTotals } from '../store/index.js';
import { isFinished } from '../store/tool-record.js';
import { resultHeads, type SubagentStatus } from './subagents.js';

/** One sub-agent of a session, as faces list it. */
export interface SubagentSummary {
  id: string;
  /** How faces name it, e.g. `reviewer #2`. */
  label: string;
  /** The task's short description. */
  description: string;
  role: string;
  depth: number;
  /** The parent's tool call that started it. */
  parentCallId: string | null;
  /** `running` while the parent's call has not ended. */
  status: SubagentStatus;
  /** Its own usage and its own sub-agents'. */
  usage: UsageTotals;
  /** Its own sub-agents. */
  children: number;
  createdAt: number;
  updatedAt: number;
}

/** A session's usage, its sub-agents' (all depths) included, with their share. */
export interface UsageWithSubagents extends UsageTotals {
  subagents: UsageTotals & { count: number };
}

const ZERO: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  calls: 0,
};

function add(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    costUsd: a.costUsd + b.costUsd,
    calls: a.calls + b.calls,
  };
}

/** The usage of `id`'s sub-agents, all depths, and how many there are. */
function descendants(store: Store, id: string): { usage: UsageTotals; count: number } {
  let usage = ZERO;
  let count = 0;
  for (const c of store.sessions.children(id)) {
    const below = descendants(store, c.id);
    usage = add(usage, add(store.usage.totals(c.id), below.usage));
    count += 1 + below.count;
  }
  return { usage, count };
}

export function usageWithSubagents(store: Store, id: string): UsageWithSubagents {
  const own = store.usage.totals(id);
  const { usage, count } = descendants(store, id);
  return { ...add(own, usage), subagents: { ...usage, count } };
}

/** `reviewer #2: check the parser` → label and description (the delegation layer titles children so). */
function splitTitle(row: SessionRow): { label: string; description: string } {
  const title = row.title ?? '';
  const at = title.indexOf(': ');
  if (at < 0) return { label: title || (row.role ?? 'sub-agent'), description: '' };
  return { label: title.slice(0, at), description: title.slice(at + 2) };
}

/** How a child ended, from its parent's delegation call (`running` while that call has not ended). */
function statusOf(store: Store, parentId: string, row: SessionRow): SubagentStatus {
  if (!row.parentCallId) return 'done';
  const call = store.toolCalls.get(parentId, row.parentCallId);
  if (!call || !isFinished(call.state)) return 'running';
  const head = resultHeads(call.output ?? '').find((h) => row.id.startsWith(h.session));
  if (head) return head.status;
  return call.state === 'completed' ? 'done' : call.state === 'cancelled' ? 'cancelled' : 'failed';
}

export function childrenOf(store: Store, parentId: string): SubagentSummary[] {
  return store.sessions.children(parentId).map((row) => {
    const { label, description } = splitTitle(row);
    const below = descendants(store, row.id);
    return {
      id: row.id,
      label,
      description,
      role: row.role ?? 'general',
      depth: row.depth,
      parentCallId: row.parentCallId ?? null,
      status: statusOf(store, parentId, row),
      usage: add(store.usage.totals(row.id), below.usage),
      children: store.sessions.children(row.id).length,
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
    };
  });
}

/** How many sub-agents a session has (all depths). */
export function subagentCount(store: Store, id: string): number {
  return store.sessions.children(id).reduce((n, c) => n + 1 + subagentCount(store, c.id), 0);
}

/** One model's share of a session's usage. */
export interface ModelUsage extends UsageTotals {
  model: string;
  /** Of it, the share of sub-agents (all depths). */
  subagentCalls: number;
}

/** `id`'s usage with its sub-agents' (all depths), by model, costliest first. */
export function usageByModel(store: Store, id: string): ModelUsage[] {
  const byModel = new Map<string, ModelUsage>();
  const visit = (sessionId: string, child: boolean): void => {
    for (const r of store.usage.bySession(sessionId)) {
      const held = byModel.get(r.model) ?? { ...ZERO, model: r.model, subagentCalls: 0 };
      byModel.set(r.model, {
        ...add(held, { ...r, calls: 1 }),
        model: r.model,
        subagentCalls: held.subagentCalls + (child ? 1 : 0),
      });
    }
    for (const c of store.sessions.children(sessionId)) visit(c.id, true);
  };
  visit(id, false);
  return [...byModel.values()].sort((a, b) => b.costUsd - a.costUsd || b.calls - a.calls);
}
