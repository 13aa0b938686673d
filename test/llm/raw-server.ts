/**
 * A bare HTTP server for the few wire shapes the scripted model server does not
 * produce (a stream that ends cleanly but early, an error inside a stream…). It
 * counts TCP connections, so tests can tell whether the client reused one.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawServer {
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** Calls `handle` once each request body has arrived, with that body as text. */
export async function startRawServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<RawServer> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Answers with the given SSE events (each a full `data: …\n\n` block), then ends. */
export function sseResponse(res: ServerResponse, events: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const e of events) res.write(e);
  res.end();
}

/** Resolves when the server side of `res` closes (the client went away or the answer ended). */
export function closed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    if (res.closed) resolve();
    else res.once('close', () => resolve());
  });
}
