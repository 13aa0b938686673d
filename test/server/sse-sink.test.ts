/**
 * openSse: frames reach the client in order, a client that stops reading makes
 * the writer wait (nothing piles up without bound), and a client that goes away
 * aborts the work once.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { openSse, type SseSink } from '../../src/server/sse.js';

/** A response from a real Hono route that opened a sink, plus the sink itself. */
async function openOne(): Promise<{ res: Response; sink: SseSink; aborts: () => number }> {
  let sink: SseSink | undefined;
  let aborts = 0;
  const app = new Hono();
  app.get('/stream', (c) => {
    c.header('x-extra', 'kept');
    sink = openSse(c, () => {
      aborts += 1;
    });
    return sink.response;
  });
  const res = await app.request('/stream');
  return { res, sink: sink!, aborts: () => aborts };
}

const frame = (n: number, size = 10): string => `data: ${JSON.stringify({ n, pad: 'x'.repeat(size) })}\n\n`;

describe('openSse', () => {
  it('sends the frames in order with event-stream headers, then ends', async () => {
    const { res, sink } = await openOne();
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-extra')).toBe('kept');
    for (let n = 0; n < 5; n++) sink.write(frame(n));
    sink.end();
    expect(sink.closed).toBe(true);
    expect(sink.write(frame(99))).toBe(true); // dropped after the end
    expect(await res.text()).toBe([0, 1, 2, 3, 4].map((n) => frame(n)).join(''));
  });

  it('asks the writer to wait while the client is not reading, and lets it go on when it reads', async () => {
    const { res, sink } = await openOne();
    let frames = 0;
    while (sink.write(frame(frames++, 1000))) {
      if (frames > 1000) throw new Error('never asked to wait');
    }
    // About 64 KB are queued; the writer must wait now.
    expect(frames).toBeGreaterThan(30);
    expect(frames).toBeLessThan(100);
    let ready = false;
    void sink.ready().then(() => {
      ready = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(ready).toBe(false);
    const reader = res.body!.getReader();
    let read = 0;
    while (!ready) {
      const { value } = await reader.read();
      read += value?.length ?? 0;
    }
    expect(read).toBeGreaterThan(0);
    sink.end();
    await reader.cancel();
  });

  it('aborts once when the client goes away, and later writes are dropped', async () => {
    const { res, sink, aborts } = await openOne();
    sink.write(frame(1));
    await res.body!.cancel();
    expect(aborts()).toBe(1);
    expect(sink.closed).toBe(true);
    expect(sink.write(frame(2))).toBe(true);
    await sink.ready();
    sink.end();
    expect(aborts()).toBe(1);
  });
});
