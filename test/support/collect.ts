import type { AgentEvent, ToolCallRecord } from '../../src/agent/index.js';
import { isFinished } from '../../src/store/tool-record.js';

/** Drains an async iterable into an array (rejects with the iterable's error). */
export async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of it) out.push(item);
  return out;
}

/** The tool-call records of a stream's `tool_update` events, in order. */
export function toolRecords(events: readonly AgentEvent[]): ToolCallRecord[] {
  return events.flatMap((e) => (e.type === 'tool_update' ? [e.record] : []));
}

/** The records of the calls that ended, in the order they ended. */
export function endedCalls(events: readonly AgentEvent[]): ToolCallRecord[] {
  return toolRecords(events).filter((r) => isFinished(r.state));
}

/** The states one call went through, in order. */
export function statesOf(events: readonly AgentEvent[], callId: string): string[] {
  return toolRecords(events)
    .filter((r) => r.callId === callId)
    .map((r) => r.state);
}
