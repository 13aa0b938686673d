/**
 * What a tool that starts sub-agents (the `task` tool, src/multi/) gets of the session
 * it runs in: the parent's seat. The agent layer puts it on the `ToolHost` of every
 * call under a private symbol; other tools never see it.
 */
import type { Message, Usage } from '../llm/types.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, ClientShell, ToolHost } from '../tools/types.js';
import type { AgentEvent } from './events.js';
import type { Interactions } from './interactions.js';
import type { TraceParent } from './trace.js';
import type { TurnState } from './turn.js';

export interface ParentSeat {
  sessionId: string;
  /** The tool call running now (children are stored under it). */
  callId: string;
  cwd: string;
  /** 0 for a top-level session; a child at the depth cap may not start more. */
  depth: number;
  /** The parent's transcript (for a child that starts from a summary of it). */
  history: readonly Message[];
  /** The parent's permission policy as it is now (mode, rules, session grants). */
  policy: PermissionPolicy;
  /** The parent's pending approvals and questions: a child's asks wait here, answered on the parent. */
  interactions: Interactions;
  /** Directories besides the workspace that file tools may use. */
  roots: readonly string[];
  /** The tools the parent's session sees. */
  tools: ToolRegistry;
  fs?: ClientFs;
  shell?: ClientShell;
  /** Sends an event into the parent's stream, under this call. */
  emit(event: AgentEvent): void;
  /** Counts a finished child's usage into the parent's prompt. */
  addUsage(usage: Usage, costUsd: number): void;
  /** The call's `execute_tool` span: a child's `invoke_agent` span attaches here. */
  trace?: TraceParent;
}

const SEAT = Symbol('tea.parentSeat');

/** The seat of the session a tool call runs in (undefined: the tool runs outside a session). */
export function seatOf(host: ToolHost | undefined): ParentSeat | undefined {
  return (host as { [SEAT]?: ParentSeat } | undefined)?.[SEAT];
}

/** `host` with the calling session's seat on it. */
export function seated(
  host: ToolHost,
  state: TurnState,
  callId: string,
  emit: (e: AgentEvent) => void,
  trace?: TraceParent,
): ToolHost {
  const seat: ParentSeat = {
    sessionId: state.sessionId,
    callId,
    cwd: state.cwd,
    depth: state.depth,
    history: state.history,
    policy: state.policy,
    interactions: state.host.interactions,
    roots: state.roots,
    tools: state.host.tools,
    ...(state.host.fs ? { fs: state.host.fs } : {}),
    ...(state.host.shell ? { shell: state.host.shell } : {}),
    emit,
    addUsage: (usage, costUsd) => state.usage.addSubagent(usage, costUsd),
    ...(trace ? { trace } : {}),
  };
  return Object.assign(host, { [SEAT]: seat });
}
