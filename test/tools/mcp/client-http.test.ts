/** The MCP client bridge against server-everything over streamable HTTP on a loopback port. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callTool, freePort, startEverythingHttp, tempDir } from './peers.js';

describe('server-everything over streamable HTTP', () => {
  const tmp = tempDir();
  const registry = new ToolRegistry();
  let manager: McpManager;
  let peer: Awaited<ReturnType<typeof startEverythingHttp>>;

  beforeAll(async () => {
    peer = await startEverythingHttp();
    manager = await attachMcp(
      registry,
      {
        everything: { url: peer.url, headers: { 'X-Test': 'tea' } },
        // The same server with a short per-call limit, for the timeout test only.
        slow: { url: peer.url, timeoutMs: 300 },
      },
      { home: path.join(tmp.dir, 'home'), cwd: tmp.dir },
    );
    await manager.refresh('everything');
  });
  afterAll(async () => {
    await manager.close();
    peer.stop();
    tmp.cleanup();
  });

  it('registers the tools; write-capable ones need network approval', () => {
    expect(registry.get('mcp__everything__echo')!.approval).toBe('none');
    expect(registry.get('mcp__everything__toggle-simulated-logging')!.approval).toBe('network');
  });

  it('echoes', async () => {
    const r = await callTool(registry, 'mcp__everything__echo', { message: 'over http' });
    expect(r).toMatchObject({ status: 'ok', output: 'Echo: over http' });
  });

  it('returns an image part', async () => {
    const r = await callTool(registry, 'mcp__everything__get-tiny-image', {});
    expect(r.images?.[0]).toMatchObject({ type: 'image', mediaType: 'image/png' });
  });

  it('maps a tool error to [ERROR]', async () => {
    const r = await callTool(registry, 'mcp__everything__get-sum', { a: 'one', b: 2 });
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^\[ERROR\] .*Invalid arguments for tool get-sum/);
  });

  it('times out a slow call', async () => {
    await manager.refresh('slow');
    const r = await callTool(registry, 'mcp__slow__trigger-long-running-operation', {
      duration: 2,
      steps: 1,
    });
    expect(r.output).toContain('timed out after 0.3s');
  });
});

it('an unreachable HTTP server is a clear error naming the server and URL', async () => {
  const tmp = tempDir();
  const url = `http://127.0.0.1:${await freePort()}/mcp`;
  const manager = await attachMcp(
    new ToolRegistry(),
    { remote: { url } },
    { home: path.join(tmp.dir, 'home'), cwd: tmp.dir },
  );
  try {
    const error = (await manager.refresh('remote').catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`MCP server "remote": cannot connect to ${url}`);
    expect(error.message).toContain('ECONNREFUSED');
  } finally {
    await manager.close();
    tmp.cleanup();
  }
});
