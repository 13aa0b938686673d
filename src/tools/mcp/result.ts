/**
 * An MCP `tools/call` result as a Tea tool result: text stays text, images become
 * image parts, resources and links become text naming their URI, and `isError`
 * becomes a ToolError (the runner shows it as `[ERROR] ...`).
 */
import type { ImagePart } from '../../llm/types.js';
import { ToolError, type ToolResult } from '../types.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Decoded size of base64 data, for describing binary content without including it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function resourceText(resource: Json): string {
  const uri = str(resource.uri) ?? '(no uri)';
  const mime = str(resource.mimeType);
  const text = str(resource.text);
  if (text !== undefined) return `[resource ${uri}${mime ? ` (${mime})` : ''}]\n${text}`;
  const blob = str(resource.blob);
  const size = blob === undefined ? '' : `, ${base64Bytes(blob)} bytes`;
  return `[resource ${uri} (${mime ?? 'binary'}${size}; binary content not shown)]`;
}

function linkText(block: Json): string {
  const uri = str(block.uri) ?? '(no uri)';
  const name = str(block.name);
  const description = str(block.description);
  const label = name && name !== uri ? `${name}: ${uri}` : uri;
  return `[resource link] ${label}${description ? ` (${description})` : ''}`;
}

/** One content block as text, or an image to attach. */
function mapBlock(block: unknown, images: ImagePart[]): string | undefined {
  if (!isRecord(block)) return undefined;
  switch (block.type) {
    case 'text':
      return str(block.text) ?? '';
    case 'image': {
      const data = str(block.data);
      const mediaType = str(block.mimeType) ?? 'image/png';
      if (data === undefined) return '[image without data]';
      images.push({ type: 'image', mediaType, data });
      return `[image ${mediaType}, ${base64Bytes(data)} bytes]`;
    }
    case 'audio': {
      const data = str(block.data) ?? '';
      return `[audio ${str(block.mimeType) ?? 'audio'}, ${base64Bytes(data)} bytes; not shown]`;
    }
    case 'resource':
      return isRecord(block.resource) ? resourceText(block.resource) : '[resource]';
    case 'resource_link':
      return linkText(block);
    default:
      return `[unsupported content type ${JSON.stringify(block.type)}]`;
  }
}

/** Maps a `tools/call` result; throws ToolError when the server flagged an error. */
export function mapCallResult(result: unknown, label: string): ToolResult {
  if (!isRecord(result)) throw new ToolError(`${label} returned a malformed result`);
  const images: ImagePart[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  const parts = content.map((block) => mapBlock(block, images)).filter((p): p is string => p !== undefined);
  // Older servers answer `toolResult`; structured-only answers are shown as JSON.
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  } else if (parts.length === 0 && result.toolResult !== undefined) {
    parts.push(typeof result.toolResult === 'string' ? result.toolResult : JSON.stringify(result.toolResult));
  }
  const output = parts.join('\n');
  if (result.isError === true) {
    throw new ToolError(output.trim() || `${label} failed without a message`);
  }
  const mapped: ToolResult = { output: output.length > 0 ? output : '(no output)' };
  if (images.length > 0) mapped.images = images;
  return mapped;
}
