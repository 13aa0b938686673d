import type { Part } from '../llm/types.js';
import type { StoredMessage } from '../store/index.js';
import type { HistoryHit } from '../tools/types.js';

interface Piece {
  text: string;
  tool?: string;
  callId?: string;
}

function pieces(part: Part): Piece[] {
  switch (part.type) {
    case 'text':
    case 'thinking':
      return [{ text: part.text }];
    case 'image':
      return [{ text: `[image ${part.mediaType}]` }];
    case 'tool-call':
      return [{ text: `${part.name} ${JSON.stringify(part.args)}`, tool: part.name, callId: part.id }];
    case 'tool-result':
      return [{ text: part.output, tool: part.name, callId: part.callId }];
  }
}

function snippet(text: string, at: number, length: number, width: number): string {
  const start = Math.max(0, at - Math.floor(width / 2));
  const end = Math.min(text.length, at + length + Math.floor(width / 2));
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${body}${end < text.length ? '…' : ''}`;
}

/**
 * Finds messages of a transcript by text (case-insensitive), by tool name, or by
 * call id; newest first. An empty query with a tool lists that tool's calls.
 */
export function searchMessages(
  messages: readonly StoredMessage[],
  query: string,
  opts: { limit?: number; tool?: string } = {},
): HistoryHit[] {
  const needle = query.trim().toLowerCase();
  const limit = opts.limit ?? 20;
  const hits: HistoryHit[] = [];
  for (let i = messages.length - 1; i >= 0 && hits.length < limit; i--) {
    const m = messages[i]!;
    for (const piece of m.parts.flatMap(pieces)) {
      if (opts.tool && piece.tool !== opts.tool) continue;
      const at = needle ? piece.text.toLowerCase().indexOf(needle) : 0;
      const byId = needle !== '' && piece.callId?.toLowerCase() === needle;
      if (at < 0 && !byId) continue;
      hits.push({
        seq: m.seq,
        role: m.role,
        turnId: m.turnId,
        snippet: snippet(piece.text, Math.max(0, at), needle.length, 160),
        ...(piece.tool ? { tool: piece.tool, callId: piece.callId } : {}),
      });
      break;
    }
  }
  return hits;
}

/** Messages with seq in [from, to] in full (each piece capped), oldest first. */
export function readMessages(
  messages: readonly StoredMessage[],
  from: number,
  to: number,
  cap = 4000,
): HistoryHit[] {
  return messages
    .filter((m) => m.seq >= from && m.seq <= to)
    .flatMap((m) =>
      m.parts.flatMap(pieces).map((p) => ({
        seq: m.seq,
        role: m.role,
        turnId: m.turnId,
        snippet: p.text.length > cap ? `${p.text.slice(0, cap)}… (${p.text.length} chars)` : p.text,
        ...(p.tool ? { tool: p.tool, callId: p.callId } : {}),
      })),
    );
}
