/**
 * The sessions every face works with: start and reopen them, list, rename, fork,
 * delete, read their messages and usage, and search them. Faces go through this
 * service; none of them touches the store.
 */
import type { AwaitingClientCalls } from '../agent/client-tools.js';
import type { Agent, Session } from '../agent/index.js';
import { sessionState } from '../agent/session-state.js';
import { BUILTIN_MODE_SET, type WorkModeSet } from '../agent/work-modes.js';
import type { Message } from '../llm/types.js';
import type { SessionRow, Store, StoredMessage, ToolCallRow, UsageRow, UsageTotals } from '../store/index.js';
import { isFinished } from '../store/tool-record.js';
import { RuntimeError } from './errors.js';
import type { WorkModeInfo } from './modes.js';
import {
  childrenOf,
  type ModelUsage,
  type SubagentSummary,
  subagentCount,
  type UsageWithSubagents,
  usageByModel,
  usageWithSubagents,
} from './session-children.js';
import { type SessionHit, searchSessions } from './session-search.js';

export type SessionInfo = SessionRow;
export type { SessionHit } from './session-search.js';
export type {
  ModelUsage,
  StoredMessage,
  SubagentSummary,
  ToolCallRow,
  UsageRow,
  UsageTotals,
  UsageWithSubagents,
};

export interface OpenOptions {
  /** The profile to run it on (default: the session's own when it still exists, else the active one). */
  profile?: string;
  /** 'deny' when nobody can answer approvals and questions (default 'ask'). */
  approvals?: 'ask' | 'deny';
}

export interface CreateOptions extends OpenOptions {
  cwd?: string;
  title?: string;
}

/** What the service needs from its runtime: the store (opened on first use) and agents by profile. */
export interface SessionsBackend {
  store(): Store;
  agentFor(profile: string | undefined, approvals: 'ask' | 'deny'): Agent;
  /** Whether a profile of this name exists (a session's stored profile may be gone). */
  hasProfile(name: string): boolean;
  /** The work modes and how faces list them (absent: the built-in set, listed as none). */
  workModes?: () => { set: WorkModeSet; infos: WorkModeInfo[] };
  /** The model id a profile runs (stored with a session switched to it). */
  modelOf?(profile: string): string;
}

export class SessionsService {
  constructor(private readonly backend: SessionsBackend) {}

  private get store(): Store {
    return this.backend.store();
  }

  /** A new session, ready for `prompt`. */
  create(opts: CreateOptions = {}): Session {
    const agent = this.backend.agentFor(opts.profile, opts.approvals ?? 'ask');
    return agent.newSession({
      ...(opts.cwd ? { cwd: opts.cwd } : {}),
      ...(opts.title ? { title: opts.title } : {}),
    });
  }

  /** A stored session (by id or unique prefix) reopened with its transcript. */
  open(idOrPrefix: string, opts: OpenOptions = {}): Session {
    const row = this.resolve(idOrPrefix);
    return this.backend
      .agentFor(opts.profile ?? this.profileOf(row), opts.approvals ?? 'ask')
      .resumeSession(row.id);
  }

  /**
   * The session reopened on another profile, which becomes its own: the row names the
   * profile and its model, so a later resume (any face, any process) stays on it.
   */
  switchProfile(idOrPrefix: string, profile: string, opts: Omit<OpenOptions, 'profile'> = {}): Session {
    const row = this.setProfile(idOrPrefix, profile);
    return this.backend.agentFor(profile, opts.approvals ?? 'ask').resumeSession(row.id);
  }

  /**
   * Stores `profile` (and its model) as the session's own without reopening it: a face
   * that reopens it itself (with its own tools) uses `agentOf` next.
   */
  setProfile(idOrPrefix: string, profile: string): SessionInfo {
    const row = this.resolve(idOrPrefix);
    if (!this.backend.hasProfile(profile))
      throw new RuntimeError('not_found', `there is no profile named ${JSON.stringify(profile)}`);
    const model = this.backend.modelOf?.(profile);
    this.store.sessions.update(row.id, { profile, ...(model ? { model } : {}) });
    return this.resolve(row.id);
  }

  /** The profile a stored session runs on: its own while that still exists, else undefined (the active one). */
  profileOf(row: SessionInfo): string | undefined {
    return row.profile && this.backend.hasProfile(row.profile) ? row.profile : undefined;
  }

  /** The agent a stored session reopens on (its own profile's, else the active one's). */
  agentOf(row: SessionInfo, approvals: 'ask' | 'deny' = 'ask'): Agent {
    return this.backend.agentFor(this.profileOf(row), approvals);
  }

  get(id: string): SessionInfo | undefined {
    return this.store.sessions.get(id);
  }

