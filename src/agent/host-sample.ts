/**
 * The parts of a tool call's host that act for the user beyond the call itself:
 * approving something the tool asks to do (through the same permission entry point
 * and `approval_request` events as tool calls) and one plain model call on the
 * session's model. MCP servers use both for their sampling requests.
 */
import { complete } from '../llm/collect.js';
import type { ModelRequest, Provider } from '../llm/types.js';
import type { PermissionPolicy } from '../tools/permissions.js';
import type { HostPermit, HostSample, Tool, ToolHost } from '../tools/types.js';
import { authorize } from './approval.js';
import type { AgentEvent } from './events.js';
import type { SessionHost } from './host.js';

export interface HostExtrasContext {
  host: SessionHost;
  policy: PermissionPolicy;
  provider: Provider;
  callId: string;
  signal: AbortSignal;
  emit: (e: AgentEvent) => void;
  cwd: string;
  roots?: readonly string[];
}

/** Adds `authorize` and `sample` to a tool call's host. */
export function withHostExtras(toolHost: ToolHost, ctx: HostExtrasContext): ToolHost {
  toolHost.authorize = async (tool: Tool, args: Record<string, unknown>): Promise<HostPermit> => {
    const permit = await authorize(tool, args, {
      policy: ctx.policy,
      host: ctx.host,
      callId: ctx.callId,
      args,
      signal: ctx.signal,
      emit: ctx.emit,
      where: { cwd: ctx.cwd, ...(ctx.roots ? { roots: ctx.roots } : {}) },
    });
    return permit.allowed ? { allowed: true, output: '' } : { allowed: false, output: permit.output };
  };
  toolHost.sample = async (request: ModelRequest): Promise<HostSample> => {
    const plain: ModelRequest = { messages: request.messages };
    if (request.maxOutputTokens !== undefined) plain.maxOutputTokens = request.maxOutputTokens;
    if (request.temperature !== undefined) plain.temperature = request.temperature;
    const done = await complete(ctx.provider, plain, ctx.signal);
    return {
      text: done.text,
      model: done.model?.model ?? ctx.provider.info.model,
      finishReason: done.finishReason,
      usage: done.usage,
    };
  };
  return toolHost;
}
