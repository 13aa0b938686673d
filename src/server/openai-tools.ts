/**
 * A chat-completions request's client side: the parameters Tea refuses by name, the
 * client's function tools, `tool_choice` and `response_format` as the agent's
 * `ClientTurn`, the client's tool results that continue a stopped turn, and the
 * model's calls to client tools as wire `tool_calls`. The Responses API shares
 * `clientTurn` (function tools are the same specs), `resolveResults` (its
 * `function_call_output` items are the same results) and `wireToolCalls`.
 */
import type { Agent } from '../agent/index.js';
import {
  answerCheck,
  type ClientToolResult,
  type ClientTurn,
  clientToolCollision,
  InvalidSchemaError,
  type ResponseFormat,
  type ToolCallPart,
  type ToolChoice,
  type ToolSpec,
} from '../runtime/client-tools.js';
import type { SessionsService } from '../runtime/sessions.js';
import { apiError } from './errors.js';
import type { ChatRequest } from './openai-request.js';

/** Parameters taken knowingly though they do not reach the model (see the README's Faces section). */
const ACCEPTED = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'profile',
  'config_path',
  'session_id',
  'if_busy',
  'tea_progress',
  'tools',
  'tool_choice',
  'response_format',
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'top_p',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'user',
  'metadata',
  'store',
  'parallel_tool_calls',
  'service_tier',
  'safety_identifier',
  'prompt_cache_key',
  'n',
  'logprobs',
  'modalities',
]);

/** Why a parameter with this value cannot be honoured; undefined: it can. */
const UNSUPPORTED: Record<string, (v: unknown) => string | undefined> = {
  n: (v) => (v === 1 ? undefined : 'Tea runs one agent turn per request: n must be 1'),
  logprobs: (v) => (v === false ? undefined : 'Tea does not return log probabilities'),
  modalities: (v) =>
    Array.isArray(v) && v.every((m) => m === 'text')
      ? undefined
      : 'Tea answers in text only: modalities must be ["text"]',
};

const REFUSED: Record<string, string> = {
  top_logprobs: 'Tea does not return log probabilities',
  logit_bias: 'Tea does not pass logit_bias to its models',
  audio: 'Tea answers in text only',
  prediction: 'Tea does not support predicted outputs',
  web_search_options: 'Tea searches the web with its own tools',
  functions: 'functions is deprecated: use tools',
  function_call: 'function_call is deprecated: use tool_choice',
  reasoning_effort: "Tea's model profile sets thinking (profile thinking_budget), not the request",
  verbosity: 'Tea does not pass verbosity to its models',
  prompt: 'stored prompts are not supported',
};

/**
 * Refuses, with a 400 naming it, every parameter Tea cannot honour: ones it does not
 * support and ones it does not know. A null value is as if absent.
 */
export function checkParams(body: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(body)) {
    if (value === null || value === undefined) continue;
    const why = REFUSED[key] ?? UNSUPPORTED[key]?.(value);
    if (why)
      throw apiError(400, `${key} is not supported: ${why}`, { param: key, code: 'unsupported_parameter' });
    if (!ACCEPTED.has(key))
      throw apiError(400, `unknown parameter: ${key}`, { param: key, code: 'unknown_parameter' });
  }
}

/** Where a client's request named each part, for the 400s (chat completions and Responses differ). */
export interface ClientParams {
  /** The `i`-th tool's name, e.g. `tools.0.function.name`. */
  toolName: (i: number) => string;
  /** The named tool of the tool choice, e.g. `tool_choice.function.name`. */
  toolChoice: string;
  /** The response format's schema, e.g. `response_format.json_schema.schema`. */
  schema: string;
  /** The response format itself, e.g. `response_format`. */
  format: string;
}

/** A client's tools, tool choice, response format and sampling, parsed from any OpenAI wire. */
export interface ClientRequest {
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  responseFormat?: ResponseFormat;
  sampling?: ClientTurn['sampling'];
}

/**
 * What the client adds to the turn, checked against the agent's tools (duplicate and
 * colliding names, a tool choice naming no tool, a schema that cannot be checked: 400s
 * naming `params`), or undefined when it adds nothing. Shared by the OpenAI faces.
 */
