import { describe, expect, it } from 'vitest';
import { coalesce } from '../../src/llm/coalesce.js';
import type { Delta } from '../../src/llm/types.js';

const run = (deltas: Delta[]): Delta[] => {
  const out: Delta[] = [];
  for (const d of deltas) coalesce(out, d);
  return out;
};

describe('coalesce', () => {
  it('joins neighbouring text and neighbouring thinking, keeping their order', () => {
    expect(
      run([
        { type: 'thinking', text: 'a' },
        { type: 'thinking', text: 'b' },
        { type: 'text', text: 'c' },
        { type: 'text', text: 'd' },
        { type: 'thinking', text: 'e' },
        { type: 'text', text: 'f' },
      ]),
    ).toEqual([
      { type: 'thinking', text: 'ab' },
      { type: 'text', text: 'cd' },
      { type: 'thinking', text: 'e' },
      { type: 'text', text: 'f' },
    ]);
  });

  it('never joins across other deltas or onto a signed thinking block', () => {
    const call = { type: 'tool-call' as const, id: 'c1', name: 'x', args: {} };
    const input: Delta[] = [
      { type: 'text', text: 'a' },
      { type: 'tool-call', call },
      { type: 'text', text: 'b' },
      { type: 'thinking', text: 'p' },
      { type: 'thinking', text: '', signature: 'sig' },
      { type: 'thinking', text: 'q' },
      { type: 'usage', usage: { inputTokens: 1, outputTokens: 2 } },
      { type: 'finish', reason: 'stop' },
    ];
    expect(run(input)).toEqual(input);
  });
});
