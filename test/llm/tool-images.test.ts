/** Images in tool results on both wires, for models that take images and for text-only ones. */
import { describe, expect, it } from 'vitest';
import { buildAnthropicBody, toAnthropicMessages } from '../../src/llm/anthropic-wire.js';
import {
  keepNewestImages,
  MAX_IMAGE_BYTES,
  MAX_REQUEST_IMAGE_CHARS,
  screenToolImages,
} from '../../src/llm/images.js';
import { buildOpenAIBody, toOpenAIMessages } from '../../src/llm/openai-wire.js';
import type { ImagePart, Message, ModelInfo } from '../../src/llm/types.js';

const PNG: ImagePart = { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' };
const JPEG: ImagePart = { type: 'image', mediaType: 'image/jpeg', data: '/9j/4AAQ' };
const GIF: ImagePart = { type: 'image', mediaType: 'image/gif', data: 'R0lGODlh' };

/** One step: three calls, two of which returned images, then the user steers. */
const step: Message[] = [
  { role: 'system', parts: [{ type: 'text', text: 'You are Tea.' }] },
  { role: 'user', parts: [{ type: 'text', text: 'look at the pictures' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'tool-call', id: 'c1', name: 'read_file', args: { path: 'a.png' } },
      { type: 'tool-call', id: 'c2', name: 'list_dir', args: {} },
      { type: 'tool-call', id: 'c3', name: 'mcp__shots__grab', args: {} },
    ],
  },
  {
    role: 'tool',
    parts: [
      {
        type: 'tool-result',
        callId: 'c1',
        name: 'read_file',
        output: 'image a.png (1x1, 8 bytes)',
        isError: false,
        images: [PNG],
      },
      { type: 'tool-result', callId: 'c2', name: 'list_dir', output: 'a.png', isError: false },
      {
        type: 'tool-result',
        callId: 'c3',
        name: 'mcp__shots__grab',
        output: '[image image/jpeg, 6 bytes]',
        isError: false,
        images: [JPEG, GIF],
      },
    ],
  },
  { role: 'user', parts: [{ type: 'text', text: 'which is bigger?' }] },
];

const info = (over: Partial<ModelInfo> = {}): ModelInfo => ({
  profile: 'main_model',
  provider: 'openai',
  model: 'gpt-4o',
  baseUrl: 'http://127.0.0.1:1/v1',
  contextWindow: 128_000,
  maxOutputTokens: 4096,
  images: true,
  ...over,
});

describe('OpenAI wire: images in tool results', () => {
  it('keeps the tool messages together, then one user message with every image, labelled by call', () => {
    const out = toOpenAIMessages(step);
    expect(out.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'tool',
      'user',
      'user',
    ]);
    expect(out.slice(3, 6)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: 'image a.png (1x1, 8 bytes)' },
      { role: 'tool', tool_call_id: 'c2', content: 'a.png' },
      { role: 'tool', tool_call_id: 'c3', content: '[image image/jpeg, 6 bytes]' },
    ]);
    expect(out[6]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[Image returned by the read_file call c1]' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'text', text: '[2 images returned by the mcp__shots__grab call c3]' },
        { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } },
        { type: 'image_url', image_url: { url: 'data:image/gif;base64,R0lGODlh' } },
      ],
    });
    expect(out[7]).toEqual({ role: 'user', content: 'which is bigger?' });
  });

  it('adds the images after the last step too (the request ends with them)', () => {
    const out = toOpenAIMessages(step.slice(0, -1));
    expect(out.at(-1)?.role).toBe('user');
    expect(out.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'c3' });
  });

  it('a text-only model gets the text and a line saying the image is not shown, no image parts', () => {
    const body = buildOpenAIBody(info({ model: 'deepseek-chat', images: false }), { messages: step });
    const json = JSON.stringify(body);
    expect(json).not.toContain('image_url');
    expect(json).not.toContain('iVBORw0KGgo=');
    expect(body.messages.slice(3, 6)).toEqual([
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'image a.png (1x1, 8 bytes)\n[1 image not shown: deepseek-chat does not take images]',
      },
      { role: 'tool', tool_call_id: 'c2', content: 'a.png' },
      {
        role: 'tool',
        tool_call_id: 'c3',
        content: '[image image/jpeg, 6 bytes]\n[2 images not shown: deepseek-chat does not take images]',
      },
    ]);
    expect(body.messages[6]).toEqual({ role: 'user', content: 'which is bigger?' });
  });

  it('a model that takes images gets them through buildOpenAIBody', () => {
    const body = buildOpenAIBody(info(), { messages: step });
    expect(JSON.stringify(body.messages[6])).toContain('data:image/png;base64,iVBORw0KGgo=');
  });
});

