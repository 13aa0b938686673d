import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, describeMissingModel, loadConfig, resolveProfile } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ cwd: dirs.project, env: { TEA_HOME: dirs.home, ...env }, detectOllama: false });

function thrown(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('resolveProfile', () => {
  it('resolves main_model, cheap_model and named profiles', async () => {
    dirs.writeUser(`
main_model: { base_url: http://127.0.0.1:8000/v1, model: big }
cheap_model: { base_url: http://127.0.0.1:8000/v1, model: small }
profiles:
  deepseek: { base_url: https://api.deepseek.com/v1, api_key_env: DEEPSEEK_API_KEY, model: deepseek-chat }
`);
    const config = await load();
    expect(resolveProfile(config, 'main_model').model).toBe('big');
    expect(resolveProfile(config, 'cheap_model').model).toBe('small');
    // No key set for a remote URL: still resolves; the HTTP call reports the 401 later.
    const deepseek = resolveProfile(config, 'deepseek');
    expect(deepseek).toEqual({
      name: 'deepseek',
      provider: 'openai',
      baseUrl: 'https://api.deepseek.com/v1',
      model: 'deepseek-chat',
    });
  });

  it('an unknown name lists the known names and suggests the closest', async () => {
    dirs.writeUser(
      'profiles:\n  deepseek: { base_url: https://api.deepseek.com/v1, model: deepseek-chat }\n',
    );
    const config = await load({ OPENAI_API_KEY: 'sk-env-0123456789abcdef' });
    const err = thrown(() => resolveProfile(config, 'deepsek'));
    expect(err.message).toContain('Unknown profile "deepsek"');
    expect(err.message).toContain('did you mean "deepseek"');
    expect(err.message).toContain('main_model, cheap_model, deepseek');
    const far = thrown(() => resolveProfile(config, 'zzzzzzzz'));
    expect(far.message).toContain('use one of: main_model, cheap_model, deepseek');
    // Inherited object properties are not profiles.
    expect(() => resolveProfile(config, 'toString')).toThrow(ConfigError);
  });

  it('main_model without any model explains how to configure one', async () => {
    const config = await load();
    const err = thrown(() => resolveProfile(config, 'main_model'));
    expect(err.message).toContain('No model is configured');
    expect(err.message).toContain('OPENAI_API_KEY');
  });
});

describe('describeMissingModel', () => {
  it('says exactly how to configure a model and where the file lives', async () => {
    const config = await load();
    expect(config.mainModel).toBeUndefined();
    const text = describeMissingModel(config);
    expect(text.split('\n').length).toBeGreaterThan(10);
    expect(text).toContain('No model is configured');
    expect(text).toContain('export OPENAI_API_KEY=');
    expect(text).toContain('export ANTHROPIC_API_KEY=');
    expect(text).toContain('TEA_MODEL');
    expect(text).toContain('OPENAI_BASE_URL');
    expect(text).toContain(join(dirs.home, 'config.yaml'));
    expect(text).toContain('.tea/config.yaml');
    expect(text).toContain('main_model:');
    expect(text).toContain('api_key_env: OPENAI_API_KEY');
    expect(text).toContain('ollama');
  });

  it('its config snippet is itself a valid config', async () => {
    const config = await load();
    const text = describeMissingModel(config);
    const snippet = text
      .split('\n')
      .filter((line) => /^ {7}(main_model:| {2}\w+:)/.test(line))
      .map((line) => line.slice(7))
      .join('\n');
    expect(snippet).toContain('model: gpt-4o-mini');
    dirs.writeUser(snippet);
    const configured = await load({ OPENAI_API_KEY: 'sk-env-0123456789abcdef' });
    expect(configured.mainModel).toMatchObject({ model: 'gpt-4o-mini', apiKey: 'sk-env-0123456789abcdef' });
  });
});
