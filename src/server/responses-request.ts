/**
 * The Responses API request (`POST /v1/responses`): which parameters Tea takes, a 400
 * naming any other one (never silently ignored), and the translation of `input` (a
 * string or a list of items) into the session's history and the turn's input. Function
 * tools and trailing `function_call_output` items (results that continue a turn stopped
 * for the client's tools) are read in responses-tools.ts, `text.format` in
 * responses-format.ts.
 */
import * as z from 'zod';
import type { ImagePart, Message, Part } from '../llm/types.js';
import { imageFromUrl, safeArgs } from './openai-request.js';
import type { WireResult } from './openai-tools.js';
import { type ReadText, readText } from './responses-format.js';
import { bad, checked, unsupported } from './responses-params.js';
import { type ResponsesTools, readOutput, readResults, readTools } from './responses-tools.js';
import { validated } from './validate.js';

const nullish = <T extends z.ZodType>(t: T) => t.nullish();

export const responsesRequest = z.object({
  model: nullish(z.string()),
  input: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))], {
    error: 'input must be a string or a list of input items (messages)',
  }),
  instructions: nullish(z.string()),
  previous_response_id: nullish(z.string().min(1)),
  store: nullish(z.boolean()),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.object({ include_obfuscation: z.boolean().optional() })),
  metadata: nullish(z.record(z.string(), z.string())),
  user: nullish(z.string()),
  safety_identifier: nullish(z.string()),
  prompt_cache_key: nullish(z.string()),
  include: nullish(z.array(z.string())),
  tools: nullish(z.array(z.record(z.string(), z.unknown()))),
  tool_choice: nullish(z.unknown()),
  parallel_tool_calls: nullish(z.boolean()),
  /** Passed to the model on every call of the turn (as on chat completions). */
  temperature: nullish(z.number().min(0).max(2)),
  /** Accepted, not used (as on chat completions). */
  top_p: nullish(z.number().min(0).max(1)),
  /** The most tokens each model call of the turn may write. */
  max_output_tokens: nullish(z.number().int().min(1)),
  truncation: nullish(z.enum(['auto', 'disabled'])),
  background: nullish(z.boolean()),
  text: nullish(z.record(z.string(), z.unknown())),
  /** Tea: the model profile for this request. */
  profile: z.string().min(1).optional(),
  /** Tea: a profile name or a YAML profile file inside the Tea home. */
  config_path: z.string().min(1).optional(),
  /** Tea: continue this stored session (instead of `previous_response_id`). */
  session_id: z.string().min(1).optional(),
  /** Tea: when the session is busy, `queue` waits for its turn; `error` (the default) is a 409. */
  if_busy: z.enum(['error', 'queue']).optional(),
  /** Tea: stream tool starts and ends as `tea.progress` events. */
  tea_progress: z.boolean().optional(),
});

export type ResponsesRequest = z.infer<typeof responsesRequest>;

/** Parameters of the Responses API that Tea does not take (yet), and why. */
const UNSUPPORTED: Record<string, string> = {
  top_logprobs: 'log probabilities are not available',
  max_tool_calls: 'the agent runs its own tools under its iteration limit (agent.max_iterations)',
  reasoning: 'reasoning settings come from the model profile',
  conversation: 'conversations are Tea sessions: use previous_response_id or session_id',
  prompt: 'stored prompt templates are not available',
  prompt_cache_retention: 'prompt caching is up to the model provider',
  context_management: 'Tea manages the context window itself',
  service_tier: 'service tiers are up to the model provider',
};

/** A checked request: its function tools, tool choice and text format read. */
export type ReadRequest = Omit<ResponsesRequest, 'text'> & { client: ResponsesTools; text: ReadText };

/** Validates the body: types, then every parameter Tea cannot honour as a 400 naming it. */
export function readResponsesRequest(raw: Record<string, unknown>): ReadRequest {
  for (const [key, value] of Object.entries(raw)) {
    if (value === null || value === undefined || key in responsesRequest.shape) continue;
    const why = UNSUPPORTED[key];
    throw why ? unsupported(key, why) : bad(key, `unknown parameter: ${key}`, 'unknown_parameter');
  }
  const body = validated(responsesRequest, raw);
  const tools = readTools(body.tools ?? [], body.tool_choice);
  (body.include ?? []).forEach((what, i) => {
    throw unsupported(`include.${i}`, `${JSON.stringify(what)} cannot be included`);
  });
  if (body.truncation === 'disabled')
    throw unsupported('truncation', '"disabled": Tea always fits the context itself ("auto")');
  if (body.background === true) throw unsupported('background', 'background responses are not available');
  const text = readText(body.text);
  if (body.previous_response_id && body.session_id)
    throw bad('session_id', 'give previous_response_id or session_id, not both');
  return { ...body, client: tools, text };
}

