/** A tool's images through a real agent turn: screened, stored with the result, sent on the next request. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MAX_IMAGE_BYTES } from '../../src/llm/images.js';
import type { ToolResultPart } from '../../src/llm/types.js';
import { defineTool } from '../../src/tools/types.js';
import { collect, endedCalls } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const HUGE = 'A'.repeat(Math.ceil((MAX_IMAGE_BYTES * 1.2 * 4) / 3));

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  h.tools.register(
    defineTool({
      name: 'screenshots',
      description: 'Returns screenshots.',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      async execute() {
        return {
          output: 'three screenshots',
          images: [
            { type: 'image', mediaType: 'image/png', data: PIXEL },
            { type: 'image', mediaType: 'image/png', data: HUGE },
            { type: 'image', mediaType: 'image/bmp', data: 'Qk0=' },
          ],
        };
      },
    }),
  );
});
afterEach(async () => {
  await h.close();
});

describe('images a tool returns', () => {
  it('go to the model and the store; too big or of another type they stay out and the result says why', async () => {
    h.server.script(reply().toolCall('screenshots', {}, { id: 'call_shots' }), reply().text('One pixel.'));
    const session = h.agent().newSession();
    const events = await collect(session.prompt('take screenshots'));

    const note = [
      'three screenshots',
      '[image 2 (image/png) not sent to the model: it is 6.0 MB, over the 5.0 MB limit per image]',
      '[image 3 (image/bmp) not sent to the model: image/bmp is not a type models take (PNG, JPEG, GIF or WebP)]',
    ].join('\n');
    // The record carries the note and the one image that is sent.
    expect(endedCalls(events)[0]?.content).toEqual([
      { type: 'text', text: note },
      { type: 'image', mediaType: 'image/png', data: PIXEL },
    ]);

    const messages = wireMessages(h.server.requests[1]!.body);
    const at = messages.findIndex((m) => m.role === 'tool');
    expect(messages[at]).toEqual({ role: 'tool', tool_call_id: 'call_shots', content: note });
    expect(messages[at + 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '[Image returned by the screenshots call call_shots]' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PIXEL}` } },
      ],
    });
    expect(JSON.stringify(h.server.requests[1]!.body)).not.toContain('AAAAAAAAAAAAAAAA');

    const stored = h.store.messages
      .list(session.id)
      .flatMap((m) => m.parts)
      .find((p): p is ToolResultPart => p.type === 'tool-result');
    expect(stored).toEqual({
      type: 'tool-result',
      callId: 'call_shots',
      name: 'screenshots',
      output: note,
      isError: false,
      images: [{ type: 'image', mediaType: 'image/png', data: PIXEL }],
    });
  });
});
