/** Fixtures for the web tool tests: real HTTP servers on 127.0.0.1, temp dirs, a runner. */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { webTools } from '../../src/tools/builtin/web.js';
import type { WebToolOptions } from '../../src/tools/builtin/web-http.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import type { ToolContext } from '../../src/tools/types.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((fn) => fn()));
});

export async function tempDir(prefix = 'tea-web-'): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
}

type Handler = (req: SeenRequest, res: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 (port 0), closed after the test; records every request. */
export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const seen = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      handler(seen, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests };
}

export function webRegistry(opts: WebToolOptions = {}): ToolRegistry {
  const registry = new ToolRegistry();
  registry.registerAll(webTools(opts));
  return registry;
}

let calls = 0;

/** Runs one web tool through the real runner, as the agent loop would. */
export function runWeb(
  name: string,
  args: Record<string, unknown>,
  opts: { tools?: WebToolOptions; cwd?: string; signal?: AbortSignal } = {},
): Promise<ToolRunResult> {
  calls++;
  const ctx: ToolContext = {
    cwd: opts.cwd ?? tmpdir(),
    sessionId: 's1',
    callId: `c${calls}`,
    signal: opts.signal ?? new AbortController().signal,
  };
  return runTool(webRegistry(opts.tools), { type: 'tool-call', id: `call_${calls}`, name, args }, ctx);
}
