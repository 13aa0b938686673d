/**
 * `store: false` on `/v1/responses` leaves nothing behind: besides its session, no
 * memories are extracted from the turn (the same turn with `store` left on does extract,
 * on the cheap model, so the check can fail).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';

const tea = useTeaServe();

/** Memory extraction on (the default), on a cheap model told apart by its name. */
function withExtraction(): void {
  writeFileSync(
    path.join(tea.home, 'config.yaml'),
    [
      'agent: { auto_title: false }',
      'evolve: { lessons: false, drafts: false }',
      `cheap_model: { provider: openai, base_url: "${tea.model.openaiBaseUrl}", model: cheap-model }`,
    ].join('\n'),
  );
}

async function memories(url: string): Promise<string[]> {
  const body = (await (await fetch(`${url}/v1/memory`)).json()) as { data: Array<{ content: string }> };
  return body.data.map((m) => m.content);
}

const client = (url: string) => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused', maxRetries: 0 });
const EXTRACTED =
  '[{"content": "The user lives in Berlin", "category": "fact", "subject": "user", "attribute": "home city", "value": "Berlin"}]';

describe('store on /v1/responses and long-term memory', () => {
  it('a stored turn has its memories extracted', async () => {
    withExtraction();
    const url = await tea.start();
    tea.model.script(reply().text('Noted.'), reply().text(EXTRACTED));
    const r = await client(url).responses.create({ model: 'tea', input: 'I live in Berlin.' });
    expect(r.output_text).toBe('Noted.');
    await vi.waitFor(async () => expect(await memories(url)).toEqual(['The user lives in Berlin']), {
      timeout: 30_000,
    });
    expect(tea.model.requests[1]?.body.model).toBe('cheap-model');
  });

  it('store: false extracts nothing: one model request, no memories', async () => {
    withExtraction();
    const url = await tea.start();
    tea.model.script(reply().text('Noted.'), reply().text(EXTRACTED));
    const r = await client(url).responses.create({ model: 'tea', input: 'I live in Berlin.', store: false });
    expect(r.output_text).toBe('Noted.');
    // The answer comes after the temporary session's background work and its deletion.
    expect(tea.model.requests).toHaveLength(1);
    expect(await memories(url)).toEqual([]);
  });
});
