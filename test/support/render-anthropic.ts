/** Renders a scripted `Reply` on the Anthropic messages wire. */
import { hasToolCalls, type Reply, type ReplyItem, splitPieces } from './script.js';

type Json = Record<string, unknown>;

const TO_ANTHROPIC: Record<string, string> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
};

export const DEFAULT_SIGNATURE = 'scripted-signature';

export function anthropicStopReason(r: Reply): string {
  if (r.finish !== undefined) return TO_ANTHROPIC[r.finish] ?? r.finish;
  return hasToolCalls(r) ? 'tool_use' : 'end_turn';
}

/** Anthropic's `input_tokens` excludes cache reads; the scripted `input` includes them. */
function inputUsage(r: Reply): Json {
  const u = r.usage;
  if (!u) return { input_tokens: 0 };
  const usage: Json = { input_tokens: u.input - (u.cached ?? 0) };
  if (u.cached !== undefined) usage.cache_read_input_tokens = u.cached;
  return usage;
}

function toolId(item: Extract<ReplyItem, { kind: 'tool-call' }>, n: number): string {
  return item.id ?? `toolu_scripted_${n}`;
}

function event(type: string, data: Json): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** Every SSE event of a streamed reply, in the real order. */
export function anthropicEvents(r: Reply, model: string): string[] {
  const events: string[] = [];
  const message = {
    id: `msg_scripted_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...inputUsage(r), output_tokens: r.usage ? 1 : 0 },
  };
  events.push(event('message_start', { message }));
  events.push(event('ping', {}));
  r.items.forEach((item, index) => {
    const delta = (d: Json): void => {
      events.push(event('content_block_delta', { index, delta: d }));
    };
    if (item.kind === 'text') {
      events.push(event('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      for (const piece of splitPieces(item.text, r.chunkSize)) delta({ type: 'text_delta', text: piece });
    } else if (item.kind === 'thinking') {
      const block = { type: 'thinking', thinking: '', signature: '' };
      events.push(event('content_block_start', { index, content_block: block }));
      for (const piece of splitPieces(item.text, r.chunkSize))
        delta({ type: 'thinking_delta', thinking: piece });
      delta({ type: 'signature_delta', signature: item.signature ?? DEFAULT_SIGNATURE });
    } else {
      const block = { type: 'tool_use', id: toolId(item, index), name: item.name, input: {} };
      events.push(event('content_block_start', { index, content_block: block }));
      const pieces = item.whole ? [item.rawArgs] : splitPieces(item.rawArgs, r.chunkSize);
      for (const piece of pieces) delta({ type: 'input_json_delta', partial_json: piece });
    }
    events.push(event('content_block_stop', { index }));
  });
  events.push(
    event('message_delta', {
      delta: { stop_reason: anthropicStopReason(r), stop_sequence: null },
      usage: { output_tokens: r.usage?.output ?? 0 },
    }),
  );
  events.push(event('message_stop', {}));
  return events;
}

/** The complete non-streamed message object. Malformed scripted arguments are sent as `{}`. */
export function anthropicMessage(r: Reply, model: string): Json {
  const content = r.items.map((item, index): Json => {
    if (item.kind === 'text') return { type: 'text', text: item.text };
    if (item.kind === 'thinking') {
      return { type: 'thinking', thinking: item.text, signature: item.signature ?? DEFAULT_SIGNATURE };
    }
    let input: unknown = {};
    try {
      input = JSON.parse(item.rawArgs);
    } catch {
      // a non-streamed Anthropic reply always carries parsed input; keep `{}`
    }
    return { type: 'tool_use', id: toolId(item, index), name: item.name, input };
  });
  return {
    id: `msg_scripted_${Date.now()}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: anthropicStopReason(r),
    stop_sequence: null,
    usage: { ...inputUsage(r), output_tokens: r.usage?.output ?? 0 },
  };
}
