/**
 * Resumable streams for `tea mcp serve --http` (streamable HTTP, SEP-1699): each
 * session keeps the last events it sent, so a client whose SSE stream broke reconnects
 * with `GET` and `Last-Event-ID` and gets what it missed, then the rest of that stream
 * (the SDK's transport does the replay; this is its event store). Bounded: at most
 * `MAX_EVENTS` events and `MAX_BYTES` of messages per session, the oldest dropped
 * first; an id that was dropped (or never given) is refused by the transport with 400.
 * Event ids are a per-session counter, never reused.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export const MAX_EVENTS = 1000;
export const MAX_BYTES = 8 * 1024 * 1024;
/** How long a client waits before reconnecting a stream the server closed (the SSE `retry` field). */
export const RETRY_MS = 1000;

interface Stored {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
  bytes: number;
}

export class SessionEvents implements EventStore {
  private readonly events: Stored[] = [];
  private readonly byId = new Map<string, Stored>();
  private bytes = 0;
  private next = 0;

  constructor(
    private readonly maxEvents = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    this.next += 1;
    const stored = { id: `e${this.next}`, streamId, message, bytes: JSON.stringify(message).length };
    this.events.push(stored);
    this.byId.set(stored.id, stored);
    this.bytes += stored.bytes;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) {
      const dropped = this.events.shift()!;
      this.byId.delete(dropped.id);
      this.bytes -= dropped.bytes;
    }
    return stored.id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.byId.get(eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.byId.get(lastEventId);
    if (!last) return '';
    const after = this.events
      .slice(this.events.indexOf(last) + 1)
      .filter((e) => e.streamId === last.streamId);
    // Priming events (empty messages) mark a stream's start; they carry nothing to replay.
    for (const e of after) if (Object.keys(e.message).length > 0) await send(e.id, e.message);
    return last.streamId;
  }

  /** Events held (for tests and limits). */
  get size(): number {
    return this.events.length;
  }
}
