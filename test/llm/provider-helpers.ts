/** Small shared pieces of the provider tests. */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { Delta, ModelInfo, ModelRequest, ToolCallPart } from '../../src/llm/types.js';
import { transportFor } from '../../src/llm/wire-response.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';

export const hi: ModelRequest = { messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] };

export const textOf = (deltas: Delta[], type: 'text' | 'thinking'): string =>
  deltas.flatMap((d) => (d.type === type ? [d.text] : [])).join('');

export const callsOf = (deltas: Delta[]): ToolCallPart[] =>
  deltas.flatMap((d) => (d.type === 'tool-call' ? [d.call] : []));

/** Awaits a promise that must reject with an LlmError, and returns that error. */
export async function failure(p: Promise<unknown>): Promise<LlmError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LlmError);
  return err as LlmError;
}

/** Idle connections to `url`'s host and port waiting in the shared keep-alive pool. */
export async function pooledSockets(url: string): Promise<number> {
  const target = new URL(url);
  const transport = await transportFor(target);
  if (!transport) throw new Error(`no transport for ${url}`);
  const key = `${target.hostname}:${target.port}:`;
  return Object.entries(transport.agent.freeSockets)
    .filter(([name]) => name.startsWith(key))
    .reduce((n, [, sockets]) => n + (sockets?.length ?? 0), 0);
}

/**
 * One scripted model server for a test file (reset before each test) and an
 * OpenAI-compatible provider factory pointed at it.
 */
export function useOpenAIServer(): {
  readonly server: ModelServer;
  provider(
    opts?: { apiKey?: string; headers?: Record<string, string> },
    baseUrl?: string,
  ): OpenAICompatibleProvider;
} {
  let server: ModelServer | undefined;
  beforeAll(async () => {
    server = await startModelServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server?.reset();
  });
  return {
    get server() {
      return server!;
    },
    provider(opts = {}, baseUrl) {
      const info: ModelInfo = {
        profile: 'main_model',
        provider: 'openai',
        model: 'gpt-test',
        baseUrl: baseUrl ?? server!.openaiBaseUrl,
        contextWindow: 128_000,
        maxOutputTokens: 4096,
      };
      return new OpenAICompatibleProvider(info, opts);
    },
  };
}
