/**
 * A Server-Sent Events client over fetch (so it can send the bearer token as a
 * header), which reconnects on its own and resumes with `Last-Event-ID`: the
 * server replays every event it kept after that id, so nothing is lost or doubled;
 * when it no longer has them all it says so with `event: gap` (`onGap`).
 */
import type { StreamEvent } from './types.js';

/** `after` value that skips the server's whole backlog: only events from now on. */
export const LIVE_ONLY = Number.MAX_SAFE_INTEGER;

export interface SseOptions<E extends { type: string } = StreamEvent> {
  url: string;
  /** Read at every (re)connect, so a new token is used. */
  headers: () => Record<string, string>;
  /** On a refused token (401): resolves once there is a new one, then the stream reconnects. */
  reauthorize?: () => Promise<void>;
  onEvent: (event: E, seq: number) => void;
  onStatus?: (status: 'connecting' | 'open' | 'retrying' | 'failed') => void;
  /**
   * `event: gap`: events after the id we resumed from are gone (more passed than the
   * server keeps while we were away, or it restarted): reload what is stored.
   */
  onGap?: (gap: StreamGap) => void;
  /**
   * Where to start while no event has been seen yet (sent as `?after=`): `LIVE_ONLY`
   * when the caller already rendered the stored history. Later reconnects resume
   * from the last event seen.
   */
  after?: number;
  /** First reconnect delay; doubles up to `maxRetryMs`. */
  retryMs?: number;
  maxRetryMs?: number;
}

/** The `gap` event's data: the ids that were missed (`last` is null after a restart). */
export interface StreamGap {
  type: 'gap';
  reason: 'evicted' | 'restarted';
  first: number;
  last: number | null;
}

interface RawEvent {
  id: string | null;
  event: string;
  data: string;
}

/** `E`: the stream's events (a session's by default; a workflow run's has its own). */
export class EventStream<E extends { type: string } = StreamEvent> {
  private lastId = -1;
  private controller: AbortController | null = null;
  private closed = false;
  private delay: number;
  private readyResolve: (() => void) | null = null;
  /** Resolves once the first connection is open (events from then on are not missed). */
  readonly ready: Promise<void>;

  constructor(private readonly opts: SseOptions<E>) {
    this.delay = opts.retryMs ?? 500;
    this.ready = new Promise((resolve) => {
      this.readyResolve = resolve;
    });
    void this.loop();
  }

  get lastEventId(): number {
    return this.lastId;
  }

  close(): void {
    this.closed = true;
    this.controller?.abort();
    this.readyResolve?.();
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      this.opts.onStatus?.('connecting');
      try {
        await this.connectOnce();
      } catch {
        // network error or abort: retry below unless closed
      }
      if (this.closed) return;
      this.opts.onStatus?.('retrying');
      await sleep(this.delay);
      this.delay = Math.min(this.delay * 2, this.opts.maxRetryMs ?? 10_000);
    }
  }

  private async connectOnce(): Promise<void> {
    this.controller = new AbortController();
    const headers: Record<string, string> = { ...this.opts.headers(), accept: 'text/event-stream' };
    const url = new URL(this.opts.url);
    if (this.lastId >= 0) headers['last-event-id'] = String(this.lastId);
    else if (this.opts.after !== undefined) url.searchParams.set('after', String(this.opts.after));
    // A variable, not a literal: Node's RequestInit (the tests run this client in Node) lacks `cache`.
    const init = { headers, signal: this.controller.signal, cache: 'no-store' as const };
    const res = await fetch(url, init);
    if (res.status === 401 && this.opts.reauthorize) {
      await this.opts.reauthorize();
      return;
    }
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      // Retrying cannot help: the session is gone or the token is wrong.
      this.closed = true;
      this.readyResolve?.();
      this.opts.onStatus?.('failed');
      return;
    }
    if (!res.ok || !res.body) throw new Error(`events: HTTP ${res.status}`);
    this.opts.onStatus?.('open');
    this.delay = this.opts.retryMs ?? 500;
    this.readyResolve?.();
    this.readyResolve = null;
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // Events are separated by a blank line; keep any incomplete tail for the next read.
      const blocks = buffer.split(/\r?\n\r?\n/);
      buffer = blocks.pop() ?? '';
      for (const block of blocks) this.dispatch(parseBlock(block));
    }
  }

  private dispatch(raw: RawEvent | null): void {
    if (!raw || raw.data === '') return;
    // The server replays only events after the id we resume from, so every event is
    // new; a smaller id than before means the server restarted and counts afresh.
    const seq = raw.id === null ? Number.NaN : Number(raw.id);
    if (Number.isInteger(seq) && seq >= 0) this.lastId = seq;
    let event: E;
    try {
      event = JSON.parse(raw.data) as E;
    } catch {
      return;
    }
    if (raw.event === 'gap') {
      this.opts.onGap?.(event as unknown as StreamGap);
      return;
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return;
    this.opts.onEvent(event, seq);
  }
}

/** Parses one SSE block (`id:`, `event:`, `data:` lines; `:` starts a comment). */
export function parseBlock(block: string): RawEvent | null {
  let id: string | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0 && id === null) return null;
  return { id, event, data: data.join('\n') };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
