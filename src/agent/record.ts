/**
 * What the loop tells its recorder: every message as it is appended, the streaming
 * assistant message as it grows, each model call's usage with its final message, and
 * every tool-call transition. The loop only emits these; a `TurnRecorder` makes them
 * durable (the `SessionRecorder` writes them to the store, a test keeps them in
 * memory), so the loop itself runs without SQLite.
 */
import type { ModelInfo, Part, ToolResultPart, Usage } from '../llm/types.js';
import { contentImages, contentText, type ToolCallRecord } from '../store/tool-record.js';
import type { UsageRow } from '../store/usage.js';
import type { AwaitingClientCalls } from './client-turn.js';

/** The tokens and cost of one model call on one model (a fallback mid-call makes two). */
export interface ModelUsage {
  model: ModelInfo;
  usage: Usage;
  costUsd: number;
}

/** The usage row of one model call of a session, as the store keeps it. */
export function usageRow(
  sessionId: string,
  turnId: string,
  { model, usage, costUsd }: ModelUsage,
): Omit<UsageRow, 'createdAt'> {
  return {
    sessionId,
    turnId,
    profile: model.profile,
    model: model.model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
    costUsd,
  };
}

export type RecordEvent =
  /** A user message (the input, a steering message, one queued and never sent). */
  | { type: 'message'; turnId: string; role: 'user'; parts: Part[] }
  /** The streaming assistant message changed; `parts` gives it as it is now (called when written). */
  | { type: 'draft'; turnId: string; parts: () => Part[] }
  /**
   * A model call ended: its assistant message (none when it produced nothing;
   * `partial` when it was cut off), its usage and the records of the tool calls it
   * asked for (`pending`), stored together (one transaction) before any of them runs.
   */
  | {
      type: 'step';
      turnId: string;
      parts: Part[];
      status: 'complete' | 'partial';
      usage: ModelUsage[];
      calls: ToolCallRecord[];
    }
  /**
   * A tool call changed state after it was received (its `pending` record came with
   * its step); an ended call's record carries the result the transcript gets.
   */
  | { type: 'tool_update'; record: ToolCallRecord }
  /** The calls the turn stopped for wait for the client's results (undefined: none wait any more). */
  | { type: 'client_calls'; awaiting: AwaitingClientCalls | undefined };

/**
 * Makes a turn durable. The loop awaits a returned promise before it goes on, so
 * every message is recorded before the next model call starts; a throw stops the turn.
 */
export interface TurnRecorder {
  record(e: RecordEvent): void | Promise<void>;
}

/** The transcript's result part for an ended call (its images with it). */
export function resultPart(record: ToolCallRecord): ToolResultPart {
  const images = contentImages(record.content);
  return {
    type: 'tool-result',
    callId: record.callId,
    name: record.name,
    output: contentText(record.content),
    isError: record.state !== 'completed',
    ...(images.length > 0 ? { images } : {}),
  };
}

/** A prompt's usage, added to once per model call (the `done` event reports its totals). */
export class UsageMeter {
  /** The prompt's usage, its sub-agents' included. */
  readonly total: Usage = { inputTokens: 0, outputTokens: 0 };
  costUsd = 0;
  /** The sub-agents' share of the total (absent: none reported). */
  subagents: { count: number; usage: Usage; costUsd: number } | undefined;

  add(calls: readonly ModelUsage[]): void {
    for (const c of calls) {
      this.total.inputTokens += c.usage.inputTokens;
      this.total.outputTokens += c.usage.outputTokens;
      this.costUsd += c.costUsd;
    }
  }

  /** A finished sub-agent's whole usage (its own sub-agents' included). */
  addSubagent(usage: Usage, costUsd: number): void {
    this.subagents ??= { count: 0, usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
    const s = this.subagents;
    s.count++;
    s.usage.inputTokens += usage.inputTokens;
    s.usage.outputTokens += usage.outputTokens;
    s.costUsd += costUsd;
    this.total.inputTokens += usage.inputTokens;
    this.total.outputTokens += usage.outputTokens;
    this.costUsd += costUsd;
  }

  /** Why the prompt must stop before its next model call (a budget used up); undefined: go on. */
  overBudget(budget: { maxTokens?: number; maxCostUsd?: number } | undefined): string | undefined {
    if (!budget) return undefined;
    const tokens = this.total.inputTokens + this.total.outputTokens;
    if (budget.maxTokens !== undefined && tokens >= budget.maxTokens)
      return `Stopped: the budget of ${budget.maxTokens} tokens is used up (${tokens} tokens so far); what was done so far is kept.`;
    if (budget.maxCostUsd !== undefined && this.costUsd >= budget.maxCostUsd)
      return `Stopped: the budget of $${budget.maxCostUsd} is used up ($${this.costUsd.toFixed(4)} so far); what was done so far is kept.`;
    return undefined;
  }
}
