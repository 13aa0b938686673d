/** Internal messages → the OpenAI chat-completions request body. */
import {
  describeImages,
  imagesLabel,
  keepNewestImages,
  SEND_IMAGES,
  type WireImages,
  wireImages,
} from './images.js';
import type { ImagePart, Message, ModelInfo, ModelRequest, Part, ToolResultPart, ToolSpec } from './types.js';

export type OpenAIContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export type OpenAIMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

export interface OpenAITool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface OpenAIRequestBody {
  model: string;
  messages: OpenAIMessage[];
  stream: true;
  stream_options: { include_usage: true };
  tools?: OpenAITool[];
  tool_choice?: 'auto' | 'none' | 'required' | { type: 'function'; function: { name: string } };
  response_format?:
    | { type: 'json_object' }
    | {
        type: 'json_schema';
        json_schema: {
          name: string;
          schema: Record<string, unknown>;
          strict?: boolean;
          description?: string;
        };
      };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
}

export function imageUrl(part: ImagePart): string {
  if (part.data !== undefined) return `data:${part.mediaType};base64,${part.data}`;
  if (part.url !== undefined) return part.url;
  throw new Error(`image part (${part.mediaType}) has neither data nor url`);
}

function texts(parts: Part[]): string {
  return parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n\n');
}

/**
 * Tool results become `role: tool` messages wherever they appear. A tool message
 * carries text only, so results with images are added to `withImages`, for the
 * user message that follows the step's tool messages.
 */
function toolMessages(parts: Part[], images: WireImages, withImages: ToolResultPart[]): OpenAIMessage[] {
  return parts.flatMap((p): OpenAIMessage[] => {
    if (p.type !== 'tool-result') return [];
    if (p.images && p.images.length > 0) {
      if (!images.send)
        return [{ role: 'tool', tool_call_id: p.callId, content: describeImages(p, images.model).output }];
      withImages.push(p);
    }
    return [{ role: 'tool', tool_call_id: p.callId, content: p.output }];
  });
}

/** One user message with the images of a step's tool results, each group labelled with its call. */
function imagesMessage(results: readonly ToolResultPart[]): OpenAIMessage {
  const content = results.flatMap((r): OpenAIContentPart[] => [
    { type: 'text', text: imagesLabel(r) },
    ...(r.images ?? []).map(
      (i): OpenAIContentPart => ({ type: 'image_url', image_url: { url: imageUrl(i) } }),
    ),
  ]);
  return { role: 'user', content };
}

function userMessage(parts: Part[]): OpenAIMessage | undefined {
  const hasImage = parts.some((p) => p.type === 'image');
  if (!hasImage) {
    const text = texts(parts);
    return parts.some((p) => p.type === 'text') ? { role: 'user', content: text } : undefined;
  }
  // Text-only content stays a plain string: some compatible servers accept nothing else.
  const content = parts.flatMap((p): OpenAIContentPart[] => {
    if (p.type === 'text') return [{ type: 'text', text: p.text }];
    if (p.type === 'image') return [{ type: 'image_url', image_url: { url: imageUrl(p) } }];
    return [];
  });
  return { role: 'user', content };
}

function assistantMessage(parts: Part[]): OpenAIMessage | undefined {
  const calls = parts.flatMap((p): OpenAIToolCall[] =>
    p.type === 'tool-call'
      ? [{ id: p.id, type: 'function', function: { name: p.name, arguments: JSON.stringify(p.args) } }]
      : [],
  );
  const hasText = parts.some((p) => p.type === 'text');
  // Thinking is never sent back on this wire; a thinking-only message is dropped.
  if (!hasText && calls.length === 0) return undefined;
  const text = texts(parts);
  return calls.length > 0
    ? { role: 'assistant', content: hasText ? text : null, tool_calls: calls }
    : { role: 'assistant', content: text };
}

/**
 * Internal messages → OpenAI messages. Tool messages stay together right after the
 * assistant's tool calls; the images of their results follow in one user message
 * (the newest up to MAX_REQUEST_IMAGE_CHARS; older ones are left out, saying so).
 */
export function toOpenAIMessages(messages: Message[], images: WireImages = SEND_IMAGES): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  let withImages: ToolResultPart[] = [];
  const flush = (): void => {
    if (withImages.length === 0) return;
    out.push(imagesMessage(withImages));
    withImages = [];
  };
  for (const m of images.send ? keepNewestImages(messages) : messages) {
    if (m.role === 'tool') {
      out.push(...toolMessages(m.parts, images, withImages));
      continue;
    }
    flush();
    if (m.role === 'system') {
      out.push({ role: 'system', content: texts(m.parts) });
    } else if (m.role === 'user') {
      out.push(...toolMessages(m.parts, images, withImages));
      flush();
      const user = userMessage(m.parts);
      if (user) out.push(user);
    } else {
      const assistant = assistantMessage(m.parts);
      if (assistant) out.push(assistant);
    }
  }
  flush();
  return out;
}

export function toOpenAITools(tools: ToolSpec[]): OpenAITool[] {
  return tools.map((t) => ({
    type: 'function',
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/** OpenAI's own API wants `max_completion_tokens` (reasoning models reject `max_tokens`). */
function usesMaxCompletionTokens(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

export function buildOpenAIBody(info: ModelInfo, request: ModelRequest): OpenAIRequestBody {
  const body: OpenAIRequestBody = {
    model: info.model,
    messages: toOpenAIMessages(request.messages, wireImages(info)),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools && request.tools.length > 0) {
    body.tools = toOpenAITools(request.tools);
    const choice = request.toolChoice;
    if (choice !== undefined)
      body.tool_choice =
        typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') body.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const { type: _type, ...json_schema } = format;
    body.response_format = { type: 'json_schema', json_schema };
  }
  if (request.maxOutputTokens !== undefined) {
    if (usesMaxCompletionTokens(info.baseUrl)) body.max_completion_tokens = request.maxOutputTokens;
    else body.max_tokens = request.maxOutputTokens;
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  return body;
}
