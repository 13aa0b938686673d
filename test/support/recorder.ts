/**
 * An HTTP server that records every request on any route (method, path, headers,
 * body) and forwards it to a target, e.g. a scripted model server: it plays the
 * server a hostile repository points Tea at, and shows exactly what reached it.
 */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: string;
}

export interface Recorder {
  url: string;
  requests: Recorded[];
  reset(): void;
  close(): Promise<void>;
}

export async function startRecorder(target: string): Promise<Recorder> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers, body: body.toString() });
      const url = new URL(req.url ?? '/', target);
      const upstream = request(
        url,
        { method: req.method, headers: { ...req.headers, host: url.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    reset: () => {
      requests.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
