/**
 * Function tools on the Responses API, on the same core as chat completions
 * (openai-tools.ts, agent/client-tools.ts): the flat `tools` entries and `tool_choice`
 * become the agent's `ClientTurn`; the trailing `function_call_output` items of `input`
 * are the client's results that continue the turn stopped for them (that turn's session:
 * `previous_response_id`, `session_id`, or the one whose calls they answer); the model's
 * calls to client tools go out as `function_call` output items (responses-events.ts).
 */
import * as z from 'zod';
import type { Agent } from '../agent/index.js';
import type { ClientTurn, ResponseFormat, ToolChoice, ToolSpec } from '../runtime/client-tools.js';
import type { SessionsService } from '../runtime/sessions.js';
import { functionFields } from './openai-request.js';
import { buildClientTurn, type ClientParams, resolveResults, type WireResult } from './openai-tools.js';
import { bad, checked, unsupported } from './responses-params.js';

const functionTool = z.object({ type: z.literal('function'), ...functionFields });

export type FunctionTool = z.infer<typeof functionTool>;

/** The client's function tools and tool choice, checked (a 400 naming the parameter otherwise). */
export interface ResponsesTools {
  /** As the request gave them (echoed in the response object). */
  functions: FunctionTool[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
}

/** `tools` and `tool_choice` of a request: function tools only (hosted ones are a 400 naming `tools.N.type`). */
export function readTools(tools: readonly Record<string, unknown>[], choice: unknown): ResponsesTools {
  const functions = tools.map((tool, i) => {
    if (tool.type !== 'function')
      throw unsupported(
        `tools.${i}.type`,
        `tool type ${JSON.stringify(tool.type)} (hosted tools such as web_search or file_search are not available; function tools are, and the agent runs its own tools)`,
      );
    if (tool.name === undefined && typeof tool.function === 'object')
      throw bad(
        `tools.${i}.name`,
        `tools.${i}.name is required: the Responses API takes function tools flat ({"type":"function","name",…,"parameters"}), not nested in "function" as chat completions does`,
      );
    return checked(functionTool, tool, `tools.${i}`);
  });
  const specs = functions.map((f) => ({
    name: f.name,
    description: f.description ?? '',
    parameters: f.parameters ?? { type: 'object', properties: {} },
  }));
  const toolChoice = readChoice(choice);
  return { functions, tools: specs, ...(toolChoice ? { toolChoice } : {}) };
}

function readChoice(choice: unknown): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return choice;
  if (typeof choice === 'string')
    throw bad(
      'tool_choice',
      `tool_choice must be "auto", "none", "required" or {"type":"function","name":…}`,
    );
  if (typeof choice !== 'object' || Array.isArray(choice))
    throw bad('tool_choice', 'tool_choice must be a string or an object');
  const type = (choice as { type?: unknown }).type;
  if (type !== 'function')
    throw unsupported(
      'tool_choice.type',
      `tool choice ${JSON.stringify(type)} (only "auto", "none", "required" and {"type":"function","name":…})`,
    );
  const { name } = checked(z.object({ name: z.string().min(1) }), choice, 'tool_choice');
  return { name };
}

const PARAMS: ClientParams = {
  toolName: (i) => `tools.${i}.name`,
  toolChoice: 'tool_choice.name',
  schema: 'text.format.schema',
  format: 'text.format',
};

/**
 * The request's client side (function tools, tool choice, `text.format`) as the agent's
 * `ClientTurn` (duplicate names, collisions, an unusable schema: 400s), or undefined.
 */
export function responsesClientTurn(
  read: ResponsesTools,
  responseFormat: ResponseFormat | undefined,
  agent: Agent,
  sampling: ClientTurn['sampling'] = {},
): Promise<ClientTurn | undefined> {
  const { tools, toolChoice } = read;
  return buildClientTurn(
    {
      tools,
      sampling,
      ...(toolChoice ? { toolChoice } : {}),
      ...(responseFormat ? { responseFormat } : {}),
    },
    agent,
    PARAMS,
  );
}

const functionOutput = z.object({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))], {
    error: 'output must be a string or a list of input_text parts',
  }),
});

/** A `function_call_output` item: its call and its output as text (`input_text` parts joined). */
export function readOutput(item: unknown, param: string): { callId: string; output: string } {
  const out = checked(functionOutput, item, param);
  if (typeof out.output === 'string') return { callId: out.call_id, output: out.output };
  const text = out.output.map((part, i) => {
    const where = `${param}.output.${i}`;
    if (part.type === 'input_text') return checked(z.object({ text: z.string() }), part, where).text;
    throw unsupported(
      `${where}.type`,
      `${JSON.stringify(part.type)} parts in a function_call_output (the output is text: a string or input_text parts)`,
    );
  });
  return { callId: out.call_id, output: text.join('') };
}

/** The trailing `function_call_output` items (from index `from`) as the client's results; one per call. */
export function readResults(items: readonly Record<string, unknown>[], from: number): WireResult[] {
  const seen = new Set<string>();
  return items.slice(from).map((item, k) => {
    const param = `input.${from + k}`;
    const { callId, output } = readOutput(item, param);
    if (seen.has(callId))
      throw bad(`${param}.call_id`, `${param}.call_id: a second function_call_output for call ${callId}`);
    seen.add(callId);
    return { callId, output, param: `${param}.call_id` };
  });
}

/**
 * Checks that the results answer calls waiting in `sessionId` (400 `unknown_tool_call`
 * naming the result otherwise), and every one of them (400 `missing_tool_output`).
 */
export function requireEveryOutput(
  sessions: Pick<SessionsService, 'clientCalls' | 'byClientCall'>,
  sessionId: string,
  results: readonly WireResult[],
): void {
  resolveResults(sessions, results, sessionId);
  const given = new Set(results.map((r) => r.callId));
  const missing = (sessions.clientCalls(sessionId)?.calls ?? []).filter((c) => !given.has(c.id));
  if (missing.length > 0) {
    const list = missing.map((c) => `${c.id} (${c.name})`).join(', ');
    throw bad(
      'input',
      `input: no function_call_output for ${list}: the response asked for ${missing.length === 1 ? 'this call' : 'these calls'} too; send an output for every function_call`,
      'missing_tool_output',
    );
  }
}
