/** Internal messages → the Anthropic messages request body. */
import { describeImages, keepNewestImages, SEND_IMAGES, type WireImages, wireImages } from './images.js';
import type {
  ImagePart,
  Message,
  ModelInfo,
  ModelRequest,
  Part,
  ResponseFormat,
  ToolChoice,
  ToolResultPart,
  ToolSpec,
} from './types.js';

export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };

export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_result';
      tool_use_id: string;
      /** Text alone, or text and image blocks. */
      content?: string | AnthropicResultBlock[];
      is_error: boolean;
    };

/** What a `tool_result` may hold besides plain text. */
export type AnthropicResultBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; source: AnthropicImageSource };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  system?: string;
  tools?: AnthropicTool[];
  tool_choice?: { type: 'auto' | 'any' | 'none' } | { type: 'tool'; name: string };
  temperature?: number;
  thinking?: { type: 'enabled'; budget_tokens: number };
  stream: true;
}

function imageSource(part: ImagePart): AnthropicImageSource {
  if (part.data !== undefined) return { type: 'base64', media_type: part.mediaType, data: part.data };
  if (part.url !== undefined) return { type: 'url', url: part.url };
  throw new Error(`image part (${part.mediaType}) has neither data nor url`);
}

/** A tool result: its text, and its images as image blocks when the model takes them. */
function toolResult(given: ToolResultPart, images: WireImages): AnthropicBlock {
  const part = images.send ? given : describeImages(given, images.model);
  const block: AnthropicBlock = { type: 'tool_result', tool_use_id: part.callId, is_error: part.isError };
  if (part.images && part.images.length > 0) {
    block.content = [
      ...(part.output === '' ? [] : [{ type: 'text' as const, text: part.output }]),
      ...part.images.map((i) => ({ type: 'image' as const, source: imageSource(i) })),
    ];
  } else if (part.output !== '') {
    block.content = part.output;
  }
  return block;
}

/** One internal part → Anthropic blocks (none for parts this wire cannot carry back). */
function toBlocks(part: Part, images: WireImages): AnthropicBlock[] {
  switch (part.type) {
    case 'text':
      // Anthropic rejects empty text blocks.
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'image':
      return [{ type: 'image', source: imageSource(part) }];
    case 'thinking':
      // Only signed thinking can be sent back; unsigned thinking came from another wire.
      return part.signature ? [{ type: 'thinking', thinking: part.text, signature: part.signature }] : [];
    case 'tool-call':
      return [{ type: 'tool_use', id: part.id, name: part.name, input: part.args }];
    case 'tool-result':
      return [toolResult(part, images)];
  }
}

/**
 * System text goes to the top-level `system`; tool results ride in user messages,
 * their images as image blocks inside them (the newest up to MAX_REQUEST_IMAGE_CHARS;
 * older ones are left out, saying so); consecutive messages of one role are merged
 * (Anthropic requires alternation).
 */
export function toAnthropicMessages(
  messages: Message[],
  images: WireImages = SEND_IMAGES,
): {
  system: string | undefined;
  messages: AnthropicMessage[];
} {
  const system: string[] = [];
  const out: AnthropicMessage[] = [];
  for (const m of images.send ? keepNewestImages(messages) : messages) {
    if (m.role === 'system') {
      for (const p of m.parts) if (p.type === 'text' && p.text !== '') system.push(p.text);
      continue;
    }
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content = m.parts.flatMap((p) => toBlocks(p, images));
    if (content.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.content.push(...content);
    else out.push({ role, content });
  }
  for (const m of out) {
    // Tool results must open a user message; a stable sort keeps the rest in order.
    if (m.role === 'user') m.content.sort((a, b) => rank(a) - rank(b));
  }
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

function rank(block: AnthropicBlock): number {
  return block.type === 'tool_result' ? 0 : 1;
}

export function toAnthropicTools(tools: ToolSpec[]): AnthropicTool[] {
  return tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
}

function anthropicChoice(choice: ToolChoice): NonNullable<AnthropicRequestBody['tool_choice']> {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: choice === 'required' ? 'any' : choice };
}

/**
 * Anthropic has no `response_format`: the system prompt asks for the shape instead
 * (the agent loop validates the answer and asks once for a repair).
 */
export function formatInstruction(format: ResponseFormat): string {
  const head =
    'Response format: your final answer (the message with no tool calls) must be a single JSON value and nothing else: no prose, no Markdown code fence.';
  if (format.type === 'json_object') return `${head} It must be a JSON object.`;
  return `${head} It must match this JSON schema (${format.name}):\n${JSON.stringify(format.schema)}`;
}

export function buildAnthropicBody(
  info: ModelInfo,
  request: ModelRequest,
  thinkingBudget: number | undefined,
): AnthropicRequestBody {
  const { system, messages } = toAnthropicMessages(request.messages, wireImages(info));
  let maxTokens = request.maxOutputTokens ?? info.maxOutputTokens;
  const body: AnthropicRequestBody = { model: info.model, max_tokens: maxTokens, messages, stream: true };
  const format = request.responseFormat ? formatInstruction(request.responseFormat) : undefined;
  if (system !== undefined || format) body.system = [system, format].filter(Boolean).join('\n\n');
  if (request.tools && request.tools.length > 0) {
    body.tools = toAnthropicTools(request.tools);
    const choice = request.toolChoice;
    if (choice !== undefined) body.tool_choice = anthropicChoice(choice);
  }
  // Anthropic refuses extended thinking with a forced tool choice: that call goes without it.
  const forced =
    body.tool_choice !== undefined && body.tool_choice.type !== 'auto' && body.tool_choice.type !== 'none';
  if (thinkingBudget !== undefined && thinkingBudget > 0 && !forced) {
    // The thinking budget counts against max_tokens, which must stay larger.
    if (maxTokens <= thinkingBudget) maxTokens = thinkingBudget + maxTokens;
    body.max_tokens = maxTokens;
    body.thinking = { type: 'enabled', budget_tokens: thinkingBudget };
  } else if (request.temperature !== undefined) {
    // Extended thinking does not allow a temperature, so it is only sent without it.
    body.temperature = request.temperature;
  }
  return body;
}
