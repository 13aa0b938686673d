/** Reading a streamed response body as server-sent events, one event or one read's worth at a time. */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { abortError, type CallContext, transportError } from './http.js';
import type { WireResponse } from './wire-response.js';

/** How `readSse` leaves a body the caller stopped reading before its end. */
export interface SseOptions {
  /**
   * True when the caller stopped because the protocol said the answer is complete
   * (`[DONE]`, `message_stop`): the rest of the body is then drained so the
   * connection can be reused. Otherwise (a cancel, a failure) it is destroyed.
   */
  complete?: () => boolean;
  /** How long a complete body may take to end before its connection is closed. */
  releaseGraceMs?: number;
}

/**
 * Yields the server-sent events of a response body as they arrive. Ends when the
 * body ends cleanly; throws `LlmError` on a broken connection or an abort.
 */
export async function* readSse(
  res: WireResponse,
  ctx: CallContext,
  opts: SseOptions = {},
): AsyncGenerator<EventSourceMessage> {
  for await (const batch of readSseBatches(res, ctx, opts)) yield* batch;
}

/**
 * Like `readSse`, but yields the events that arrived together (in one read of the
 * body) as one batch, so a consumer that fell behind can catch up in one step.
 */
export async function* readSseBatches(
  res: WireResponse,
  ctx: CallContext,
  opts: SseOptions = {},
): AsyncGenerator<EventSourceMessage[]> {
  const decoder = new TextDecoder();
  let batch: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => batch.push(event) });
  let finished = false;
  try {
    while (true) {
      if (ctx.signal?.aborted) throw abortError(ctx);
      let chunk: Buffer | null;
      try {
        chunk = await res.read();
      } catch (err) {
        throw transportError(err, ctx, 'while streaming');
      }
      if (ctx.signal?.aborted) throw abortError(ctx);
      if (chunk === null) {
        parser.feed(`${decoder.decode()}\n\n`);
        finished = true;
      } else {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
      if (batch.length > 0) {
        const ready = batch;
        batch = [];
        yield ready;
      }
      if (finished) return;
    }
  } finally {
    if (!finished) {
      if (opts.complete?.() && !ctx.signal?.aborted) res.release(opts.releaseGraceMs);
      else res.destroy();
    }
  }
}
