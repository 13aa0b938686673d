import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ cwd: dirs.project, env: { TEA_HOME: dirs.home, ...env }, detectOllama: false });

/** Loads, expecting a ConfigError, and returns it. */
async function failure(env: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  const error = await load(env).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('config errors', () => {
  it('an unknown top-level key suggests the closest known key', async () => {
    const file = dirs.writeUser('main_modle:\n  model: gpt-4o\n');
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.key).toBe('main_modle');
    expect(err.message).toContain(file);
    expect(err.message).toContain('unknown key');
    expect(err.message).toContain('did you mean "main_model"');
    expect(err.fix).toContain('main_model');
  });

  it('an unknown key inside a profile names the profile and suggests a key', async () => {
    const file = dirs.writeProject('profiles:\n  ds:\n    model: deepseek-chat\n    api_key_evn: X\n');
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.key).toBe('profiles.ds.api_key_evn');
    expect(err.message).toContain('did you mean "api_key_env"');
  });

  it('an unknown key far from any known one lists the known keys', async () => {
    dirs.writeUser('agent:\n  completely_different: 1\n');
    const err = await failure();
    expect(err.key).toBe('agent.completely_different');
    expect(err.message).toContain('max_iterations, max_parallel_tools');
  });

  it('a wrong type names the file, the key, what was expected, what was found and a fix', async () => {
    const file = dirs.writeUser('main_model:\n  model: gpt-4o\n  context_window: big\n');
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.key).toBe('main_model.context_window');
    expect(err.expected).toBe('a positive integer');
    expect(err.message).toBe(
      `${file}: main_model.context_window: expected a positive integer, got "big". ` +
        "Fix: set it to the model's context window in tokens, e.g. 128000.",
    );
  });

  it('reports bad values in nested sections, lists and model ids', async () => {
    dirs.writeUser('llm:\n  breaker: { recovery_s: -1 }\n');
    let err = await failure();
    expect(err.key).toBe('llm.breaker.recovery_s');
    expect(err.message).toContain('got -1');
    expect(err.fix).toContain('e.g. 60');

    dirs.writeUser('fallback: deepseek\n');
    err = await failure();
    expect(err.key).toBe('fallback');
    expect(err.message).toContain('expected a list of profile names, got "deepseek"');

    dirs.writeUser('models:\n  qwen2.5:7b: { context_window: 0 }\n');
    err = await failure();
    expect(err.key).toBe('models["qwen2.5:7b"].context_window');

    dirs.writeUser('models:\n  llava:13b: { images: maybe }\n');
    err = await failure();
    expect(err.key).toBe('models["llava:13b"].images');
    expect(err.message).toContain('expected true or false, got "maybe"');

    dirs.writeUser('main_model:\n  provider: gemini\n  model: x\n');
    err = await failure();
    expect(err.message).toContain('expected one of openai, anthropic, got "gemini"');

    dirs.writeUser('main_model:\n  base_url: not a url\n  model: x\n');
    err = await failure();
    expect(err.key).toBe('main_model.base_url');
    expect(err.message).toContain('expected an http(s) URL');
  });

  it.each([
    ['max_parallel: 0', 'subagents.max_parallel', 'expected a whole number of at least 1, got 0', 'at once'],
    ['max_depth: 3', 'subagents.max_depth', 'expected 1 or 2, got 3', 'they may, once'],
    ['timeout_s: -1', 'subagents.timeout_s', 'expected a positive number of seconds, got -1', 'time limit'],
    [
      'max_cost_usd: free',
      'subagents.max_cost_usd',
      'expected a positive number of US dollars, got "free"',
      'budget',
    ],
  ])('subagents: %s names the key, what it expects and a fix', async (line, key, expected, fix) => {
    dirs.writeUser(`subagents:\n  ${line}\n`);
    const err = await failure();
    expect(err.key).toBe(key);
    expect(err.message).toContain(expected);
    expect(err.message).toContain(fix);
  });

  it('a bad web search provider lists the search providers, not the model providers', async () => {
    dirs.writeUser('tools:\n  web_search: { provider: google }\n');
    const err = await failure();
    expect(err.key).toBe('tools.web_search.provider');
    expect(err.message).toContain('expected one of searxng, brave, tavily, got "google"');
    expect(err.message).not.toContain('anthropic');
  });

  it('never echoes a secret in an error', async () => {
    dirs.writeUser('main_model:\n  model: x\n  api_key: 123456789012345678\n');
    const err = await failure();
    expect(err.key).toBe('main_model.api_key');
    expect(err.message).toContain('got a number');
    expect(err.message).not.toContain('123456789012345678');
  });

  it('lists further problems in the same file', async () => {
    dirs.writeUser('agent: { max_iterations: 0, max_parallel_tools: many }\n');
    const err = await failure();
    expect(err.key).toBe('agent.max_iterations');
    expect(err.message).toContain('also');
    expect(err.message).toContain('agent.max_parallel_tools');
  });

  it('a YAML syntax error names the file, line and column', async () => {
    const file = dirs.writeUser('main_model:\n  model: gpt-4o\n  base_url: [http://x\nagent: 1\n');
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.line).toBeGreaterThanOrEqual(3);
    expect(err.message).toContain(file);
    expect(err.message).toMatch(/YAML syntax error at line \d+, column \d+/);

    dirs.writeUser('agent:\n  max_iterations: 1\n  max_iterations: 2\n');
    const dup = await failure();
    expect(dup.line).toBe(3);
    expect(dup.message).toContain('line 3');
    expect(dup.fix).toContain('repeated');
  });

  it('a YAML error never quotes the file (which may hold a secret)', async () => {
    dirs.writeUser('main_model:\n  api_key: "sk-secret-0123456789abcdef\n');
    const err = await failure();
    expect(err.message).toContain('YAML syntax error');
    expect(err.message).not.toContain('sk-secret');
  });

  it('a file that is not a mapping says so', async () => {
    dirs.writeUser('- main_model\n- gpt-4o\n');
    const err = await failure();
    expect(err.message).toContain('expected a mapping');
  });

  it('a profile without a model names the file and key', async () => {
    const file = dirs.writeUser('profiles:\n  ds: { base_url: https://api.deepseek.com/v1 }\n');
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.key).toBe('profiles.ds.model');
    expect(err.message).toContain('expected a model id, got nothing');
  });

  it('a main model on a custom URL needs a model (TEA_MODEL also fixes it)', async () => {
    dirs.writeUser('main_model: { base_url: http://127.0.0.1:8000/v1 }\n');
    const err = await failure();
    expect(err.key).toBe('main_model.model');
    expect(err.fix).toContain('TEA_MODEL');
    const config = await load({ TEA_MODEL: 'm' });
    expect(config.mainModel?.model).toBe('m');
  });

  it('a fallback naming an unknown profile suggests the closest', async () => {
    const file = dirs.writeUser(
      'profiles:\n  deepseek: { base_url: https://api.deepseek.com/v1, model: deepseek-chat }\nfallback: [deepseek, deepsek]\n',
    );
    const err = await failure();
    expect(err.file).toBe(file);
    expect(err.key).toBe('fallback[1]');
    expect(err.message).toContain('unknown profile "deepsek"');
    expect(err.message).toContain('did you mean "deepseek"');
  });

  it('conflicting aliases and keys are errors', async () => {
    dirs.writeUser('main_model: { base_url: http://a.example/v1, api_url: http://b.example/v1, model: m }\n');
    let err = await failure();
    expect(err.message).toContain('both base_url and api_url');

    dirs.writeUser(
      'main_model: { api_key: sk-abc-0123456789abcdef, api_key_env: OPENAI_API_KEY, model: m }\n',
    );
    err = await failure();
    expect(err.message).toContain('both api_key and api_key_env');
    expect(err.message).not.toContain('sk-abc');
  });

  it('rejects reserved and malformed profile names', async () => {
    dirs.writeUser('profiles:\n  main_model: { model: m }\n');
    let err = await failure();
    expect(err.key).toBe('profiles.main_model');
    expect(err.message).toContain('reserved');

    dirs.writeUser('profiles:\n  embedding: { model: m }\n');
    err = await failure();
    expect(err.key).toBe('profiles.embedding');

    dirs.writeUser('profiles:\n  "my profile": { model: m }\n');
    err = await failure();
    expect(err.key).toBe('profiles["my profile"]');
  });

  it('an embedding section must use an OpenAI-compatible endpoint', async () => {
    dirs.writeUser('embedding: { provider: anthropic, model: x }\n');
    const err = await failure();
    expect(err.key).toBe('embedding.provider');
    expect(err.fix).toContain('offline embedder');
  });

  it('a config path that is a directory is reported, not crashed on', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(`${dirs.home}/config.yaml`);
    const err = await failure();
    expect(err.message).toContain('cannot read the config file');
  });
});
