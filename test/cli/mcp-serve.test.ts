/** `tea mcp serve`, checked with the MCP SDK's own client against the built CLI. */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, TEA_BIN } from '../support/cli.js';
import { startMcpHttp } from './mcp-http.js';

let ctx: CliEnv;
beforeEach(() => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\nsecond line\n');
});
afterEach(() => ctx.cleanup());

type CallResult = { content: Array<{ type: string; text?: string }>; isError?: boolean };

function text(result: unknown): string {
  return (result as CallResult).content.map((c) => c.text ?? '').join('\n');
}

async function withClient<T>(
  transport: StdioClientTransport | StreamableHTTPClientTransport,
  run: (c: Client) => Promise<T>,
) {
  const client = new Client({ name: 'tea-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

describe('tea mcp serve over stdio', () => {
  it('lists tools, reads a file and refuses a write in read-only mode', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, '--permission-mode', 'read-only'],
      env: ctx.env as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    await withClient(transport, async (client) => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'bash', 'grep']));
      // Tools that need an interactive session are not offered.
      expect(names).not.toContain('ask_user');
      expect(names).not.toContain('tool_search');
      // Sub-agents need a session to run in: not offered over MCP.
      expect(names).not.toContain('task');
      expect(names).not.toContain('delegate_tasks');
      const read = tools.find((t) => t.name === 'read_file')!;
      expect(read.inputSchema).toMatchObject({ type: 'object', required: ['path'] });
      expect(read.annotations?.readOnlyHint).toBe(true);

      const got = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
      expect(got.isError).toBe(false);
      expect(text(got)).toContain('second line');

      const write = await client.callTool({
        name: 'write_file',
        arguments: { path: 'evil.txt', content: 'x' },
      });
      expect(write.isError).toBe(true);
      expect(text(write)).toContain('[DENIED] write_file (evil.txt) is not allowed here (read-only mode');
      expect(existsSync(path.join(ctx.work, 'evil.txt'))).toBe(false);

      const bad = await client.callTool({ name: 'read_file', arguments: {} });
      expect(bad.isError).toBe(true);
      expect(text(bad)).toContain('[ERROR] Invalid arguments for read_file: path: required');

      const unknown = await client.callTool({ name: 'ask_user', arguments: { question: 'hi?' } });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('Unknown tool "ask_user"');

      // Only names like it are suggested; none here, so a few of the tools are listed instead.
      const far = await client.callTool({ name: 'nosuch', arguments: {} });
      expect(far.isError).toBe(true);
      expect(text(far)).toMatch(
        /^\[ERROR\] Unknown tool "nosuch"\. No tool has a similar name; the tools are: [a-z_]+, /,
      );
      expect(text(far).split('\n')[0]).toMatch(/, … \(\d+ in all\)\.$/);
      expect(text(far)).not.toContain('Did you mean');
      const near = await client.callTool({ name: 'read_fil', arguments: {} });
      expect(text(near)).toMatch(/^\[ERROR\] Unknown tool "read_fil"\. Did you mean: read_file\b/);
    });
    expect(stderr).toContain('tea mcp serve: stdio, read-only mode');
  });
});

describe('tea mcp serve --add-dir', () => {
  it('lets file tools use another directory, which they refuse without it', async () => {
    const extra = path.join(ctx.home, '..', 'extra');
    mkdirSync(extra);
    writeFileSync(path.join(extra, 'far.txt'), 'from the added directory\n');
    const read = async (args: string[]) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, ...args],
        env: ctx.env as Record<string, string>,
        stderr: 'pipe',
      });
      return withClient(transport, (client) =>
        client.callTool({ name: 'read_file', arguments: { path: path.join(extra, 'far.txt') } }),
      );
    };
    const added = await read(['--add-dir', extra]);
    expect(added.isError).toBe(false);
    expect(text(added)).toContain('from the added directory');
    const plain = await read([]);
    expect(plain.isError).toBe(true);
    expect(text(plain)).toContain('outside the workspace');
  });
});

/** Starts `tea mcp serve --http` in this test's environment. */
const startHttp = (args: string[]) => startMcpHttp(ctx.env, args);

describe('tea mcp serve over streamable HTTP', () => {
  it('serves on a free loopback port; ask mode refuses what it would ask about; --allow lets it run', async () => {
    const server = await startHttp([
      '--cwd',
      ctx.work,
      '--permission-mode',
      'ask',
      '--allow',
      'write_file:allowed.txt',
    ]);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      await withClient(new StreamableHTTPClientTransport(new URL(server.url)), async (client) => {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('read_file');

        const got = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
        expect(text(got)).toContain('first line');

        const asked = await client.callTool({ name: 'bash', arguments: { command: 'touch made.txt' } });
        expect(asked.isError).toBe(true);
        expect(text(asked)).toContain(
          'needs approval (ask mode: exec tools need approval, and no allow rule covers `touch made.txt`), and nobody can approve',
        );
        expect(text(asked)).toContain("or --allow 'bash:touch made.txt*'");
        expect(existsSync(path.join(ctx.work, 'made.txt'))).toBe(false);

        const allowed = await client.callTool({
          name: 'write_file',
          arguments: { path: 'allowed.txt', content: 'via mcp\n' },
        });
        expect(allowed.isError).toBe(false);
        expect(readFileSync(path.join(ctx.work, 'allowed.txt'), 'utf8')).toBe('via mcp\n');
      });
      // A foreign Host header is refused (DNS rebinding).
      expect(await postWithHost(server.url, 'evil.example')).toBe(403);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  it('will not bind a non-loopback address without a token', async () => {
    const child = spawn(process.execPath, [TEA_BIN, 'mcp', 'serve', '--http', '--host', '0.0.0.0'], {
      env: ctx.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err).toContain('serving MCP on 0.0.0.0 (not loopback) needs a token');
  });
});

/** POSTs `{}` with a chosen Host header (fetch will not send one); resolves to the status. */
function postWithHost(url: string, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { host, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        resolve(res.statusCode);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}
