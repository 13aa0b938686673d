/**
 * Every key a session keeps in the store's session state, with the shape of its
 * value as a zod schema, and typed access to them. A value is checked when read:
 * one that no longer fits (an older version wrote it, the row was damaged) reads as
 * absent, as if never set, and the next write replaces it. A key not declared here
 * does not compile.
 */
// zod's mini build: the same checks without loading the classic API's classes (several ms
// at start); a run that calls no tool loads no other zod code.
import * as z from 'zod/mini';
import type { HistoryPair, Summaries } from '../context/types.js';
import type { SessionStateRepo } from '../store/index.js';
import type { PermissionRule } from '../tools/permissions.js';
import type { PlanItem } from '../tools/types.js';

/**
 * The schemas, built on first read of a value: a new session reads none, and a prompt
 * run that calls no tool then never loads zod.
 */
function buildSchemas() {
  const planItem = z.object({
    id: z.string(),
    content: z.string(),
    status: z.enum(['pending', 'in_progress', 'completed']),
  }) satisfies z.ZodMiniType<PlanItem>;
  const plan = z.object({ items: z.array(planItem), title: z.optional(z.string()) });
  const permissionRule = z.object({
    tool: z.string(),
    pattern: z.optional(z.string()),
    exact: z.optional(z.boolean()),
    action: z.enum(['allow', 'ask', 'deny']),
  }) satisfies z.ZodMiniType<PermissionRule>;
  const historyPair = z.object({
    turnId: z.string(),
    user: z.string(),
    assistant: z.string(),
    reasoning: z.string(),
    files: z.array(z.string()),
  }) satisfies z.ZodMiniType<HistoryPair>;
  const summaries = z.object({
    semantic: z.optional(z.string()),
    toolChain: z.optional(z.string()),
  }) satisfies z.ZodMiniType<Summaries>;
  const count = z.int().check(z.nonnegative());
  return {
    /** The `todo` tool's list (resumed into the system layer while unfinished). */
    todos: plan,
    /** The `plan` tool's plan. */
    plan,
    /** Tools whose schemas the model has loaded (beyond the core tier). */
    loaded_tools: z.array(z.string()),
    /** "Always allow" answers given in this session. */
    permission_grants: z.array(permissionRule),
    /** L2: older turns, condensed. */
    l2_pairs: z.array(historyPair),
    /** L3: the summaries of turns that left L2. */
    summaries,
    /** User messages a manual compaction folded into L3: L1 starts after them. */
    compacted_users: count,
    /** The last message seq memory extraction has read. */
    memory_cursor: count,
    /** Turns since the last memory priority tuning. */
    memory_turns: count,
    /** The last failure of a memory job. */
    memory_error: z.object({ job: z.string(), message: z.string(), at: z.number() }),
    /** The work mode a top-level session is in (agent/session-mode.ts). */
    work_mode: z.string(),
    /** A title the user gave (e.g. an editor's `session/set_title`): the automatic title leaves it. */
    title_kept: z.boolean(),
    /** Client tool calls the last turn stopped for, waiting for the client's results (agent/client-tools.ts). */
    client_calls: z.object({
      turnId: z.string(),
      calls: z.array(z.object({ id: z.string(), name: z.string(), args: z.record(z.string(), z.unknown()) })),
    }),
    /**
     * The chat-completions conversation as the client holds it after the last turn (a hash
     * of its messages and Tea's answer) and the session's last message then: a request
     * resending that conversation without `session_id` continues the session (server/chat-conversation.ts).
     */
    chat_conversation: z.object({ hash: z.string(), last: count }),
  };
}

type Schemas = ReturnType<typeof buildSchemas>;
let schemas: Schemas | undefined;

/** Every declared key and the schema of its value. */
export function sessionStateSchemas(): Schemas {
  schemas ??= buildSchemas();
  return schemas;
}

/** The declared keys (the type checks this list against the schemas both ways). */
const KEYS = {
  todos: true,
  plan: true,
  loaded_tools: true,
  compacted_users: true,
  permission_grants: true,
  l2_pairs: true,
  summaries: true,
  memory_cursor: true,
  memory_turns: true,
  memory_error: true,
  work_mode: true,
  title_kept: true,
  client_calls: true,
  chat_conversation: true,
} as const satisfies Record<keyof Schemas, true>;

export type SessionStateKey = keyof typeof KEYS;
export type SessionStateValue<K extends SessionStateKey> = z.infer<Schemas[K]>;

/** Typed access to one session's state. */
export interface SessionState {
  /** The value, or undefined when it is unset or no longer fits its schema. */
  get<K extends SessionStateKey>(key: K): SessionStateValue<K> | undefined;
  set<K extends SessionStateKey>(key: K, value: SessionStateValue<K>): void;
  delete(key: SessionStateKey): void;
}

/** Refuses a key that is not declared (only reachable past the types, e.g. with a cast). */
function declared(key: string): void {
  if (!Object.hasOwn(KEYS, key)) {
    throw new Error(`session state key '${key}' is not declared in agent/session-state.ts`);
  }
}

/** Where session state lives: the store's state table (or a stand-in in memory). */
export interface StateStore {
  state: Pick<SessionStateRepo, 'get' | 'set' | 'delete'>;
}

export function sessionState(store: StateStore, sessionId: string): SessionState {
  return {
    get(key) {
      declared(key);
      let raw: unknown;
      try {
        raw = store.state.get<unknown>(sessionId, key);
      } catch (err) {
        if (err instanceof SyntaxError) return undefined; // not JSON any more
        throw err;
      }
      if (raw === undefined) return undefined;
      const parsed = sessionStateSchemas()[key].safeParse(raw);
      return parsed.success ? (parsed.data as SessionStateValue<typeof key>) : undefined;
    },
    set(key, value) {
      declared(key);
      store.state.set(sessionId, key, value);
    },
    delete(key) {
      declared(key);
      store.state.delete(sessionId, key);
    },
  };
}
