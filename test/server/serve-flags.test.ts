import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, listening, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

async function chat(url: string, content: string): Promise<string> {
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', messages: [{ role: 'user', content }] }),
  });
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  return body.choices[0]!.message.content;
}

describe('tea serve --allow / --add-dir', () => {
  it('lets an allowed write run in ask mode, into an added directory too', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    const extra = mkdtempSync(path.join(os.tmpdir(), 'tea-extra-'));
    const args = ['serve', '--port', '0', '--cwd', ctx.work, '--permission-mode', 'ask'];
    const child = spawnTea([...args, '--allow', 'write_file', '--add-dir', extra], { env: ctx.env });
    try {
      const url = await listening(child);
      model.script(
        reply().toolCall('write_file', { path: 'in-workspace.txt', content: 'one\n' }),
        reply().toolCall('write_file', { path: path.join(extra, 'added.txt'), content: 'two\n' }),
        reply().text('Both written.'),
      );
      expect(await chat(url, 'write the two files')).toBe('Both written.');
      expect(readFileSync(path.join(ctx.work, 'in-workspace.txt'), 'utf8')).toBe('one\n');
      expect(readFileSync(path.join(extra, 'added.txt'), 'utf8')).toBe('two\n');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      ctx.cleanup();
      rmSync(extra, { recursive: true, force: true });
    }
  });

  it('without them, the same writes are refused (ask mode, nobody to ask)', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work, '--permission-mode', 'ask'], {
      env: ctx.env,
    });
    try {
      const url = await listening(child);
      model.script(
        reply().toolCall('write_file', { path: 'in-workspace.txt', content: 'one\n' }),
        reply().text('Could not write.'),
      );
      expect(await chat(url, 'write the file')).toBe('Could not write.');
      expect(existsSync(path.join(ctx.work, 'in-workspace.txt'))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      ctx.cleanup();
    }
  });
});
