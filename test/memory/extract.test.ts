import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import {
  type ExtractedMemory,
  extractionPrompt,
  extractMemories,
  parseExtraction,
  toNewMemory,
} from '../../src/memory/extract.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

const contents = (items: ExtractedMemory[]): string[] => items.map((m) => m.content);

describe('parseExtraction: real-world model outputs', () => {
  it('reads a plain JSON array with every field', () => {
    const out = parseExtraction(
      '[{"content":"User lives in Berlin","category":"fact","importance":4,"tags":["home"],' +
        '"subject":"user","attribute":"home city","value":"Berlin"}]',
    );
    expect(out).toEqual([
      {
        content: 'User lives in Berlin',
        category: 'fact',
        importance: 4,
        tags: ['home'],
        subject: 'user',
        attribute: 'home city',
        value: 'Berlin',
      },
    ]);
  });

  it('1. a fenced ```json block after chatter', () => {
    const text =
      'Sure! Here are the memories I found:\n\n```json\n[\n  {"content": "Always use pnpm", "category": "instruction", "importance": 5}\n]\n```\nLet me know if you need more.';
    expect(parseExtraction(text)).toEqual([
      { content: 'Always use pnpm', category: 'instruction', importance: 5 },
    ]);
  });

  it('2. a fence with no language tag', () => {
    expect(
      contents(parseExtraction('```\n[{"content":"Prefers tabs","category":"preference"}]\n```')),
    ).toEqual(['Prefers tabs']);
  });

  it('3. an array inside prose, no fence', () => {
    const text =
      'I extracted the following: [{"content": "Project uses port 8080", "category": "fact"}] Hope it helps.';
    expect(parseExtraction(text)).toEqual([{ content: 'Project uses port 8080', category: 'fact' }]);
  });

  it('4. an object holding the list under a common key, any case', () => {
    expect(contents(parseExtraction('{"memories": [{"content": "A", "category": "fact"}]}'))).toEqual(['A']);
    expect(contents(parseExtraction('{"Items": [{"content": "B"}]}'))).toEqual(['B']);
    expect(contents(parseExtraction('{"results": {"facts": [{"content": "C"}]}}'))).toEqual(['C']);
    expect(contents(parseExtraction('{"facts": ["D"]}'))).toEqual(['D']);
  });

  it('5. a single object instead of an array', () => {
    expect(
      parseExtraction('{"content": "User is called Ana", "category": "fact", "importance": "3"}'),
    ).toEqual([{ content: 'User is called Ana', category: 'fact', importance: 3 }]);
  });

  it('6. trailing commas and single quotes (jsonrepair)', () => {
    const text = "[{'content': 'Never push to main', 'category': 'instruction',},]";
    expect(parseExtraction(text)).toEqual([{ content: 'Never push to main', category: 'instruction' }]);
  });

  it('7. unquoted keys', () => {
    expect(parseExtraction('[{content: "Likes green tea", category: "preference", importance: 2}]')).toEqual([
      { content: 'Likes green tea', category: 'preference', importance: 2 },
    ]);
  });

  it('8. output cut off before the closing brackets', () => {
    const text =
      '[{"content": "Deploys on Fridays", "category": "fact"}, {"content": "Uses Vim", "category": "preference"';
    expect(contents(parseExtraction(text))).toEqual(['Deploys on Fridays', 'Uses Vim']);
  });

  it('9. unknown and aliased categories, missing category', () => {
    const out = parseExtraction(
      '[{"content":"a","category":"Personal"},{"content":"b","category":"Preferences"},' +
        '{"content":"c","type":"todo"},{"content":"d"},{"content":"e","category":"INSTRUCTION"}]',
    );
    expect(out.map((m) => m.category)).toEqual([
      'general',
      'preference',
      'reminder',
      'general',
      'instruction',
    ]);
  });

  it('10. string items become general memories; empty and non-memory items are dropped', () => {
    expect(parseExtraction('["User has two cats", "", 42, null, {"foo": 1}, {"content": "  "}]')).toEqual([
      { content: 'User has two cats', category: 'general' },
    ]);
  });

  it('11. a reasoning model’s <think> block before the answer', () => {
    const text =
      '<think>The user said [maybe] something about Paris…</think>\n[{"content":"Lives in Paris","category":"fact"}]';
    expect(contents(parseExtraction(text))).toEqual(['Lives in Paris']);
  });

  it('12. a double-encoded JSON string', () => {
    expect(contents(parseExtraction(JSON.stringify('[{"content":"Uses Rust","category":"fact"}]')))).toEqual([
      'Uses Rust',
    ]);
  });

  it('13. empty answers, refusals and garbage give []', () => {
    for (const text of [
      '',
      '   ',
      '[]',
      '{"memories": []}',
      'None.',
      'No memories to extract.',
      '```json\n[]\n```',
      '}{][',
    ]) {
      expect(parseExtraction(text), text).toEqual([]);
    }
  });

  it('14. messy field values: importance out of range, tags as a string, dates', () => {
    const [m] = parseExtraction(
      '[{"memory":"Dentist appointment","category":"reminder","importance":9,"tags":"health, dentist,",' +
        '"expires_at":"2030-05-01T10:00:00Z"}]',
    );
    expect(m).toEqual({
      content: 'Dentist appointment',
      category: 'reminder',
      importance: 5,
      tags: ['health', 'dentist'],
      expiresAt: Date.parse('2030-05-01T10:00:00Z'),
    });
    const [n] = parseExtraction('[{"content":"x","importance":"high","expires_at":null}]');
    expect(n).toEqual({ content: 'x', category: 'general', expiresAt: null });
    const [s] = parseExtraction('[{"content":"y","expires_at":1900000000}]');
    expect(s?.expiresAt).toBe(1_900_000_000_000);
    const [bad] = parseExtraction('[{"content":"z","expires_at":"someday"}]');
    expect(bad).toEqual({ content: 'z', category: 'general' });
  });

  it('15. a subject/attribute/value triple with no content gets a sentence; duplicates are dropped', () => {
    const out = parseExtraction(
      '[{"subject":"user","attribute":"editor","value":"Neovim","category":"preference"},{"content":"A"},{"content":"A"}]',
    );
    expect(out).toEqual([
      {
        content: 'user editor: Neovim',
        category: 'preference',
        subject: 'user',
        attribute: 'editor',
        value: 'Neovim',
      },
      { content: 'A', category: 'general' },
    ]);
  });
});

