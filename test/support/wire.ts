/** Helpers to read recorded OpenAI-wire request bodies in tests. */

export interface WireMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

export function wireMessages(body: Record<string, unknown>): WireMessage[] {
  return body.messages as WireMessage[];
}

/** The text of a wire message whether its content is a string or a parts array. */
export function wireText(m: WireMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) {
    return m.content
      .map((p: { type?: string; text?: string }) => (p.type === 'text' ? (p.text ?? '') : ''))
      .join('');
  }
  return '';
}
