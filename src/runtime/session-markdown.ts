/**
 * A session as Markdown: what `tea serve`'s export route sends and what the terminal
 * UI's `/export` writes. Tool calls and results are fenced (with a longer fence when the
 * text holds one), thinking is quoted.
 */
import type { Part } from '../llm/types.js';
import type { SessionInfo, StoredMessage } from './sessions.js';

const ROLE_TITLE: Record<string, string> = {
  user: 'User',
  assistant: 'Assistant',
  tool: 'Tool',
  system: 'System',
};

function fence(text: string): string {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}\n${text}\n${ticks}`;
}

function partMarkdown(p: Part): string {
  switch (p.type) {
    case 'text':
      return p.text;
    case 'thinking':
      return `> *thinking:* ${p.text.replace(/\n/g, '\n> ')}`;
    case 'image':
      return `*[image ${p.mediaType}]*`;
    case 'tool-call':
      return `**→ ${p.name}**\n\n${fence(JSON.stringify(p.args, null, 2))}`;
    case 'tool-result':
      return `**← ${p.name}${p.isError ? ' (error)' : ''}**\n\n${fence(p.output)}`;
  }
}

/** A stored session's transcript as Markdown: a header with its facts, then each message. */
export function transcriptMarkdown(row: SessionInfo, messages: readonly StoredMessage[]): string {
  const lines = [
    `# ${row.title ?? 'Untitled session'}`,
    '',
    `- Session: \`${row.id}\``,
    `- Workspace: \`${row.cwd}\``,
    ...(row.model ? [`- Model: ${row.model}`] : []),
    `- Created: ${new Date(row.createdAt).toISOString()}`,
    '',
  ];
  for (const m of messages) {
    lines.push(`## ${ROLE_TITLE[m.role] ?? m.role}`, '');
    for (const p of m.parts) lines.push(partMarkdown(p), '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
