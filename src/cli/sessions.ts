import type { Part } from '../llm/types.js';
import { workspaceDir } from '../runtime/directories.js';
import { openSessions } from '../runtime/light.js';
import type { SessionInfo, SubagentSummary, UsageWithSubagents } from '../runtime/sessions.js';
import { EXIT } from './exit.js';
import { jsonText } from './json-out.js';

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

function oneLine(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * `tea sessions list`: the newest `limit`, and a last line saying how many more there
 * are (so older sessions are never hidden without a word); `--json` is
 * `{ sessions, total, more }`.
 */
export async function listSessions(opts: { limit: number; here?: boolean; json?: boolean }): Promise<number> {
  const { sessions, close } = await openSessions();
  try {
    const cwd = opts.here ? workspaceDir(undefined) : undefined;
    // Sub-agents' sessions are listed under their parent (tea sessions show), not here.
    const rows = sessions
      .list({ limit: opts.limit, cwd })
      .map((r) => ({ ...r, subagents: sessions.subagentCount(r.id) }));
    const total = rows.length < opts.limit ? rows.length : sessions.count(cwd === undefined ? {} : { cwd });
    const more = total - rows.length;
    if (opts.json) {
      process.stdout.write(jsonText({ sessions: rows, total, more }));
      return EXIT.OK;
    }
    if (rows.length === 0) {
      process.stdout.write('No sessions yet. Start one with: tea -p "…"\n');
      return EXIT.OK;
    }
    for (const r of rows) {
      const subs = r.subagents > 0 ? `  ${r.subagents} sub-agent${r.subagents === 1 ? '' : 's'}` : '';
      process.stdout.write(
        `${r.id.slice(0, 8)}  ${when(r.updatedAt)}  ${String(r.messageCount).padStart(4)} msgs  ${oneLine(r.title ?? '(untitled)', 50)}  ${r.cwd}${subs}\n`,
      );
    }
    if (more > 0) {
      const flags = `${opts.here ? ' --here' : ''} -n ${total}`;
      process.stdout.write(`… ${more} more, older (${total} in all): tea sessions list${flags}\n`);
    }
    return EXIT.OK;
  } finally {
    close();
  }
}

function renderPart(p: Part, full: boolean): string {
  const cap = (s: string): string =>
    full || s.length <= 2000 ? s : `${s.slice(0, 2000)}\n… (${s.length} chars; --full shows all)`;
  switch (p.type) {
    case 'text':
      return p.text;
    case 'thinking':
      return `(thinking) ${cap(p.text)}`;
    case 'image':
      return `[image ${p.mediaType}]`;
    case 'tool-call':
      return `→ ${p.name}(${JSON.stringify(p.args)}) [${p.id}]`;
    case 'tool-result':
      return `← ${p.name} [${p.callId}]${p.isError ? ' (error)' : ''}\n${cap(p.output)}`;
  }
}

export async function showSession(id: string, opts: { json?: boolean; full?: boolean }): Promise<number> {
  const { sessions, close } = await openSessions();
  try {
    const row = sessions.resolve(id);
    const messages = sessions.messages(row.id);
    // Its usage with its sub-agents' (their share apart), and the sub-agents it started.
    const usage = sessions.usageWithSubagents(row.id);
    const children = sessions.children(row.id);
    if (opts.json) {
      process.stdout.write(jsonText({ session: row, messages, usage, subagents: children }));
      return EXIT.OK;
    }
    process.stdout.write(`${header(row, usage)}${subagentLines(children)}\n`);
    for (const m of messages) {
      const body = m.parts.map((p) => renderPart(p, Boolean(opts.full))).join('\n');
      const flag = m.status === 'partial' ? ' (interrupted)' : '';
      process.stdout.write(`[${m.seq}] ${m.role}${flag}:\n${body}\n\n`);
    }
    return EXIT.OK;
  } finally {
    close();
  }
}

function tokens(u: { inputTokens: number; outputTokens: number }): string {
  return `${(u.inputTokens + u.outputTokens).toLocaleString('en-US')} tokens`;
}

function header(row: SessionInfo, usage: UsageWithSubagents): string {
  const sub = usage.subagents;
  const share =
    sub.count > 0
      ? `; of which ${sub.count} sub-agent${sub.count === 1 ? '' : 's'}: ${tokens(sub)}, $${sub.costUsd.toFixed(4)}`
      : '';
  // A sub-agent's session names its parent (and the call that started it).
  const parent = row.parentId
    ? `  sub-agent of: ${row.parentId} (call ${row.parentCallId ?? '?'}) · role ${row.role ?? 'general'} · depth ${row.depth}\n` +
      `  parent's transcript: tea sessions show ${row.parentId.slice(0, 8)}\n`
    : '';
  return (
    `session ${row.id}\n  title: ${row.title ?? '(untitled)'}\n${parent}  workspace: ${row.cwd}\n  model: ${row.model ?? '?'}\n` +
    `  created: ${when(row.createdAt)}  updated: ${when(row.updatedAt)}\n` +
    `  usage: ${usage.inputTokens} in / ${usage.outputTokens} out tokens, $${usage.costUsd.toFixed(4)}${share}\n`
  );
}

/** The sub-agents a session started: one line each, with the command that shows its transcript. */
function subagentLines(children: SubagentSummary[]): string {
  if (children.length === 0) return '';
  const lines = children.map(
    (c) =>
      `    ${c.label} (${c.role}) · ${c.status} · ${tokens(c.usage)} · ${oneLine(c.description, 50)}  tea sessions show ${c.id.slice(0, 8)}\n`,
  );
  return `  sub-agents:\n${lines.join('')}`;
}

export async function removeSessions(ids: string[]): Promise<number> {
  const { sessions, close } = await openSessions();
  try {
    const rows = ids.map((id) => sessions.resolve(id));
    for (const r of rows) {
      sessions.delete(r.id);
      process.stdout.write(`removed ${r.id}\n`);
    }
    return EXIT.OK;
  } finally {
    close();
  }
}
