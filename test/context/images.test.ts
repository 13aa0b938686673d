/** Images in tool results through the context engine: counted at a fixed cost, placeholdered, trimmed. */
import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/context/build.js';
import {
  estimateMessage,
  estimateText,
  IMAGE_TOKENS,
  MESSAGE_OVERHEAD,
  TOOL_RESULT_OVERHEAD,
} from '../../src/context/tokens.js';
import { withImagesDescribed } from '../../src/llm/images.js';
import type { ImagePart, Message, ToolResultPart } from '../../src/llm/types.js';
import {
  assertConsistent,
  assistant,
  call,
  exactBudget,
  hugeBudget,
  input,
  result,
  tool,
  user,
} from './fixtures.js';

const image = (data = 'iVBORw0KGgo='): ImagePart => ({ type: 'image', mediaType: 'image/png', data });
const withImage = (callId: string, output: string, images: ImagePart[] = [image()]): ToolResultPart => ({
  ...result(callId, output),
  images,
});

function results(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) => m.parts.filter((p): p is ToolResultPart => p.type === 'tool-result'));
}

describe('images in tool results: tokens', () => {
  it('count a fixed cost per image, never their base64 as text', () => {
    const big = image('A'.repeat(1_000_000));
    const m = tool(withImage('c1', 'image shot.png (1920x1080, 750000 bytes)', [big, image()]));
    expect(estimateMessage(m)).toBe(
      MESSAGE_OVERHEAD +
        TOOL_RESULT_OVERHEAD +
        estimateText('image shot.png (1920x1080, 750000 bytes)') +
        2 * IMAGE_TOKENS,
    );
    expect(IMAGE_TOKENS).toBeGreaterThanOrEqual(1000);
  });
});

describe('images in tool results: L1 and trimming', () => {
  it('an old result becomes a placeholder that names its images and carries none', () => {
    const recent: Message[] = [
      user('q1'),
      assistant('', { calls: [call('c1')] }),
      tool(withImage('c1', 'image a.png (1x1, 8 bytes)')),
      assistant('a red pixel'),
      ...[2, 3, 4].flatMap((n) => [user(`q${n}`), assistant(`a${n}`)]),
    ];
    const out = buildContext(input({ recent }), hugeBudget, estimateMessage);
    const [old] = results(out.messages);
    expect(old).toEqual({
      type: 'tool-result',
      callId: 'c1',
      name: 'read_file',
      output: '[tool result omitted: 26 chars, 1 image — c1]',
      isError: false,
    });
  });

  it('a recent result keeps its images', () => {
    const recent: Message[] = [
      user('q1'),
      assistant('', { calls: [call('c1')] }),
      tool(withImage('c1', 'img')),
    ];
    const out = buildContext(input({ recent }), hugeBudget, estimateMessage);
    expect(results(out.messages)[0]?.images).toEqual([image()]);
  });

  it('over the budget, the images of earlier steps of the turn go first; the latest stay', () => {
    const recent: Message[] = [user('compare the three screenshots')];
    for (const n of [1, 2, 3]) {
      recent.push(assistant('', { calls: [call(`c${n}`)] }), tool(withImage(`c${n}`, `image s${n}.png`)));
    }
    const all = recent.reduce((sum, m) => sum + estimateMessage(m), 0) + 20;
    // Room for everything but one image and a half.
    const out = buildContext(
      input({ system: '', recent }),
      exactBudget(all - 1.5 * IMAGE_TOKENS),
      estimateMessage,
    );
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(['drop-tool-images']);
    expect(out.tokens).toBeLessThanOrEqual(out.limit);
    const [r1, r2, r3] = results(out.messages);
    expect(r1).toMatchObject({ output: 'image s1.png\n[1 image omitted to fit the context window]' });
    expect(r1?.images).toBeUndefined();
    expect(r2?.images).toBeUndefined();
    expect(r3).toMatchObject({ output: 'image s3.png', images: [image()] });
  });
});

describe('images in tool results: a text-only model', () => {
  it('reads the result with its images described, the same object each time (estimates stay cached)', () => {
    const m = tool(withImage('c1', 'image a.png (1x1, 8 bytes)'));
    const described = withImagesDescribed(m, 'qwen2.5-coder:7b');
    expect(results([described])[0]).toEqual({
      ...result(
        'c1',
        'image a.png (1x1, 8 bytes)\n[1 image not shown: qwen2.5-coder:7b does not take images]',
      ),
    });
    expect(withImagesDescribed(m, 'qwen2.5-coder:7b')).toBe(described);
    const plain = tool(result('c2', 'text'));
    expect(withImagesDescribed(plain, 'x')).toBe(plain);
    expect(estimateMessage(described)).toBeLessThan(IMAGE_TOKENS);
  });
});
