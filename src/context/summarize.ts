/**
 * Jobs for the cheap model: the semantic summary of older turns (L3), the review
 * of earlier tool-call chains (L3) and a session title. The prompt builders are
 * exported so they can be tested without a model.
 */
import { complete } from '../llm/collect.js';
import type { Message, ModelRequest, Provider, Usage } from '../llm/types.js';
import type { HistoryPair } from './types.js';

export const SUMMARY_TEMPERATURE = 0.3;
export const SUMMARY_MAX_TOKENS = 1500;
export const TITLE_MAX_TOKENS = 40;
export const TITLE_MAX_CHARS = 60;
/** The tool-chain review looks at no more than this many of the latest calls. */
export const TOOL_CHAIN_MAX_CALLS = 60;
/** Each tool output is shortened to about this many characters. */
export const TOOL_OUTPUT_CHARS = 300;

const REASONING_CHARS = 800;
const TURN_TEXT_CHARS = 4000;
const TOOL_ARGS_CHARS = 200;
const TITLE_INPUT_CHARS = 2000;

export const SUMMARY_HEADINGS = [
  'Background',
  'Changes made',
  'Decisions',
  'Errors fixed',
  'Constraints',
  'User preferences',
  'Open items',
] as const;

/** A system and a user prompt for one cheap-model call. */
export interface Prompt {
  system: string;
  user: string;
}

export interface JobResult {
  text: string;
  usage: Usage;
}

export interface ToolCallRecord {
  name: string;
  args: Record<string, unknown>;
  ok: boolean;
  output: string;
}

/**
 * Shortens `text` to about `max` characters, keeping the head and the tail (where
 * errors usually are) around a marker. Never splits a surrogate pair.
 */
export function shorten(text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const headLen = Math.ceil((max * 2) / 3);
  const tailLen = max - headLen;
  const head = cutAt(trimmed, headLen);
  const tail = tailLen > 0 ? trimmed.slice(startAt(trimmed, trimmed.length - tailLen)) : '';
  const omitted = trimmed.length - head.length - tail.length;
  return `${head.trimEnd()} … [${omitted} chars omitted] … ${tail.trimStart()}`.trimEnd();
}

function cutAt(s: string, end: number): string {
  const code = s.charCodeAt(end - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? end - 1 : end);
}

function startAt(s: string, start: number): number {
  const code = s.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}

const LANGUAGE_RULE =
  'The conversation may be in any language. Write in the main language of the conversation ' +
  '(for example, Chinese for a conversation mostly in Chinese), whatever the language of these instructions.';

/** One older turn as the summarizer sees it. */
export function renderPair(pair: HistoryPair, index: number): string {
  const lines = [`### Turn ${index + 1}`, `User: ${shorten(pair.user, TURN_TEXT_CHARS)}`];
  if (pair.reasoning.trim() !== '')
    lines.push(`Reasoning (shortened): ${shorten(pair.reasoning, REASONING_CHARS)}`);
  lines.push(`Assistant: ${shorten(pair.assistant, TURN_TEXT_CHARS) || '(no answer)'}`);
  if (pair.files.length > 0) lines.push(`Files: ${pair.files.join(', ')}`);
  return lines.join('\n');
}

/** The prompt that merges the previous summary with newly overflowed turns. */
export function summaryPrompt(previous: string | undefined, pairs: HistoryPair[]): Prompt {
  const headings = SUMMARY_HEADINGS.map((h) => `## ${h}`).join('\n');
  const system = [
    'You maintain the long-term summary of a conversation between a user and an AI agent that works on their machine.',
    'Merge the previous summary with the new turns into one updated semantic summary.',
    `Use exactly these Markdown headings, in this order:\n${headings}`,
    'Under each heading write short bullet points; write "- none" when there is nothing to say.',
    'Keep concrete facts: names, file paths, numbers, versions, commands, error messages and decisions with their reasons.',
    'Drop chatter, greetings, repetition and details that no longer matter; when a new turn supersedes the previous summary, keep the newer fact.',
    'Open items lists only what is still unfinished.',
    LANGUAGE_RULE,
    'Reply with the summary only.',
  ].join('\n\n');
  const prev = previous?.trim() ? previous.trim() : '(none yet)';
  const turns = pairs.length > 0 ? pairs.map(renderPair).join('\n\n') : '(no new turns)';
  const user = `# Previous summary\n${prev}\n\n# New turns (oldest first)\n${turns}`;
  return { system, user };
}