describe('extractionPrompt', () => {
  it('asks for a JSON array with categories, importance and subject/attribute/value', () => {
    const now = Date.parse('2026-03-04T12:00:00Z');
    const { system, user } = extractionPrompt(
      [
        { role: 'user', text: 'I moved to Berlin last week. Remind me to renew my passport on Friday.' },
        { role: 'assistant', text: 'Noted!' },
      ],
      ['User lives in Paris'],
      now,
    );
    for (const word of [
      'JSON array',
      'instruction',
      'preference',
      'fact',
      'reminder',
      'importance',
      'subject',
      'attribute',
      'value',
    ]) {
      expect(system).toContain(word);
    }
    expect(system).toMatch(/Only record what the user said or confirmed/);
    expect(user).toContain('Today is 2026-03-04.');
    expect(user).toContain('- User lives in Paris');
    expect(user).toContain('User: I moved to Berlin last week.');
    expect(user).toContain('Assistant: Noted!');
  });

  it('leaves out the known-memories section when there are none', () => {
    const { user } = extractionPrompt([{ role: 'user', text: 'hi' }]);
    expect(user).not.toContain('already known');
  });
});

describe('extractMemories against a scripted model', () => {
  let server: ModelServer;
  let provider: OpenAICompatibleProvider;
  beforeAll(async () => {
    server = await startModelServer();
    provider = new OpenAICompatibleProvider(
      {
        profile: 'cheap_model',
        provider: 'openai',
        model: 'cheap',
        baseUrl: server.openaiBaseUrl,
        contextWindow: 32_000,
        maxOutputTokens: 1024,
      },
      { apiKey: 'sk-test' },
    );
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => server.reset());

  it('sends the prompt at temperature 0.2 and parses a messy reply', async () => {
    server.script(
      reply()
        .text('Here you go:\n```json\n[{"content":"User lives in Berlin","category":"fact","importance":4,')
        .text('"subject":"user","attribute":"home city","value":"Berlin",},]\n```')
        .usage(120, 30),
    );
    const { memories, usage } = await extractMemories(
      provider,
      [{ role: 'user', text: 'I live in Berlin now.' }],
      {
        existing: ['User lives in Paris'],
      },
    );
    expect(memories).toEqual([
      {
        content: 'User lives in Berlin',
        category: 'fact',
        importance: 4,
        subject: 'user',
        attribute: 'home city',
        value: 'Berlin',
      },
    ]);
    expect(usage.inputTokens).toBe(120);
    expect(usage.outputTokens).toBe(30);
    const body = server.requests[0]!.body as {
      temperature?: number;
      messages?: Array<{ role: string; content: unknown }>;
    };
    expect(body.temperature).toBe(0.2);
    expect(body.messages?.map((m) => m.role)).toEqual(['system', 'user']);
    expect(JSON.stringify(body.messages)).toContain('User lives in Paris');
  });

  it('makes no call for a conversation without user text', async () => {
    const out = await extractMemories(provider, [{ role: 'assistant', text: 'Hello!' }]);
    expect(out.memories).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('lets a model error propagate', async () => {
    server.script(reply().error(400, { message: 'bad request' }));
    await expect(extractMemories(provider, [{ role: 'user', text: 'x' }])).rejects.toThrow(/400/);
  });
});

describe('toNewMemory', () => {
  it('maps the category to a priority and carries the rest', () => {
    const m = toNewMemory(
      {
        content: 'Always use pnpm',
        category: 'instruction',
        importance: 5,
        tags: ['tooling'],
        subject: 'project',
        attribute: 'package manager',
        value: 'pnpm',
      },
      { scope: 'project:/tmp/x', sessionId: 's1' },
    );
    expect(m).toEqual({
      content: 'Always use pnpm',
      category: 'instruction',
      priority: 0,
      importance: 5,
      tags: ['tooling'],
      subject: 'project',
      attribute: 'package manager',
      scope: 'project:/tmp/x',
      sourceSessionId: 's1',
    });
    expect(toNewMemory({ content: 'x', category: 'general' }).priority).toBe(3);
    expect(toNewMemory({ content: 'x', category: 'reminder', expiresAt: 5 }).expiresAt).toBe(5);
    expect(toNewMemory({ content: 'x', category: 'fact' })).toMatchObject({
      priority: 2,
      subject: null,
      attribute: null,
    });
  });
});
