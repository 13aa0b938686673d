/**
 * Audio and embedded resources a tool returns, through a real agent turn: no wire takes
 * them in a tool result, so the model reads the resource's text and a note for each
 * clip or binary resource (tools/result-parts.ts), stored with the result.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { MAX_SHOWN_TEXT } from '../../src/tools/result-parts.js';
import { defineTool } from '../../src/tools/types.js';
import { collect, endedCalls } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages } from '../support/wire.js';

const WAV = 'UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  h.tools.register(
    defineTool({
      name: 'fetch_parts',
      description: 'Returns a clip and resources.',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      async execute() {
        return {
          output: 'parts',
          audio: [{ type: 'audio', mediaType: 'audio/wav', data: WAV }],
          resources: [
            { type: 'resource', uri: 'notes://a', mimeType: 'text/plain', text: 'Note A.' },
            { type: 'resource', uri: 'notes://logo', mimeType: 'image/png', blob: 'AAECAw==' },
            { type: 'resource', uri: 'notes://long', text: 'x'.repeat(MAX_SHOWN_TEXT + 5) },
          ],
        };
      },
    }),
  );
});
afterEach(async () => {
  await h.close();
});

describe('audio and resources a tool returns', () => {
  it('reach the model as text: a resource’s text (within a budget) and a note for each clip or binary part', async () => {
    h.server.script(reply().toolCall('fetch_parts', {}, { id: 'call_parts' }), reply().text('Read them.'));
    const session = h.agent().newSession();
    const events = await collect(session.prompt('get the parts'));

    const budgetLeft = MAX_SHOWN_TEXT - 'Note A.'.length;
    const expected = [
      'parts',
      '[audio (audio/wav, 60 bytes): not sent to the model, which takes text and images only]',
      '[resource notes://a (text/plain)]',
      'Note A.',
      '[resource notes://logo (image/png, 4 bytes): binary content, not shown to the model]',
      '[resource notes://long (text)]',
      `${'x'.repeat(budgetLeft)}`,
      `[… ${MAX_SHOWN_TEXT + 5 - budgetLeft} more characters not shown]`,
    ].join('\n');
    expect(endedCalls(events)[0]?.content).toEqual([{ type: 'text', text: expected }]);
    const messages = wireMessages(h.server.requests[1]!.body);
    expect(messages.find((m) => m.role === 'tool')).toEqual({
      role: 'tool',
      tool_call_id: 'call_parts',
      content: expected,
    });
    expect(JSON.stringify(h.server.requests[1]!.body)).not.toContain(WAV);
  });
});
