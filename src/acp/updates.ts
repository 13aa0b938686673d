/**
 * AgentEvent → `session/update`: text and thinking chunks, tool calls and their
 * updates (with diffs for file changes), plans and usage. One mapper per live
 * session; approvals and questions are handled by the prompt runner.
 */
import type {
  PlanEntry,
  SessionUpdate,
  ToolCallContent,
  ToolCallLocation,
  ToolCallStatus,
  ToolKind,
} from '@agentclientprotocol/sdk';
import type { AgentEvent, ToolStatus } from '../agent/events.js';
import { describeCall } from '../runtime/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, PlanItem } from '../tools/types.js';
import { DiffTracker } from './diffs.js';
import { factsOf, kindOf, locationsOf, titleOf } from './tool-info.js';

export interface MapperDeps {
  tools: ToolRegistry;
  cwd: string;
  fs?: ClientFs;
  /** The model's context window, the `size` of usage updates. */
  contextWindow: number;
  send(update: SessionUpdate): void;
}

/** How a call is shown: from its described facts. */
export interface CallView {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  rawInput: Record<string, unknown>;
}

export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

export function toolStatus(status: ToolStatus): ToolCallStatus {
  return status === 'ok' ? 'completed' : 'failed';
}

export function planEntries(items: readonly PlanItem[]): PlanEntry[] {
  return items.map((i) => ({ content: i.content, status: i.status, priority: 'medium' }));
}

/**
 * A call is shown (`tool_call`) once its permission is known, never guessed: pending
 * when the session asks for approval (an `approval_request`), running when it is
 * allowed (`tool_allowed`), or straight away failed when it was refused or invalid.
 */
type Shown = 'no' | 'pending' | 'running';

export class UpdateMapper {
  private readonly diffs: DiffTracker;
  private readonly calls = new Map<string, { view: CallView; shown: Shown }>();
  private costUsd = 0;

  constructor(private readonly deps: MapperDeps) {
    this.diffs = new DiffTracker(deps.cwd, deps.fs);
  }

  /**
   * Called the moment an event arrives, before earlier events are done: a starting
   * file tool's files are snapshotted now, before the tool can write them.
   */
  observe(e: AgentEvent): void {
    if (e.type === 'tool_start') this.diffs.start(e.callId, e.name, e.args);
  }

  /** The title, kind and locations of a call, from its described facts. */
  async view(name: string, args: Record<string, unknown>): Promise<CallView> {
    const tool = this.deps.tools.get(name);
    const where = { cwd: this.deps.cwd };
    const facts = tool
      ? await describeCall(tool, args, where)
      : factsOf(this.deps.tools, name, args, this.deps.cwd);
    return {
      title: titleOf(facts),
      kind: kindOf(facts),
      locations: locationsOf(facts, args),
      rawInput: args,
    };
  }

  /** The view of a call this mapper has seen start. */
  viewOf(callId: string): CallView | undefined {
    return this.calls.get(callId)?.view;
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
      case 'tool_start':
        this.calls.set(e.callId, { view: await this.view(e.name, e.args), shown: 'no' });
        return;
      case 'approval_request':
        this.show(e.callId, 'pending');
        return;
      case 'tool_allowed':
        this.show(e.callId, 'running');
        return;
      case 'tool_finish': {
        const diffs = await this.diffs.finish(e.callId, e.status === 'ok');
        const call = this.calls.get(e.callId);
        this.calls.delete(e.callId);
        // Refused or invalid before it could run: shown as it ended, never as running.
        if (call?.shown === 'no')
          send({
            sessionUpdate: 'tool_call',
            toolCallId: e.callId,
            ...call.view,
            status: toolStatus(e.status),
          });
        send({
          sessionUpdate: 'tool_call_update',
          toolCallId: e.callId,
          status: toolStatus(e.status),
          content: [...diffs, textContent(e.output)],
        });
        return;
      }
      case 'plan':
        send({ sessionUpdate: 'plan', entries: planEntries(e.items) });
        return;
      case 'usage':
        this.costUsd += e.costUsd;
        send({
          sessionUpdate: 'usage_update',
          used: e.usage.inputTokens + e.usage.outputTokens,
          size: this.deps.contextWindow,
          cost: { amount: this.costUsd, currency: 'USD' },
        });
        return;
      default:
        return;
    }
  }

  /** Shows a call as waiting for approval or running: its `tool_call`, or an update of it. */
  private show(callId: string, state: 'pending' | 'running'): void {
    const call = this.calls.get(callId);
    if (!call || call.shown === state) return;
    const status: ToolCallStatus = state === 'pending' ? 'pending' : 'in_progress';
    if (call.shown === 'no')
      this.deps.send({ sessionUpdate: 'tool_call', toolCallId: callId, ...call.view, status });
    else this.deps.send({ sessionUpdate: 'tool_call_update', toolCallId: callId, status });
    call.shown = state;
  }
}
