/**
 * `tea serve` (the built CLI) SIGKILLed while several answers stream: each session
 * keeps the text streamed before the last draft interval (drafts of all streams
 * are flushed together), and nothing that was not streamed.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRAFT_INTERVAL_MS } from '../../src/agent/draft.js';
import { Store } from '../../src/store/index.js';
import { cliEnv, listening, NO_MEMORY_JOBS, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

const STREAMS = 3;
const ANSWER = Array.from({ length: 80 }, (_, i) => `w${String(i).padStart(2, '0')}, `).join('');

/** A streaming chat completion whose received content is readable while it runs. */
async function startStream(url: string): Promise<{ sessionId: string; received: () => string }> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', stream: true, messages: [{ role: 'user', content: 'talk' }] }),
  });
  expect(res.status).toBe(200);
  const sessionId = res.headers.get('x-tea-session-id') ?? '';
  let content = '';
  let buffer = '';
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  void (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let at = buffer.indexOf('\n\n'); at >= 0; at = buffer.indexOf('\n\n')) {
        const event = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (!event.startsWith('data: {')) continue;
        const chunk = JSON.parse(event.slice(6)) as { choices: Array<{ delta: { content?: string } }> };
        content += chunk.choices[0]?.delta.content ?? '';
      }
    }
  })().catch(() => {});
  return { sessionId, received: () => content };
}

async function until(ready: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ready()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('tea serve killed mid-stream', () => {
  it('keeps every stream’s text up to the last draft interval', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    let child: ChildProcess | undefined;
    try {
      writeFileSync(path.join(ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n`);
      for (let i = 0; i < STREAMS; i++) model.script(reply().text(ANSWER).chunkSize(5).chunkDelay(25));
      child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
      const url = await listening(child);
      const streams = await Promise.all(Array.from({ length: STREAMS }, () => startStream(url)));
      await until(() => streams.every((s) => s.received().length >= 40));
      const before = streams.map((s) => s.received());
      // Longer than one draft interval: what was streamed before now must be stored.
      await new Promise((r) => setTimeout(r, DRAFT_INTERVAL_MS * 3));
      const exit = new Promise((resolve) => child!.once('exit', (_code, signal) => resolve(signal)));
      child.kill('SIGKILL');
      expect(await exit).toBe('SIGKILL');

      const store = Store.open(path.join(ctx.home, 'tea.db'));
      try {
        streams.forEach((s, i) => {
          const assistant = store.messages.list(s.sessionId).filter((m) => m.role === 'assistant');
          expect(assistant).toHaveLength(1);
          expect(assistant[0]!.status).toBe('partial');
          const stored = assistant[0]!.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
          expect(stored.startsWith(before[i]!)).toBe(true);
          expect(ANSWER.startsWith(stored)).toBe(true);
          expect(stored.length).toBeLessThan(ANSWER.length);
        });
      } finally {
        store.close();
      }
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      ctx.cleanup();
    }
  });
});
