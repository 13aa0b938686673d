import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
let servers: Server[] = [];
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(async () => {
  dirs.cleanup();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  servers = [];
});

/** A tiny Ollama stand-in on 127.0.0.1:0; returns its URL and a hit counter. */
async function fakeOllama(body: unknown, status = 200): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url !== '/api/tags') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits: () => hits };
}

/** A port that was free a moment ago, so nothing answers there. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const TAGS = {
  models: [
    { name: 'nomic-embed-text:latest', model: 'nomic-embed-text:latest' },
    { name: 'qwen2.5:7b', model: 'qwen2.5:7b' },
    { name: 'llama3.2:3b', model: 'llama3.2:3b' },
  ],
};

/** The fake Ollama answers for sure: a generous probe timeout, so a busy machine cannot fail the test. */
const ANSWERS_MS = 20_000;
const load = (env: NodeJS.ProcessEnv, detectOllama?: boolean) =>
  loadConfig({
    cwd: dirs.project,
    env: { TEA_HOME: dirs.home, ...env },
    detectOllama,
    ollamaTimeoutMs: ANSWERS_MS,
  });

describe('Ollama detection', () => {
  it('uses the first chat model of a local Ollama when nothing else configures one', async () => {
    const ollama = await fakeOllama(TAGS);
    const config = await load({ OLLAMA_HOST: ollama.url });
    expect(config.mainModel).toEqual({
      name: 'main_model',
      provider: 'openai',
      baseUrl: `${ollama.url}/v1`,
      model: 'qwen2.5:7b',
    });
    expect(config.mainModelOrigin).toBe('ollama');
    expect(config.cheapModel?.model).toBe('qwen2.5:7b');
    expect(ollama.hits()).toBe(1);
  });

  it('TEA_MODEL picks the Ollama model', async () => {
    const ollama = await fakeOllama(TAGS);
    const config = await load({ OLLAMA_HOST: ollama.url, TEA_MODEL: 'llama3.2:3b' });
    expect(config.mainModel?.model).toBe('llama3.2:3b');
    expect(config.mainModel?.baseUrl).toBe(`${ollama.url}/v1`);
  });

  it('does not probe when a file or the env configures the model', async () => {
    const ollama = await fakeOllama(TAGS);
    const fromEnv = await load({ OLLAMA_HOST: ollama.url, OPENAI_API_KEY: 'sk-env-0123456789abcdef' });
    expect(fromEnv.mainModel?.model).toBe('gpt-4o-mini');
    dirs.writeUser('main_model: { base_url: http://127.0.0.1:8000/v1, model: vllm-model }\n');
    const fromFile = await load({ OLLAMA_HOST: ollama.url });
    expect(fromFile.mainModel?.model).toBe('vllm-model');
    expect(ollama.hits()).toBe(0);
  });

  it('does not probe when detection is turned off', async () => {
    const ollama = await fakeOllama(TAGS);
    const config = await load({ OLLAMA_HOST: ollama.url }, false);
    expect(config.mainModel).toBeUndefined();
    expect(ollama.hits()).toBe(0);
  });

  it('a dead port means no model, and loading still succeeds', async () => {
    const port = await deadPort();
    const config = await load({ OLLAMA_HOST: `127.0.0.1:${port}` });
    expect(config.mainModel).toBeUndefined();
    expect(config.cheapModel).toBeUndefined();
  });

  it('an Ollama with only embedding models, or a server that is not Ollama, gives no model', async () => {
    const embedOnly = await fakeOllama({ models: [{ name: 'mxbai-embed-large' }] });
    expect((await load({ OLLAMA_HOST: embedOnly.url })).mainModel).toBeUndefined();
    const notOllama = await fakeOllama({ error: 'nope' }, 500);
    expect((await load({ OLLAMA_HOST: notOllama.url })).mainModel).toBeUndefined();
    const otherJson = await fakeOllama({ hello: 'world' });
    expect((await load({ OLLAMA_HOST: otherJson.url })).mainModel).toBeUndefined();
  });

  it('gives up on a server that does not answer within the probe timeout', async () => {
    const server = createServer(() => {
      // Never answers.
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const config = await loadConfig({
      cwd: dirs.project,
      env: { TEA_HOME: dirs.home, OLLAMA_HOST: `http://127.0.0.1:${port}` },
      ollamaTimeoutMs: 50,
    });
    expect(config.mainModel).toBeUndefined();
    server.closeAllConnections();
  });
});