  /** The client tool calls the session's last turn stopped for, waiting for their results. */
  clientCalls(id: string): AwaitingClientCalls | undefined {
    return sessionState(this.store, id).get('client_calls');
  }

  /** The session whose last turn waits for the client's result of call `callId` (the newest such). */
  byClientCall(callId: string): string | undefined {
    return this.store.state
      .withKey('client_calls')
      .find((r) => this.clientCalls(r.sessionId)?.calls.some((c) => c.id === callId))?.sessionId;
  }

  /**
   * Notes that the client of an OpenAI face now holds conversation `hash` for the
   * session, as of its current last message.
   */
  setConversation(id: string, hash: string): void {
    const last = this.lastMessages(id, 1)[0]?.id ?? 0;
    sessionState(this.store, id).set('chat_conversation', { hash, last });
  }

  /**
   * The session a client's conversation `hash` continues: the newest one noted with it
   * that has had no message since (a session that went on elsewhere is another conversation).
   */
  byConversation(hash: string): { id: string; last: number } | undefined {
    for (const id of this.store.state.withField('chat_conversation', 'hash', hash)) {
      const noted = sessionState(this.store, id).get('chat_conversation');
      const last = this.lastMessages(id, 1)[0]?.id ?? 0;
      if (noted?.hash === hash && noted.last === last) return { id, last };
    }
    return undefined;
  }

  /** The work modes sessions switch between, in cycling order. */
  modes(): WorkModeInfo[] {
    return this.backend.workModes?.().infos ?? [];
  }

  /** The work mode new sessions start in. */
  defaultMode(): string {
    return this.modeSet().defaultMode;
  }

  private modeSet(): WorkModeSet {
    return this.backend.workModes?.().set ?? BUILTIN_MODE_SET;
  }

  /** A top-level session's work mode (its stored one while it exists, else the default); null for a sub-agent's. */
  workMode(id: string): string | null {
    const row = this.resolve(id);
    if (row.role) return null;
    const set = this.modeSet();
    const stored = sessionState(this.store, row.id).get('work_mode');
    return stored !== undefined && set.get(stored) ? stored : set.defaultMode;
  }

  /**
   * Stores a work-mode switch. A `Session` open elsewhere takes it up, with the mode's
   * permission mode, at its next prompt (`Session.setWorkMode` switches one at once).
   */
  setWorkMode(id: string, name: string): void {
    const row = this.resolve(id);
    if (row.role)
      throw new RuntimeError(
        'usage',
        `session ${row.id} is a sub-agent's (role ${row.role}): it has no work mode`,
      );
    const set = this.modeSet();
    if (!set.get(name)) throw new RuntimeError('usage', set.unknown(name).message);
    sessionState(this.store, row.id).set('work_mode', name);
  }

  /** The session by id or unique prefix; `not_found` names what was wrong (unknown, ambiguous). */
  resolve(idOrPrefix: string): SessionInfo {
    try {
      return this.store.sessions.resolve(idOrPrefix);
    } catch (e) {
      if (e instanceof Error && e.name === 'StoreError') throw new RuntimeError('not_found', e.message);
      throw e;
    }
  }

  /** The most recently used session, optionally only among those started in `cwd`. */
  latest(opts: { cwd?: string } = {}): SessionInfo | undefined {
    return this.store.sessions.latest(opts);
  }

  /** Newest first; top-level sessions only unless `children` (sub-agents' sessions too). */
  list(
    opts: { limit?: number; offset?: number; cwd?: string; children?: boolean } = {},
  ): Array<SessionInfo & { messageCount: number }> {
    return this.store.sessions.list(opts);
  }

  count(opts: { cwd?: string } = {}): number {
    return this.store.sessions.count(opts);
  }

  /**
   * Renames the session with this id or unique prefix; `keep`: the automatic title
   * (after the first turn) leaves it as it is.
   */
  rename(id: string, title: string, opts: { keep?: boolean } = {}): void {
    const row = this.resolve(id);
    this.store.sessions.update(row.id, { title });
    if (opts.keep) sessionState(this.store, row.id).set('title_kept', true);
  }

  /** The process running a turn of this session now (any process: its live lease), if one does. */
  runner(id: string): { pid: number; host: string; since: number } | undefined {
    const leases = this.store.leases;
    const lease = leases.get(id);
    return lease && leases.isLive(lease)
      ? { pid: lease.pid, host: lease.host, since: lease.acquiredAt }
      : undefined;
  }

  delete(id: string): boolean {
    return this.store.sessions.delete(id);
  }

