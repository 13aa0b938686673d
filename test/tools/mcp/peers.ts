/** Real MCP servers from npm, started with this Node (not through PATH). */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const MODULES = path.resolve(import.meta.dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol');
export const FILESYSTEM_JS = path.join(MODULES, 'server-filesystem', 'dist', 'index.js');
export const EVERYTHING_JS = path.join(MODULES, 'server-everything', 'dist', 'index.js');

export function tempDir(prefix = 'tea-mcp-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A port that was free a moment ago (server-everything cannot listen on port 0 and tell
 * us). It is drawn below Linux's ephemeral range (32768+), so a server another test
 * opens on port 0 cannot be handed the same port between our check and the spawn.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      // The wildcard address, as server-everything binds it.
      server.listen(port, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error('no free port found between 20000 and 32000');
}

/** Starts server-everything over streamable HTTP and waits until it listens. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; stop(): void }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING_JS, 'streamableHttp'], {
    env: { PATH: process.env.PATH, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server-everything did not start: ${err}`)), 10_000);
    child.stderr?.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}): ${err}`));
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child, stop: () => child.kill('SIGKILL') };
}

/** Resolves once no process has this pid any more. */
export async function waitGone(pid: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`process ${pid} is still alive`);
}

/** Runs one registered tool the way the agent does (validation, time limit, error mapping). */
export async function callTool(
  registry: import('../../../src/tools/registry.js').ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  cwd = process.cwd(),
) {
  const { runTool } = await import('../../../src/tools/run.js');
  return runTool(
    registry,
    { type: 'tool-call', id: `call-${name}`, name, args },
    { cwd, sessionId: 'test', callId: `call-${name}`, signal: new AbortController().signal },
  );
}
