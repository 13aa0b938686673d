import type { MessageRepo } from '../store/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import {
  type ClientFs,
  type ClientShell,
  type HistoryHit,
  type PlanItem,
  ToolError,
  type ToolHost,
} from '../tools/types.js';
import type { AgentEvent } from './events.js';
import { readMessages, searchMessages } from './history-search.js';
import type { Interactions } from './interactions.js';
import { type StateStore, sessionState } from './session-state.js';

/** The session data tools read and write: small state values, and the transcript (read-only). */
export interface SessionData extends StateStore {
  messages: Pick<MessageRepo, 'list'>;
}

/** What a session shares with the tools it runs. */
export interface SessionHost {
  store: SessionData;
  sessionId: string;
  tools: ToolRegistry;
  interactions: Interactions;
  /** Tools whose schemas the model has asked for (beyond the core tier). */
  loaded: Set<string>;
  /** The client's file system, when a face provides one (ACP editors). */
  fs?: ClientFs;
  /** The client's terminal, when a face provides one (ACP editors): bash runs there. */
  shell?: ClientShell;
}

export const STATE_LOADED_TOOLS = 'loaded_tools';
const planKey = (kind: 'todo' | 'plan') => (kind === 'todo' ? 'todos' : 'plan');

/** Adds tools to the session's loaded set; returns the names that were new. */
export function loadTools(svc: SessionHost, names: readonly string[]): string[] {
  const added = names.filter((n) => svc.tools.has(n) && !svc.loaded.has(n));
  if (added.length === 0) return added;
  for (const n of added) svc.loaded.add(n);
  sessionState(svc.store, svc.sessionId).set(STATE_LOADED_TOOLS, [...svc.loaded]);
  return added;
}

/** The ToolHost one tool call sees: its events go to `emit`, its waits end with `signal`. */
export function makeHost(
  svc: SessionHost,
  call: { callId: string; signal: AbortSignal; emit: (e: AgentEvent) => void; activeTools: () => string[] },
): ToolHost {
  return {
    async ask(question: string, options?: string[]): Promise<string> {
      if (!svc.interactions.canAsk) {
        throw new ToolError(
          'nobody can answer questions in this run (non-interactive mode)',
          'make the most reasonable assumption, say which one you made, and continue',
        );
      }
      const reply = await svc.interactions.wait(
        'answer',
        (requestId) =>
          call.emit({
            type: 'question',
            requestId,
            callId: call.callId,
            question,
            ...(options && options.length > 0 ? { options } : {}),
          }),
        call.signal,
      );
      return reply.kind === 'answer' ? reply.text : '';
    },
    plan(kind: 'todo' | 'plan', items: PlanItem[], title?: string): void {
      sessionState(svc.store, svc.sessionId).set(
        planKey(kind),
        title === undefined ? { items } : { items, title },
      );
      call.emit({ type: 'plan', kind, items, ...(title === undefined ? {} : { title }) });
    },
    currentPlan(kind: 'todo' | 'plan'): { items: PlanItem[]; title?: string } {
      return sessionState(svc.store, svc.sessionId).get(planKey(kind)) ?? { items: [] };
    },
    searchHistory(query: string, opts?: { limit?: number; tool?: string }): HistoryHit[] {
      return searchMessages(svc.store.messages.list(svc.sessionId), query, opts);
    },
    readHistory(fromSeq: number, toSeq: number): HistoryHit[] {
      return readMessages(svc.store.messages.list(svc.sessionId), fromSeq, toSeq);
    },
    loadTools(names: string[]): void {
      const added = loadTools(svc, names);
      if (added.length > 0) call.emit({ type: 'tools_loaded', names: added, by: 'tool_search' });
    },
    loadedTools: call.activeTools,
    notify(title: string, body: string): void {
      call.emit({ type: 'notice', title, body });
    },
  };
}
