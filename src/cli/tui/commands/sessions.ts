/**
 * Moving between sessions: `/new`, `/sessions` (a picker over this workspace's sessions),
 * `/resume [id-prefix]` and `/fork`. Each ends in `host.switchTo`, which settles the old
 * session and draws the new one; the store is reached only through `runtime.sessions`.
 */
import type { Session } from '../../../agent/index.js';
import type { PickItem, TuiCommand, TuiHost } from '../host.js';
import { age, messageOf, plural } from './format.js';

/** How many sessions the picker lists (newest first). */
export const PICKER_LIMIT = 200;

function titleOf(row: { title: string | null }): string {
  return row.title?.trim() || 'Untitled';
}

/** The workspace's top-level sessions, newest first, as picker items (the current one marked). */
export function sessionItems(host: TuiHost, now: number = Date.now()): PickItem[] {
  const current = host.session().id;
  return host.runtime.sessions.list({ cwd: host.runtime.cwd, limit: PICKER_LIMIT }).map((s) => ({
    value: s.id,
    label: `${s.id === current ? '● ' : ''}${titleOf(s)}`,
    description: `${age(s.updatedAt, now)} · ${plural(s.messageCount, 'message')} · ${s.id.slice(0, 8)}`,
    ...opening(host, s.id, s.messageCount),
  }));
}

/** The session's first message, for the picker's search. */
function opening(host: TuiHost, id: string, count: number): { keywords?: string } {
  const text = count > 0 ? host.runtime.sessions.opening(id) : undefined;
  return text ? { keywords: text } : {};
}

/** Opens `id` (by id or unique prefix) and shows it; prints why not when that fails. */
async function open(host: TuiHost, id: string): Promise<void> {
  let session: Session;
  try {
    session = host.runtime.sessions.open(id);
  } catch (e) {
    host.print(`${messageOf(e)}. Type /sessions to pick one.`, { tone: 'error' });
    return;
  }
  if (session.id === host.session().id) {
    host.print(`Already in session ${session.id.slice(0, 8)} (${titleOf(session.row)}).`, { tone: 'dim' });
    return;
  }
  await host.switchTo(session);
  host.print(`Resumed ${titleOf(session.row)} (${session.id.slice(0, 8)}).`, { tone: 'success' });
}

async function pickAndOpen(host: TuiHost): Promise<void> {
  const items = sessionItems(host);
  if (items.length === 0) {
    host.print('No sessions in this workspace yet.', { tone: 'dim' });
    return;
  }
  const id = await host.pick({
    title: 'Sessions (type to search)',
    items,
    search: true,
    selected: host.session().id,
  });
  if (id !== undefined) await open(host, id);
}

export const newCommand: TuiCommand = {
  name: 'new',
  description: 'Start a new session (the current one stays in /sessions)',
  async run(_arg, host) {
    const profile = host.session().row.profile ?? undefined;
    const known = profile !== undefined && host.runtime.models.has(profile);
    const session = host.runtime.sessions.create({ cwd: host.runtime.cwd, ...(known ? { profile } : {}) });
    await host.switchTo(session, { created: true });
    host.print(`New session ${session.id.slice(0, 8)}.`, { tone: 'success' });
  },
};

export const sessionsCommand: TuiCommand = {
  name: 'sessions',
  description: "Pick one of this workspace's sessions (newest first) and switch to it",
  run: (_arg, host) => pickAndOpen(host),
};

export const resumeCommand: TuiCommand = {
  name: 'resume',
  description: 'Switch to a session by id prefix, or pick one',
  argumentHint: '[id-prefix]',
  takesPrefix: true,
  complete(prefix, host) {
    const p = prefix.trim().toLowerCase();
    return sessionItems(host)
      .filter((i) => i.value.startsWith(p))
      .map((i) => ({ ...i, value: i.value.slice(0, 8) }));
  },
  async run(arg, host) {
    const id = arg.trim();
    if (id === '') await pickAndOpen(host);
    else await open(host, id);
  },
};

export const forkCommand: TuiCommand = {
  name: 'fork',
  description: 'Copy this session into a new one and switch to the copy',
  async run(_arg, host) {
    const from = host.session();
    const row = host.runtime.sessions.fork(from.id);
    await host.switchTo(host.runtime.sessions.open(row.id), { created: true });
    host.print(
      `Forked ${from.id.slice(0, 8)} into ${row.id.slice(0, 8)} (${titleOf(row)}); the original is unchanged.`,
      {
        tone: 'success',
      },
    );
  },
};
