/** Searching sessions by title and message text (the sessions service's `search`). */
import type { Part } from '../llm/types.js';
import type { Store } from '../store/index.js';

/** A session found by `search`: by its title or by the text of one of its messages. */
export interface SessionHit {
  id: string;
  title: string | null;
  snippet: string;
  /** The message whose text matched (absent for a title match). */
  messageId?: number;
}

function textOfParts(parts: Part[]): string {
  return parts
    .map((p) =>
      p.type === 'text' || p.type === 'thinking' ? p.text : p.type === 'tool-result' ? p.output : '',
    )
    .join(' ');
}

function snippet(text: string, needle: string, width = 120): string {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  const start = Math.max(0, at - width / 2);
  const body = text
    .slice(start, start + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${body}${start + width < text.length ? '…' : ''}`;
}

/** LIKE pattern with %, _ and \ escaped. */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

/** Sessions whose title or message text contains `q` (case-insensitive), newest first. */
export function searchSessions(store: Store, q: string, limit: number): SessionHit[] {
  const needle = q.toLowerCase();
  const hits = new Map<string, SessionHit>();
  for (const row of store.sessions.list({ limit: 2000 })) {
    if (hits.size >= limit) break;
    if ((row.title ?? '').toLowerCase().includes(needle))
      hits.set(row.id, { id: row.id, title: row.title, snippet: row.title ?? '' });
  }
  for (const m of store.messages.findText(likePattern(q), limit * 5)) {
    if (hits.size >= limit) break;
    if (hits.has(m.sessionId)) continue;
    const text = textOfParts(m.parts);
    if (!text.toLowerCase().includes(needle)) continue; // matched JSON syntax, not text
    hits.set(m.sessionId, {
      id: m.sessionId,
      title: store.sessions.get(m.sessionId)?.title ?? null,
      snippet: snippet(text, q),
      messageId: m.id,
    });
  }
  return [...hits.values()];
}