/** One tool call as the reviewer sees it. */
export function renderToolCall(call: ToolCallRecord, index: number): string {
  const args = shorten(safeJson(call.args), TOOL_ARGS_CHARS);
  const status = call.ok ? 'ok' : 'FAILED';
  const output = shorten(call.output, TOOL_OUTPUT_CHARS) || '(no output)';
  return `${index + 1}. ${call.name} ${args} → ${status}\n   ${output.replace(/\n/g, '\n   ')}`;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '{}';
  } catch {
    return '{…}';
  }
}

/** The prompt for a short review of the tool-call chain (the latest calls only). */
export function toolChainPrompt(previous: string | undefined, calls: ToolCallRecord[]): Prompt {
  const kept = calls.slice(-TOOL_CHAIN_MAX_CALLS);
  const dropped = calls.length - kept.length;
  const system = [
    'You review the tool calls an AI agent made while working for a user.',
    'Write a short review, merged with the previous review if there is one: which tools ran and on what ' +
      '(files, commands, URLs), what succeeded, what failed and why, and what was done about the failures.',
    'Keep concrete names, paths, commands and error messages; group repeated similar calls; drop anything unimportant.',
    'Use short bullet points, at most about 15.',
    LANGUAGE_RULE,
    'Reply with the review only.',
  ].join('\n\n');
  const prev = previous?.trim() ? previous.trim() : '(none yet)';
  const note = dropped > 0 ? `(${dropped} earlier calls not shown)\n` : '';
  const list = kept.length > 0 ? kept.map(renderToolCall).join('\n') : '(no calls)';
  return { system, user: `# Previous review\n${prev}\n\n# Tool calls (oldest first)\n${note}${list}` };
}

/** The prompt for a one-line session title. */
export function titlePrompt(firstMessage: string): Prompt {
  const system = [
    `Write a title for a conversation that starts with the user's message below: one line, at most ${TITLE_MAX_CHARS} characters,`,
    'in the language of the message, naming its subject. No quotes, no trailing punctuation, no prefix like "Title:".',
    'Reply with the title only.',
  ].join(' ');
  return { system, user: shorten(firstMessage, TITLE_INPUT_CHARS) };
}

function request(prompt: Prompt, maxOutputTokens: number): ModelRequest {
  const messages: Message[] = [
    { role: 'system', parts: [{ type: 'text', text: prompt.system }] },
    { role: 'user', parts: [{ type: 'text', text: prompt.user }] },
  ];
  return { messages, temperature: SUMMARY_TEMPERATURE, maxOutputTokens };
}

async function runSummary(
  job: string,
  provider: Provider,
  prompt: Prompt,
  signal: AbortSignal | undefined,
): Promise<JobResult> {
  const done = await complete(provider, request(prompt, SUMMARY_MAX_TOKENS), signal);
  const text = done.text.trim();
  if (text === '')
    throw new Error(
      `${job}: the model ${provider.info.model} (${provider.info.profile}) returned an empty summary ` +
        `(finish reason: ${done.finishReason}); the previous summary is kept`,
    );
  return { text, usage: done.usage };
}

/** Merges the previous semantic summary with older turns into a new one (L3). */
export function summarizePairs(
  provider: Provider,
  opts: { previous?: string; pairs: HistoryPair[]; signal?: AbortSignal },
): Promise<JobResult> {
  return runSummary('summarizePairs', provider, summaryPrompt(opts.previous, opts.pairs), opts.signal);
}

