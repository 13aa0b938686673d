/** Tea's MCP server in-process, used by Tea's own MCP client: headers, tokens, images, policy. */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { type HttpServeHandle, serveHttp } from '../../../src/tools/mcp/serve-http.js';
import { PermissionPolicy } from '../../../src/tools/permissions.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { defineTool } from '../../../src/tools/types.js';
import { callTool, tempDir } from './peers.js';

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function served(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'snapshot',
      description: 'Returns a caption and a one-pixel image.',
      parameters: z.object({ caption: z.string() }),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      async execute(args) {
        return { output: args.caption, images: [{ type: 'image', mediaType: 'image/png', data: PIXEL }] };
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'launch',
      description: 'Pretends to run a command.',
      parameters: z.object({ command: z.string() }),
      category: 'test',
      readOnly: false,
      concurrencySafe: false,
      approval: 'exec',
      subject: (args) => args.command,
      async execute(args) {
        return `ran ${args.command}`;
      },
    }),
  );
  registry.register(
    defineTool({
      name: 'ask_user',
      description: 'Needs a session.',
      parameters: z.object({}),
      category: 'interaction',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      async execute() {
        return 'never';
      },
    }),
  );
  return registry;
}

describe('Tea serving Tea over streamable HTTP', () => {
  const tmp = tempDir();
  const registry = new ToolRegistry();
  let server: HttpServeHandle;
  let manager: McpManager;

  beforeAll(async () => {
    server = await serveHttp({
      registry: served(),
      cwd: tmp.dir,
      policy: new PermissionPolicy('auto-edit', [{ tool: 'launch', pattern: 'echo *', action: 'allow' }]),
      token: 'secret-token',
    });
    manager = await attachMcp(
      registry,
      {
        tea: { url: server.url, headers: { Authorization: 'Bearer secret-token' } },
        anon: { url: server.url },
      },
      { home: path.join(tmp.dir, 'home') },
    );
    await manager.refresh('tea');
  });
  afterAll(async () => {
    await manager.close();
    await server.close();
    tmp.cleanup();
  });

  it('offers the tools that work without a session, with annotations the bridge reads', () => {
    expect(manager.toolNames('tea').sort()).toEqual(['mcp__tea__launch', 'mcp__tea__snapshot']);
    expect(registry.get('mcp__tea__snapshot')!.approval).toBe('none');
    expect(registry.get('mcp__tea__launch')!.approval).toBe('network');
  });

  it('carries images both ways', async () => {
    const r = await callTool(registry, 'mcp__tea__snapshot', { caption: 'a pixel' });
    expect(r.output.split('\n')[0]).toBe('a pixel');
    expect(r.images).toEqual([{ type: 'image', mediaType: 'image/png', data: PIXEL }]);
  });

  it('runs what the policy allows and refuses what it would ask about', async () => {
    const ok = await callTool(registry, 'mcp__tea__launch', { command: 'echo hi' });
    expect(ok.output).toBe('ran echo hi');
    const refused = await callTool(registry, 'mcp__tea__launch', { command: 'rm -rf /' });
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain(
      '[DENIED] launch (rm -rf /) needs approval (auto-edit mode: exec tools need approval), and nobody can approve calls made over MCP.',
    );
  });

  it('rejects a client without the bearer token', async () => {
    const error = (await manager.refresh('anon').catch((e: unknown) => e)) as Error;
    expect(error.message).toContain(`MCP server "anon": cannot connect to ${server.url}`);
    expect(error.message).toMatch(/401|bearer token/i);
  });
});
