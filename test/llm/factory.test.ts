import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicProvider } from '../../src/llm/anthropic.js';
import { BreakerRegistry } from '../../src/llm/breaker.js';
import { complete } from '../../src/llm/collect.js';
import { createModelChain, createProvider, type ProfileConfig, toModelInfo } from '../../src/llm/factory.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { createRegistry } from '../../src/llm/registry.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { request } from './fake-provider.js';

const openai: ProfileConfig = {
  name: 'main_model',
  provider: 'openai',
  baseUrl: 'http://127.0.0.1:1/v1',
  model: 'gpt-4o-2024-08-06',
};
const anthropic: ProfileConfig = {
  name: 'claude',
  provider: 'anthropic',
  baseUrl: 'http://127.0.0.1:1',
  model: 'claude-sonnet-4-5-20250929',
  apiKey: 'sk-ant',
};
const chainOpts = { timeoutMs: 1000, maxRetries: 0, baseDelayMs: 10 };

describe('toModelInfo', () => {
  it('fills limits and prices from the registry', () => {
    expect(toModelInfo(openai)).toEqual({
      profile: 'main_model',
      provider: 'openai',
      model: 'gpt-4o-2024-08-06',
      baseUrl: 'http://127.0.0.1:1/v1',
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      inputPrice: 2.5,
      outputPrice: 10,
      cachedInputPrice: 1.25,
      images: true,
    });
  });

  it('says whether the model takes images: the registry, then the provider for unknown ids', () => {
    expect(toModelInfo({ ...openai, model: 'deepseek-chat' }).images).toBe(false);
    expect(toModelInfo({ ...openai, model: 'llama3.2-vision:11b' }).images).toBe(true);
    // An unknown model behind an OpenAI-compatible server (Ollama, vLLM) is taken for text-only …
    expect(toModelInfo({ ...openai, model: 'my-local-model' }).images).toBe(false);
    // … on OpenAI's own API, and on Anthropic's, it takes images.
    expect(
      toModelInfo({ ...openai, baseUrl: 'https://api.openai.com/v1', model: 'chatgpt-4o-latest' }).images,
    ).toBe(true);
    expect(toModelInfo({ ...anthropic, model: 'claude-3-opus-20240229' }).images).toBe(true);
    const registry = createRegistry({ 'my-local-model': { images: true }, 'gpt-4o': { images: false } });
    expect(toModelInfo({ ...openai, model: 'my-local-model' }, registry).images).toBe(true);
    expect(toModelInfo(openai, registry).images).toBe(false);
  });

  it("lets the profile's own limits win, and uses the given registry's overrides", () => {
    const registry = createRegistry({ 'gpt-4o': { outputPrice: 12 } });
    const info = toModelInfo({ ...openai, contextWindow: 50_000, maxOutputTokens: 2000 }, registry);
    expect(info).toMatchObject({ contextWindow: 50_000, maxOutputTokens: 2000, outputPrice: 12 });
  });

  it('leaves prices out for an unknown model and uses the defaults', () => {
    const info = toModelInfo({ ...openai, model: 'my-local-model' });
    expect(info).toMatchObject({ contextWindow: 32_768, maxOutputTokens: 4096 });
    expect(info.inputPrice).toBeUndefined();
  });

  it.each([
    [{ baseUrl: 'not a url' }, `model profile 'main_model': baseUrl "not a url" is not a valid URL`],
    [{ baseUrl: 'ftp://h/v1' }, `model profile 'main_model': baseUrl must be http or https`],
    [{ model: ' ' }, `model profile 'main_model': model must not be empty`],
    [{ provider: 'gemini' as never }, `provider must be 'openai' or 'anthropic', got "gemini"`],
    [{ contextWindow: 0 }, 'contextWindow must be a positive integer, got 0'],
    [{ timeoutMs: 1.5 }, 'timeoutMs must be a positive integer, got 1.5'],
    [{ name: '' }, 'model profile: name must not be empty'],
  ])('rejects a bad profile %o', (patch, message) => {
    expect(() => toModelInfo({ ...openai, ...patch })).toThrow(message);
  });
});

describe('createProvider', () => {
  it('builds the adapter for the wire', () => {
    const a = createProvider(openai);
    expect(a).toBeInstanceOf(OpenAICompatibleProvider);
    expect(a.info.contextWindow).toBe(128_000);
    const b = createProvider({ ...anthropic, thinkingBudget: 2048 });
    expect(b).toBeInstanceOf(AnthropicProvider);
    expect(b.info).toMatchObject({ provider: 'anthropic', contextWindow: 200_000, outputPrice: 15 });
  });
});

describe('createModelChain', () => {
  it('orders the chain primary first', () => {
    const chain = createModelChain([openai, anthropic], chainOpts);
    expect(chain.providers.map((p) => p.info.profile)).toEqual(['main_model', 'claude']);
    expect(chain.info.profile).toBe('main_model');
  });

  it('refuses an empty chain and a profile listed twice', () => {
    expect(() => createModelChain([], chainOpts)).toThrow(/no model profile configured/);
    expect(() => createModelChain([openai, openai], chainOpts)).toThrow(
      "model profile 'main_model' appears twice in the fallback chain",
    );
  });

  describe('over HTTP', () => {
    let server: ModelServer;
    beforeAll(async () => {
      server = await startModelServer();
    });
    afterAll(async () => {
      await server.close();
    });

    it("applies a profile's own timeout over the chain's", async () => {
      server.reset();
      // Chunks 60 ms apart: the chain's 30 ms would time out, the profile's 1 s does not.
      server.script(reply().text('patient').chunkSize(4).chunkDelay(60));
      const chain = createModelChain([{ ...openai, baseUrl: server.openaiBaseUrl, timeoutMs: 1000 }], {
        ...chainOpts,
        timeoutMs: 30,
      });
      expect((await complete(chain, request)).text).toBe('patient');
      expect(server.requests).toHaveLength(1);
    });

    it('shares an injected breaker registry, built from the breaker options otherwise', async () => {
      server.reset();
      server.script(reply().error(500));
      const breakers = new BreakerRegistry({ failureThreshold: 1 });
      const p = { ...openai, baseUrl: server.openaiBaseUrl };
      await expect(
        complete(createModelChain([p], { ...chainOpts, breakers }), request),
      ).rejects.toMatchObject({
        kind: 'http',
        status: 500,
      });
      // A second chain on the same registry fails fast without a request.
      const second = createModelChain([p], { ...chainOpts, breakers });
      await expect(complete(second, request)).rejects.toThrow(/circuit open/);
      expect(server.requests).toHaveLength(1);

      server.script(reply().error(500), reply().error(500));
      const own = createModelChain([p], { ...chainOpts, breaker: { failureThreshold: 1 } });
      await expect(complete(own, request)).rejects.toThrow(/500/);
      await expect(complete(own, request)).rejects.toThrow(/circuit open/);
      expect(server.requests).toHaveLength(2);
    });
  });
});
