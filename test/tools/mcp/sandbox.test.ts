/** An MCP stdio server that opts in (`sandbox`) runs in bubblewrap; one that does not, as it is. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { Sandbox } from '../../../src/tools/sandbox/index.js';
import { FAKE_KEY, makeFakeHome, ON_LINUX, outsideTmp, requireBwrap } from '../sandbox-helpers.js';
import { callTool, FILESYSTEM_JS, tempDir } from './peers.js';

describe.runIf(ON_LINUX)('MCP stdio servers and the sandbox', () => {
  const fx = outsideTmp('tea-mcp-sbx-');
  const home = makeFakeHome(fx.dir);
  const tmp = tempDir('tea-mcp-ws-');
  const ws = tmp.dir;
  const registry = new ToolRegistry();
  let manager: McpManager;

  beforeAll(async () => {
    requireBwrap();
    const fs = (sandbox?: { network: boolean }) => ({
      command: process.execPath,
      args: [FILESYSTEM_JS, ws, home],
      // The server keeps the directories of its arguments (roots would narrow them to the workspace).
      roots: false,
      ...(sandbox ? { sandbox } : {}),
    });
    manager = await attachMcp(
      registry,
      { boxed: fs({ network: false }), plain: fs() },
      { home: path.join(ws, '.cache-home'), cwd: ws, sandbox: new Sandbox({ mode: 'on', homes: [home] }) },
    );
    await manager.discover();
  });
  afterAll(async () => {
    await manager.close();
    tmp.cleanup();
    fx.cleanup();
  });

  it('the opted-in server cannot read hidden credentials or write outside the workspace', async () => {
    const read = await callTool(registry, 'mcp__boxed__read_text_file', {
      path: path.join(home, '.ssh', 'id_rsa'),
    });
    expect(read.isError).toBe(true);
    expect(read.output).toMatch(/ENOENT|no such file/i);
    expect(read.output).not.toContain('fake-key-material');
    const outside = await callTool(registry, 'mcp__boxed__write_file', {
      path: path.join(home, 'dropped.txt'),
      content: 'x',
    });
    expect(outside.isError).toBe(true);
    expect(outside.output).toMatch(/read-only file system|EROFS/i);
    expect(existsSync(path.join(home, 'dropped.txt'))).toBe(false);
    const inside = await callTool(registry, 'mcp__boxed__write_file', {
      path: path.join(ws, 'ok.txt'),
      content: 'ok',
    });
    expect(inside.isError).toBe(false);
    expect(readFileSync(path.join(ws, 'ok.txt'), 'utf8')).toBe('ok');
  });

  it('a server that does not opt in runs unsandboxed', async () => {
    const read = await callTool(registry, 'mcp__plain__read_text_file', {
      path: path.join(home, '.ssh', 'id_rsa'),
    });
    expect(read.output).toContain(FAKE_KEY.trim().split('\n')[1]);
    const outside = await callTool(registry, 'mcp__plain__write_file', {
      path: path.join(home, 'dropped.txt'),
      content: 'x',
    });
    expect(outside.isError).toBe(false);
    expect(existsSync(path.join(home, 'dropped.txt'))).toBe(true);
  });
});
