import { mkdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProjectConfig, loadConfig, teaHome } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv = {}, cwd = dirs.project) =>
  loadConfig({ cwd, env: { TEA_HOME: dirs.home, ...env }, detectOllama: false });

const FULL = `
main_model:
  provider: openai
  base_url: https://api.openai.com/v1/
  api_key_env: OPENAI_API_KEY
  model: gpt-4o
  context_window: 128000
  max_output: 16384
  timeout_s: 90
cheap_model:
  provider: openai
  base_url: http://127.0.0.1:11434/v1
  model: qwen2.5:7b
embedding:
  provider: openai
  base_url: http://127.0.0.1:11434/v1
  model: nomic-embed-text
  dimensions: 768
profiles:
  deepseek: { provider: openai, base_url: https://api.deepseek.com/v1, api_key_env: DEEPSEEK_API_KEY, model: deepseek-chat }
  claude: { base_url: https://api.anthropic.com/v1, api_key: sk-ant-inline-key-0123456789abcdef, model: claude-sonnet-4-5, thinking_budget: 4000 }
fallback: [deepseek, claude]
agent:
  max_iterations: 30
  max_parallel_tools: 2
  session_wait_s: 0
  turn_timeout_s: 900
llm:
  timeout_s: 45
  call_timeout_s: 100
  stream_max_s: 300
  max_retries: 5
  retry_base_ms: 250
  breaker: { failure_threshold: 7, recovery_s: 30 }
models:
  my-local-model: { context_window: 8192, max_output: 2048, input_price: 0, output_price: 0.5 }
`;

describe('teaHome', () => {
  it('uses TEA_HOME, expanding ~, else ~/.tea', () => {
    expect(teaHome({ TEA_HOME: '/srv/tea' })).toBe('/srv/tea');
    expect(teaHome({ TEA_HOME: '~/custom' })).toBe(join(homedir(), 'custom'));
    expect(teaHome({ TEA_HOME: '  ' })).toBe(join(homedir(), '.tea'));
    expect(teaHome({})).toBe(join(homedir(), '.tea'));
  });
});

