/**
 * Recovery after a runner died (kill -9, a crash, a power cut) in the middle of a
 * turn: the tool calls it left unfinished (pending, awaiting approval or running) are
 * marked `interrupted`, and every call of its last assistant message that has no
 * result gets one, a model-readable error, so the transcript stays a consistent
 * call/result sequence for any face and any model.
 */
import type Database from 'better-sqlite3';
import type { ToolResultPart } from '../llm/types.js';
import type { LeaseRepo } from './leases.js';
import type { MessageRepo } from './messages.js';
import type { SessionStateRepo } from './state.js';
import type { ToolCallRepo } from './tool-calls.js';

/** The result a call gets when the process running it died before it finished. */
export const INTERRUPTED_OUTPUT =
  '[ERROR] No result was recorded for this call: the previous run stopped before the tool finished.\n' +
  'Hint: check whether its effect happened (read the file, list the directory) before calling it again.';

/**
 * The session-state key of the client tool calls a turn stopped for (agent/client-tools.ts):
 * they wait for the client's results, so recovery leaves them unanswered.
 */
export const CLIENT_CALLS_KEY = 'client_calls';

export interface RecoveryRepos {
  db: Database.Database;
  state: Pick<SessionStateRepo, 'get'>;
  messages: MessageRepo;
  toolCalls: ToolCallRepo;
  leases: LeaseRepo;
}

/**
 * Answers what a dead runner left unfinished in `sessionId`; the caller must know
 * that no live runner works on the session (it holds the lease itself). Returns the
 * number of calls answered. Reads only (two small queries) when there is nothing to do.
 */
export function recoverSession(repos: RecoveryRepos, sessionId: string): number {
  const { messages, toolCalls } = repos;
  const running = toolCalls.running(sessionId);
  const { last, results } = messages.tail(sessionId);
  const answered = new Map<string, ToolResultPart>();
  for (const m of results) for (const p of m.parts) if (p.type === 'tool-result') answered.set(p.callId, p);
  const client = new Set(clientCalls(repos, sessionId));
  // A partial (streaming) draft's calls never ran: the history leaves them out.
  const unanswered =
    last?.role === 'assistant' && last.status === 'complete'
      ? last.parts.filter((p) => p.type === 'tool-call' && !answered.has(p.id) && !client.has(p.id))
      : [];
  if (running.length === 0 && unanswered.length === 0) return 0;

  let count = 0;
  repos.db.transaction(() => {
    for (const row of running) {
      // Killed between storing the result and closing the row: the stored result stands.
      const result = answered.get(row.callId);
      toolCalls.finish(
        row.callId,
        result
          ? { state: result.isError ? 'error' : 'completed', output: result.output, durationMs: 0 }
          : { state: 'interrupted', output: INTERRUPTED_OUTPUT, durationMs: 0 },
        sessionId,
      );
      if (!result) count += 1;
    }
    for (const call of unanswered) {
      if (call.type !== 'tool-call') continue;
      const part: ToolResultPart = {
        type: 'tool-result',
        callId: call.id,
        name: call.name,
        output: INTERRUPTED_OUTPUT,
        isError: true,
      };
      messages.append(sessionId, { turnId: last!.turnId, role: 'tool', parts: [part] });
      if (!toolCalls.get(sessionId, call.id)) {
        // It never started (killed while it waited for approval or its turn): record it too.
        toolCalls.start(sessionId, {
          callId: call.id,
          turnId: last!.turnId,
          name: call.name,
          args: call.args,
        });
        toolCalls.finish(
          call.id,
          { state: 'interrupted', output: INTERRUPTED_OUTPUT, durationMs: 0 },
          sessionId,
        );
        count += 1;
      }
    }
  })();
  return count;
}

/** The ids of the calls waiting for the client (an unreadable value: none). */
function clientCalls(repos: RecoveryRepos, sessionId: string): string[] {
  try {
    const v = repos.state.get<{ calls?: { id?: unknown }[] }>(sessionId, CLIENT_CALLS_KEY);
    return (v?.calls ?? []).flatMap((c) => (typeof c.id === 'string' ? [c.id] : []));
  } catch {
    return [];
  }
}

/**
 * Recovers every session whose lease is held by a process that is gone (checked
 * again inside the write transaction, so a runner taking the session over at the
 * same moment is never touched) and removes those leases.
 */
export function recoverDeadRunners(repos: RecoveryRepos): void {
  for (const lease of repos.leases.all()) {
    if (repos.leases.isLive(lease)) continue;
    repos.db
      .transaction(() => {
        const now = repos.leases.get(lease.sessionId);
        if (!now || now.owner !== lease.owner || repos.leases.isLive(now)) return;
        recoverSession(repos, lease.sessionId);
        repos.leases.release(lease.sessionId, lease.owner);
      })
      .immediate();
  }
}