  /**
   * A new session with a copy of `id`'s messages (through message `upTo` when given),
   * tool-call log and all: the two go on apart from there.
   */
  fork(id: string, opts: { upTo?: number; title?: string; cwd?: string } = {}): SessionInfo {
    const from = this.resolve(id);
    const store = this.store;
    const messages = store.messages.list(from.id).filter((m) => opts.upTo === undefined || m.id <= opts.upTo);
    if (opts.upTo !== undefined && !messages.some((m) => m.id === opts.upTo))
      throw new RuntimeError('not_found', `session ${from.id} has no message ${opts.upTo}`);
    const callIds = new Set(
      messages.flatMap((m) => m.parts.flatMap((p) => (p.type === 'tool-result' ? [p.callId] : []))),
    );
    const title = opts.title ?? `${from.title ?? 'Untitled'} (fork)`;
    return store.db.transaction(() => {
      const row = store.sessions.create({
        cwd: opts.cwd ?? from.cwd,
        title,
        ...(from.model ? { model: from.model } : {}),
        ...(from.profile ? { profile: from.profile } : {}),
      });
      for (const m of messages)
        store.messages.append(row.id, { turnId: m.turnId, role: m.role, parts: m.parts, status: m.status });
      for (const c of store.toolCalls.list(from.id)) {
        if (!callIds.has(c.callId) || !isFinished(c.state)) continue;
        // The ended call as it was, its times kept (title and kind are not stored).
        store.toolCalls.save(row.id, {
          callId: c.callId,
          turnId: c.turnId,
          name: c.name,
          args: c.args,
          state: c.state,
          title: c.name,
          kind: 'other',
          content: [{ type: 'text', text: c.output ?? '' }],
          createdAt: c.createdAt,
          ...(c.startedAt === null ? {} : { startedAt: c.startedAt }),
          ...(c.finishedAt === null ? {} : { finishedAt: c.finishedAt }),
          ...(c.durationMs === null ? {} : { durationMs: c.durationMs }),
        });
      }
      return row;
    })();
  }

  messages(id: string): StoredMessage[] {
    return this.store.messages.list(id);
  }

  /** The text of the session's first user message (at most `max` characters), or undefined. */
  opening(id: string, max = 500): string | undefined {
    const first = this.store.messages.list(id, { limit: 4 }).find((m) => m.role === 'user');
    const text = first?.parts
      .map((p) => (p.type === 'text' ? p.text : ''))
      .join(' ')
      .trim();
    return text ? text.slice(0, max) : undefined;
  }

  messageCount(id: string): number {
    return this.store.messages.count(id);
  }

  /** The session's last `n` messages, oldest first (a face showing a long session's end). */
  lastMessages(id: string, n: number): StoredMessage[] {
    const count = this.store.messages.count(id);
    // seq is gap-free from 1, so the last n follow seq count - n.
    return this.store.messages.list(id, { afterSeq: Math.max(0, count - n) }).slice(-n);
  }

  toolCalls(id: string): ToolCallRow[] {
    return this.store.toolCalls.list(id);
  }

  /** The session's calls made in the turns `turnIds` only. */
  toolCallsOfTurns(id: string, turnIds: readonly string[]): ToolCallRow[] {
    return this.store.toolCalls.listForTurns(id, turnIds);
  }

  /** The session's last model call (its input tokens: the context it last used); none yet: undefined. */
  lastModelCall(id: string): UsageRow | undefined {
    return this.store.usage.last(id);
  }

  /** The session's own model calls (its sub-agents' are in `usageWithSubagents`). */
  usage(id: string): UsageTotals {
    return this.store.usage.totals(id);
  }

  /** The session's usage with its sub-agents' (all depths) included, and their share. */
  usageWithSubagents(id: string): UsageWithSubagents {
    return usageWithSubagents(this.store, id);
  }

  /** The session's usage, its sub-agents' (all depths) and background jobs' included, by model (costliest first). */
  usageByModel(id: string): ModelUsage[] {
    return usageByModel(this.store, id);
  }

  /** The sub-agents the session started (oldest first): label, role, how each ended, usage. */
  children(id: string): SubagentSummary[] {
    return childrenOf(this.store, this.resolve(id).id);
  }

  /** How many sub-agents the session has, all depths. */
  subagentCount(id: string): number {
    return subagentCount(this.store, id);
  }

  /**
   * Stores earlier messages of a conversation in a session, one by one with the
   * event loop free between long ones (a client sent the whole history).
   */
  async importHistory(id: string, history: readonly Message[], turnId: string): Promise<void> {
    for (const m of history)
      await this.store.messages.appendYielding(id, { turnId, role: m.role, parts: m.parts });
  }

  /** Sessions whose title or message text contains `q` (case-insensitive), newest first. */
  search(q: string, limit = 20): SessionHit[] {
    return searchSessions(this.store, q, limit);
  }
}
