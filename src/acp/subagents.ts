/**
 * Sub-agents as an editor sees them over ACP. A child's tool calls are tool calls of
 * their own, named with the child (`reviewer #2: read_file src/a.ts`) under ids made
 * unique with the child's session (`<childSession>:<callId>`); the parent's call that
 * runs the children (`task`, `delegate_tasks`, `agent_<role>`) gets content updates
 * with one status line per child and, once a child ends, its answer. A child's text
 * never becomes the agent's message.
 */
import type { AgentEvent, SubagentInfo, ToolCallRecord } from '../agent/events.js';
import {
  type SubagentRef,
  type SubagentState,
  SubagentTracker,
  subagentLine,
  unwrapSubagent,
} from '../runtime/subagents.js';
import { isFinished } from '../runtime/tool-record.js';

/** The ACP id of a sub-agent's tool call: its session's id and the call's own. */
export function childCallId(agent: Pick<SubagentInfo, 'sessionId'>, callId: string): string {
  return `${agent.sessionId}:${callId}`;
}

/** The ACP id of the call that started `ref` (a grandchild's: its parent child's call, made unique). */
function startingCallId(ref: SubagentRef): string {
  return ref.parentSessionId ? `${ref.parentSessionId}:${ref.callId}` : ref.callId;
}

/** A child's record as its own ACP tool call: unique id, title with the child's label. */
export function asChildCall(ref: SubagentRef, r: ToolCallRecord): ToolCallRecord {
  return { ...r, callId: childCallId(ref, r.callId), title: `${ref.label}: ${r.title}` };
}

/** One child as the starting call's content shows it: its line, then its answer once it ended. */
function childText(c: SubagentState): string {
  const line = subagentLine({ ...c, ref: { ...c.ref, depth: 1 } });
  const answer = c.answer?.trim();
  return answer && c.status !== 'running' ? `${line}\n${answer}` : line;
}

export interface SubagentSink {
  /** A child's tool call changed (already renamed with `asChildCall`). */
  toolUpdate(record: ToolCallRecord): Promise<void>;
  /** The content of the call that started children: one block per child. */
  callContent(toolCallId: string, texts: string[]): void;
  /** A child's model call cost this much (for the session's cost). */
  usage(costUsd: number): void;
}

export class SubagentUpdates {
  private readonly tracker = new SubagentTracker();
  /** Calls that ended: their result is their content now. */
  private readonly ended = new Set<string>();

  constructor(private readonly sink: SubagentSink) {}

  /** The unwrapped record of a child's tool call, for the diff snapshot before it runs. */
  static childRecord(e: AgentEvent): ToolCallRecord | undefined {
    const { event, from } = unwrapSubagent(e);
    return from && event.type === 'tool_update' ? asChildCall(from, event.record) : undefined;
  }

  async handle(e: AgentEvent): Promise<void> {
    const changes = this.tracker.feed(e);
    const { event, from } = unwrapSubagent(e);
    if (event.type === 'tool_update' && isFinished(event.record.state))
      this.ended.add(from ? childCallId(from, event.record.callId) : event.record.callId);
    if (from && event.type === 'tool_update') await this.sink.toolUpdate(asChildCall(from, event.record));
    if (from && event.type === 'usage') this.sink.usage(event.costUsd);
    const calls = new Set(changes.map((c) => startingCallId(c.state.ref)));
    for (const id of calls) {
      if (this.ended.has(id)) continue;
      const under = this.tracker.all().filter((c) => startingCallId(c.ref) === id);
      this.sink.callContent(id, under.map(childText));
    }
  }
}
