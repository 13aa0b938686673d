/**
 * The resilience layer around the real OpenAI-compatible adapter, over real HTTP
 * against the scripted model server. Only the model is fake.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { complete } from '../../src/llm/collect.js';
import { createModelChain, type ModelChainOptions, type ProfileConfig } from '../../src/llm/factory.js';
import type { Delta } from '../../src/llm/types.js';
import { collect } from '../support/collect.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { request } from './fake-provider.js';

let primary: ModelServer;
let backup: ModelServer;

beforeAll(async () => {
  primary = await startModelServer();
  backup = await startModelServer();
});
afterEach(() => {
  primary.reset();
  backup.reset();
});
afterAll(async () => {
  await primary.close();
  await backup.close();
});

function profile(name: string, server: ModelServer, model = 'gpt-4o-mini'): ProfileConfig {
  return { name, provider: 'openai', baseUrl: server.openaiBaseUrl, apiKey: `sk-${name}`, model };
}

const fast: ModelChainOptions = { timeoutMs: 150, maxRetries: 3, baseDelayMs: 10, maxDelayMs: 40 };

const textOf = (deltas: Delta[]) => deltas.map((d) => (d.type === 'text' ? d.text : '')).join('');
const retries = (deltas: Delta[]) => deltas.filter((d) => d.type === 'retry');

describe('ResilientProvider over the OpenAI wire', () => {
  it('waits out a 429 for the retry-after-ms the server asked, then succeeds', async () => {
    primary.script(reply().error(429, { retryAfterMs: 120 }), reply().text('after the wait').usage(3, 2));
    const chain = createModelChain([profile('main', primary)], fast);
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toEqual([
      expect.objectContaining({ type: 'retry', attempt: 1, delayMs: 120, profile: 'main', discard: false }),
    ]);
    expect(textOf(deltas)).toBe('after the wait');
    const [first, second] = primary.requests;
    // The second request cannot have come before the requested wait was over.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(115);
  });

  it('honours a retry-after in seconds, capped by maxRetryAfterMs', async () => {
    primary.script(reply().error(429, { retryAfter: 1 }), reply().text('ok'));
    const chain = createModelChain([profile('main', primary)], { ...fast, maxRetryAfterMs: 200 });
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toEqual([expect.objectContaining({ delayMs: 200 })]);
    expect(textOf(deltas)).toBe('ok');
  });

  it('retries two 500s, then succeeds', async () => {
    primary.script(reply().error(500), reply().error(503), reply().text('third time lucky').usage(5, 4));
    const chain = createModelChain([profile('main', primary)], fast);
    const result = await complete(chain, request);
    expect(result.text).toBe('third time lucky');
    expect(result.usage).toEqual({ inputTokens: 5, outputTokens: 4 });
    expect(primary.requests).toHaveLength(3);
    expect(primary.requests.every((r) => r.headers.authorization === 'Bearer sk-main')).toBe(true);
  });

  it('times out a request that never answers, retries, and succeeds', async () => {
    primary.script(reply().hang(), reply().text('awake now'));
    const chain = createModelChain([profile('main', primary)], fast);
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toEqual([
      expect.objectContaining({
        attempt: 1,
        discard: false,
        reason: expect.stringMatching(/no data .* 150 ms/),
      }),
    ]);
    expect(textOf(deltas)).toBe('awake now');
    expect(primary.requests).toHaveLength(2);
  });

  it('times out a stream that stalls midway and asks the consumer to discard its part', async () => {
    primary.script(
      reply().text('the first half, then silence').chunkSize(4).hangAfter(3),
      reply().text('whole'),
    );
    const chain = createModelChain([profile('main', primary)], fast);
    const deltas = await collect(chain.stream(request));
    const retry = retries(deltas);
    expect(retry).toEqual([expect.objectContaining({ discard: true })]);
    const afterRetry = deltas.slice(deltas.indexOf(retry[0]!) + 1);
    expect(textOf(afterRetry)).toBe('whole');
    expect(textOf(deltas.slice(0, deltas.indexOf(retry[0]!)))).not.toBe('');
  });

  it('retries a cut connection with discard, then succeeds', async () => {
    primary.script(
      reply().text('cut short in the middle').chunkSize(4).cutAfter(3),
      reply().text('complete'),
    );
    const chain = createModelChain([profile('main', primary)], fast);
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toEqual([expect.objectContaining({ discard: true, profile: 'main' })]);
    const at = deltas.findIndex((d) => d.type === 'retry');
    expect(textOf(deltas.slice(0, at))).not.toBe('');
    expect(textOf(deltas.slice(at + 1))).toBe('complete');
    expect(primary.requests).toHaveLength(2);
  });

  it('never kills a slow but lively stream', async () => {
    // 8 chunks 40 ms apart take ~300 ms, twice the 150 ms idle timeout.
    primary.script(reply().text('abcdefgh').chunkSize(1).chunkDelay(40));
    const chain = createModelChain([profile('main', primary)], { ...fast, maxRetries: 0 });
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toEqual([]);
    expect(textOf(deltas)).toBe('abcdefgh');
    expect(primary.requests).toHaveLength(1);
  });

  it('falls back to the next profile when the primary keeps failing, and the answer comes from it', async () => {
    primary.script(reply().error(500), reply().error(500), reply().error(500));
    backup.script(reply().text('from the backup').usage(7, 3));
    const chain = createModelChain([profile('main', primary), profile('spare', backup, 'deepseek-chat')], {
      ...fast,
      maxRetries: 2,
    });
    const deltas = await collect(chain.stream(request));
    expect(retries(deltas)).toHaveLength(2);
    expect(deltas.filter((d) => d.type === 'fallback')).toEqual([
      { type: 'fallback', from: 'main', to: 'spare', reason: expect.stringContaining('500') },
    ]);
    expect(textOf(deltas)).toBe('from the backup');
    expect(primary.requests).toHaveLength(3);
    expect(backup.requests).toHaveLength(1);
    expect(backup.requests[0]?.body.model).toBe('deepseek-chat');
    expect(backup.requests[0]?.headers.authorization).toBe('Bearer sk-spare');
    expect(chain.info.profile).toBe('main');
    expect(chain.activeInfo).toMatchObject({ profile: 'spare', model: 'deepseek-chat', inputPrice: 0.28 });
    const usage = deltas.find((d) => d.type === 'usage');
    expect(usage).toMatchObject({ usage: { inputTokens: 7, outputTokens: 3 }, model: { profile: 'spare' } });
  });

  it('reports every profile when the whole chain fails', async () => {
    primary.script(reply().error(502));
    backup.script(reply().error(401, { message: 'invalid api key' }));
    const chain = createModelChain([profile('main', primary), profile('spare', backup)], {
      ...fast,
      maxRetries: 0,
    });
    const err = await collect(chain.stream(request)).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'LlmError', kind: 'all-failed' });
    expect((err as Error).message).toMatch(
      /^all 2 model profiles failed: main \(gpt-4o-mini\): .*502.*; spare/,
    );
    expect((err as Error).message).toContain('invalid api key');
    expect((err as Error).message).not.toContain('sk-spare');
  });

  it('does not retry or fall back on a 400', async () => {
    primary.script(reply().error(400, { message: 'messages: too long' }));
    backup.script(reply().text('never'));
    const chain = createModelChain([profile('main', primary), profile('spare', backup)], fast);
    const err = await collect(chain.stream(request)).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'http', status: 400 });
    expect(primary.requests).toHaveLength(1);
    expect(backup.requests).toHaveLength(0);
  });
});

describe('ResilientProvider across wires', () => {
  it('falls back from an OpenAI profile to an Anthropic profile on the same server', async () => {
    primary.script(reply().error(503), reply().error(503), reply().text('from claude').usage(4, 2));
    const claude: ProfileConfig = {
      name: 'claude',
      provider: 'anthropic',
      baseUrl: primary.anthropicBaseUrl,
      apiKey: 'sk-ant-test',
      model: 'claude-haiku-4-5',
    };
    const chain = createModelChain([profile('main', primary), claude], { ...fast, maxRetries: 1 });
    const result = await complete(chain, request);
    expect(result.text).toBe('from claude');
    expect(primary.requests.map((r) => r.wire)).toEqual(['openai', 'openai', 'anthropic']);
    expect(primary.requests[2]?.headers['x-api-key']).toBe('sk-ant-test');
    expect(result.model).toMatchObject({ profile: 'claude', provider: 'anthropic', outputPrice: 5 });
    expect(chain.activeInfo.profile).toBe('claude');
  });
});