const inputText = z.object({ type: z.literal('input_text'), text: z.string() });
const outputText = z.object({ type: z.literal('output_text'), text: z.string() });
const refusal = z.object({ type: z.literal('refusal'), refusal: z.string() });
const inputImage = z.object({
  type: z.literal('input_image'),
  image_url: z.string().min(1).nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const message = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'system', 'developer', 'assistant']),
  content: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]),
});
const functionCall = z.object({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
});

/** A message's text and images; the part types a role may carry. */
function messageParts(m: z.infer<typeof message>, param: string): { text: string; images: ImagePart[] } {
  if (typeof m.content === 'string') return { text: m.content, images: [] };
  let text = '';
  const images: ImagePart[] = [];
  m.content.forEach((raw, i) => {
    const where = `${param}.content.${i}`;
    const type = raw.type;
    if (m.role === 'assistant') {
      if (type === 'output_text') text += checked(outputText, raw, where).text;
      else if (type === 'refusal') text += checked(refusal, raw, where).refusal;
      else
        throw bad(`${where}.type`, `${where}.type: an assistant message takes output_text or refusal parts`);
      return;
    }
    if (type === 'input_text') text += checked(inputText, raw, where).text;
    else if (type === 'input_image') {
      const image = checked(inputImage, raw, where);
      if (!image.image_url)
        throw unsupported(
          `${where}.file_id`,
          'uploaded files are not available: send image_url (http(s) or data:)',
        );
      images.push(imageFromUrl(image.image_url, `${where}.image_url`));
    } else if (type === 'input_file' || type === 'input_audio')
      throw unsupported(`${where}.type`, `${type} parts are not available (input_text and input_image are)`);
    else
      throw bad(
        `${where}.type`,
        `${where}.type: expected input_text or input_image, got ${JSON.stringify(type)}`,
      );
  });
  return { text, images };
}

export interface ResponsesInput {
  /** The items before the last: history the session gets before the turn. */
  history: Message[];
  input: string;
  images: ImagePart[];
  /**
   * `input` ends with `function_call_output` items: the client's results for the calls
   * a turn stopped for. They continue that turn (no new input; earlier items are not
   * stored again: the session has them).
   */
  toolResults?: WireResult[];
}

const isOutput = (item: Record<string, unknown>): boolean => item.type === 'function_call_output';

/**
 * Splits `input` into history and the turn's input: the last item must be a user
 * message, or `function_call_output` items (the client's tool results).
 */
export function toResponsesInput(input: ResponsesRequest['input']): ResponsesInput {
  if (typeof input === 'string') {
    if (input.trim() === '') throw bad('input', 'input is empty');
    return { history: [], input, images: [] };
  }
  if (input.length === 0) throw bad('input', 'input must contain at least one item');
  let tail = input.length;
  while (tail > 0 && isOutput(input[tail - 1]!)) tail--;
  const history: Message[] = [];
  const names = new Map<string, string>();
  let turn: { text: string; images: ImagePart[] } | undefined;
  input.slice(0, tail).forEach((item, i) => {
    const param = `input.${i}`;
    const last = i === input.length - 1;
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      const m = checked(message, item, param);
      const { text, images } = messageParts(m, param);
      if (last) {
        if (m.role !== 'user')
          throw bad(
            `${param}.role`,
            `the last input item must be a user message or function_call_output items, got role "${m.role}"`,
          );
        if (text.trim() === '' && images.length === 0)
          throw bad(`${param}.content`, 'the last user message is empty');
        turn = { text, images };
        return;
      }
      const parts: Part[] = text === '' ? [] : [{ type: 'text', text }];
      if (m.role === 'user') parts.push(...images);
      if (parts.length > 0) history.push({ role: m.role === 'developer' ? 'system' : m.role, parts });
      return;
    }
    if (last)
      throw bad(
        `${param}.type`,
        `the last input item must be a user message or function_call_output items, got ${JSON.stringify(type)}`,
      );
    if (type === 'function_call') {
      const call = checked(functionCall, item, param);
      names.set(call.call_id, call.name);
      const part: Part = {
        type: 'tool-call',
        id: call.call_id,
        name: call.name,
        args: safeArgs(call.arguments),
      };
      const prev = history.at(-1);
      if (prev?.role === 'assistant') prev.parts.push(part);
      else history.push({ role: 'assistant', parts: [part] });
    } else if (type === 'function_call_output') {
      const { callId, output } = readOutput(item, param);
      const name = names.get(callId) ?? 'unknown';
      history.push({ role: 'tool', parts: [{ type: 'tool-result', callId, name, output, isError: false }] });
    } else if (type === 'reasoning') {
      // An earlier response's reasoning: the model's own notes, not part of the conversation.
    } else {
      throw unsupported(`${param}.type`, `input items of type ${JSON.stringify(type)} are not available`);
    }
  });
  if (tail < input.length)
    return { history: [], input: '', images: [], toolResults: readResults(input, tail) };
  return { history, input: turn!.text, images: turn!.images };
}
