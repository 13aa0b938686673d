/**
 * How the L0, L3 and L2 layers are rendered as model messages. Pure string
 * building; the builder decides what goes in and the trimmer what comes out.
 */
import type { Message } from '../llm/types.js';
import type { ContextInput, HistoryPair, Summaries } from './types.js';

export const SUMMARY_HEADER = '[Session memory — summaries of earlier parts of this conversation]';
export const SUMMARY_ACK = 'Understood. I will keep these summaries in mind.';
export const PAIR_HEADER = '[Earlier exchange]';
export const DIGEST_HEADER = '[Earlier exchanges, in brief]';
export const DIGEST_ACK = 'Noted.';
/** Longest reasoning excerpt kept in a full L2 pair. */
export const PAIR_REASONING_MAX = 600;

export function textMessage(role: Message['role'], text: string): Message {
  return { role, parts: [{ type: 'text', text }] };
}

/**
 * L0 as one system message, sections in this order:
 * 1. the base system prompt (as given);
 * 2. each project instruction under `## Project instructions` (numbered when several);
 * 3. `## Unfinished work` — the resume block;
 * 4. `## Memories` — long-term memories;
 * 5. `## Skills` — skills offered for this request.
 * Absent or blank blocks are left out. Nothing in this message is ever trimmed.
 */
export function renderSystem(input: ContextInput): Message {
  const sections: string[] = [];
  if (input.system.trim() !== '') sections.push(input.system);
  const instructions = input.instructions.filter((s) => s.trim() !== '');
  instructions.forEach((text, i) => {
    const heading =
      instructions.length === 1
        ? '## Project instructions'
        : `## Project instructions (${i + 1} of ${instructions.length})`;
    sections.push(`${heading}\n\n${text}`);
  });
  pushBlock(sections, '## Unfinished work', input.resume);
  pushBlock(sections, '## Memories', input.memories);
  pushBlock(sections, '## Skills', input.skills);
  return textMessage('system', sections.join('\n\n'));
}

function pushBlock(sections: string[], heading: string, body: string | undefined): void {
  if (body !== undefined && body.trim() !== '') sections.push(`${heading}\n\n${body}`);
}

/** L3: a user message with the summaries and an assistant acknowledgement, or nothing. */
export function renderSummaries(summaries: Summaries): Message[] {
  const blocks: string[] = [];
  if (summaries.semantic !== undefined && summaries.semantic.trim() !== '') {
    blocks.push(`### Background, decisions and open items\n\n${summaries.semantic}`);
  }
  if (summaries.toolChain !== undefined && summaries.toolChain.trim() !== '') {
    blocks.push(`### Earlier tool-call chains\n\n${summaries.toolChain}`);
  }
  if (blocks.length === 0) return [];
  return [
    textMessage('user', `${SUMMARY_HEADER}\n\n${blocks.join('\n\n---\n\n')}`),
    textMessage('assistant', SUMMARY_ACK),
  ];
}

/** L2 full pair: the user's words, then the answer with shortened reasoning and the files touched. */
export function renderFullPair(pair: HistoryPair): [Message, Message] {
  const answer: string[] = [];
  const reasoning = pair.reasoning.trim();
  if (reasoning !== '') answer.push(`(Working notes: ${shorten(reasoning, PAIR_REASONING_MAX)})`);
  answer.push(pair.assistant);
  if (pair.files.length > 0) answer.push(`Files: ${pair.files.join(', ')}`);
  return [textMessage('user', `${PAIR_HEADER}\n${pair.user}`), textMessage('assistant', answer.join('\n\n'))];
}

/** L2 digests gathered into one user message plus an acknowledgement. */
export function renderDigests(digests: string[]): [Message, Message] {
  const lines = digests.map((d) => `- ${d}`).join('\n');
  return [textMessage('user', `${DIGEST_HEADER}\n${lines}`), textMessage('assistant', DIGEST_ACK)];
}

/** `text` cut to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
