/** A raw HTTP/1.1 client over node:net, for what fetch cannot do: slow bodies, half requests, lies. */
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: net.Socket;
  /** Everything received so far. */
  received(): string;
  /** Resolves with the next complete response (by content-length) on this connection. */
  response(): Promise<RawResponse>;
  /** Resolves when the server ended or the connection closed: `reset` when it closed with an error. */
  closed: Promise<{ reset: boolean; ended: boolean }>;
  write(data: string | Buffer): Promise<void>;
}

/** Parses one response from the start of `text`, or undefined while incomplete. */
export function parseResponse(text: string): { response: RawResponse; rest: string } | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const bodyStart = end + 4;
  if (Buffer.byteLength(text.slice(bodyStart)) < length) return undefined;
  const body = Buffer.from(text.slice(bodyStart)).subarray(0, length).toString();
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]);
  return { response: { status, headers, body }, rest: text.slice(bodyStart + body.length) };
}

/** Opens a connection to 127.0.0.1:`port` and resolves once it is connected. */
export function connect(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let data = '';
    let offset = 0;
    let waiter: (() => void) | undefined;
    let ended = false;
    let errored = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      waiter?.();
    });
    socket.on('end', () => {
      ended = true;
      waiter?.();
    });
    const closed = new Promise<{ reset: boolean; ended: boolean }>((done) => {
      socket.on('error', () => {
        errored = true;
      });
      socket.on('close', () => {
        waiter?.();
        done({ reset: errored, ended });
      });
    });
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve({
        socket,
        received: () => data,
        closed,
        response: () =>
          new Promise((ok, fail) => {
            const check = (): void => {
              const pending = data.slice(offset);
              const parsed = parseResponse(pending);
              if (parsed) {
                waiter = undefined;
                offset += pending.length - parsed.rest.length;
                ok(parsed.response);
              } else if (socket.destroyed || ended) {
                waiter = undefined;
                fail(new Error(`connection closed before a whole response; received: ${data.slice(0, 300)}`));
              }
            };
            waiter = check;
            check();
          }),
        write: (chunk) =>
          new Promise((ok, fail) => {
            socket.write(chunk, (err) => (err ? fail(err) : ok()));
          }),
      });
    });
  });
}
