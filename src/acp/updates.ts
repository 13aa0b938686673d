/**
 * AgentEvent → `session/update`: text and thinking chunks, tool calls and their
 * updates (with diffs for file changes), plans and usage. One mapper per live
 * session; approvals and questions are handled by the prompt runner.
 */
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { AgentEvent, ToolCallRecord, ToolCallState, ToolContent } from '../agent/events.js';
import type { ClientFs, PlanItem } from '../tools/types.js';
import { DiffTracker } from './diffs.js';
import { SubagentUpdates } from './subagents.js';
import { toolLocations } from './tool-info.js';

export interface MapperDeps {
  cwd: string;
  fs?: ClientFs;
  /** The model's context window, the `size` of usage updates. */
  contextWindow: number;
  send(update: SessionUpdate): void;
  /** The client terminal a tool call ran in (its last update keeps showing it). */
  terminalOf?(toolCallId: string): string | undefined;
}

export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** A tool call's state as ACP shows it: pending until it runs, then in progress, completed or failed. */
export function toolStatus(state: ToolCallState): ToolCallStatus {
  switch (state) {
    case 'pending':
    case 'awaiting_approval':
      return 'pending';
    case 'running':
      return 'in_progress';
    case 'completed':
      return 'completed';
    default:
      return 'failed';
  }
}

/** A result's text and images as ACP content blocks. */
export function resultContent(content: readonly ToolContent[]): ToolCallContent[] {
  return content.flatMap((p): ToolCallContent[] => {
    if (p.type === 'text') return [textContent(p.text)];
    return p.data
      ? [{ type: 'content', content: { type: 'image', mimeType: p.mediaType, data: p.data } }]
      : [];
  });
}

export function planEntries(items: readonly PlanItem[]): PlanEntry[] {
  return items.map((i) => ({ content: i.content, status: i.status, priority: 'medium' }));
}

export class UpdateMapper {
  private readonly diffs: DiffTracker;
  private costUsd = 0;
  /** Tokens in the session's context at its last model call (a child's calls leave it as it is). */
  private used = 0;
  private readonly subagents: SubagentUpdates;

  constructor(private readonly deps: MapperDeps) {
    this.diffs = new DiffTracker(deps.cwd, deps.fs);
    this.subagents = new SubagentUpdates({
      toolUpdate: (r) => this.toolUpdate(r),
      callContent: (toolCallId, texts) =>
        deps.send({ sessionUpdate: 'tool_call_update', toolCallId, content: texts.map(textContent) }),
      usage: (costUsd) => {
        this.costUsd += costUsd;
        this.sendUsage();
      },
    });
  }

  private sendUsage(meta?: Record<string, unknown>): void {
    this.deps.send({
      sessionUpdate: 'usage_update',
      used: this.used,
      size: this.deps.contextWindow,
      cost: { amount: this.costUsd, currency: 'USD' },
      ...(meta ? { _meta: meta } : {}),
    });
  }

  /**
   * The turn's end: when sub-agents ran, a last usage update whose cost includes theirs,
   * with their share under `_meta.tea.subagents`.
   */
  finish(done: Extract<AgentEvent, { type: 'done' }>): void {
    const sub = done.subagents;
    if (!sub) return;
    this.sendUsage({
      tea: {
        subagents: {
          count: sub.count,
          inputTokens: sub.usage.inputTokens,
          outputTokens: sub.usage.outputTokens,
          costUsd: sub.costUsd,
        },
      },
    });
  }

  /**
   * Called the moment an event arrives, before earlier events are done: a file tool's
   * files are snapshotted when it leaves `pending` (to be asked about, or to run),
   * before the tool can write them.
   */
  observe(e: AgentEvent): void {
    const r = e.type === 'tool_update' ? e.record : SubagentUpdates.childRecord(e);
    if (!r) return;
    if (r.state === 'awaiting_approval' || r.state === 'running') this.diffs.start(r.callId, r.name, r.args);
  }

  /** Sends the updates for one event (call in event order; resolves once they are queued). */
  async handle(e: AgentEvent): Promise<void> {
    const send = this.deps.send;
    switch (e.type) {
      case 'text_delta':
        send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: e.text } });
        return;
      case 'thinking_delta':
        send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: e.text } });
        return;
      case 'tool_update':
        await this.toolUpdate(e.record);
        // A delegation call's end settles its children.
        await this.subagents.handle(e);
        return;
      case 'subagent':
        await this.subagents.handle(e);
        return;
      case 'plan':
        send({ sessionUpdate: 'plan', entries: planEntries(e.items) });
        return;
      case 'usage':
        this.costUsd += e.costUsd;
        this.used = e.usage.inputTokens + e.usage.outputTokens;
        this.sendUsage();
        return;
      default:
        return;
    }
  }

  /** A call's transition: `tool_call` when it arrives, then `tool_call_update`s. */
  private async toolUpdate(r: ToolCallRecord): Promise<void> {
    const send = this.deps.send;
    switch (r.state) {
      case 'pending':
        send({
          sessionUpdate: 'tool_call',
          toolCallId: r.callId,
          title: r.title,
          kind: r.kind,
          status: 'pending',
          locations: toolLocations(r.name, r.args, this.deps.cwd),
          rawInput: r.args,
        });
        return;
      case 'awaiting_approval':
        // Still pending: the permission request asks about it.
        return;
      case 'running':
        send({ sessionUpdate: 'tool_call_update', toolCallId: r.callId, status: 'in_progress' });
        return;
      default: {
        const diffs = await this.diffs.finish(r.callId, r.state === 'completed');
        // A command run in the client's terminal: the terminal shows its output; the
        // result's text only when it failed (killed, timed out: the text says why).
        const terminalId = this.deps.terminalOf?.(r.callId);
        const shown: ToolCallContent[] = terminalId ? [{ type: 'terminal', terminalId }] : [];
        const result = terminalId && r.state === 'completed' ? [] : resultContent(r.content);
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: r.callId,
          status: toolStatus(r.state),
          content: [...shown, ...diffs, ...result],
        });
      }
    }
  }
}