describe('Anthropic wire: images in tool results', () => {
  it('sends each result with images as text and image blocks inside its tool_result', () => {
    const { messages } = toAnthropicMessages(step);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[2]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        is_error: false,
        content: [
          { type: 'text', text: 'image a.png (1x1, 8 bytes)' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
      { type: 'tool_result', tool_use_id: 'c2', is_error: false, content: 'a.png' },
      {
        type: 'tool_result',
        tool_use_id: 'c3',
        is_error: false,
        content: [
          { type: 'text', text: '[image image/jpeg, 6 bytes]' },
          { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGODlh' } },
        ],
      },
      { type: 'text', text: 'which is bigger?' },
    ]);
  });

  it('a text-only model gets plain text results', () => {
    const body = buildAnthropicBody(
      info({ provider: 'anthropic', model: 'claude-text', images: false }),
      { messages: step },
      undefined,
    );
    expect(JSON.stringify(body)).not.toContain('"type":"image"');
    expect(body.messages[2]!.content.slice(0, 3)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        is_error: false,
        content: 'image a.png (1x1, 8 bytes)\n[1 image not shown: claude-text does not take images]',
      },
      { type: 'tool_result', tool_use_id: 'c2', is_error: false, content: 'a.png' },
      {
        type: 'tool_result',
        tool_use_id: 'c3',
        is_error: false,
        content: '[image image/jpeg, 6 bytes]\n[2 images not shown: claude-text does not take images]',
      },
    ]);
  });
});

describe('screenToolImages', () => {
  it('keeps images a model takes and says why it left out the others', () => {
    const big = 'A'.repeat(Math.ceil((MAX_IMAGE_BYTES * 1.2 * 4) / 3));
    const r = screenToolImages('two shots', [
      PNG,
      { type: 'image', mediaType: 'image/png', data: big },
      { type: 'image', mediaType: 'image/svg+xml', data: 'PHN2Zz4=' },
      { type: 'image', mediaType: 'image/png', data: 'not base64!' },
      { type: 'image', mediaType: 'image/webp', data: 'UklG\nRg==' },
    ]);
    expect(r.images).toEqual([PNG, { type: 'image', mediaType: 'image/webp', data: 'UklGRg==' }]);
    expect(r.output).toBe(
      [
        'two shots',
        '[image 2 (image/png) not sent to the model: it is 6.0 MB, over the 5.0 MB limit per image]',
        '[image 3 (image/svg+xml) not sent to the model: image/svg+xml is not a type models take (PNG, JPEG, GIF or WebP)]',
        '[image 4 (image/png) not sent to the model: its data is not valid base64]',
      ].join('\n'),
    );
  });

  it('passes results without images through unchanged', () => {
    expect(screenToolImages('text', undefined)).toEqual({ output: 'text' });
    expect(screenToolImages('text', [])).toEqual({ output: 'text' });
  });
});

describe('the images of one request', () => {
  it('keep the newest results whole and leave out older images past the limit, saying so', () => {
    const shot = (id: string, chars: number): Message => ({
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: id,
          name: 'read_file',
          output: `image ${id}.png`,
          isError: false,
          images: [{ type: 'image', mediaType: 'image/png', data: 'A'.repeat(chars) }],
        },
      ],
    });
    const messages = [
      shot('old', 8 * 1024 * 1024),
      shot('mid', 8 * 1024 * 1024),
      shot('new', 8 * 1024 * 1024),
    ];
    const { messages: wire } = toAnthropicMessages(messages);
    const blocks = wire.flatMap((m) => m.content);
    expect(blocks[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'old',
      is_error: false,
      content:
        'image old.png\n[1 image left out: with the newer ones the request would pass 20.0 MB of images]',
    });
    expect(JSON.stringify(blocks[1])).toContain('"type":"image"');
    expect(JSON.stringify(blocks[2])).toContain('"type":"image"');
    expect(MAX_REQUEST_IMAGE_CHARS).toBe(20 * 1024 * 1024);
    // Under the limit nothing changes, not even the array.
    const small = [shot('a', 10), shot('b', 10)];
    expect(keepNewestImages(small, 20)).toBe(small);
    expect(keepNewestImages(small, 19)[1]).toBe(small[1]);
  });
});