export async function buildClientTurn(
  req: ClientRequest,
  agent: Agent,
  params: ClientParams,
): Promise<ClientTurn | undefined> {
  const { tools, toolChoice, responseFormat } = req;
  const seen = new Set<string>();
  tools.forEach((t, i) => {
    if (seen.has(t.name))
      throw apiError(400, `tools: two tools are named ${t.name}`, {
        param: params.toolName(i),
        code: 'duplicate_tool_name',
      });
    seen.add(t.name);
  });
  const teaTools = agent.services.tools;
  const clash = clientToolCollision(tools, (name) => teaTools.has(name));
  if (clash !== undefined) {
    const i = tools.findIndex((t) => t.name === clash);
    const message = `tools.${i}: ${clash} is the name of one of Tea's own tools; rename the client's tool`;
    throw apiError(400, message, { param: params.toolName(i), code: 'tool_name_collision' });
  }
  if (typeof toolChoice === 'object' && !seen.has(toolChoice.name) && !teaTools.has(toolChoice.name)) {
    const message = `tool_choice names ${toolChoice.name}, which is neither one of the request's tools nor Tea's`;
    throw apiError(400, message, { param: params.toolChoice, code: 'unknown_tool' });
  }
  const answer = responseFormat ? await checkOf(responseFormat, params) : undefined;
  const sampled = req.sampling && Object.keys(req.sampling).length > 0;
  if (tools.length === 0 && toolChoice === undefined && !responseFormat && !sampled) return undefined;
  return {
    tools,
    ...(sampled ? { sampling: req.sampling } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(responseFormat ? { responseFormat } : {}),
    ...(answer ? { answer } : {}),
  };
}

const CHAT_PARAMS: ClientParams = {
  toolName: (i) => `tools.${i}.function.name`,
  toolChoice: 'tool_choice.function.name',
  schema: 'response_format.json_schema.schema',
  format: 'response_format',
};

/** A chat-completions request's client side as the agent's `ClientTurn` (see `buildClientTurn`). */
export function clientTurn(
  body: Pick<
    ChatRequest,
    'tools' | 'tool_choice' | 'response_format' | 'temperature' | 'max_tokens' | 'max_completion_tokens'
  >,
  agent: Agent,
): Promise<ClientTurn | undefined> {
  const tools: ToolSpec[] = (body.tools ?? []).map((t) => ({
    name: t.function.name,
    description: t.function.description ?? '',
    parameters: t.function.parameters ?? { type: 'object', properties: {} },
  }));
  const choice = body.tool_choice ?? undefined;
  const toolChoice = typeof choice === 'object' ? { name: choice.function.name } : choice;
  const responseFormat = formatOf(body.response_format);
  const maxOutputTokens = body.max_completion_tokens ?? body.max_tokens ?? undefined;
  const sampling = {
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(maxOutputTokens ? { maxOutputTokens } : {}),
  };
  return buildClientTurn(
    {
      tools,
      sampling,
      ...(toolChoice ? { toolChoice } : {}),
      ...(responseFormat ? { responseFormat } : {}),
    },
    agent,
    CHAT_PARAMS,
  );
}

function formatOf(format: ChatRequest['response_format']): ResponseFormat | undefined {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { name, description, schema, strict } = format.json_schema;
  if (!schema)
    throw apiError(400, 'response_format.json_schema.schema is required', {
      param: 'response_format.json_schema.schema',
      code: 'invalid_schema',
    });
  return {
    type: 'json_schema',
    name,
    schema,
    ...(description ? { description } : {}),
    ...(typeof strict === 'boolean' ? { strict } : {}),
  };
}

async function checkOf(format: ResponseFormat, params: ClientParams): Promise<ClientTurn['answer']> {
  try {
    return { ...(await answerCheck(format)), param: params.format };
  } catch (e) {
    if (!(e instanceof InvalidSchemaError)) throw e;
    const where = format.type === 'json_schema' ? params.schema : params.format;
    throw apiError(400, `${where}: ${e.message}`, { param: where, code: 'invalid_schema' });
  }
}

/** A client's result for one call, with where it came from (`param`: named in errors). */
export interface WireResult extends ClientToolResult {
  param: string;
}

/**
 * The session whose stopped turn the results continue: `sessionId` when given,
 * else the session that issued the first result's call. Every result must answer
 * one of its waiting calls (a 400 naming the result otherwise).
 */
export function resolveResults(
  sessions: Pick<SessionsService, 'clientCalls' | 'byClientCall'>,
  results: readonly WireResult[],
  sessionId: string | undefined,
): string {
  const first = results[0]!;
  const id = sessionId ?? sessions.byClientCall(first.callId);
  const waiting = new Set(id ? (sessions.clientCalls(id)?.calls.map((c) => c.id) ?? []) : []);
  for (const r of results) {
    if (!waiting.has(r.callId)) {
      const where = sessionId ? `session ${sessionId}` : 'any session';
      throw apiError(
        400,
        `${r.param}: no tool call ${JSON.stringify(r.callId)} waits for a result in ${where}`,
        {
          param: r.param,
          code: 'unknown_tool_call',
        },
      );
    }
  }
  return id!;
}

/** The model's calls to client tools as wire `tool_calls` (arguments as JSON text). */
export function wireToolCalls(
  calls: readonly ToolCallPart[],
): { id: string; type: 'function'; function: { name: string; arguments: string } }[] {
  return calls.map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
}

/**
 * The streamed deltas of the calls, as OpenAI streams them: per call a first delta
 * with its index, id, type and name, then its arguments.
 */
export function toolCallDeltas(calls: readonly ToolCallPart[]): string[] {
  return wireToolCalls(calls).flatMap((c, index) => [
    JSON.stringify({
      tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }],
    }),
    JSON.stringify({ tool_calls: [{ index, function: { arguments: c.function.arguments } }] }),
  ]);
}
