import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** POSTs one direct tool run; resolves to the HTTP status and body. */
async function runTool(url: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${url}/v1/tools/${name}/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args }),
  });
  return {
    status: res.status,
    body: (await res.json()) as { status?: string; output?: string; error?: { message: string } },
  };
}

describe('POST /v1/tools/{name}/run under tea serve --allow / --add-dir', () => {
  const env = () =>
    cliEnv({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: model.openaiBaseUrl, TEA_MODEL: 'scripted-model' });

  it('runs the command an --allow rule names, and refuses the rest of a line', async () => {
    const ctx = env();
    const scripts = { test: 'node -e "console.log(42 * 1000 + 7)"' };
    writeFileSync(path.join(ctx.work, 'package.json'), JSON.stringify({ name: 'p', private: true, scripts }));
    const args = ['serve', '--port', '0', '--cwd', ctx.work, '--permission-mode', 'ask'];
    const child = spawnTea([...args, '--allow', 'bash:npm test*'], { env: ctx.env });
    try {
      const url = await listening(child);
      const ran = await runTool(url, 'bash', { command: 'npm test --silent' });
      expect(ran.status).toBe(200);
      expect(ran.body).toMatchObject({ status: 'ok', output: expect.stringContaining('42007') });
      const refused = await runTool(url, 'bash', { command: 'npm test && touch pwned' });
      expect(refused.status).toBe(403);
      expect(refused.body.error?.message).toContain('no allow rule covers `touch pwned`');
      expect(existsSync(path.join(ctx.work, 'pwned'))).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      ctx.cleanup();
    }
  });

  it('file tools reach an --add-dir root; without it they are kept to the workspace', async () => {
    const ctx = env();
    const extra = mkdtempSync(path.join(os.tmpdir(), 'tea-extra-'));
    writeFileSync(path.join(extra, 'notes.txt'), 'notes from the added directory\n');
    const args = ['serve', '--port', '0', '--cwd', ctx.work, '--permission-mode', 'ask'];
    const added = spawnTea([...args, '--add-dir', extra, '--allow', 'write_file'], { env: ctx.env });
    try {
      const url = await listening(added);
      const read = await runTool(url, 'read_file', { path: path.join(extra, 'notes.txt') });
      expect(read.body).toMatchObject({ status: 'ok', output: expect.stringContaining('added directory') });
      const wrote = await runTool(url, 'write_file', { path: path.join(extra, 'new.txt'), content: 'x\n' });
      expect(wrote.body).toMatchObject({ status: 'ok' });
      expect(readFileSync(path.join(extra, 'new.txt'), 'utf8')).toBe('x\n');
    } finally {
      if (added.exitCode === null) added.kill('SIGKILL');
    }
    const plain = spawnTea(args, { env: ctx.env });
    try {
      const url = await listening(plain);
      const read = await runTool(url, 'read_file', { path: path.join(extra, 'notes.txt') });
      expect(read.body).toMatchObject({
        status: 'error',
        output: expect.stringContaining('outside the workspace'),
      });
    } finally {
      if (plain.exitCode === null) plain.kill('SIGKILL');
      ctx.cleanup();
      rmSync(extra, { recursive: true, force: true });
    }
  });
});
