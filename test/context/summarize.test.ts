import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  cleanTitle,
  SUMMARY_HEADINGS,
  shorten,
  summarizePairs,
  summarizeToolChain,
  summaryPrompt,
  type ToolCallRecord,
  titleFor,
  toolChainPrompt,
} from '../../src/context/summarize.js';
import type { HistoryPair } from '../../src/context/types.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { ModelInfo, Provider } from '../../src/llm/types.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let server: ModelServer;
let provider: Provider;

function cheapModel(baseUrl: string): ModelInfo {
  return {
    profile: 'cheap_model',
    provider: 'openai',
    model: 'scripted-model',
    baseUrl,
    contextWindow: 32_000,
    maxOutputTokens: 4096,
  };
}

beforeAll(async () => {
  server = await startModelServer();
  provider = new OpenAICompatibleProvider(cheapModel(server.openaiBaseUrl));
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.reset();
});

interface WireMessage {
  role: string;
  content: string;
}

/** The last recorded request's body and its system / user prompts. */
function lastRequest(): { body: Record<string, unknown>; system: string; user: string } {
  const req = server.requests.at(-1);
  if (!req) throw new Error('no request was recorded');
  const messages = req.body.messages as WireMessage[];
  expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
  return { body: req.body, system: messages[0]?.content ?? '', user: messages[1]?.content ?? '' };
}

const pair = (over: Partial<HistoryPair>): HistoryPair => ({
  turnId: 't1',
  user: 'question',
  assistant: 'answer',
  reasoning: '',
  files: [],
  ...over,
});

const pairs: HistoryPair[] = [
  pair({
    turnId: 't1',
    user: 'Rename the config key `maxRetries` to `retries` in src/config/load.ts',
    reasoning: `I will read the file first. ${'x'.repeat(3000)} REASONING-END`,
    assistant: 'Renamed it in src/config/load.ts and updated 3 call sites.',
    files: ['src/config/load.ts', 'src/llm/retry.ts'],
  }),
  pair({
    turnId: 't2',
    user: '测试失败了：npm test 报 ECONNREFUSED 127.0.0.1:5432',
    assistant: '数据库没有启动；已运行 `docker compose up -d db`，测试通过。',
  }),
];

describe('summaryPrompt', () => {
  it('asks for the headings, the main language and concrete facts, and renders every pair', () => {
    const { system, user } = summaryPrompt('## Background\n- a CLI tool', pairs);
    for (const heading of SUMMARY_HEADINGS) expect(system).toContain(`## ${heading}`);
    expect(system).toMatch(/any language/);
    expect(system).toMatch(/main language of the conversation/);
    expect(system).toMatch(/paths/);
    expect(user).toContain('# Previous summary\n## Background\n- a CLI tool');
    expect(user).toContain('User: Rename the config key `maxRetries` to `retries` in src/config/load.ts');
    expect(user).toContain('Assistant: Renamed it in src/config/load.ts and updated 3 call sites.');
    expect(user).toContain('Files: src/config/load.ts, src/llm/retry.ts');
    expect(user).toContain('User: 测试失败了：npm test 报 ECONNREFUSED 127.0.0.1:5432');
    expect(user.indexOf('Turn 1')).toBeLessThan(user.indexOf('Turn 2'));
  });

  it('shortens the reasoning but keeps its head and tail', () => {
    const { user } = summaryPrompt(undefined, pairs);
    const line = user.split('\n').find((l) => l.startsWith('Reasoning (shortened): ')) ?? '';
    expect(line).toContain('I will read the file first.');
    expect(line).toContain('REASONING-END');
    expect(line).toMatch(/chars omitted/);
    expect(line.length).toBeLessThan(1000);
    expect(user).toContain('# Previous summary\n(none yet)');
    // A pair without reasoning gets no reasoning line.
    expect(user.match(/Reasoning \(shortened\)/g)).toHaveLength(1);
  });
});

