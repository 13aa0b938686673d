/**
 * Resumable streams of `tea mcp serve --http` (SEP-1699), with raw HTTP against the
 * built CLI: a call's SSE stream starts with a priming event (an id and a retry hint);
 * a client that loses the stream mid-call reconnects with GET and Last-Event-ID and
 * gets the answer it missed; an id the session never gave is refused.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { startMcpHttp } from './mcp-http.js';

let ctx: CliEnv;
let server: Awaited<ReturnType<typeof startMcpHttp>>;
let session: string;
const VERSION = '2025-11-25';
const ACCEPT = 'application/json, text/event-stream';

const headers = (extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-protocol-version': VERSION,
  ...(session ? { 'mcp-session-id': session } : {}),
  ...extra,
});

type Event = { id?: string; retry?: string; data: string };

/** Reads SSE events from `res` until `done` says stop (then cancels the stream). */
async function readEvents(res: Response, done: (e: Event, all: Event[]) => boolean): Promise<Event[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const all: Event[] = [];
  let buffer = '';
  for (;;) {
    const { value, done: ended } = await reader.read();
    if (ended) return all;
    buffer += value;
    let cut = buffer.indexOf('\n\n');
    while (cut >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const event: Event = { data: '' };
      for (const line of block.split('\n')) {
        const [key, ...rest] = line.split(':');
        const v = rest.join(':').replace(/^ /, '');
        if (key === 'id') event.id = v;
        else if (key === 'retry') event.retry = v;
        else if (key === 'data') event.data += v;
      }
      all.push(event);
      if (done(event, all)) {
        await reader.cancel();
        return all;
      }
      cut = buffer.indexOf('\n\n');
    }
  }
}

beforeAll(async () => {
  ctx = cliEnv();
  server = await startMcpHttp(ctx.env, ['--cwd', ctx.work, '--yolo']);
  const init = await fetch(server.url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  session = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  const ack = await fetch(server.url, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  expect(ack.status).toBe(202);
}, 60_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  ctx.cleanup();
});

describe('resumable streams', () => {
  it('a client that lost a call’s stream gets the answer after reconnecting with Last-Event-ID', async () => {
    const call = await fetch(server.url, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'bash', arguments: { command: 'sleep 0.5; echo resumed-ok' } },
      }),
    });
    expect(call.headers.get('content-type')).toContain('text/event-stream');
    // The first event primes the stream: an id, a retry hint and no data. Then the client goes away.
    const [priming] = await readEvents(call, () => true);
    expect(priming).toEqual({ id: expect.stringMatching(/^e\d+$/), retry: '1000', data: '' });

    // Until the server has seen the old stream close, the stream is taken (409): try again, as the retry hint says.
    let again: Response | undefined;
    await vi.waitFor(
      async () => {
        const res = await fetch(server.url, {
          method: 'GET',
          headers: headers({ accept: 'text/event-stream', 'last-event-id': priming!.id! }),
        });
        if (res.status !== 200) await res.text();
        expect(res.status).toBe(200);
        again = res;
      },
      { timeout: 15_000, interval: 50 },
    );
    const events = await readEvents(again!, (e) => e.data.includes('"id":2'));
    const answer = JSON.parse(events.at(-1)!.data) as {
      id: number;
      result: { content: Array<{ text: string }> };
    };
    expect(answer.id).toBe(2);
    expect(answer.result.content[0]?.text).toContain('resumed-ok');
    expect(events.every((e) => e.id !== undefined)).toBe(true);
  });

  it('refuses an event id the session never gave', async () => {
    const res = await fetch(server.url, {
      method: 'GET',
      headers: headers({ accept: 'text/event-stream', 'last-event-id': 'e999999' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Invalid event ID');
  });
});
