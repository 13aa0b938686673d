/**
 * An MCP server's `sampling/createMessage`, answered by the model of the session whose
 * tool call the server is serving: with the user's approval (the permission policy's
 * `mcp_sampling` check, asked through the face like a tool call) and under a token
 * budget per request and per session (config `mcp_sampling`).
 */
import type { CreateMessageRequest, CreateMessageResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type { Message, Part } from '../../llm/types.js';
import { defineTool, type Tool, type ToolContext } from '../types.js';

/** Token limits of sampling (config `mcp_sampling`). */
export interface SamplingLimits {
  /** The most one answer may hold (a request asking for more gets this many). */
  maxTokens: number;
  /** The most one session's sampling may use, prompt and answer tokens together (0: sampling off). */
  sessionTokens: number;
}

export const DEFAULT_SAMPLING_LIMITS: SamplingLimits = { maxTokens: 1_000, sessionTokens: 10_000 };

/** JSON-RPC codes the server sees. -1 is the spec's "user rejected the request". */
export const USER_REJECTED = -1;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

/** An error answer to a server's request: the SDK sends `code` and `message` back as they are. */
export class McpAnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'McpAnswerError';
  }
}

/** Tokens used by sampling per session, shared by every server of one manager. */
export class SamplingBudget {
  private readonly spent = new Map<string, number>();
  constructor(readonly limits: SamplingLimits) {}

  remaining(sessionId: string): number {
    return Math.max(0, this.limits.sessionTokens - (this.spent.get(sessionId) ?? 0));
  }

  spend(sessionId: string, tokens: number): void {
    this.spent.set(sessionId, (this.spent.get(sessionId) ?? 0) + tokens);
  }
}

/** What the approval request shows and what `--allow 'mcp_sampling:<server>'` / "always" match. */
export function samplingTool(): Tool {
  return defineTool({
    name: 'mcp_sampling',
    description: 'An MCP server asks for one answer of the session model.',
    parameters: z.looseObject({}),
    category: 'mcp',
    readOnly: false,
    concurrencySafe: false,
    approval: 'network',
    subject: (args) => String((args as { server?: unknown }).server ?? ''),
    execute: async () => '',
  });
}

type SamplingParams = CreateMessageRequest['params'];
type Block = SamplingParams['messages'][number]['content'] extends infer C
  ? C extends readonly (infer B)[]
    ? B
    : C
  : never;

function blocks(content: Block | readonly Block[]): Block[] {
  return Array.isArray(content) ? [...content] : [content as Block];
}

/** The request's messages in Tea's shape; audio, tool use and tool results are refused. */
export function samplingMessages(params: SamplingParams): Message[] {
  const out: Message[] = [];
  if (params.systemPrompt) out.push({ role: 'system', parts: [{ type: 'text', text: params.systemPrompt }] });
  for (const m of params.messages) {
    const parts: Part[] = [];
    for (const b of blocks(m.content as Block | Block[])) {
      if (b.type === 'text') parts.push({ type: 'text', text: b.text });
      else if (b.type === 'image' && m.role === 'user')
        parts.push({ type: 'image', mediaType: b.mimeType, data: b.data });
      else
        throw new McpAnswerError(
          INVALID_PARAMS,
          `Tea's sampling takes text (and images from the user); this request has ${b.type} content in a ${m.role} message`,
        );
    }
    out.push({ role: m.role, parts });
  }
  return out;
}

/** The request as the user approves it: its server, system prompt, last user text and token cap. */
function approvalArgs(server: string, params: SamplingParams, maxTokens: number): Record<string, unknown> {
  const texts = params.messages.flatMap((m) =>
    blocks(m.content as Block | Block[]).flatMap((b) => (b.type === 'text' ? [`${m.role}: ${b.text}`] : [])),
  );
  return {
    server,
    ...(params.systemPrompt ? { system: params.systemPrompt } : {}),
    messages: texts.join('\n'),
    max_tokens: maxTokens,
  };
}

const STOP: Record<string, string> = { stop: 'endTurn', length: 'maxTokens', 'tool-calls': 'toolUse' };

/** Answers one sampling request for `server`, or throws an `McpAnswerError` the server sees. */
export async function answerSampling(
  server: string,
  params: SamplingParams,
  caller: ToolContext | undefined,
  budget: SamplingBudget,
): Promise<CreateMessageResult> {
  const host = caller?.host;
  if (!caller || !host?.sample || !host.authorize) {
    throw new McpAnswerError(
      INVALID_REQUEST,
      `Tea answers sampling requests of MCP server "${server}" only while one of its tools runs in a session`,
    );
  }
  if (params.tools || params.toolChoice) {
    throw new McpAnswerError(
      INVALID_PARAMS,
      'Tea does not offer tools in sampling (no sampling.tools capability)',
    );
  }
  const messages = samplingMessages(params);
  const remaining = budget.remaining(caller.sessionId);
  if (remaining <= 0) {
    throw new McpAnswerError(
      INVALID_REQUEST,
      budget.limits.sessionTokens === 0
        ? 'sampling is off in Tea (mcp_sampling.session_tokens: 0)'
        : `this session's sampling budget of ${budget.limits.sessionTokens} tokens is used up (mcp_sampling.session_tokens)`,
    );
  }
  const maxTokens = Math.max(1, Math.min(params.maxTokens, budget.limits.maxTokens, remaining));
  const permit = await host.authorize(samplingTool(), approvalArgs(server, params, maxTokens));
  if (!permit.allowed) {
    throw new McpAnswerError(
      USER_REJECTED,
      `sampling request declined: ${permit.output.replace(/^\[(DENIED|CANCELLED)\]\s*/, '').split('\n')[0]}`,
    );
  }
  const answer = await host.sample({
    messages,
    maxOutputTokens: maxTokens,
    ...(params.temperature === undefined ? {} : { temperature: params.temperature }),
  });
  budget.spend(caller.sessionId, answer.usage.inputTokens + answer.usage.outputTokens);
  return {
    role: 'assistant',
    content: { type: 'text', text: answer.text },
    model: answer.model,
    stopReason: STOP[answer.finishReason] ?? answer.finishReason,
  };
}
