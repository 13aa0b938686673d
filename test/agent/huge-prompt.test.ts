/**
 * A pasted megabyte goes through the loop in linear time: memory recall, tool intent
 * and the relevance of older turns read the two ends of it, and word segmentation
 * feeds `Intl.Segmenter` bounded pieces (one long string is quadratic in V8).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryService } from '../../src/memory/service.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await h.close();
});

/** The longest text handed to any Intl.Segmenter while `run` runs; a longer one than `limit` throws. */
async function longestSegmented<T>(
  limit: number,
  run: () => Promise<T>,
): Promise<{ longest: number; result: T }> {
  const original = Intl.Segmenter.prototype.segment;
  let longest = 0;
  vi.spyOn(Intl.Segmenter.prototype, 'segment').mockImplementation(function (this: Intl.Segmenter, text) {
    const s = String(text);
    longest = Math.max(longest, s.length);
    // Past the limit the old code would take minutes: fail at once instead.
    if (s.length > limit) throw new Error(`segmented ${s.length} characters at once`);
    return original.call(this, s);
  });
  const result = await run();
  return { longest, result };
}

const LINE =
  'The deploy of billing-api to app-21.tyo2 failed at 03:14 with error E1234. 部署计费服务到东京二区失败了，请检查日志。\n';

/** About `kb` KB of mixed English and Chinese, with `middle` in the middle and `tail` at the end. */
function pasted(kb: number, middle: string, tail: string): string {
  const half = LINE.repeat(Math.ceil((kb * 1024) / 2 / Buffer.byteLength(LINE)));
  return `${half}${middle}\n${half}${tail}`;
}

describe('a huge prompt', () => {
  it('reaches the model with every segmentation bounded, and intent read from its ends only', async () => {
    const memory = new MemoryService({ db: h.store.db });
    await memory.remember({ content: 'The billing deploys are watched by Heron', category: 'fact' });
    const agent = h.agent({
      memory,
      settings: { toolLoading: 'intent', memoryJobs: { extract: false, tune: false } },
    });
    const session = agent.newSession();
    h.server.script(reply().text('first'), reply().text('second'));
    // "git log" sits in the middle of a megabyte; the question at the end asks to calculate.
    const prompt = pasted(1024, 'please run git log on it', 'What went wrong? calculate the downtime');
    const { longest, result } = await longestSegmented(4096, async () => {
      const first = await collect(session.prompt(prompt));
      // A second huge turn: the first one is now an older pair whose relevance is scored.
      const second = await collect(session.prompt(pasted(512, 'show the git diff', 'and now?')));
      return [first, second];
    });
    expect(longest).toBeGreaterThan(0);
    expect(longest).toBeLessThanOrEqual(4096);
    const [first] = result;
    expect(first!.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'first' });
    const loaded = first!.filter((e) => e.type === 'tools_loaded').flatMap((e) => e.names);
    expect(loaded).toContain('calculate');
    expect(loaded).not.toContain('git_log');
    // The whole prompt reached the model, and recall still found the memory from its start.
    const request = wireMessages(h.server.requests[0]!.body);
    expect(wireText(request.at(-1)!)).toContain('What went wrong? calculate the downtime');
    expect(wireText(request[0]!)).toContain('The billing deploys are watched by Heron');
    expect(h.store.sessions.get(session.id)!.title).toBe(LINE.replace(/\s+/g, ' ').trim().slice(0, 80));
  }, 60_000);
});
