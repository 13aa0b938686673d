/**
 * Long-term memory upkeep after each turn, in the background on the cheap model:
 * extraction of new memories from what the user said since the last run (then the
 * three-outcome ingest), priority tuning every few turns, reflection about once a
 * day, and re-embedding of memories whose vectors came from another embedder.
 * Failures are swallowed: memory never breaks a conversation.
 */
import type { ModelInfo, Provider, Usage } from '../llm/types.js';
import type { LongTermMemory } from '../memory/api.js';
import { type ConversationTurn, extractMemories } from '../memory/extract.js';
import type { Store } from '../store/index.js';
import { sessionState } from './session-state.js';

/** Session state: the last message seq that extraction has read. */
export const STATE_MEMORY_CURSOR = 'memory_cursor';
/** Session state: turns since the last priority tuning. */
export const STATE_MEMORY_TURNS = 'memory_turns';
/** Priority tuning runs after this many turns (per session). */
export const TUNE_EVERY_TURNS = 10;
export const REFLECT_EVERY_MS = 24 * 60 * 60 * 1000;
/** Memories re-embedded per turn when the embedder changed. */
export const REEMBED_PER_TURN = 1_000;
/** User text shorter than this (after trimming) holds nothing worth remembering. */
const MIN_USER_CHARS = 4;
const MAX_CONVERSATION_CHARS = 12_000;
const KNOWN_SHOWN = 15;
/** Messages read back per turn when tuning looks for the recent topics. */
const RECENT_MESSAGES_PER_TURN = 8;

export interface MemoryJobDeps {
  memory: LongTermMemory;
  cheap: Provider;
  store: Store;
  sessionId: string;
  /** The user's scope and the project's scope for this session. */
  scopes: { user: string; project: string; read: string[] };
  /** Tune priorities every TUNE_EVERY_TURNS turns and reflect daily. */
  tune: boolean;
  recordUsage(label: string, model: ModelInfo, usage: Usage): void;
  now?: () => number;
  /** Stops the job's model calls (the face is exiting); unfinished work is redone next turn. */
  signal?: AbortSignal;
}

export interface ExtractionReport {
  added: number;
  updated: number;
  duplicates: number;
}

const lastReflection = new WeakMap<LongTermMemory, number>();
const reembedding = new WeakSet<LongTermMemory>();

/** The user's and assistant's words since `afterSeq` (tool traffic left out). */
function conversationSince(store: Store, sessionId: string, afterSeq: number) {
  const messages = store.messages.list(sessionId, { afterSeq });
  const turns: ConversationTurn[] = [];
  let userChars = 0;
  for (const m of messages) {
    if (m.role !== 'user' && m.role !== 'assistant') continue;
    if (m.status === 'partial') continue;
    const text = m.parts
      .filter((p) => p.type === 'text')
      .map((p) => p.text)
      .join('\n')
      .trim();
    if (text === '') continue;
    if (m.role === 'user') userChars += text.length;
    turns.push({ role: m.role, text });
  }
  let total = 0;
  const kept: ConversationTurn[] = [];
  for (const t of turns.reverse()) {
    total += t.text.length;
    if (total > MAX_CONVERSATION_CHARS && kept.length > 0) break;
    kept.push(t);
  }
  const lastSeq = messages.at(-1)?.seq ?? afterSeq;
  return { turns: kept.reverse(), userChars, lastSeq };
}

