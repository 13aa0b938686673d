import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, listening, runTea, spawnTea } from '../support/cli.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';

let model: ModelServer;
beforeAll(async () => {
  model = await startModelServer();
});
afterAll(() => model.close());

/** The status of `GET /v1/config` sent with this Host header. */
/** GET /v1/config sent with this Host header: the status and the body. */
function withHost(url: string, host: string): Promise<{ status: number; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/v1/config', headers: { host }, setHost: false },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => {
          body += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function statusWithHost(url: string, host: string): Promise<number> {
  return (await withHost(url, host)).status;
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

  it('stores a pasted megabyte whole, with its checkpoints on their own thread', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
    try {
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const url = await listening(child);
      const pasted = `${'部署失败 deploy failed 😀 "quoted"\n'.repeat(40_000)}What went wrong?`;
      model.script(reply().text('read it all'));
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'tea', messages: [{ role: 'user', content: pasted }] }),
      });
      const { session_id } = (await res.json()) as { session_id: string };
      const listed = (await (await fetch(`${url}/v1/sessions/${session_id}/messages`)).json()) as {
        data: Array<{ role: string; parts: Array<{ type: string; text?: string }> }>;
      };
      const user = listed.data.find((m) => m.role === 'user');
      expect(user?.parts[0]?.text).toBe(pasted);
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
      expect(stderr).not.toMatch(/checkpoint/i);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      ctx.cleanup();
    }
  });

  it('on 0.0.0.0, says which URLs to open and how to pass the token (and never prints it)', async () => {
    const token = 'tea-test-token-0123456789abcdef';
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      TEA_API_TOKEN: token,
    });
    try {
      const child = spawnTea(['serve', '--host', '0.0.0.0', '--port', '0', '--cwd', ctx.work], {
        env: ctx.env,
      });
      const stderr = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stderr?.on('data', (d: Buffer) => {
          text += d.toString();
          if (/Authorization: Bearer/.test(text)) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${text}`)));
      });
      const line = /^tea serve: listening on (http:\/\/0\.0\.0\.0:(\d+)) \(all interfaces: (.+)\)$/m.exec(
        stderr,
      );
      expect(line, stderr).not.toBeNull();
      const port = line![2]!;
      expect(line![3]).toContain(`http://127.0.0.1:${port}`);
      // Every URL it names can be opened (with the token).
      const urls = [...line![3]!.matchAll(/http:\/\/\S+?:\d+/g)].map((m) => m[0]);
      expect(urls.length).toBeGreaterThan(0);
      for (const u of urls) {
        const res = await fetch(`${u}/v1/config`, { headers: { authorization: `Bearer ${token}` } });
        expect({ u, status: res.status }).toEqual({ u, status: 200 });
      }
      expect(stderr).toMatch(
        /^tea serve: the web UI and the API need the token in TEA_API_TOKEN: open http:\/\/\S+:\d+\/\?token=<the token> once/m,
      );
      expect(stderr).not.toContain(token);
      // Still machine-readable as before: `listening on <url>`, the bound address and port.
      expect(/tea serve: listening on (http:\/\/\S+)/.exec(stderr)?.[1]).toBe(`http://0.0.0.0:${port}`);
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

  it('a TEA_API_TOKEN shorter than 16 characters: refused off loopback, a warning on it', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      TEA_API_TOKEN: 'abc',
    });
    try {
      const res = await runTea(['serve', '--host', '0.0.0.0', '--port', '0'], { env: ctx.env });
      expect(res.code).toBe(2);
      expect(res.stderr).toBe(
        'tea: refusing to listen on 0.0.0.0: TEA_API_TOKEN is 3 characters long; use a random secret of at least 16 (openssl rand -hex 24) (see tea serve --help)\n',
      );
      const child = spawnTea(['serve', '--port', '0', '--cwd', ctx.work], { env: ctx.env });
      const stderr = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stderr?.on('data', (d: Buffer) => {
          text += d.toString();
          if (/Authorization: Bearer/.test(text)) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`tea serve exited ${code}: ${text}`)));
      });
      expect(stderr).toMatch(/^tea serve: warning: TEA_API_TOKEN is 3 characters long; use a random secret/m);
      const url = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
      expect((await fetch(`${url}/v1/config`, { headers: { authorization: 'Bearer abc' } })).status).toBe(
        200,
      );
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
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

  it('answers names from --allowed-host and server.allowed_hosts, and no others', async () => {
    const ctx = cliEnv({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model.openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
    });
    try {
      writeFileSync(path.join(ctx.home, 'config.yaml'), 'server:\n  allowed_hosts: [box.local]\n');
      const child = spawnTea(['serve', '--port', '0', '--allowed-host', 'Tea.Example.Test:1234'], {
        env: ctx.env,
        cwd: ctx.work,
      });
      const url = await listening(child);
      const port = new URL(url).port;
      expect(await statusWithHost(url, `127.0.0.1:${port}`)).toBe(200);
      expect(await statusWithHost(url, `box.local:${port}`)).toBe(200);
      expect(await statusWithHost(url, 'tea.example.test:1234')).toBe(200);
      expect(await statusWithHost(url, `tea.example.test:${port}`)).toBe(403);
      expect(await statusWithHost(url, `evil.example:${port}`)).toBe(403);
      // The refusal names the config file of this TEA_HOME (HOME is its parent: shown with ~).
      const refused = await withHost(url, `evil.example:${port}`);
      const message = (JSON.parse(refused.body) as { error: { message: string } }).error.message;
      expect(message).toContain('add the name to server.allowed_hosts in ~/tea-home/config.yaml');
      expect(message).not.toContain('~/.tea/');
      const code = exited(child);
      child.kill('SIGTERM');
      expect(await code).toBe(0);
    } finally {
      ctx.cleanup();
    }
  });

  it('refuses --allowed-host with a URL and --cors * without a token', async () => {
    const ctx = cliEnv({ OPENAI_API_KEY: 'sk-test', TEA_MODEL: 'scripted-model' });
    try {
      const url = await runTea(['serve', '--port', '0', '--allowed-host', 'http://box.local/'], {
        env: ctx.env,
      });
      expect(url.code).not.toBe(0);
      expect(url.stderr).toContain('expected a host name, optionally with :port');
      const star = await runTea(['serve', '--port', '0', '--cors', '*'], { env: ctx.env });
      expect(star.code).toBe(2);
      expect(star.stderr).toContain('--cors * would let every web site drive this server');
      expect(star.stderr).not.toContain('listening');
    } finally {
      ctx.cleanup();
    }
  });
});
