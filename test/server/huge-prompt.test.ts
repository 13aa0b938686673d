/**
 * A pasted megabyte through `tea serve`: the turn reaches the model with the start
 * and the question at the end of the prompt, and no step hands one long string to
 * `Intl.Segmenter` (quadratic in V8: a 300 KB POST held every client for ~50 s).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());
afterEach(() => {
  vi.restoreAllMocks();
});

const LINE =
  'The deploy of billing-api to app-21.tyo2 failed at 03:14 with error E1234. 部署计费服务到东京二区失败了，请检查日志。\n';

describe('a huge prompt through the server', () => {
  it('reaches the model whole at both ends, segmenting only bounded pieces', async () => {
    await t.memory.remember({ content: 'The billing deploys are watched by Heron', category: 'fact' });
    const original = Intl.Segmenter.prototype.segment;
    let longest = 0;
    vi.spyOn(Intl.Segmenter.prototype, 'segment').mockImplementation(function (this: Intl.Segmenter, text) {
      const s = String(text);
      longest = Math.max(longest, s.length);
      // The old code would spend minutes here: fail at once instead.
      if (s.length > 4096) throw new Error(`segmented ${s.length} characters at once`);
      return original.call(this, s);
    });
    const prompt = `${LINE.repeat(Math.ceil((1024 * 1024) / Buffer.byteLength(LINE)))}So, what went wrong?`;
    t.model.script(reply().text('The deploy failed.'));
    const res = await t.json<{ choices: Array<{ message: { content: string } }> }>(
      'POST',
      '/v1/chat/completions',
      { model: 'tea', messages: [{ role: 'user', content: prompt }] },
    );
    expect(res.status).toBe(200);
    expect(res.body.choices[0]!.message.content).toBe('The deploy failed.');
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(4096);
    const sent = wireMessages(t.model.requests.at(-1)!.body);
    const last = wireText(sent.at(-1)!);
    expect(last.startsWith(LINE)).toBe(true);
    expect(last).toMatch(/… \[cut \d+ chars\]/);
    expect(last.endsWith('So, what went wrong?')).toBe(true);
    expect(wireText(sent[0]!)).toContain('The billing deploys are watched by Heron');
    expect((await t.req('GET', '/health')).status).toBe(200);
  }, 60_000);
});