describe('shorten', () => {
  it('returns short text unchanged and never splits a surrogate pair', () => {
    expect(shorten('  short  ', 10)).toBe('short');
    const emoji = '😀'.repeat(50);
    const out = shorten(emoji, 21);
    expect(out).toMatch(/chars omitted/);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(out).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe('summarizePairs', () => {
  it('sends the prompt to the cheap model at temperature 0.3 with 1,500 output tokens', async () => {
    server.script(reply().text('\n## Background\n- renamed maxRetries\n\n').usage(900, 120));
    const result = await summarizePairs(provider, { previous: 'PREVIOUS-SUMMARY-TEXT', pairs });

    expect(result.text).toBe('## Background\n- renamed maxRetries');
    expect(result.usage).toEqual({ inputTokens: 900, outputTokens: 120 });
    const { body, system, user } = lastRequest();
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(1500);
    expect(body.tools).toBeUndefined();
    for (const heading of SUMMARY_HEADINGS) expect(system).toContain(heading);
    expect(user).toContain('PREVIOUS-SUMMARY-TEXT');
    for (const p of pairs) {
      expect(user).toContain(p.user);
      expect(user).toContain(p.assistant);
    }
  });

  it('throws a clear error when the model returns only whitespace', async () => {
    server.script(reply().text('  \n ').usage(10, 1));
    await expect(summarizePairs(provider, { pairs })).rejects.toThrow(
      /summarizePairs: the model scripted-model \(cheap_model\) returned an empty summary/,
    );
  });

  it('passes provider errors through', async () => {
    server.script(reply().error(400, { message: 'context too long' }));
    await expect(summarizePairs(provider, { pairs })).rejects.toThrow(/context too long/);
  });
});

const calls = (n: number): ToolCallRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    name: i % 2 === 0 ? 'read_file' : 'bash',
    args: i % 2 === 0 ? { path: `src/file${i}.ts` } : { command: `npm run step${i}` },
    ok: i !== 3,
    output: i === 3 ? `Error: step failed ${'!'.repeat(1000)} EXIT 2` : `output of call ${i}`,
  }));

describe('summarizeToolChain', () => {
  it('renders calls with args, status and shortened output', () => {
    const { system, user } = toolChainPrompt('PREV-REVIEW', calls(5));
    expect(system).toMatch(/failed and why/);
    expect(user).toContain('PREV-REVIEW');
    expect(user).toContain('1. read_file {"path":"src/file0.ts"} → ok');
    expect(user).toContain('4. bash {"command":"npm run step3"} → FAILED');
    const failed = user.split('\n').find((l) => l.includes('Error: step failed')) ?? '';
    expect(failed).toContain('EXIT 2');
    expect(failed.trim().length).toBeLessThanOrEqual(340);
    expect(user).not.toContain('earlier calls not shown');
  });

  it('keeps only the last 60 calls', () => {
    const { user } = toolChainPrompt(undefined, calls(70));
    expect(user).toContain('(10 earlier calls not shown)');
    expect(user).not.toContain('src/file8.ts"');
    expect(user).toContain('src/file10.ts"');
    expect(user).toContain('npm run step69');
    expect(user.match(/^\d+\. /gm)).toHaveLength(60);
  });

  it('calls the model and returns the trimmed review with usage', async () => {
    server.script(reply().text('- bash `npm run step3` failed: exit 2\n').usage(400, 30));
    const result = await summarizeToolChain(provider, { calls: calls(5), previous: 'PREV-REVIEW' });
    expect(result).toEqual({
      text: '- bash `npm run step3` failed: exit 2',
      usage: { inputTokens: 400, outputTokens: 30 },
    });
    const { body, user } = lastRequest();
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(1500);
    expect(user).toContain('npm run step3');
  });

  it('throws on an empty review', async () => {
    server.script(reply().usage(5, 0));
    await expect(summarizeToolChain(provider, { calls: calls(2) })).rejects.toThrow(
      /summarizeToolChain: .*empty summary/,
    );
  });
});

describe('titleFor', () => {
  it('asks for a short title with 40 output tokens and cleans quotes and trailing punctuation', async () => {
    server.script(reply().text('"Fix the flaky login test."\n').usage(50, 8));
    const result = await titleFor(provider, 'The login test fails one run in five, can you look?');
    expect(result).toEqual({ text: 'Fix the flaky login test', usage: { inputTokens: 50, outputTokens: 8 } });
    const { body, system, user } = lastRequest();
    expect(body.temperature).toBe(0.3);
    expect(body.max_tokens).toBe(40);
    expect(system).toMatch(/60 characters/);
    expect(system).toMatch(/language of the message/);
    expect(user).toBe('The login test fails one run in five, can you look?');
  });

  it('keeps a title in the message language and cuts it to 60 characters', async () => {
    server.script(reply().text('「修复登录测试」。').usage(1, 1));
    expect((await titleFor(provider, '登录测试不稳定')).text).toBe('修复登录测试');
    server.script(
      reply()
        .text(`Title: ${'word '.repeat(20)}`)
        .usage(1, 1),
    );
    const long = (await titleFor(provider, 'x')).text;
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.startsWith('word word')).toBe(true);
    expect(long.endsWith(' ')).toBe(false);
  });

  it('falls back to the start of the message when the model returns nothing usable', async () => {
    server.script(reply().text('  "…"  ').usage(20, 2));
    const message = `Please  migrate\nthe whole project from Jest to Vitest and keep the coverage thresholds`;
    const result = await titleFor(provider, message);
    expect(result.text).toBe('Please migrate the whole project from Jest to Vitest and');
    expect(result.usage).toEqual({ inputTokens: 20, outputTokens: 2 });
  });
});

describe('cleanTitle', () => {
  it('strips headings, prefixes, quotes and trailing punctuation; empty stays empty', () => {
    expect(cleanTitle('## Title: “Deploy to Fly.io”!\nsecond line')).toBe('Deploy to Fly.io');
    expect(cleanTitle("'Refactor the parser'?")).toBe('Refactor the parser');
    expect(cleanTitle('\n\n')).toBe('');
    expect(cleanTitle('...')).toBe('');
  });

  it('finds no title in JSON without one, brackets, symbols or a whole answer', () => {
    for (const junk of ['[]', '[ ]', '{}', '""', 'null', '```json\n[]\n```', '()', '-- * --', '[{}]'])
      expect(cleanTitle(junk), junk).toBe('');
    expect(cleanTitle(`Sure! ${'Here is how you can do that step by step. '.repeat(4)}`)).toBe('');
    // JSON that does hold a title, and brackets that belong to one.
    expect(cleanTitle('{"title": "Plan the garden"}')).toBe('Plan the garden');
    expect(cleanTitle('["Plan the garden"]')).toBe('Plan the garden');
    expect(cleanTitle('```\nPlan the garden\n```')).toBe('Plan the garden');
    expect(cleanTitle('[Draft] Fix the parser')).toBe('[Draft] Fix the parser');
    expect(cleanTitle('2024 budget')).toBe('2024 budget');
  });
});
