/**
 * Images in tool results: which ones may be sent to a model at all, and how a
 * result reads to a model that takes none. Both wires and the context engine use
 * these, so a result looks the same wherever it is cut, counted or sent.
 *
 * Limits are the providers' documented ones: PNG, JPEG, GIF and WebP, at most 5 MB
 * per image (Anthropic's limit; OpenAI's is higher).
 */
import type { ImagePart, Message, ModelInfo, Part, ProviderKind, ToolResultPart } from './types.js';

/** How a wire treats images in tool results: sent, or (`send` false) described for `model`. */
export interface WireImages {
  send: boolean;
  model: string;
}

export const SEND_IMAGES: WireImages = { send: true, model: 'this model' };

export function wireImages(info: Pick<ModelInfo, 'images' | 'model'>): WireImages {
  return { send: info.images !== false, model: info.model };
}

/** The largest image (decoded bytes) sent to a model. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** The image types every provider takes. */
export const IMAGE_MEDIA_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded size of base64 data. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function size(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${bytes} bytes`;
}

/** Why `image` cannot be sent to a model, or undefined when it can. */
export function unsendable(image: ImagePart): string | undefined {
  if (image.data === undefined) return image.url === undefined ? 'it has no data' : undefined;
  if (!IMAGE_MEDIA_TYPES.includes(image.mediaType)) {
    return `${image.mediaType} is not a type models take (PNG, JPEG, GIF or WebP)`;
  }
  if (image.data === '') return 'it is empty';
  if (!BASE64.test(image.data)) return 'its data is not valid base64';
  const bytes = base64Bytes(image.data);
  if (bytes > MAX_IMAGE_BYTES)
    return `it is ${size(bytes)}, over the ${size(MAX_IMAGE_BYTES)} limit per image`;
  return undefined;
}

/**
 * A tool's output and images as they go into the transcript: images a model cannot
 * take (too big, another type, broken data) are left out, each with a line in the
 * output saying why.
 */
export function screenToolImages(
  output: string,
  images: readonly ImagePart[] | undefined,
): { output: string; images?: ImagePart[] } {
  if (!images || images.length === 0) return { output };
  const kept: ImagePart[] = [];
  const notes: string[] = [];
  images.forEach((given, i) => {
    const image = normalised(given);
    const why = unsendable(image);
    if (why === undefined) kept.push(image);
    else notes.push(`[image ${i + 1} (${image.mediaType}) not sent to the model: ${why}]`);
  });
  const text = notes.length > 0 ? `${output}${output === '' ? '' : '\n'}${notes.join('\n')}` : output;
  return kept.length > 0 ? { output: text, images: kept } : { output: text };
}

/** Base64 with line breaks (some MCP servers wrap it) made one line. */
function normalised(image: ImagePart): ImagePart {
  return image.data !== undefined && /\s/.test(image.data)
    ? { ...image, data: image.data.replace(/\s+/g, '') }
    : image;
}

/**
 * Whether a model the registry does not know takes images: every Claude model since
 * Claude 3 does, and so do the chat models on OpenAI's own API; a model behind any
 * other OpenAI-compatible server (Ollama, vLLM, …) is taken for text-only, since a
 * text model there fails the request that carries one. `models.<id>.images` in the
 * config says otherwise.
 */
export function defaultTakesImages(provider: ProviderKind, baseUrl: string): boolean {
  if (provider === 'anthropic') return true;
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/** How a result with images reads to a model that takes none: its text, and a line saying so. */
export function describeImages(part: ToolResultPart, model: string): ToolResultPart {
  const { images, ...rest } = part;
  if (!images || images.length === 0) return part;
  const count = images.length === 1 ? '1 image' : `${images.length} images`;
  const note = `[${count} not shown: ${model} does not take images]`;
  return { ...rest, output: part.output === '' ? note : `${part.output}\n${note}` };
}

const described = new WeakMap<Message, { model: string; message: Message }>();

/**
 * `message` as a text-only model reads it (`describeImages` on each result), or the
 * same object when no result in it has images. Cached per message, so the context
 * engine's token estimates (cached per message object) stay cached.
 */
export function withImagesDescribed(message: Message, model: string): Message {
  if (!message.parts.some((p) => p.type === 'tool-result' && p.images && p.images.length > 0)) return message;
  const hit = described.get(message);
  if (hit?.model === model) return hit.message;
  const parts = message.parts.map((p): Part => (p.type === 'tool-result' ? describeImages(p, model) : p));
  const out = { ...message, parts };
  described.set(message, { model, message: out });
  return out;
}

/** Base64 characters of tool-result images one request carries at most (Anthropic takes 32 MB a request). */
export const MAX_REQUEST_IMAGE_CHARS = 20 * 1024 * 1024;

/**
 * `messages` with the images of older tool results left out (each result saying so)
 * once the newer ones hold `maxChars` of base64, or the same array when they fit.
 */
export function keepNewestImages(messages: Message[], maxChars = MAX_REQUEST_IMAGE_CHARS): Message[] {
  let total = 0;
  let out: Message[] | undefined;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    let changed = false;
    const parts = m.parts.map((p): Part => {
      if (p.type !== 'tool-result' || !p.images || p.images.length === 0) return p;
      const chars = p.images.reduce((n, image) => n + (image.data?.length ?? 0), 0);
      if (total + chars <= maxChars) {
        total += chars;
        return p;
      }
      changed = true;
      const { images, ...rest } = p;
      const count = images.length === 1 ? '1 image' : `${images.length} images`;
      const note = `[${count} left out: with the newer ones the request would pass ${size(maxChars)} of images]`;
      return { ...rest, output: p.output === '' ? note : `${p.output}\n${note}` };
    });
    if (!changed) continue;
    out ??= [...messages];
    out[i] = { ...m, parts };
  }
  return out ?? messages;
}

/** The line that introduces a result's images where they travel apart from it (OpenAI's follow-up message). */
export function imagesLabel(part: ToolResultPart): string {
  const n = part.images?.length ?? 0;
  return `[${n === 1 ? 'Image' : `${n} images`} returned by the ${part.name} call ${part.callId}]`;
}
