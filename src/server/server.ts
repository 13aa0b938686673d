/** Starts the app on a real HTTP server; `close()` cancels running turns and stops listening. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { createTeaApp, type TeaApp } from './app.js';
import type { ServerDeps } from './types.js';

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  tea: TeaApp;
  close(): Promise<void>;
}

export async function startServer(
  deps: ServerDeps,
  opts: { host: string; port: number },
): Promise<RunningServer> {
  const tea = createTeaApp(deps);
  const server = createAdaptorServer({ fetch: tea.app.fetch }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of a thousand clients must not be reset.
    server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}`,
    host: opts.host,
    port,
    tea,
    async close() {
      await tea.live.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