/** A short review of the tool-call chain, merged with the previous one (L3). */
export function summarizeToolChain(
  provider: Provider,
  opts: { calls: ToolCallRecord[]; previous?: string; signal?: AbortSignal },
): Promise<JobResult> {
  return runSummary('summarizeToolChain', provider, toolChainPrompt(opts.previous, opts.calls), opts.signal);
}

const QUOTES = /["'`“”‘’«»「」『』〈〉《》*]/g;
const TRAILING = /[\s.。,，;；:：!！?？、…·-]+$/u;

/**
 * A first line longer than this did not name the conversation (the model answered the
 * message instead): it is no title.
 */
export const TITLE_JUNK_CHARS = 2 * TITLE_MAX_CHARS;

/**
 * The model's answer made into a clean title, or '' when nothing usable is left: an
 * empty reply, only punctuation or brackets, JSON that holds no title (`[]`, `{}`,
 * `null`), or a whole answer instead of a title.
 */
export function cleanTitle(raw: string): string {
  const unwrapped = fromJson(raw.replace(FENCE, '').trim());
  if (unwrapped === null) return '';
  const line = unwrapped
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (line === undefined) return '';
  const text = line
    .replace(/^#+\s*/, '')
    .replace(/^(title|标题)\s*[:：]\s*/i, '')
    .replace(QUOTES, '')
    .replace(/\s+/g, ' ')
    .trim();
  // No letter or digit (`[]`, `...`, `-- --`), or a whole paragraph: no title.
  if (!/[\p{L}\p{N}]/u.test(text) || Array.from(text).length > TITLE_JUNK_CHARS) return '';
  return clip(text.replace(TRAILING, ''), TITLE_MAX_CHARS).replace(TRAILING, '');
}

/** A Markdown code fence around the whole reply (```json … ```). */
const FENCE = /^\s*```[\w-]*[ \t]*\n?|\n?[ \t]*```\s*$/g;

/**
 * A reply in JSON: a string, a one-string list or an object's `title` is the title;
 * any other JSON value (`[]`, `{}`, `null`, `true`) holds none (null). Not JSON: the
 * text as it is.
 */
function fromJson(text: string): string | null {
  if (/^(null|true|false|undefined)$/i.test(text)) return null;
  if (!/^[[{"]/.test(text)) return text;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return text; // "[Draft] Fix the parser" is a title, not JSON
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.length === 1 && typeof value[0] === 'string' ? value[0] : null;
  const title =
    value !== null && typeof value === 'object' ? (value as { title?: unknown }).title : undefined;
  return typeof title === 'string' ? title : null;
}

/** The first `max` characters (code points) of a string, whitespace collapsed. */
function clip(text: string, max: number): string {
  const chars = Array.from(text.replace(/\s+/g, ' ').trim());
  return chars.length <= max ? chars.join('') : chars.slice(0, max).join('').trimEnd();
}

/** A fallback title: the start of the message itself, cut after a whole word where it has spaces. */
export function fallbackTitle(firstMessage: string): string {
  // The start is enough: a pasted megabyte is not split into code points whole.
  const start = firstMessage
    .slice(0, TITLE_MAX_CHARS * 8 + 64)
    .replace(/\s+/g, ' ')
    .trim();
  let title = clip(start, TITLE_MAX_CHARS);
  if (title.length < start.length && start[title.length] !== ' ') {
    const space = title.lastIndexOf(' ');
    if (space > TITLE_MAX_CHARS / 2) title = title.slice(0, space);
  }
  return title.replace(TRAILING, '') || clip(start, TITLE_MAX_CHARS) || 'New conversation';
}

/** A one-line title (≤ 60 chars, in the message's language) for a new session. */
export async function titleFor(
  provider: Provider,
  firstMessage: string,
  signal?: AbortSignal,
): Promise<JobResult> {
  const done = await complete(provider, request(titlePrompt(firstMessage), TITLE_MAX_TOKENS), signal);
  const text = cleanTitle(done.text) || fallbackTitle(firstMessage);
  return { text, usage: done.usage };
}