/** Extracts memories from the turns since the last run and ingests them. */
export async function extractSinceLastRun(deps: MemoryJobDeps): Promise<ExtractionReport> {
  const report: ExtractionReport = { added: 0, updated: 0, duplicates: 0 };
  const state = sessionState(deps.store, deps.sessionId);
  const cursor = state.get(STATE_MEMORY_CURSOR) ?? 0;
  const { turns, userChars, lastSeq } = conversationSince(deps.store, deps.sessionId, cursor);
  if (userChars < MIN_USER_CHARS) {
    if (lastSeq > cursor) state.set(STATE_MEMORY_CURSOR, lastSeq);
    return report;
  }
  const userText = turns
    .filter((t) => t.role === 'user')
    .map((t) => t.text)
    .join('\n');
  const known = await deps.memory.search(userText, { limit: KNOWN_SHOWN, scopes: deps.scopes.read });
  const { memories, usage } = await extractMemories(deps.cheap, turns, {
    existing: known.map((k) => k.memory.content),
    ...(deps.now ? { now: deps.now() } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  deps.recordUsage('background:memory', deps.cheap.info, usage);
  const results = await deps.memory.ingest(memories, {
    scope: deps.scopes.user,
    projectScope: deps.scopes.project,
    sessionId: deps.sessionId,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  for (const r of results) {
    if (r.outcome === 'new') report.added += 1;
    else if (r.outcome === 'update') report.updated += 1;
    else report.duplicates += 1;
  }
  state.set(STATE_MEMORY_CURSOR, lastSeq);
  return report;
}

/** Every TUNE_EVERY_TURNS turns: nudge priorities to the recent topics. */
async function maybeTune(deps: MemoryJobDeps): Promise<void> {
  const state = sessionState(deps.store, deps.sessionId);
  const turns = (state.get(STATE_MEMORY_TURNS) ?? 0) + 1;
  if (turns < TUNE_EVERY_TURNS) {
    state.set(STATE_MEMORY_TURNS, turns);
    return;
  }
  state.set(STATE_MEMORY_TURNS, 0);
  // Only the recent part of the transcript (a turn is a user message, tool traffic and answers).
  const since = Math.max(
    0,
    deps.store.messages.count(deps.sessionId) - TUNE_EVERY_TURNS * RECENT_MESSAGES_PER_TURN,
  );
  const recent = deps.store.messages
    .list(deps.sessionId, { afterSeq: since })
    .filter((m) => m.role === 'user')
    .slice(-TUNE_EVERY_TURNS)
    .flatMap((m) => m.parts.filter((p) => p.type === 'text').map((p) => p.text))
    .join(' / ');
  const result = await deps.memory.tune(deps.cheap, recent, {
    scopes: deps.scopes.read,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  deps.recordUsage('background:memory-tune', deps.cheap.info, result.usage);
}

/** Keeps a memory job's failure in the session state, as `afterTurn` does; best effort. */
function noteFailure(deps: MemoryJobDeps, job: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  try {
    sessionState(deps.store, deps.sessionId).set(STATE_MEMORY_ERROR, { job, message, at: Date.now() });
  } catch {
    // The session is gone (or the store closed): nothing to report to.
  }
}

/**
 * Reflection at most once a day per process: related recent memories summarised
 * on the cheap model. Never throws: a failure (the model, the store) is kept in
 * the session state, and the day's run is spent either way.
 */
export async function maybeReflect(deps: MemoryJobDeps): Promise<void> {
  const now = deps.now?.() ?? Date.now();
  const last = lastReflection.get(deps.memory);
  if (last !== undefined && now - last < REFLECT_EVERY_MS) return;
  lastReflection.set(deps.memory, now);
  try {
    const result = await deps.memory.reflect({
      provider: deps.cheap,
      now,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (result.calls > 0) deps.recordUsage('background:memory-reflect', deps.cheap.info, result.usage);
    if (result.error !== undefined) noteFailure(deps, 'reflect', result.error);
  } catch (err) {
    noteFailure(deps, 'reflect', err);
  }
}

/** Re-embeds memories whose vectors are missing or from another embedder (one runner per service). */
async function reembedSome(memory: LongTermMemory): Promise<void> {
  if (reembedding.has(memory)) return;
  reembedding.add(memory);
  try {
    await memory.reembed(REEMBED_PER_TURN);
  } finally {
    reembedding.delete(memory);
  }
}

/** Session state: the last failure of a memory job (for `tea sessions show` and debugging). */
export const STATE_MEMORY_ERROR = 'memory_error';

/**
 * The whole after-turn job; each part fails on its own without stopping the others,
 * and the last failure is kept in the session state.
 */
export async function afterTurn(deps: MemoryJobDeps): Promise<void> {
  const note = (job: string) => (err: unknown) => {
    const message = err instanceof Error ? err.message : String(err);
    sessionState(deps.store, deps.sessionId).set(STATE_MEMORY_ERROR, { job, message, at: Date.now() });
  };
  // Once stopped, nothing more starts: the cursor, the tuning count and the day's
  // reflection stay where they were, so the next turn does the work.
  const stopped = (): boolean => deps.signal?.aborted === true;
  await extractSinceLastRun(deps).catch((err: unknown) => stopped() || note('extract')(err));
  if (deps.tune && !stopped()) {
    await maybeTune(deps).catch(note('tune'));
    if (!stopped()) await maybeReflect(deps).catch(note('reflect'));
  }
  if (!stopped()) await reembedSome(deps.memory).catch(note('reembed'));
}

/** Memory scopes a session in `cwd` reads: its project, the user's, and global ones. */
export function memoryScopes(cwd: string): string[] {
  return [`project:${cwd}`, 'user', 'global'];
}

/** What a session hands `queueAfterTurn`: its background tracker (see SessionContext). */
export interface BackgroundTracker {
  recordUsage(label: string, model: ModelInfo, usage: Usage): void;
  readonly backgroundSignal: AbortSignal;
  track(job: Promise<void>, label: string): void;
}

/**
 * Memory extraction and upkeep after a turn, on the cheap model, without waiting:
 * chained after `previous` (one run at a time per session, so two runs never read
 * the same new messages). Returns the new chain, or `previous` when there is nothing to run.
 */
export function queueAfterTurn(
  previous: Promise<void>,
  o: {
    memory: LongTermMemory | undefined;
    cheap: Provider | undefined;
    jobs: { extract: boolean; tune: boolean };
    store: Store;
    sessionId: string;
    cwd: string;
  },
  background: BackgroundTracker,
): Promise<void> {
  const { memory, cheap } = o;
  if (!memory || !cheap || !o.jobs.extract) return previous;
  const scopes = memoryScopes(o.cwd);
  const next = previous.then(() =>
    afterTurn({
      memory,
      cheap,
      store: o.store,
      sessionId: o.sessionId,
      scopes: { user: 'user', project: scopes[0] ?? 'user', read: scopes },
      tune: o.jobs.tune,
      recordUsage: (label, model, usage) => background.recordUsage(label, model, usage),
      signal: background.backgroundSignal,
    }),
  );
  background.track(next, 'memory extraction');
  return next;
}

/** The memories for this input (L0); memory failures never stop a turn. */
export async function recallMemories(
  memory: LongTermMemory | undefined,
  input: string,
  cwd: string,
): Promise<string> {
  if (!memory) return '';
  try {
    return (await memory.recall(input, { scopes: memoryScopes(cwd) })).text;
  } catch {
    return '';
  }
}
