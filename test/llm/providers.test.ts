import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { complete } from '../../src/llm/collect.js';
import { createModelChain, createProvider } from '../../src/llm/factory.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { isProviderKind, providerKinds, registerProvider } from '../../src/llm/providers.js';
import { type Dirs, makeDirs } from '../config/helpers.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { request } from './fake-provider.js';

/**
 * A third provider, registered the way a plugin would: a gateway that takes a host
 * (like Anthropic, it appends the `/v1` path itself), reads GATEWAY_API_KEY and
 * GATEWAY_BASE_URL, and tags each request with the model it routes to.
 */
let server: ModelServer;
let unregister: () => void;
beforeAll(async () => {
  server = await startModelServer();
  ({ unregister } = registerProvider(
    'gateway',
    {
      describe: 'the test gateway',
      baseUrl: 'https://gateway.invalid',
      model: 'gw-default',
      envPrefix: 'GATEWAY',
      urlHint: server.url.replace('http://', ''),
      hostOnlyBaseUrl: true,
    },
    (info, s) =>
      new OpenAICompatibleProvider(
        { ...info, baseUrl: `${info.baseUrl}/v1` },
        {
          ...(s.apiKey ? { apiKey: s.apiKey } : {}),
          headers: { ...s.headers, 'x-gateway-route': info.model },
        },
      ),
  ));
});
afterAll(async () => {
  unregister();
  await server.close();
});

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
  server.reset();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ cwd: dirs.project, env: { TEA_HOME: dirs.home, ...env }, detectOllama: false });
const chainOpts = { timeoutMs: 5000, maxRetries: 0, baseDelayMs: 10 };

async function configError(env: NodeJS.ProcessEnv = {}): Promise<ConfigError> {
  const err = await load(env).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  return err as ConfigError;
}

describe('provider registry', () => {
  it('lists the built-in providers first, then the registered one', () => {
    expect(providerKinds()).toEqual(['openai', 'anthropic', 'gateway']);
    expect(isProviderKind('gateway')).toBe(true);
    expect(isProviderKind('gemini')).toBe(false);
  });

  it('a registered provider works end to end: config file -> factory -> its wire', async () => {
    dirs.writeUser(
      `main_model:\n  provider: gateway\n  base_url: ${server.url}/v1/\n  api_key_env: GATEWAY_API_KEY\n  model: gw-1\n`,
    );
    const config = await load({ GATEWAY_API_KEY: 'gw-secret' });
    // hostOnlyBaseUrl: the trailing /v1 is dropped, as for Anthropic.
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'gateway',
      baseUrl: server.url,
      apiKey: 'gw-secret',
      model: 'gw-1',
    });
    if (!config.mainModel) throw new Error('no main model');
    server.script(reply().text('routed through the gateway'));
    const chain = createModelChain([config.mainModel], chainOpts);
    expect(chain.info).toMatchObject({ provider: 'gateway', model: 'gw-1' });
    expect((await complete(chain, request)).text).toBe('routed through the gateway');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
    expect(server.requests[0]?.headers).toMatchObject({
      authorization: 'Bearer gw-secret',
      'x-gateway-route': 'gw-1',
    });
  });

  it('its env variables configure the main model with no file, and its URL hint picks it', async () => {
    const fromEnv = await load({ GATEWAY_API_KEY: 'gw-env', GATEWAY_BASE_URL: server.url });
    expect(fromEnv.mainModel).toMatchObject({
      provider: 'gateway',
      baseUrl: server.url,
      model: 'gw-default',
    });
    expect(fromEnv.keySources?.main_model).toEqual({ kind: 'env', variable: 'GATEWAY_API_KEY', set: true });

    dirs.writeUser(`main_model:\n  base_url: ${server.url}\n  model: gw-2\n`);
    const hinted = await load();
    expect(hinted.mainModel).toMatchObject({ provider: 'gateway', model: 'gw-2' });
    server.script(reply().text('hinted'));
    if (!hinted.mainModel) throw new Error('no main model');
    expect((await complete(createProvider(hinted.mainModel), request)).text).toBe('hinted');
  });

  it('an unknown provider names the file, the key and every known provider, the registered one too', async () => {
    const file = dirs.writeUser('main_model:\n  provider: gemini\n  model: x\n');
    const err = await configError();
    expect(err.file).toBe(file);
    expect(err.key).toBe('main_model.provider');
    expect(err.message).toContain(file);
    expect(err.message).toContain('expected one of openai, anthropic, gateway, got "gemini"');
    expect(err.fix).toContain('`gateway` for the test gateway');
    expect(err.fix).toContain('`openai` for any OpenAI-compatible server');
  });

  it('the factory refuses an unknown provider, naming the known ones', () => {
    const profile = { name: 'p', provider: 'gemini' as never, baseUrl: 'http://127.0.0.1:1/v1', model: 'm' };
    expect(() => createProvider(profile)).toThrow(
      `model profile 'p': provider must be 'openai', 'anthropic' or 'gateway', got "gemini"`,
    );
  });

  it('refuses a second provider of the same name, a bad name, and forgets one unregistered', async () => {
    const builder = () => {
      throw new Error('never built');
    };
    const defaults = { describe: 'x', baseUrl: 'http://x.invalid', model: 'm', envPrefix: 'X' };
    expect(() => registerProvider('openai', defaults, builder)).toThrow(
      'provider "openai" is already registered',
    );
    expect(() => registerProvider('gateway', defaults, builder)).toThrow('already registered');
    expect(() => registerProvider('Bad Name', defaults, builder)).toThrow('must be lower-case letters');

    const extra = registerProvider('extra', defaults, builder);
    expect(providerKinds()).toContain('extra');
    extra.unregister();
    expect(providerKinds()).not.toContain('extra');
    dirs.writeUser('main_model:\n  provider: extra\n  model: x\n');
    const err = await configError();
    expect(err.message).toContain('expected one of openai, anthropic, gateway, got "extra"');
  });
});
