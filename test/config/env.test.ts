import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv) =>
  loadConfig({ cwd: dirs.project, env: { TEA_HOME: dirs.home, ...env }, detectOllama: false });

const OPENAI_KEY = 'sk-openai-env-0123456789abcdef';
const ANTHROPIC_KEY = 'sk-ant-env-0123456789abcdef';

describe('env-only setup', () => {
  it('OPENAI_API_KEY alone: OpenAI with the default model', async () => {
    const config = await load({ OPENAI_API_KEY: OPENAI_KEY });
    expect(config.files).toEqual([]);
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: OPENAI_KEY,
      model: 'gpt-4o-mini',
    });
    expect(config.mainModelOrigin).toBe('env');
    expect(config.keySources?.main_model).toEqual({ kind: 'env', variable: 'OPENAI_API_KEY', set: true });
    expect(config.cheapModel?.model).toBe('gpt-4o-mini');
  });

  it('OPENAI_API_KEY + OPENAI_BASE_URL + TEA_MODEL', async () => {
    const config = await load({
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: 'https://openrouter.ai/api/v1/',
      TEA_MODEL: 'qwen/qwen3-coder',
    });
    expect(config.mainModel).toMatchObject({
      provider: 'openai',
      baseUrl: 'https://openrouter.ai/api/v1',
      apiKey: OPENAI_KEY,
      model: 'qwen/qwen3-coder',
    });
  });

  it('ANTHROPIC_API_KEY alone: Anthropic with a Claude Sonnet default', async () => {
    const config = await load({ ANTHROPIC_API_KEY: ANTHROPIC_KEY });
    expect(config.mainModel).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: ANTHROPIC_KEY,
    });
    expect(config.mainModel?.model).toMatch(/^claude-sonnet/);
    expect(config.keySources?.main_model).toEqual({ kind: 'env', variable: 'ANTHROPIC_API_KEY', set: true });
  });

  it('ANTHROPIC_API_KEY + ANTHROPIC_BASE_URL + TEA_MODEL', async () => {
    const config = await load({
      ANTHROPIC_API_KEY: ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: 'https://proxy.example.com/anthropic',
      TEA_MODEL: 'claude-opus-4-1',
    });
    expect(config.mainModel).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://proxy.example.com/anthropic',
      model: 'claude-opus-4-1',
    });
  });

  it('prefers OpenAI when both keys are set', async () => {
    const config = await load({ OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY });
    expect(config.mainModel?.provider).toBe('openai');
    expect(config.mainModel?.apiKey).toBe(OPENAI_KEY);
  });

  it('TEA_MODEL + OPENAI_BASE_URL without a key: a local server', async () => {
    const config = await load({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', TEA_MODEL: 'Qwen/Qwen3-8B' });
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'Qwen/Qwen3-8B',
    });
    expect(config.keySources?.main_model).toEqual({ kind: 'none' });
  });

  it('configures nothing from a base URL alone or TEA_MODEL alone', async () => {
    expect((await load({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1' })).mainModel).toBeUndefined();
    expect((await load({ TEA_MODEL: 'gpt-4o' })).mainModel).toBeUndefined();
    expect((await load({ OPENAI_API_KEY: '   ' })).mainModel).toBeUndefined();
  });
});

describe('env and files together', () => {
  it('TEA_MODEL overrides the model a file sets', async () => {
    dirs.writeUser('main_model: { base_url: http://127.0.0.1:8000/v1, model: from-file }\n');
    dirs.writeProject('main_model: { model: from-project }\n');
    const config = await load({ TEA_MODEL: 'from-env' });
    expect(config.mainModel?.model).toBe('from-env');
    expect(config.mainModel?.baseUrl).toBe('http://127.0.0.1:8000/v1');
  });

  it('the file wins for keys it sets; env fills what it leaves unset', async () => {
    dirs.writeUser('main_model: { model: gpt-4.1 }\n');
    const config = await load({
      OPENAI_API_KEY: OPENAI_KEY,
      OPENAI_BASE_URL: 'https://gateway.example.com/v1',
    });
    expect(config.mainModel).toMatchObject({
      provider: 'openai',
      baseUrl: 'https://gateway.example.com/v1',
      apiKey: OPENAI_KEY,
      model: 'gpt-4.1',
    });
    expect(config.mainModelOrigin).toBe('file');
  });

  it('a file with a key keeps it; the env key is ignored', async () => {
    dirs.writeUser('main_model: { api_key: sk-file-key-0123456789abcdef, model: gpt-4o }\n');
    const config = await load({ OPENAI_API_KEY: OPENAI_KEY });
    expect(config.mainModel?.apiKey).toBe('sk-file-key-0123456789abcdef');
  });

  it('never sends an env key to a host the file chose', async () => {
    dirs.writeUser('main_model: { base_url: https://api.deepseek.com/v1, model: deepseek-chat }\n');
    const config = await load({ OPENAI_API_KEY: OPENAI_KEY });
    expect(config.mainModel?.baseUrl).toBe('https://api.deepseek.com/v1');
    expect(config.mainModel?.apiKey).toBeUndefined();
    expect(config.keySources?.main_model).toEqual({ kind: 'none' });
  });

  it('takes the provider from the env key when the file names neither provider nor URL', async () => {
    dirs.writeUser('main_model: { max_output: 8000 }\n');
    const config = await load({ ANTHROPIC_API_KEY: ANTHROPIC_KEY });
    expect(config.mainModel).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: ANTHROPIC_KEY,
      maxOutputTokens: 8000,
    });
    expect(config.mainModel?.model).toMatch(/^claude-/);
  });

  it('env vars never touch other profiles', async () => {
    dirs.writeUser('profiles: { local: { base_url: http://127.0.0.1:8000/v1, model: m } }\n');
    const config = await load({ OPENAI_API_KEY: OPENAI_KEY, TEA_MODEL: 'other' });
    expect(config.profiles.local).toEqual({
      name: 'local',
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:8000/v1',
      model: 'm',
    });
    expect(config.mainModel?.model).toBe('other');
  });
});
