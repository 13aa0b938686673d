/**
 * Roots with a real server that uses them: server-filesystem from npm replaces the
 * directories of its arguments with the client's roots — Tea's workspace and the
 * directories added to it. So Tea offers roots only where that is what the user meant:
 * `roots: true`, or a server whose arguments name no directory; `roots: false` never.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { attachMcp, type McpManager } from '../../../src/tools/mcp/index.js';
import { argsNameDirectory, offersRoots } from '../../../src/tools/mcp/roots.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { callTool, FILESYSTEM_JS, tempDir } from './peers.js';

const tmp = tempDir('tea-mcp-roots-');
let manager: McpManager | undefined;
afterEach(async () => {
  await manager?.close();
  manager = undefined;
});

/** What the server says it may use, once it has settled (it takes roots a moment after the handshake). */
async function allowedDirs(
  roots: boolean | undefined,
  opts: { extra?: string[]; ownDir?: boolean } = {},
): Promise<string> {
  const ws = realpathSync(tmp.dir);
  const own = path.join(ws, 'server-arg');
  mkdirSync(own, { recursive: true });
  const registry = new ToolRegistry();
  manager = await attachMcp(
    registry,
    {
      fs: {
        command: process.execPath,
        args: opts.ownDir === false ? [FILESYSTEM_JS] : [FILESYSTEM_JS, own],
        ...(roots === undefined ? {} : { roots }),
      },
    },
    { home: path.join(ws, '.home'), cwd: ws, cache: false, roots: opts.extra ?? [] },
  );
  await manager.discover();
  const expectsRoots = roots === true || opts.ownDir === false;
  // Ask again (each call a round trip, no timers) until the roots have replaced the argument.
  let output = '';
  for (let i = 0; i < 50; i++) {
    const r = await callTool(registry, 'mcp__fs__list_allowed_directories', {});
    expect(r.isError, r.output).toBe(false);
    output = r.output;
    if (!expectsRoots || !output.includes('server-arg')) break;
  }
  return output;
}

describe('roots with server-filesystem', () => {
  it('a server whose arguments name a directory keeps it (the README example: ~/notes)', async () => {
    const out = await allowedDirs(undefined);
    const lines = out.split('\n').map((l) => l.trim());
    expect(lines).toContain(path.join(realpathSync(tmp.dir), 'server-arg'));
    expect(lines).not.toContain(realpathSync(tmp.dir));
  });

  it('a server started without directories gets the workspace and the added directories', async () => {
    const extra = path.join(realpathSync(tmp.dir), 'added');
    mkdirSync(extra, { recursive: true });
    const out = await allowedDirs(undefined, { ownDir: false, extra: [extra] });
    expect(out).toContain(realpathSync(tmp.dir));
    expect(out).toContain(extra);
  });

  it('roots: true replaces the directories of its arguments with the roots', async () => {
    const out = await allowedDirs(true);
    expect(out).toContain(realpathSync(tmp.dir));
    expect(out).not.toContain('server-arg');
  });

  it('roots: false leaves the server with the directories of its arguments', async () => {
    const out = await allowedDirs(false);
    expect(out).toContain(path.join(realpathSync(tmp.dir), 'server-arg'));
  });
});

describe('which arguments name a directory', () => {
  const ws = () => realpathSync(tmp.dir);
  const home = () => path.join(ws(), 'home');
  const setup = () => {
    mkdirSync(path.join(home(), 'notes'), { recursive: true });
    mkdirSync(path.join(ws(), 'docs', 'sub'), { recursive: true });
    writeFileSync(path.join(ws(), 'file.txt'), 'x');
  };
  const cases: Array<[string[], boolean]> = [
    [['-y', '@modelcontextprotocol/server-filesystem', '~/notes'], true],
    [['-y', '@modelcontextprotocol/server-filesystem', '.'], true],
    [['server.js', 'docs'], true],
    [['server.js', './docs/sub'], true],
    [['server.js', '--root=docs'], true],
    [['server.js', '--root', 'docs'], true],
    [['-y', '@modelcontextprotocol/server-filesystem'], false],
    [['server.js', 'file.txt'], false],
    [['server.js', '~/missing'], false],
    [['server.js', '--root='], false],
    [['server.js', '--verbose', 'stdio'], false],
    [[], false],
  ];
  it.each(cases)('%j → %s', async (args, expected) => {
    setup();
    expect(await argsNameDirectory(args, ws(), home())).toBe(expected);
  });

  it('config decides first; servers an editor passed get none; remote servers get them', async () => {
    setup();
    const stdio = { command: 'npx', args: ['-y', 'pkg', '~/notes'] };
    expect(await offersRoots(stdio, ws(), home())).toBe(false);
    expect(await offersRoots({ ...stdio, roots: true }, ws(), home())).toBe(true);
    expect(await offersRoots({ command: 'npx', args: ['-y', 'pkg'] }, ws(), home())).toBe(true);
    expect(await offersRoots({ command: 'npx', args: ['-y', 'pkg'], from: 'client' }, ws(), home())).toBe(
      false,
    );
    expect(await offersRoots({ command: 'npx', roots: false }, ws(), home())).toBe(false);
    expect(await offersRoots({ url: 'https://mcp.example.com/mcp' }, ws(), home())).toBe(true);
  });
});
