/** Bridge naming, approval classes, result mapping, the tool-list cache and lazy discovery. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../../src/tools/builtin/index.js';
import { catalogBlock, rankTools } from '../../../src/tools/loading.js';
import { approvalFor, bridgeName, bridgeTool } from '../../../src/tools/mcp/bridge.js';
import { writeToolCache } from '../../../src/tools/mcp/cache.js';
import {
  attachMcp,
  cacheFile,
  type McpToolInfo,
  mapCallResult,
  readToolCache,
} from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { ToolError } from '../../../src/tools/types.js';
import { callTool, EVERYTHING_JS, tempDir } from './peers.js';

const echoInfo: McpToolInfo = {
  name: 'echo',
  description: 'Echoes back the input string',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
  },
  annotations: { readOnlyHint: true },
};

describe('bridge tools', () => {
  it('are named mcp__<server>__<tool>, with unsafe characters replaced and long names hashed', () => {
    expect(bridgeName('everything', 'get-tiny-image')).toBe('mcp__everything__get-tiny-image');
    expect(bridgeName('my.server', 'do it')).toBe('mcp__my_server__do_it');
    const long = bridgeName('server', 'x'.repeat(100));
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(bridgeName('server', 'y'.repeat(100))).not.toBe(long);
  });

  it('take their approval class from annotations and transport, and distrust project servers', () => {
    const write: McpToolInfo = { name: 'w', inputSchema: { type: 'object' } };
    expect(approvalFor(echoInfo, { transport: 'stdio', trusted: true })).toBe('none');
    expect(approvalFor(write, { transport: 'stdio', trusted: true })).toBe('exec');
    expect(approvalFor(write, { transport: 'http', trusted: true })).toBe('network');
    expect(approvalFor(echoInfo, { transport: 'http', trusted: false })).toBe('network');
  });

  it("send the server's JSON schema to the model and pass arguments through unchanged", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const registry = new ToolRegistry();
    registry.register(
      bridgeTool(echoInfo, {
        server: 'srv',
        transport: 'stdio',
        trusted: true,
        timeoutMs: 1000,
        call: async (tool, args) => {
          seen.push({ tool, ...args });
          return { content: [{ type: 'text', text: `got ${String(args.message)}` }] };
        },
      }),
    );
    const [spec] = registry.specs(['mcp__srv__echo']);
    expect(spec).toEqual({
      name: 'mcp__srv__echo',
      description: 'Echoes back the input string (MCP server srv)',
      parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    });
    const r = await callTool(registry, 'mcp__srv__echo', { message: 'hi', extra: [1, 2] });
    expect(r.output).toBe('got hi');
    expect(seen).toEqual([{ tool: 'echo', message: 'hi', extra: [1, 2] }]);
  });
});

describe('mapCallResult', () => {
  it('maps text, images, embedded resources, links and audio', () => {
    const r = mapCallResult(
      {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'A' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'demo://r/1', name: 'Resource 1', description: 'a demo' },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        ],
      },
      'tool x',
    );
    expect(r.output.split('\n')).toEqual([
      'first',
      '[image image/png, 8 bytes]',
      '[resource file:///a.txt (text/plain)]',
      'A',
      '[resource file:///b.bin (binary, 3 bytes; binary content not shown)]',
      '[resource link] Resource 1: demo://r/1 (a demo)',
      '[audio audio/wav, 3 bytes; not shown]',
    ]);
    expect(r.images).toEqual([{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }]);
  });

  it('shows structured content when there is no content, and says when there is nothing', () => {
    expect(mapCallResult({ content: [], structuredContent: { a: 1 } }, 't').output).toBe('{\n  "a": 1\n}');
    expect(mapCallResult({ content: [] }, 't').output).toBe('(no output)');
  });

  it('throws a ToolError for isError and for a malformed result', () => {
    expect(() =>
      mapCallResult({ content: [{ type: 'text', text: 'bad path' }], isError: true }, 't'),
    ).toThrow(new ToolError('bad path'));
    expect(() => mapCallResult({ isError: true }, 'tool y')).toThrow('tool y failed without a message');
    expect(() => mapCallResult('nope', 'tool z')).toThrow('tool z returned a malformed result');
  });
});

describe('the tool-list cache and start-up', () => {
  it('round-trips, drops bad entries and ignores a damaged file', () => {
    const tmp = tempDir();
    try {
      writeToolCache(tmp.dir, 'srv', [echoInfo]);
      expect(readToolCache(tmp.dir, 'srv')).toEqual([echoInfo]);
      writeFileSync(cacheFile(tmp.dir, 'srv'), JSON.stringify({ tools: [{ name: 'ok' }, { nope: 1 }, 'x'] }));
      expect(readToolCache(tmp.dir, 'srv')).toEqual([{ name: 'ok', inputSchema: { type: 'object' } }]);
      writeFileSync(cacheFile(tmp.dir, 'srv'), '{ not json');
      expect(readToolCache(tmp.dir, 'srv')).toBeUndefined();
      expect(readToolCache(tmp.dir, 'missing')).toBeUndefined();
    } finally {
      tmp.cleanup();
    }
  });

  it('registers cached tools without starting any server, and skips disabled servers', async () => {
    const tmp = tempDir();
    try {
      writeToolCache(tmp.dir, 'cached', [echoInfo]);
      writeToolCache(tmp.dir, 'off', [echoInfo]);
      const registry = await createToolRegistry();
      const manager = await attachMcp(
        registry,
        {
          // A command that does not exist: registering from the cache must not run it.
          cached: { command: 'tea-no-such-mcp-server' },
          off: { command: 'tea-no-such-mcp-server', disabled: true },
        },
        { home: tmp.dir },
      );
      expect(registry.has('mcp__cached__echo')).toBe(true);
      expect(registry.has('mcp__off__echo')).toBe(false);
      expect(manager.connection('cached').connected).toBe(false);
      expect(catalogBlock(registry)).toContain(' mcp__cached__echo');
      expect(rankTools(registry, 'echo the input string').map((t) => t.name)).toContain('mcp__cached__echo');
      // Calling it is when the server starts; here that fails clearly.
      const r = await callTool(registry, 'mcp__cached__echo', { message: 'x' });
      expect(r.output).toContain(
        '[ERROR] MCP server "cached": cannot start command "tea-no-such-mcp-server"',
      );
      await manager.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('lets tool_search connect a server with no cache, register its tools and cache them', async () => {
    const tmp = tempDir();
    try {
      const registry = await createToolRegistry();
      const warnings: string[] = [];
      const manager = await attachMcp(
        registry,
        {
          everything: { command: process.execPath, args: [EVERYTHING_JS, 'stdio'] },
          ghost: { command: 'tea-no-such-mcp-server' },
        },
        { home: tmp.dir, warn: (m) => warnings.push(m) },
      );
      expect(registry.names().some((n) => n.startsWith('mcp__'))).toBe(false);
      const r = await callTool(registry, 'tool_search', { query: 'echo back the input string' });
      expect(r.status).toBe('ok');
      expect(r.output).toContain('mcp__everything__echo (mcp)');
      expect(readToolCache(tmp.dir, 'everything')?.some((t) => t.name === 'echo')).toBe(true);
      expect(warnings).toEqual([expect.stringContaining('MCP server "ghost": cannot start')]);
      // Discovery happens once: a second search does not try the broken server again.
      await callTool(registry, 'tool_search', { query: 'echo' });
      expect(warnings).toHaveLength(1);
      await manager.close();
    } finally {
      tmp.cleanup();
    }
  });

  it('follows the live tool list: new tools are added, vanished ones removed', async () => {
    const tmp = tempDir();
    try {
      mkdirSync(path.join(tmp.dir, 'mcp'));
      writeToolCache(tmp.dir, 'everything', [{ name: 'gone-tool', inputSchema: { type: 'object' } }]);
      const registry = new ToolRegistry();
      const manager = await attachMcp(
        registry,
        { everything: { command: process.execPath, args: [EVERYTHING_JS, 'stdio'] } },
        { home: tmp.dir },
      );
      // The cached bridge tool, and the two tools for resources and prompts.
      expect(registry.names().sort()).toEqual(['mcp__everything__gone-tool', 'mcp_prompt', 'mcp_resource']);
      const r = await callTool(registry, 'mcp__everything__gone-tool', {});
      expect(r.isError).toBe(true);
      expect(registry.has('mcp__everything__gone-tool')).toBe(false);
      expect(registry.has('mcp__everything__echo')).toBe(true);
      await manager.close();
    } finally {
      tmp.cleanup();
    }
  });
});
