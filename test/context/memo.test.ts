/**
 * The build memo keeps work from one request of a session to the next: the output is
 * exactly the builder's without it, whatever the transcript does between calls (grows
 * a step at a time, gains a user turn, is reloaded, is cut at the front), and messages
 * it already prepared keep their identity, so their token estimates stay cached.
 */
import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/context/build.js';
import { prepareRecent } from '../../src/context/l1.js';
import { BuildMemo } from '../../src/context/memo.js';
import type { Message, Part } from '../../src/llm/types.js';
import { assistant, call, est, hugeBudget, input, result, tool, user } from './fixtures.js';

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Transcripts as the loop and odd histories make them: assistant calls answered in the
 * next message (the usual step), answered late, twice, never, results for unknown
 * calls, reused call ids, thinking-only answers, user turns, images.
 */
function transcriptStep(rand: () => number, n: number, open: string[], used: string[]): Message[] {
  const pick = rand();
  const id = () => {
    const reused = used.length > 0 && rand() < 0.08 ? used[Math.floor(rand() * used.length)] : undefined;
    const fresh = reused ?? `c${used.length}`;
    used.push(fresh);
    return fresh;
  };
  if (pick < 0.1) return [user(`question ${n}`)];
  if (pick < 0.6) {
    const calls = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => call(id()));
    const out: Message[] = [assistant(rand() < 0.8 ? `step ${n}` : '', { calls })];
    const answered = calls.filter(() => rand() < 0.9);
    for (const c of calls) if (!answered.includes(c)) open.push(c.id);
    if (answered.length > 0) out.push(tool(...answered.map((c) => result(c.id, `out ${n}`))));
    return out;
  }
  if (pick < 0.7 && open.length > 0) return [tool(result(open.shift()!, `late ${n}`))];
  if (pick < 0.75) return [tool(result(`c${Math.floor(rand() * (used.length + 2))}`, `stray ${n}`))];
  if (pick < 0.8) return [{ role: 'assistant', parts: [{ type: 'thinking', text: `hmm ${n}` }] }];
  if (pick < 0.85) {
    const c = call(id());
    const image: Part = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
    return [assistant('', { calls: [c] }), tool({ ...result(c.id, 'shot'), images: [image as never] })];
  }
  return [assistant(`answer ${n}`)];
}

describe('BuildMemo', () => {
  it('prepares L1 exactly like prepareRecent while the transcript grows, step by step', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = random(seed);
      const memo = new BuildMemo();
      const open: string[] = [];
      const used: string[] = [];
      let history: Message[] = [user('start')];
      for (let n = 0; n < 120; n++) {
        history = [...history, ...transcriptStep(rand, n, open, used)];
        const r = rand();
        // Now and then the runner reloads the transcript (new objects), or L1 starts later.
        if (r < 0.03) history = history.map((m) => ({ ...m, parts: [...m.parts] }));
        else if (r < 0.06) history = history.slice(Math.floor(rand() * history.length));
        else if (r < 0.08 && history.length > 2) {
          const at = Math.floor(rand() * history.length);
          history = history.map((m, i) =>
            i === at ? { role: 'user', parts: [{ type: 'text', text: 'edited' }] } : m,
          );
        }
        expect(memo.recent.prepare(history), `seed ${seed} step ${n}`).toEqual(prepareRecent(history));
      }
    }
  });

  it('keeps the prepared messages of a settled prefix, placeholders included, as the same objects', () => {
    const memo = new BuildMemo();
    const history: Message[] = [];
    for (let t = 0; t < 5; t++) {
      history.push(user(`question ${t}`), assistant('looking', { calls: [call(`c${t}`)] }));
      history.push(tool(result(`c${t}`, `output ${t}`)), assistant(`answer ${t}`));
    }
    const first = memo.recent.prepare(history);
    // Old results are placeholders (new objects the first time).
    expect(first[2]).not.toBe(history[2]);
    expect(JSON.stringify(first[2])).toContain('tool result omitted');
    history.push(assistant('one more step', { calls: [call('c9')] }), tool(result('c9', 'more')));
    const second = memo.recent.prepare(history);
    expect(second).toEqual(prepareRecent(history));
    first.forEach((m, i) => {
      expect(second[i]).toBe(m);
    });
  });

  it('gives the system message as the same object until one of its inputs changes', () => {
    const memo = new BuildMemo();
    const base = input({ instructions: ['Be brief.'], recent: [user('hi')] });
    const a = buildContext(base, hugeBudget, est, memo).messages[0];
    const b = buildContext({ ...base, recent: [user('hi'), assistant('hello')] }, hugeBudget, est, memo)
      .messages[0];
    expect(b).toBe(a);
    const c = buildContext({ ...base, memories: '- likes tea' }, hugeBudget, est, memo).messages[0];
    expect(c).not.toBe(a);
    expect(c).toEqual(buildContext({ ...base, memories: '- likes tea' }, hugeBudget, est).messages[0]);
    const d = buildContext({ ...base, instructions: ['Be verbose.'] }, hugeBudget, est, memo).messages[0];
    expect(JSON.stringify(d)).toContain('Be verbose.');
  });

  it('builds the same request with and without the memo, under trimming too', () => {
    const memo = new BuildMemo();
    const history: Message[] = [user('go')];
    for (let n = 0; n < 60; n++) {
      history.push(
        assistant(`step ${n}`, { calls: [call(`c${n}`)] }),
        tool(result(`c${n}`, 'x'.repeat(400))),
      );
      const args = input({ recent: [...history] });
      const budget = { contextWindow: 6_000, maxOutput: 1_000, trimAt: 0.8 };
      const plain = buildContext(args, budget, est);
      const memoized = buildContext(args, budget, est, memo);
      expect(memoized).toEqual(plain);
    }
  });
});
