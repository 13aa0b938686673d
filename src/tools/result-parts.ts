/**
 * How a tool result's audio and embedded resources read to the agent's own model. No
 * provider wire Tea speaks takes audio or documents inside a tool result, so each part
 * becomes text appended to the output: an embedded text resource shows its URI, type
 * and text (at most `MAX_SHOWN_TEXT` characters in all), a binary one and a clip a line that
 * names them. Over MCP (`tea mcp serve`) the parts go out as they are.
 */
import type { AudioPart, ResourcePart } from './types.js';

/** The most text of embedded resources (all of a result's together) the model reads. */
export const MAX_SHOWN_TEXT = 20_000;

function bytesOf(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
}

function resourceNote(r: ResourcePart, budget: { left: number }): string {
  const type = r.mimeType ?? (r.text !== undefined ? 'text' : 'binary');
  if (r.text === undefined)
    return `[resource ${r.uri} (${type}, ${bytesOf(r.blob)} bytes): binary content, not shown to the model]`;
  const shown = Math.min(r.text.length, budget.left);
  budget.left -= shown;
  const text = r.text.slice(0, shown);
  const more = shown < r.text.length ? `\n[… ${r.text.length - shown} more characters not shown]` : '';
  return `[resource ${r.uri} (${type})]\n${text}${more}`;
}

function audioNote(a: AudioPart): string {
  return `[audio (${a.mediaType}, ${bytesOf(a.data)} bytes): not sent to the model, which takes text and images only]`;
}

/** `output` with a note for each clip and each resource (in that order); `output` itself when there are none. */
export function describeParts(
  output: string,
  audio: readonly AudioPart[] | undefined,
  resources: readonly ResourcePart[] | undefined,
): string {
  const budget = { left: MAX_SHOWN_TEXT };
  const notes = [...(audio ?? []).map(audioNote), ...(resources ?? []).map((r) => resourceNote(r, budget))];
  if (notes.length === 0) return output;
  return output === '' ? notes.join('\n') : `${output}\n${notes.join('\n')}`;
}
