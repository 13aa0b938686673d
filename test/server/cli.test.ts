import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runTea, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

/** Resolves with the URL from the listening line (or rejects with stderr when the child exits first). */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
      const m = /tea serve: listening on (http:\/\/\S+)/.exec(stderr);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${stderr}`)));
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

describe('tea serve (the built CLI)', () => {
  it('starts on a free port, answers, and exits 0 on SIGTERM', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    try {
      const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
      const url = await listening(child);
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = (await (await fetch(`${url}/health`)).json()) as { status: string };
      expect(health.status).toBe('ok');
      model.script(reply().text('served by the CLI'));
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tea', messages: [{ role: 'user', content: 'hi' }] }),
      });
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content).toBe('served by the CLI');
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
    } finally {
      ctx.cleanup();
    }
  });

  it('refuses a non-loopback host without TEA_API_TOKEN (exit 2)', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    try {
      const res = await runTea(['serve', '--host', '0.0.0.0', '--port', '0'], { env: ctx.env });
      expect(res.code).toBe(2);
      expect(res.stderr).toContain('TEA_API_TOKEN');
      expect(res.stderr).not.toContain('listening');
    } finally {
      ctx.cleanup();
    }
  });

  it('rejects a bad port with a usage error', async () => {
    const ctx = cliEnv();
    try {
      const res = await runTea(['serve', '--port', '99999'], { env: ctx.env });
      // commander exits by itself for a subcommand's bad option (1), before main() maps codes.
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('port');
    } finally {
      ctx.cleanup();
    }
  });
});
