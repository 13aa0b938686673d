/** Renders a scripted `Reply` on the OpenAI chat-completions wire. */
import { hasToolCalls, type Reply, type ReplyItem, splitPieces } from './script.js';

type Json = Record<string, unknown>;
type ToolItem = Extract<ReplyItem, { kind: 'tool-call' }>;

const TO_OPENAI: Record<string, string> = {
  end_turn: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
};

export function openaiFinishReason(r: Reply): string {
  if (r.finish !== undefined) return TO_OPENAI[r.finish] ?? r.finish;
  return hasToolCalls(r) ? 'tool_calls' : 'stop';
}

function openaiUsage(r: Reply): Json | undefined {
  if (!r.usage) return undefined;
  const u = r.usage;
  const usage: Json = {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
  };
  if (u.cached !== undefined) usage.prompt_tokens_details = { cached_tokens: u.cached };
  if (u.reasoning !== undefined) usage.completion_tokens_details = { reasoning_tokens: u.reasoning };
  return usage;
}

function wholeCall(item: ToolItem, index: number): Json {
  const call: Json = { type: 'function', function: { name: item.name, arguments: item.rawArgs } };
  if (item.id !== undefined) call.id = item.id;
  if (!item.noIndex) call.index = index;
  return call;
}

/** The `delta` objects of the stream, in order (without the finish and usage chunks). */
function deltas(r: Reply): Json[] {
  const out: Json[] = [{ role: 'assistant', content: '' }];
  let toolIndex = 0;
  let wholeGroup: Json[] | undefined;
  for (const item of r.items) {
    if (item.kind === 'tool-call' && item.whole) {
      // Consecutive whole calls share one chunk, as Ollama sends them.
      if (!wholeGroup) {
        wholeGroup = [];
        out.push({ tool_calls: wholeGroup });
      }
      wholeGroup.push(wholeCall(item, toolIndex++));
      continue;
    }
    wholeGroup = undefined;
    if (item.kind === 'text') {
      for (const piece of splitPieces(item.text, r.chunkSize)) out.push({ content: piece });
    } else if (item.kind === 'thinking') {
      for (const piece of splitPieces(item.text, r.chunkSize)) out.push({ [r.reasoningField]: piece });
    } else {
      const index = toolIndex++;
      const head: Json = { type: 'function', function: { name: item.name, arguments: '' } };
      if (item.id !== undefined) head.id = item.id;
      if (!item.noIndex) head.index = index;
      out.push({ tool_calls: [head] });
      for (const piece of splitPieces(item.rawArgs, r.chunkSize)) {
        const part: Json = { function: { arguments: piece } };
        if (!item.noIndex) part.index = index;
        out.push({ tool_calls: [part] });
      }
    }
  }
  return out;
}

/** Every SSE event of a streamed reply, each a complete `data: ...\n\n` string. */
export function openaiChunks(r: Reply, model: string): string[] {
  const id = `chatcmpl-scripted-${Date.now()}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: Json[], extra: Json = {}): string =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
  const events = deltas(r).map((delta) => chunk([{ index: 0, delta, finish_reason: null }]));
  events.push(chunk([{ index: 0, delta: {}, finish_reason: openaiFinishReason(r) }]));
  const usage = openaiUsage(r);
  if (usage) events.push(chunk([], { usage }));
  events.push('data: [DONE]\n\n');
  return events;
}

/** The complete non-streamed `chat.completion` object. */
export function openaiCompletion(r: Reply, model: string): Json {
  const text = r.items.flatMap((i) => (i.kind === 'text' ? [i.text] : [])).join('');
  const thinking = r.items.flatMap((i) => (i.kind === 'thinking' ? [i.text] : [])).join('');
  const calls = r.items.flatMap((i, n) => (i.kind === 'tool-call' ? [wholeCall(i, n)] : []));
  const message: Json = { role: 'assistant', content: text === '' && calls.length > 0 ? null : text };
  if (thinking !== '') message[r.reasoningField] = thinking;
  if (calls.length > 0) message.tool_calls = calls.map(({ index: _index, ...rest }) => rest);
  const completion: Json = {
    id: `chatcmpl-scripted-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: openaiFinishReason(r) }],
  };
  const usage = openaiUsage(r);
  if (usage) completion.usage = usage;
  return completion;
}
