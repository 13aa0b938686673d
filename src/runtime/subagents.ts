/**
 * Sub-agents as faces show them. A child's events arrive nested under the parent's
 * tool call (`{ type: 'subagent', callId, agent, event }`, doubly for a grandchild);
 * `unwrapSubagent` gives the innermost event and who sent it, and `SubagentTracker`
 * keeps one line of state per child (status, tokens so far, the tool it runs) from
 * the parent's stream. `resultHeads` reads the heads of a delegation tool's result
 * (how the child ended: the only place a timeout shows), for live and stored sessions.
 */
import type { AgentEvent, SubagentInfo } from '../agent/events.js';
import { isFinished } from '../store/tool-record.js';

/** Who sent a flattened event: the child's session, label, role, depth, and the parent's call that started it. */
export interface SubagentRef extends SubagentInfo {
  callId: string;
  /** The sub-agent whose call started this one (absent: the session's own call). */
  parentSessionId?: string;
}

/** The innermost event of a nested one, and the chain of sub-agents it came through (outermost first). */
export interface Unwrapped {
  event: AgentEvent;
  /** The sub-agent that sent the event (absent: the session's own event). */
  from?: SubagentRef;
  path: SubagentRef[];
}

export function unwrapSubagent(e: AgentEvent): Unwrapped {
  const path: SubagentRef[] = [];
  let event = e;
  while (event.type === 'subagent') {
    const above = path.at(-1)?.sessionId;
    path.push({ ...event.agent, callId: event.callId, ...(above ? { parentSessionId: above } : {}) });
    event = event.event;
  }
  const from = path.at(-1);
  return { event, ...(from ? { from } : {}), path };
}

/** How a child stands: running, waiting for the user, or how it ended. */
export type SubagentStatus =
  | 'running'
  | 'waiting for approval'
  | 'stopping'
  | 'done'
  | 'budget'
  | 'timeout'
  | 'max turns'
  | 'failed'
  | 'cancelled';

/** Whether a child in this status has ended. */
export function hasEnded(status: SubagentStatus): boolean {
  return status !== 'running' && status !== 'waiting for approval' && status !== 'stopping';
}

export interface SubagentState {
  ref: SubagentRef;
  status: SubagentStatus;
  /** Input + output tokens of its own model calls so far. */
  tokens: number;
  costUsd: number;
  /** The tool it runs now. */
  tool?: string;
  /** Its final answer, once it has ended. */
  answer?: string;
  /** Its time limit stopped it (its own stream said so). */
  timedOut?: boolean;
}

export type SubagentChange = 'start' | 'status' | 'tool' | 'tokens';

/** Delegation tools: their finished results carry one head per child. */
export function isDelegationTool(name: string): boolean {
  return name === 'task' || name === 'delegate_tasks' || name.startsWith('agent_');
}

/** One head of a delegation tool's result: `[sub-agent <label> · <status> · N tokens · session <id8>]`. */
export interface ResultHead {
  label: string;
  status: SubagentStatus;
  tokens: number;
  /** The first characters of the child's session id. */
  session: string;
}

/** The multi layer's words for a child's end (task-tool.ts, formatResult), and what faces call it. */
const HEAD_STATUS: Array<[RegExp, SubagentStatus]> = [
  [/^completed$/, 'done'],
  [/^stopped by its budget/, 'budget'],
  [/^stopped by its time limit/, 'timeout'],
  [/^stopped at its turn limit/, 'max turns'],
  [/^failed$/, 'failed'],
  [/^cancelled$/, 'cancelled'],
];

const HEAD = /^\[sub-agent (.+?) · (.+?) · (\d+) tokens · session ([0-9a-f-]+)\]$/gm;

export function resultHeads(text: string): ResultHead[] {
  const out: ResultHead[] = [];
  for (const m of text.matchAll(HEAD)) {
    const status = HEAD_STATUS.find(([re]) => re.test(m[2]!))?.[1];
    if (status) out.push({ label: m[1]!, status, tokens: Number(m[3]), session: m[4]! });
  }
  return out;
}

/** A child's status from its own `done` (a stop by the parent or a timer reads as `stopping` until the result says which). */
function statusOfDone(reason: Extract<AgentEvent, { type: 'done' }>['reason']): SubagentStatus {
  switch (reason) {
    case 'completed':
      return 'done';
    case 'budget':
      return 'budget';
    case 'max_iterations':
      return 'max turns';
    case 'cancelled':
      return 'stopping';
    default:
      return 'failed';
  }
}

export interface TrackedChange {
  state: SubagentState;
  change: SubagentChange;
}

/**
 * The state of every sub-agent of one parent stream (grandchildren too), fed the
 * parent's events in order. `feed` says which children changed and how.
 */
export class SubagentTracker {
  private readonly children = new Map<string, SubagentState>();

  /** Every child seen, in the order they started. */
  all(): SubagentState[] {
    return [...this.children.values()];
  }

  get(sessionId: string): SubagentState | undefined {
    return this.children.get(sessionId);
  }

