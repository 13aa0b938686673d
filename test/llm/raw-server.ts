/**
 * A bare HTTP server for the few wire shapes the scripted model server does not
 * produce (a stream that ends cleanly but early, an error inside a stream…).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawServer {
  url: string;
  close(): Promise<void>;
}

export async function startRawServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<RawServer> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
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
