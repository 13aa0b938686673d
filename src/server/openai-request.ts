/**
 * The chat-completions request: its zod schema and the translation of OpenAI
 * wire messages into the internal message shape (earlier messages become the
 * session's history, the last user message becomes the turn's input).
 */
import * as z from 'zod';
import type { ImagePart, Message, Part } from '../llm/types.js';
import { apiError } from './errors.js';
import { checkJsonDepth } from './json-depth.js';

const textPart = z.object({ type: z.literal('text'), text: z.string() });
const imagePart = z.object({
  type: z.literal('image_url'),
  image_url: z.object({ url: z.string().min(1), detail: z.string().optional() }),
});
const content = z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart])), z.null()]);
const toolCall = z.object({
  id: z.string().min(1),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

export const chatMessage = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  content: content.optional(),
  name: z.string().optional(),
  tool_calls: z.array(toolCall).optional(),
  tool_call_id: z.string().optional(),
});

/** A function tool's own fields (nested under `function` on chat, flat on the Responses API). */
export const functionFields = {
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'a tool name is 1 to 64 letters, digits, underscores or dashes'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
};

const functionTool = z.object({ type: z.literal('function'), function: z.object(functionFields) });

const toolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a schema name is 1 to 64 letters, digits, _ or -'),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/**
 * Known fields are checked here; the others stay in the object for `checkParams`
 * (openai-tools.ts), which refuses what Tea does not support by name.
 */
export const chatRequest = z.looseObject({
  model: z.string().optional(),
  messages: z.array(chatMessage).min(1, 'messages must contain at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  /** Tea: the model profile for this request. */
  profile: z.string().min(1).optional(),
  /** Tea: a profile name or a YAML profile file inside the Tea home. */
  config_path: z.string().min(1).optional(),
  /**
   * Tea: continue this stored session (earlier `messages` are then ignored). Without it, a
   * conversation resent whole continues the session it was answered in (chat-conversation.ts).
   */
  session_id: z.string().min(1).optional(),
  /** Tea: when `session_id` is busy, `queue` waits for its turn; `error` (the default) is a 409. */
  if_busy: z.enum(['error', 'queue']).optional(),
  /** Tea: stream tool starts and ends as `delta.tea_progress` chunks. */
  tea_progress: z.boolean().optional(),
  tools: z.array(functionTool).nullish(),
  tool_choice: toolChoice.nullish(),
  response_format: responseFormat.nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  max_tokens: z.int().positive().nullish(),
  max_completion_tokens: z.int().positive().nullish(),
});

export type ChatRequest = z.infer<typeof chatRequest>;
export type ChatMessage = z.infer<typeof chatMessage>;

/** A `data:` URL to an inline image part; any other URL stays a URL. */
export function imageFromUrl(url: string, param: string): ImagePart {
  if (!url.startsWith('data:')) {
    if (!/^https?:\/\//.test(url)) {
      throw apiError(400, `${param}: image_url.url must be an http(s) URL or a data: URL`, {
        param,
        code: 'invalid_value',
      });
    }
    return { type: 'image', mediaType: 'image/*', url };
  }
  const m = /^data:(image\/[\w.+-]+);base64,([A-Za-z0-9+/=\s]+)$/.exec(url);
  if (!m)
    throw apiError(400, `${param}: expected data:image/<type>;base64,<data>`, {
      param,
      code: 'invalid_value',
    });
  return { type: 'image', mediaType: m[1]!, data: m[2]!.replace(/\s+/g, '') };
}

function contentParts(m: ChatMessage, index: number): { text: string; images: ImagePart[] } {
  const c = m.content;
  if (typeof c === 'string') return { text: c, images: [] };
  if (!c) return { text: '', images: [] };
  let text = '';
  const images: ImagePart[] = [];
  c.forEach((p, i) => {
    if (p.type === 'text') text += p.text;
    else images.push(imageFromUrl(p.image_url.url, `messages.${index}.content.${i}.image_url.url`));
  });
  return { text, images };
}

export function safeArgs(raw: string): Record<string, unknown> {
  checkJsonDepth(raw, 'tool call arguments');
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export interface ChatInput {
  /** The earlier messages, as history. */
  history: Message[];
  input: string;
  images: ImagePart[];
  /**
   * The conversation ends with tool messages: the client's results for the calls its
   * tools got (`index`: the message's place, for errors). They continue the turn that
   * stopped for them; there is no new input then.
   */
  toolResults?: { callId: string; output: string; index: number }[];
}

/** The trailing tool messages: the client's tool results. */
function trailingResults(messages: ChatMessage[]): NonNullable<ChatInput['toolResults']> {
  const out: NonNullable<ChatInput['toolResults']> = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role === 'tool'; i--) {
    const m = messages[i]!;
    if (!m.tool_call_id)
      throw apiError(400, 'a tool message needs tool_call_id', {
        param: `messages.${i}.tool_call_id`,
        code: 'invalid_value',
      });
    out.unshift({ callId: m.tool_call_id, output: contentParts(m, i).text, index: i });
  }
  return out;
}

/**
 * Splits the request's messages into history and the turn's input; the last must be
 * from the user, or be tool messages (the client's tool results).
 */
export function toChatInput(messages: ChatMessage[]): ChatInput {
  const last = messages[messages.length - 1]!;
  const lastIndex = messages.length - 1;
  if (last.role === 'tool')
    return { history: [], input: '', images: [], toolResults: trailingResults(messages) };
  if (last.role !== 'user') {
    throw apiError(400, `the last message must have role "user" or "tool", got "${last.role}"`, {
      param: `messages.${lastIndex}.role`,
      code: 'invalid_value',
    });
  }
  const { text, images } = contentParts(last, lastIndex);
  if (text.trim() === '' && images.length === 0) {
    throw apiError(400, 'the last user message is empty', {
      param: `messages.${lastIndex}.content`,
      code: 'invalid_value',
    });
  }
  const names = new Map<string, string>();
  const history: Message[] = [];
  messages.slice(0, -1).forEach((m, i) => {
    const { text: t, images: imgs } = contentParts(m, i);
    const parts: Part[] = [];
    if (m.role === 'tool') {
      if (!m.tool_call_id)
        throw apiError(400, 'a tool message needs tool_call_id', {
          param: `messages.${i}.tool_call_id`,
          code: 'invalid_value',
        });
      const name = names.get(m.tool_call_id) ?? 'unknown';
      parts.push({ type: 'tool-result', callId: m.tool_call_id, name, output: t, isError: false });
      history.push({ role: 'tool', parts });
      return;
    }
    if (t !== '') parts.push({ type: 'text', text: t });
    if (m.role === 'user') parts.push(...imgs);
    if (m.role === 'assistant') {
      for (const call of m.tool_calls ?? []) {
        names.set(call.id, call.function.name);
        parts.push({
          type: 'tool-call',
          id: call.id,
          name: call.function.name,
          args: safeArgs(call.function.arguments),
        });
      }
    }
    if (parts.length === 0) return;
    const role = m.role === 'developer' ? 'system' : m.role;
    history.push({ role, parts });
  });
  return { history, input: text, images };
}