describe('loadConfig from files', () => {
  it('reads a full user file into the camelCase config', async () => {
    const file = dirs.writeUser(FULL);
    const config = await load({ OPENAI_API_KEY: 'sk-test-main-0123456789abcdef' });
    expect(config.home).toBe(dirs.home);
    expect(config.files).toEqual([file]);
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test-main-0123456789abcdef',
      model: 'gpt-4o',
      contextWindow: 128000,
      maxOutputTokens: 16384,
      timeoutMs: 90_000,
    });
    expect(config.mainModelOrigin).toBe('file');
    expect(config.cheapModel).toEqual({
      name: 'cheap_model',
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'qwen2.5:7b',
    });
    expect(config.embedding).toEqual({
      provider: 'openai',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'nomic-embed-text',
      dimensions: 768,
    });
    expect(config.profiles.deepseek).toEqual({
      name: 'deepseek',
      provider: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      model: 'deepseek-chat',
    });
    // Provider inferred from the URL; a trailing /v1 dropped for the Anthropic adapter.
    expect(config.profiles.claude).toMatchObject({
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      apiKey: 'sk-ant-inline-key-0123456789abcdef',
      thinkingBudget: 4000,
    });
    expect(config.fallback).toEqual(['deepseek', 'claude']);
    expect(config.agent).toEqual({
      maxIterations: 30,
      maxParallelTools: 2,
      autoTitle: true,
      sessionWaitMs: 0,
      turnTimeoutMs: 900_000,
    });
    expect(config.llm).toEqual({
      timeoutMs: 45_000,
      callTimeoutMs: 100_000,
      streamMaxMs: 300_000,
      maxRetries: 5,
      retryBaseMs: 250,
      breaker: { failureThreshold: 7, recoveryMs: 30_000 },
    });
    expect(config.models).toEqual({
      'my-local-model': { contextWindow: 8192, maxOutputTokens: 2048, inputPrice: 0, outputPrice: 0.5 },
    });
  });

  it('fills defaults when no file exists and nothing is configured', async () => {
    const config = await load();
    expect(config.files).toEqual([]);
    expect(config.mainModel).toBeUndefined();
    expect(config.cheapModel).toBeUndefined();
    expect(config.embedding).toBeUndefined();
    expect(config.profiles).toEqual({});
    expect(config.fallback).toEqual([]);
    expect(config.agent).toEqual({
      maxIterations: 25,
      maxParallelTools: 4,
      autoTitle: true,
      sessionWaitMs: 60_000,
      turnTimeoutMs: 3_600_000,
    });
    expect(config.llm).toEqual({
      timeoutMs: 60_000,
      callTimeoutMs: 180_000,
      streamMaxMs: 600_000,
      maxRetries: 3,
      retryBaseMs: 1000,
      breaker: { failureThreshold: 5, recoveryMs: 60_000 },
    });
  });

  it('cheap_model defaults to a copy of main_model', async () => {
    dirs.writeUser('main_model: { base_url: http://127.0.0.1:8000/v1, model: local-llm }\n');
    const config = await load();
    expect(config.cheapModel).toEqual({ ...config.mainModel, name: 'cheap_model' });
    expect(config.mainModel?.name).toBe('main_model');
  });

  it('treats an empty file and empty keys as unset', async () => {
    dirs.writeUser('# nothing yet\ncheap_model:\n');
    const config = await load();
    expect(config.files).toHaveLength(1);
    expect(config.cheapModel).toBeUndefined();
  });

  it('lets a trusted project file override the user file key by key, deep-merging objects', async () => {
    const user = dirs.writeUser(FULL);
    const project = dirs.writeProject(`
main_model:
  model: gpt-4.1
  api_key: sk-project-key-0123456789abcdef
profiles:
  deepseek: { model: deepseek-reasoner }
  local: { base_url: http://127.0.0.1:8000/v1, model: qwen3 }
fallback: [local]
agent: { max_iterations: 10 }
llm: { breaker: { recovery_s: 5 } }
models:
  my-local-model: { context_window: 4096 }
`);
    dirs.trustProject();
    const config = await load({ OPENAI_API_KEY: 'sk-from-env-0123456789abcdef' });
    expect(config.files).toEqual([user, project]);
    expect(config.project?.state).toBe('trusted');
    expect(config.warnings).toEqual([]);
    // Deep merge: unchanged keys survive, changed keys win.
    expect(config.mainModel).toMatchObject({
      model: 'gpt-4.1',
      contextWindow: 128000,
      baseUrl: 'https://api.openai.com/v1',
      // The project's api_key replaces the user's api_key_env.
      apiKey: 'sk-project-key-0123456789abcdef',
    });
    expect(config.keySources?.main_model).toEqual({ kind: 'file', file: project });
    expect(config.profiles.deepseek).toMatchObject({
      model: 'deepseek-reasoner',
      baseUrl: 'https://api.deepseek.com/v1',
    });
    expect(config.profiles.local?.model).toBe('qwen3');
    expect(config.fallback).toEqual(['local']); // lists are replaced, not concatenated
    expect(config.agent).toMatchObject({ maxIterations: 10, maxParallelTools: 2, autoTitle: true });
    expect(config.llm.breaker).toEqual({ failureThreshold: 7, recoveryMs: 5000 });
    expect(config.llm.timeoutMs).toBe(45_000);
    expect(config.models['my-local-model']).toEqual({
      contextWindow: 4096,
      maxOutputTokens: 2048,
      inputPrice: 0,
      outputPrice: 0.5,
    });
  });

  it('finds the project file from a subdirectory, and not above the git root', async () => {
    const project = dirs.writeProject('agent: { max_iterations: 7 }\n');
    const deep = join(dirs.project, 'src', 'deep');
    mkdirSync(deep, { recursive: true });
    expect(findProjectConfig(deep, join(dirs.home, 'config.yaml'))).toBe(project);
    expect((await load({}, deep)).agent.maxIterations).toBe(7);

    // A repo nested inside the project: its own root stops the walk.
    const inner = join(dirs.project, 'vendor', 'lib');
    mkdirSync(join(inner, '.git'), { recursive: true });
    expect(findProjectConfig(inner, join(dirs.home, 'config.yaml'))).toBeUndefined();
    expect((await load({}, inner)).agent.maxIterations).toBe(25);
  });

  it('does not read the user file twice when the home sits inside the project', async () => {
    const home = join(dirs.project, '.tea');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, 'config.yaml'), 'agent: { max_iterations: 3 }\n');
    const config = await loadConfig({ cwd: dirs.project, env: { TEA_HOME: home }, detectOllama: false });
    expect(config.files).toEqual([join(home, 'config.yaml')]);
    expect(config.agent.maxIterations).toBe(3);
  });

  it('accepts the legacy keys as aliases', async () => {
    dirs.writeUser(`
main_model:
  api_url: https://api.deepseek.com/v1
  model_name: deepseek-chat
  max_context_tokens: 65536
cheap_model:
  api_url: https://api.anthropic.com
  model_name: claude-haiku-4-5
  max_context_tokens: 0
`);
    const config = await load();
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      model: 'deepseek-chat',
      contextWindow: 65536,
    });
    // max_context_tokens: 0 means unset; the provider is inferred from the URL.
    expect(config.cheapModel).toEqual({
      name: 'cheap_model',
      provider: 'anthropic',
      baseUrl: 'https://api.anthropic.com',
      model: 'claude-haiku-4-5',
    });
  });

  it('lets a project override a legacy key with its modern name', async () => {
    dirs.writeUser('main_model: { api_url: http://127.0.0.1:8000/v1, model_name: old }\n');
    dirs.writeProject('main_model: { model: new }\n');
    expect((await load()).mainModel?.model).toBe('new');
  });
});
