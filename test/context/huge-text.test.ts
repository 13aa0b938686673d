/** Token estimates of megabytes come from samples, close to the exact count. */
import { describe, expect, it } from 'vitest';
import { estimateText, SAMPLE_ABOVE_CHARS } from '../../src/context/tokens.js';

/** The exact estimate of a long text: the sum over pieces short enough to be counted whole. */
function exact(text: string): number {
  let total = 0;
  for (let i = 0; i < text.length; i += 100_000) total += estimateText(text.slice(i, i + 100_000));
  return total;
}

describe('estimateText on huge texts', () => {
  const kinds: Array<[string, string]> = [
    [
      'mixed log',
      'The deploy of billing-api failed at 03:14 with error E1234. 部署计费服务失败了，请检查日志。\n',
    ],
    ['code', 'function add(a, b) {\n    return a + b; // 42\n}\n\n'],
    ['changing halves', ''],
  ];
  it.each(kinds)('%s: within 3%% of the exact count', (_, unit) => {
    const text =
      unit === ''
        ? `${'x = 1;\n'.repeat(200_000)}${'汉字'.repeat(400_000)}`
        : unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length));
    expect(text.length).toBeGreaterThan(SAMPLE_ABOVE_CHARS);
    const sampled = estimateText(text);
    const whole = exact(text);
    expect(Math.abs(sampled - whole) / whole).toBeLessThan(0.03);
  });
});
