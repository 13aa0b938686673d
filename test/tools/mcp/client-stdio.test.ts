/** The MCP client bridge against real stdio servers from npm, as child processes. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager, readToolCache } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callTool, EVERYTHING_JS, FILESYSTEM_JS, tempDir, waitGone } from './peers.js';

describe('server-filesystem over stdio', () => {
  const tmp = tempDir();
  const files = path.join(tmp.dir, 'files');
  const registry = new ToolRegistry();
  let manager: McpManager;

  beforeAll(async () => {
    mkdirSync(path.join(files, 'sub'), { recursive: true });
    writeFileSync(path.join(files, 'hello.txt'), 'hello from a temp file\n');
    manager = await attachMcp(
      registry,
      { fs: { command: process.execPath, args: [FILESYSTEM_JS, files] } },
      { home: path.join(tmp.dir, 'home'), cwd: tmp.dir },
    );
  });
  afterAll(async () => {
    await manager.close();
    tmp.cleanup();
  });

  it('lists the tools, registers them as mcp__fs__* and caches the list', async () => {
    // No cache yet: no tool of the server is registered until it is first used (only
    // the tools for every server's resources and prompts are).
    expect(registry.names().sort()).toEqual(['mcp_prompt', 'mcp_resource']);
    const tools = await manager.refresh('fs');
    const names = tools.map((t) => t.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('list_directory');
    expect(registry.names()).toContain('mcp__fs__list_directory');
    const tool = registry.get('mcp__fs__read_text_file')!;
    expect(tool.category).toBe('mcp');
    expect(tool.approval).toBe('none'); // readOnlyHint
    expect(registry.get('mcp__fs__write_file')!.approval).toBe('exec');
    const spec = registry.specs(['mcp__fs__read_text_file'])[0]!;
    expect(spec.parameters).toMatchObject({ type: 'object', required: ['path'] });
    expect(readToolCache(path.join(tmp.dir, 'home'), 'fs')?.map((t) => t.name)).toEqual(names);
  });

  it('reads a file and lists a directory through the bridge', async () => {
    const read = await callTool(registry, 'mcp__fs__read_text_file', { path: path.join(files, 'hello.txt') });
    expect(read.status).toBe('ok');
    expect(read.output).toContain('hello from a temp file');
    const list = await callTool(registry, 'mcp__fs__list_directory', { path: files });
    expect(list.status).toBe('ok');
    expect(list.output).toContain('[FILE] hello.txt');
    expect(list.output).toContain('[DIR] sub');
  });

  it("passes the server's own refusal back as an [ERROR] result", async () => {
    const outside = await callTool(registry, 'mcp__fs__read_text_file', { path: '/etc/hostname' });
    expect(outside.isError).toBe(true);
    expect(outside.output).toMatch(/^\[ERROR\] .*(denied|outside)/i);
  });
});

describe('server-everything over stdio', () => {
  const tmp = tempDir();
  const home = path.join(tmp.dir, 'home');
  const registry = new ToolRegistry();
  let manager: McpManager;

  beforeAll(async () => {
    manager = await attachMcp(
      registry,
      {
        everything: { command: process.execPath, args: [EVERYTHING_JS, 'stdio'] },
        // The same server with a short per-call limit, for the timeout test only.
        slow: { command: process.execPath, args: [EVERYTHING_JS, 'stdio'], timeoutMs: 300 },
      },
      { home, cwd: tmp.dir },
    );
    await manager.refresh('everything');
  });
  afterAll(async () => {
    await manager.close();
    tmp.cleanup();
  });

  it('echoes', async () => {
    const r = await callTool(registry, 'mcp__everything__echo', { message: 'tea time' });
    expect(r).toMatchObject({ status: 'ok', output: 'Echo: tea time' });
  });

  it('maps an image to an image part and keeps the text around it', async () => {
    const r = await callTool(registry, 'mcp__everything__get-tiny-image', {});
    expect(r.status).toBe('ok');
    expect(r.images).toHaveLength(1);
    expect(r.images![0]!.mediaType).toBe('image/png');
    expect(Buffer.from(r.images![0]!.data!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(r.output).toContain("Here's the image you requested:");
    expect(r.output).toMatch(/\[image image\/png, \d+ bytes\]/);
  });

  it('maps resource links to text naming their URI', async () => {
    const r = await callTool(registry, 'mcp__everything__get-resource-links', { count: 2 });
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/\[resource link\] .*demo:\/\/resource/);
  });

  it('turns an isError result into [ERROR]', async () => {
    const r = await callTool(registry, 'mcp__everything__echo', {});
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^\[ERROR\] .*Invalid arguments for tool echo.*message/);
  });

  it('applies the per-call timeout and stays usable after it', async () => {
    await manager.refresh('slow');
    const r = await callTool(registry, 'mcp__slow__trigger-long-running-operation', {
      duration: 3,
      steps: 1,
    });
    expect(r.isError).toBe(true);
    expect(r.output).toContain('MCP server "slow": trigger-long-running-operation timed out after 0.3s');
    const again = await callTool(registry, 'mcp__slow__echo', { message: 'still here' });
    expect(again.output).toBe('Echo: still here');
  });

  it('restarts a crashed server once, then reports the next crash', async () => {
    const connection = manager.connection('everything');
    const first = connection.pid!;
    expect(first).toBeGreaterThan(0);
    process.kill(first, 'SIGKILL');
    await waitGone(first);
    await until(() => !connection.connected);

    const after = await callTool(registry, 'mcp__everything__echo', { message: 'back' });
    expect(after.output).toBe('Echo: back');
    const second = connection.pid!;
    expect(second).not.toBe(first);

    // After a successful call a new crash earns a new restart...
    process.kill(second, 'SIGKILL');
    await waitGone(second);
    await until(() => !connection.connected);
    await connection.connect();
    const third = connection.pid!;
    expect(third).not.toBe(second);

    // ...but a crash right after a restart (no call has worked since) is reported, not looped on.
    process.kill(third, 'SIGKILL');
    await waitGone(third);
    await until(() => !connection.connected);
    const failed = await callTool(registry, 'mcp__everything__echo', { message: 'no' });
    expect(failed.isError).toBe(true);
    expect(failed.output).toContain(
      '[ERROR] MCP server "everything" crashed again after a restart; not restarting it',
    );
    expect(connection.pid).toBeUndefined();
  });
});

describe('a server that cannot start', () => {
  it('names the server and the command', async () => {
    const tmp = tempDir();
    const registry = new ToolRegistry();
    const manager = await attachMcp(
      registry,
      { ghost: { command: 'tea-no-such-mcp-server', args: ['--stdio'] } },
      { home: path.join(tmp.dir, 'home'), cwd: tmp.dir },
    );
    try {
      const error = await manager.refresh('ghost').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toBe(
        'MCP server "ghost": cannot start command "tea-no-such-mcp-server --stdio": command not found (ENOENT)',
      );
      expect((error as { hint?: string }).hint).toContain('mcp_servers.ghost.command');
    } finally {
      await manager.close();
      tmp.cleanup();
    }
  });

  it('reports a server that exits during start-up, with the end of its stderr', async () => {
    const tmp = tempDir();
    const manager = await attachMcp(
      new ToolRegistry(),
      {
        broken: {
          command: process.execPath,
          args: ['-e', 'console.error("boom: missing API key"); process.exit(3)'],
        },
      },
      { home: path.join(tmp.dir, 'home'), cwd: tmp.dir },
    );
    try {
      const error = (await manager.refresh('broken').catch((e: unknown) => e)) as Error & { hint?: string };
      expect(error.message).toMatch(
        /^MCP server "broken" \(command ".*node.* -e .*"\) exited during start-up$/,
      );
      expect(error.hint).toContain('boom: missing API key');
    } finally {
      await manager.close();
      tmp.cleanup();
    }
  });
});

it('gives up on a server that never answers the handshake, within the start-up limit', async () => {
  const tmp = tempDir();
  const manager = await attachMcp(
    new ToolRegistry(),
    { mute: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] } },
    { home: path.join(tmp.dir, 'home'), cwd: tmp.dir, defaultTimeoutMs: 100, connectTimeoutMs: 150 },
  );
  try {
    const error = (await manager.refresh('mute').catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /^MCP server "mute" \(command ".*"\) did not answer the MCP handshake in time$/,
    );
  } finally {
    await manager.close();
    tmp.cleanup();
  }
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