  /** The children that have not ended. */
  running(): SubagentState[] {
    return this.all().filter((c) => !hasEnded(c.status));
  }

  feed(e: AgentEvent): TrackedChange[] {
    const { event, from } = unwrapSubagent(e);
    const changes: TrackedChange[] = [];
    if (from) {
      let state = this.children.get(from.sessionId);
      if (!state) {
        state = { ref: from, status: 'running', tokens: 0, costUsd: 0 };
        this.children.set(from.sessionId, state);
        changes.push({ state, change: 'start' });
      }
      this.own(state, event, changes);
    }
    // A delegation call ended (the session's own, or a child's): its heads say how each child ended.
    if (event.type === 'tool_update' && isDelegationTool(event.record.name) && isFinished(event.record.state))
      this.settle(
        event.record.callId,
        event.record.content.map((c) => (c.type === 'text' ? c.text : '')).join(''),
        changes,
      );
    // The session's own turn ended: a child still stopping was stopped with it.
    if (!from && event.type === 'done') {
      for (const c of this.children.values())
        if (!hasEnded(c.status)) changes.push(this.set(c, { status: 'cancelled' }));
    }
    return changes;
  }

  private own(state: SubagentState, event: AgentEvent, changes: TrackedChange[]): void {
    switch (event.type) {
      case 'turn_start':
        if (state.status !== 'running') changes.push(this.set(state, { status: 'running' }));
        return;
      case 'usage':
        state.tokens += event.usage.inputTokens + event.usage.outputTokens;
        state.costUsd += event.costUsd;
        changes.push({ state, change: 'tokens' });
        return;
      case 'tool_update': {
        const r = event.record;
        if (r.state === 'awaiting_approval')
          changes.push(this.set(state, { status: 'waiting for approval' }));
        else if (r.state === 'running') {
          if (state.status === 'waiting for approval') state.status = 'running';
          changes.push(this.set(state, { tool: r.name }, 'tool'));
        } else if (isFinished(r.state)) {
          if (state.status === 'waiting for approval') changes.push(this.set(state, { status: 'running' }));
          if (state.tool === r.name) delete state.tool;
        }
        return;
      }
      case 'error':
        // Its time limit stopped it: the turn ends as an error that says so.
        if (event.kind === 'time_limit') state.timedOut = true;
        return;
      case 'done':
        delete state.tool;
        state.answer = event.text;
        changes.push(this.set(state, { status: state.timedOut ? 'timeout' : statusOfDone(event.reason) }));
        return;
      default:
        return;
    }
  }

  private settle(callId: string, text: string, changes: TrackedChange[]): void {
    for (const head of resultHeads(text)) {
      for (const c of this.children.values()) {
        if (c.ref.callId !== callId || !c.ref.sessionId.startsWith(head.session)) continue;
        if (c.status !== head.status) changes.push(this.set(c, { status: head.status }));
      }
    }
  }

  private set(
    state: SubagentState,
    patch: Partial<Pick<SubagentState, 'status' | 'tool'>>,
    change: SubagentChange = 'status',
  ): TrackedChange {
    Object.assign(state, patch);
    return { state, change };
  }
}

/** The `parent` field of a flattened event: the child that sent it and the call that started it. */
export interface ParentField {
  callId: string;
  sessionId: string;
  label: string;
  role: string;
  depth: number;
}

/** An event a face sends on: a sub-agent's own event with `parent`, anything else as it is. */
export type FlatEvent = AgentEvent | (AgentEvent & { parent: ParentField });

/**
 * A nested sub-agent event as the event itself plus `parent` (the innermost child:
 * a grandchild's event names the grandchild, at depth 2). Other events pass unchanged.
 */
export function flatEvent(e: AgentEvent): FlatEvent {
  if (e.type !== 'subagent') return e;
  const { event, from } = unwrapSubagent(e);
  if (!from) return e;
  const parent: ParentField = {
    callId: from.callId,
    sessionId: from.sessionId,
    label: from.label,
    role: from.role,
    depth: from.depth,
  };
  return { ...event, parent };
}

/** 17259 → `17,259`. */
const num = (n: number): string => n.toLocaleString('en-US');

const MARK: Record<SubagentState['status'], string> = {
  running: '⏵',
  'waiting for approval': '⏸',
  stopping: '⏵',
  done: '✓',
  budget: '◼',
  timeout: '◼',
  'max turns': '◼',
  failed: '✗',
  cancelled: '✗',
};

/** One child's line as faces show it (no newline), indented by its depth: `✓ reviewer #2 · done · 1,234 tokens`. */
export function subagentLine(c: SubagentState): string {
  const indent = '  '.repeat(Math.max(0, c.ref.depth - 1));
  const tool = c.tool && !hasEnded(c.status) ? ` · ${c.tool}` : '';
  return `${indent}${MARK[c.status]} ${c.ref.label} · ${c.status} · ${num(c.tokens)} tokens${tool}`;
}
