/** An ACP prompt (content blocks) as Tea's turn input: one text plus images. */
import { fileURLToPath } from 'node:url';
import { type ContentBlock, RequestError } from '@agentclientprotocol/sdk';
import type { ImagePart } from '../llm/types.js';

export interface TeaPrompt {
  text: string;
  images: ImagePart[];
}

/** A `file://` URI as a path; any other URI unchanged. */
export function uriToPath(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

function fence(text: string): string {
  let ticks = '```';
  while (text.includes(ticks)) ticks += '`';
  return ticks;
}

/**
 * Text blocks are joined as written; an embedded text resource is inlined in a
 * fenced block under its path; a resource link is named so the model can read it;
 * images (inline or embedded blobs) become image parts. Audio is refused.
 */
export function toTeaPrompt(blocks: readonly ContentBlock[]): TeaPrompt {
  const texts: string[] = [];
  const images: ImagePart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        texts.push(block.text);
        break;
      case 'image':
        images.push({ type: 'image', mediaType: block.mimeType, data: block.data });
        break;
      case 'resource_link': {
        const where = uriToPath(block.uri);
        const size = typeof block.size === 'number' ? `, ${block.size} bytes` : '';
        texts.push(`[Referenced: ${where}${size} (read it with read_file if needed)]`);
        break;
      }
      case 'resource': {
        const r = block.resource;
        const where = uriToPath(r.uri);
        if ('text' in r) {
          const f = fence(r.text);
          texts.push(`[Contents of ${where}]\n${f}\n${r.text}${r.text.endsWith('\n') ? '' : '\n'}${f}`);
        } else if (r.mimeType?.startsWith('image/')) {
          images.push({ type: 'image', mediaType: r.mimeType, data: r.blob });
        } else {
          texts.push(`[Attached binary resource ${where} (${r.mimeType ?? 'unknown type'}): not shown]`);
        }
        break;
      }
      case 'audio':
        throw RequestError.invalidParams(
          { type: 'audio' },
          'audio prompts are not supported (promptCapabilities.audio is false)',
        );
    }
  }
  return { text: texts.join('\n\n'), images };
}
