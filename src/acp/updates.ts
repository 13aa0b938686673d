/**
 * AgentEvent → `session/update`: text and thinking chunks, tool calls and their
 * updates (with diffs for file changes), plans and usage. One mapper per live
 * session; approvals and questions are handled by the prompt runner.
 */
import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk';
import type { AgentEvent, ToolStatus } from '../agent/events.js';
import { type CallFacts, callFacts, type PermissionMode, PermissionPolicy } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, PlanItem } from '../tools/types.js';
import { DiffTracker } from './diffs.js';
import { toolKind, toolLocations, toolTitle } from './tool-info.js';

export interface MapperDeps {
  tools: ToolRegistry;
  cwd: string;
  fs?: ClientFs;
  /** The model's context window, the `size` of usage updates. */
  contextWindow: number;
  /** The session's permission mode now (decides whether a call starts pending or running). */
  mode: () => PermissionMode;
  send(update: SessionUpdate): void;
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

export class UpdateMapper {
  private readonly diffs: DiffTracker;
  /** Mirrors the session's mode and "always allow" grants, to show calls as running or pending. */
  private readonly policy = new PermissionPolicy('ask');
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
        send({
          sessionUpdate: 'tool_call',
          toolCallId: e.callId,
          title: toolTitle(this.deps.tools, e.name, e.args),
          kind: toolKind(this.deps.tools, e.name),
          status: (await this.runsWithoutAsking(e.name, e.args)) ? 'in_progress' : 'pending',
          locations: toolLocations(e.name, e.args, this.deps.cwd),
          rawInput: e.args,
        });
        return;
      case 'approval_result':
        return;
      case 'tool_finish': {
        const diffs = await this.diffs.finish(e.callId, e.status === 'ok');
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

  /** Marks a call running once the user allowed it; `always` also covers later calls like it. */
  allowed(callId: string, always?: { name: string; args: Record<string, unknown> }): void {
    if (always) this.policy.grant(this.facts(always.name, always.args));
    this.deps.send({ sessionUpdate: 'tool_call_update', toolCallId: callId, status: 'in_progress' });
  }

  /** Whether the permission mode lets this call run at once (display only; rules may still ask). */
  private async runsWithoutAsking(name: string, args: Record<string, unknown>): Promise<boolean> {
    if (!this.deps.tools.has(name)) return true;
    this.policy.mode = this.deps.mode();
    return (await this.policy.decide(this.facts(name, args))).action === 'allow';
  }

  private facts(name: string, args: Record<string, unknown>): CallFacts {
    const tool = this.deps.tools.get(name);
    if (!tool) return { tool: name, approval: 'none' };
    return callFacts(tool, args, { cwd: this.deps.cwd });
  }
}
