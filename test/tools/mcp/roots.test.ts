/**
 * Roots with a real server that uses them: server-filesystem from npm replaces the
 * directories of its arguments with the client's roots — Tea's workspace and the
 * directories added to it — unless the server is configured with `roots: false`.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callTool, FILESYSTEM_JS, tempDir } from './peers.js';

const tmp = tempDir('tea-mcp-roots-');
let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

async function allowedDirs(roots: boolean | undefined, extra: string[] = []): Promise<string> {
  const ws = realpathSync(tmp.dir);
  const own = path.join(ws, 'server-arg');
  mkdirSync(own, { recursive: true });
  const registry = new ToolRegistry();
  manager = await attachMcp(
    registry,
    {
      fs: {
        command: process.execPath,
        args: [FILESYSTEM_JS, own],
        ...(roots === undefined ? {} : { roots }),
      },
    },
    { home: path.join(ws, '.home'), cwd: ws, cache: false, roots: extra },
  );
  await manager.discover();
  // The server swaps in the roots after checking them on disk, a moment after the
  // handshake: ask again (each call a round trip, no timers) until it has.
  let output = '';
  for (let i = 0; i < 50; i++) {
    const r = await callTool(registry, 'mcp__fs__list_allowed_directories', {});
    expect(r.isError, r.output).toBe(false);
    output = r.output;
    if (roots === false || !output.includes('server-arg')) break;
  }
  return output;
}

describe('roots', () => {
  it('a server that asks gets the workspace and the added directories', async () => {
    const extra = path.join(realpathSync(tmp.dir), 'added');
    mkdirSync(extra, { recursive: true });
    const out = await allowedDirs(undefined, [extra]);
    expect(out).toContain(realpathSync(tmp.dir));
    expect(out).toContain(extra);
    expect(out).not.toContain('server-arg');
  });

  it('roots: false leaves the server with the directories of its arguments', async () => {
    const out = await allowedDirs(false);
    expect(out).toContain(path.join(realpathSync(tmp.dir), 'server-arg'));
  });
});
