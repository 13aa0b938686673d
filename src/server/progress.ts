/**
 * Progress a client may opt into on the OpenAI streams (`tea_progress: true`): a tool
 * call's start and end, so a user sees why the answer pauses. Chat completions carry it
 * as `delta.tea_progress`; responses as `tea.progress` events, which the SDKs pass on
 * as events they do not know.
 */
import type { AgentEvent } from '../agent/events.js';

export interface ToolProgress {
  type: 'tool';
  /** `started` when the call starts running; its end state otherwise (completed, error, denied, …). */
  phase: 'started' | 'finished';
  state: string;
  call_id: string;
  name: string;
  /** One line: the tool and what it acts on (`bash: npm test`). */
  title: string;
  duration_ms?: number;
}

/** The progress a tool update is worth telling (a start or an end), or undefined. */
export function progressOf(e: Extract<AgentEvent, { type: 'tool_update' }>): ToolProgress | undefined {
  const r = e.record;
  const finished = !['pending', 'awaiting_approval', 'running'].includes(r.state);
  if (r.state !== 'running' && !finished) return undefined;
  return {
    type: 'tool',
    phase: finished ? 'finished' : 'started',
    state: r.state,
    call_id: r.callId,
    name: r.name,
    title: r.title,
    ...(r.durationMs !== undefined ? { duration_ms: r.durationMs } : {}),
  };
}
