/**
 * A Responses conversation that the client resends whole, without
 * `previous_response_id` or `session_id` (what the OpenAI Agents SDK does with
 * `result.history`, and any client that keeps its own history), continues its stored
 * session instead of starting a new one per turn, as chat completions do
 * (chat-conversation.ts). After each answered turn the session notes a hash of the items
 * the client then holds: the request's input and the response's output. A request whose
 * items before its last user message hash the same continues that session (busy: 409
 * `session_busy`, or `if_busy: "queue"`); a changed or dropped item starts a new session
 * primed with what was sent (a branch).
 *
 * An item hashes by what it says, never by ids, statuses or annotations (clients drop or
 * rewrite them): a message by its role (developer as system), text and image URLs; a
 * function call by call id, name and arguments as canonical JSON; a function call output
 * by call id and output. Reasoning items do not count: Tea never reads them back.
 */
import { canonicalArgs, hashEntries } from './chat-conversation.js';
import type { ResponsesRequest } from './responses-request.js';

type Item = Record<string, unknown>;

/** A message's text and image URLs. */
function content(raw: unknown): [string, string[]] {
  if (typeof raw === 'string') return [raw, []];
  let text = '';
  const images: string[] = [];
  for (const part of Array.isArray(raw) ? (raw as Item[]) : []) {
    if (part.type === 'input_text' || part.type === 'output_text') text += String(part.text ?? '');
    else if (part.type === 'refusal') text += String(part.refusal ?? '');
    else if (part.type === 'input_image') images.push(String(part.image_url ?? part.file_id ?? ''));
  }
  return [text, images];
}

function output(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  return (Array.isArray(raw) ? (raw as Item[]) : []).map((p) => String(p.text ?? '')).join('');
}

/** What an item says, for the hash; undefined for an item that does not count. */
function entry(item: Item): unknown[] | undefined {
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  if (type === 'message') {
    const role = item.role === 'developer' ? 'system' : item.role;
    return ['message', role, ...content(item.content)];
  }
  if (type === 'function_call')
    return ['call', item.call_id, item.name, canonicalArgs(String(item.arguments ?? ''))];
  if (type === 'function_call_output') return ['output', item.call_id, output(item.output)];
  return undefined;
}

/** The request's input as items (a string is one user message). */
export function inputItems(input: ResponsesRequest['input']): Item[] {
  return typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input;
}

/** The hash of a conversation's items. */
export function itemsHash(items: readonly Item[]): Promise<string> {
  return hashEntries(
    'responses',
    items.map(entry).filter((e) => e !== undefined),
  );
}

/** The items before the input's last item (a user message) when there are any that count. */
export function earlierItems(input: ResponsesRequest['input']): Item[] | undefined {
  const items = inputItems(input);
  const earlier = items.slice(0, -1);
  return earlier.some((i) => entry(i) !== undefined) ? earlier : undefined;
}
