import { describe, expect, it } from 'vitest';
import { costUsd } from '../../src/llm/cost.js';
import { BUILTIN_MODELS, createRegistry, DEFAULT_SPEC } from '../../src/llm/registry.js';

describe('model registry lookups', () => {
  const registry = createRegistry();

  it('finds an exact id', () => {
    const m = registry.lookup('gpt-4o-mini');
    expect(m).toMatchObject({
      matchedKey: 'gpt-4o-mini',
      known: true,
      contextWindow: 128_000,
      inputPrice: 0.15,
    });
  });

  it.each([
    ['gpt-4o-2024-08-06', 'gpt-4o'],
    ['gpt-4o-mini-2024-07-18', 'gpt-4o-mini'],
    ['gpt-4.1-mini-2025-04-14', 'gpt-4.1-mini'],
    ['o3-mini-2025-01-31', 'o3-mini'],
    ['o3-2025-04-16', 'o3'],
    ['gpt-5-mini-2025-08-07', 'gpt-5-mini'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-20250514', 'claude-sonnet-4'],
    ['claude-opus-4-1-20250805', 'claude-opus-4-1'],
    ['claude-3-5-haiku-latest', 'claude-3-5-haiku'],
    ['llama3.1:8b', 'llama3.1'],
    ['llama3:70b', 'llama3'],
    ['qwen3:8b', 'qwen3'],
    ['qwen3-coder:30b', 'qwen3-coder'],
    ['qwen-max-latest', 'qwen-max'],
    ['deepseek-chat', 'deepseek-chat'],
    ['DeepSeek-Reasoner', 'deepseek-reasoner'],
  ])('%s -> %s (longest prefix at a boundary)', (id, key) => {
    const m = registry.lookup(id);
    expect(m.matchedKey).toBe(key);
    expect(m.id).toBe(id);
    expect(m.contextWindow).toBe(BUILTIN_MODELS[key]?.contextWindow);
  });

  it.each([
    ['openai/gpt-4o', 'gpt-4o'],
    ['anthropic/claude-sonnet-4.5', 'claude-sonnet-4-5'],
    ['meta-llama/llama-3.3-70b-instruct:free', 'llama3.3'],
    ['qwen/qwen3-235b-a22b', 'qwen3'],
    ['deepseek/deepseek-chat-v3.1', 'deepseek-chat'],
  ])('strips a vendor prefix: %s -> %s', (id, key) => {
    expect(registry.lookup(id).matchedKey).toBe(key);
  });

  it('does not match a prefix in the middle of a token', () => {
    // gpt-4 is known, but gpt-4.5-preview is not a gpt-4 and gpt-40 is nothing.
    expect(registry.lookup('gpt-4.5-preview').matchedKey).toBeUndefined();
    expect(registry.lookup('gpt-40').matchedKey).toBeUndefined();
  });

  it('uses conservative defaults for an unknown model', () => {
    const m = registry.lookup('my-private-model');
    expect(m).toEqual({ ...DEFAULT_SPEC, id: 'my-private-model', matchedKey: undefined, known: false });
    expect(m.contextWindow).toBe(32_768);
    expect(m.maxOutputTokens).toBe(4096);
    expect(m.inputPrice).toBeUndefined();
  });

  it('every built-in entry is sane', () => {
    for (const [key, spec] of Object.entries(BUILTIN_MODELS)) {
      expect(key, key).toBe(key.toLowerCase());
      expect(spec.contextWindow, key).toBeGreaterThan(spec.maxOutputTokens - 1);
      expect(Number.isInteger(spec.maxOutputTokens), key).toBe(true);
      if (spec.cachedInputPrice !== undefined)
        expect(spec.cachedInputPrice, key).toBeLessThan(spec.inputPrice!);
      expect(typeof spec.images, `${key} says whether it takes images`).toBe('boolean');
    }
  });

  it('knows which models take images; a vision variant of a text family does', () => {
    expect(registry.lookup('gpt-4o-2024-08-06').images).toBe(true);
    expect(registry.lookup('claude-sonnet-4-5-20250929').images).toBe(true);
    expect(registry.lookup('qwen2.5-coder:7b').images).toBe(false);
    expect(registry.lookup('deepseek-chat').images).toBe(false);
    for (const id of ['llama3.2-vision:11b', 'qwen2.5vl:7b', 'qwen3-vl:8b', 'llava-phi3', 'minicpm-v:8b']) {
      expect(registry.lookup(id).images, id).toBe(true);
    }
    // Unknown: the registry does not say (the provider decides, see toModelInfo).
    expect(registry.lookup('my-private-model').images).toBeUndefined();
  });
});

describe('registry overrides', () => {
  it('merge on top of a built-in entry, also for ids that resolve to it by prefix', () => {
    const registry = createRegistry({ 'gpt-4o': { inputPrice: 2, contextWindow: 64_000 } });
    const m = registry.lookup('gpt-4o-2024-11-20');
    expect(m).toMatchObject({
      contextWindow: 64_000,
      inputPrice: 2,
      outputPrice: 10,
      maxOutputTokens: 16_384,
    });
  });

  it('add a new model, starting from its family when it has one', () => {
    const registry = createRegistry({
      'gpt-4o-custom': { maxOutputTokens: 1000 },
      'local-model': { contextWindow: 8192 },
    });
    expect(registry.lookup('gpt-4o-custom')).toMatchObject({
      matchedKey: 'gpt-4o-custom',
      maxOutputTokens: 1000,
      contextWindow: 128_000,
      inputPrice: 2.5,
    });
    expect(registry.lookup('Local-Model')).toMatchObject({
      contextWindow: 8192,
      maxOutputTokens: 4096,
      known: true,
    });
    // The built-in table is untouched by another registry's overrides.
    expect(createRegistry().lookup('local-model').known).toBe(false);
  });

  it('ignore undefined fields and reject bad values with a clear message', () => {
    const registry = createRegistry({ 'gpt-4o': { inputPrice: undefined } });
    expect(registry.lookup('gpt-4o').inputPrice).toBe(2.5);
    expect(() => createRegistry({ x: { contextWindow: -1 } })).toThrow(
      "model override 'x': contextWindow must be a positive integer, got -1",
    );
    expect(() => createRegistry({ x: { inputPrice: Number.NaN } })).toThrow(
      /inputPrice must be a price >= 0/,
    );
    expect(() => createRegistry({ x: { contextWindw: 5 } as never })).toThrow(/unknown field 'contextWindw'/);
    expect(() => createRegistry({ ' ': {} })).toThrow(/must not be empty/);
    expect(() => createRegistry({ x: { images: 'yes' as never } })).toThrow(
      'model override \'x\': images must be true or false, got "yes"',
    );
  });

  it('say whether a model takes images; that wins over its name and its family', () => {
    const registry = createRegistry({
      'my-vlm': { images: true },
      qwen3: { images: true },
      'llama3.2-vision': { images: false },
      'qwen3-vl:8b': { contextWindow: 8192 },
    });
    expect(registry.lookup('my-vlm').images).toBe(true);
    expect(registry.lookup('qwen3:8b').images).toBe(true);
    expect(registry.lookup('llama3.2-vision:11b').images).toBe(false);
    // An override that does not say keeps what the name says.
    expect(registry.lookup('qwen3-vl:8b')).toMatchObject({ contextWindow: 8192, images: true });
  });
});

describe('costUsd', () => {
  const priced = { inputPrice: 2.5, outputPrice: 10, cachedInputPrice: 1.25 };

  it('prices input and output per million tokens', () => {
    expect(costUsd(priced, { inputTokens: 1_000_000, outputTokens: 0 })).toBeCloseTo(2.5, 10);
    expect(costUsd(priced, { inputTokens: 2000, outputTokens: 500 })).toBeCloseTo(0.005 + 0.005, 10);
  });

  it('prices cached input at the cached rate (cached tokens are part of inputTokens)', () => {
    // 1000 uncached * 2.5 + 3000 cached * 1.25 = 2500 + 3750 micro-dollars
    expect(costUsd(priced, { inputTokens: 4000, outputTokens: 0, cachedInputTokens: 3000 })).toBeCloseTo(
      0.00625,
      10,
    );
  });

  it('prices cached input at the full rate when no cached rate is known', () => {
    const noCache = { inputPrice: 2, outputPrice: 8 };
    expect(costUsd(noCache, { inputTokens: 1000, outputTokens: 0, cachedInputTokens: 600 })).toBeCloseTo(
      0.002,
      10,
    );
  });

  it('is 0 for unknown prices and never negative', () => {
    expect(costUsd({}, { inputTokens: 12_345, outputTokens: 678 })).toBe(0);
    expect(costUsd(priced, { inputTokens: 100, outputTokens: -5, cachedInputTokens: 1000 })).toBeCloseTo(
      0.000125,
      10,
    );
  });
});
