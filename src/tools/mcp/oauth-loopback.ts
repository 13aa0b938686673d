/**
 * The loopback redirect of an OAuth login (RFC 8252): an HTTP server on
 * 127.0.0.1:<port>/callback that lives only for one flow. It answers only GET
 * /callback with the Host it was given, only with the state of the flow, and only
 * once: a forged or second callback is refused and the flow keeps waiting (or is done).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export interface Loopback {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUrl: string;
  /** Resolves with the code of the callback that carries `state`; rejects on `error=`, timeout or close. */
  waitForCode(state: string, timeoutMs: number): Promise<string>;
  close(): Promise<void>;
}

/** The authorization server's answer was an error (`error=` in the callback). */
export class AuthorizationDenied extends Error {}

const page = (title: string, text: string) =>
  `<!doctype html><meta charset="utf-8"><title>${title}</title><body style="font-family:sans-serif"><h1>${title}</h1><p>${text}</p></body>`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Starts the loopback server on `port` (0: any free port). */
export async function startLoopback(port = 0): Promise<Loopback> {
  let expected: { state: string; resolve(code: string): void; reject(e: Error): void } | undefined;
  let done = false;

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (status: number, title: string, text: string) => {
      res.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
      res.end(page(title, escapeHtml(text)));
    };
    const { port: bound } = server.address() as { port: number };
    if (req.headers.host !== `127.0.0.1:${bound}`) {
      send(421, 'Wrong host', 'This login page answers only at 127.0.0.1.');
      return;
    }
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${bound}`);
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      send(404, 'Not found', 'Nothing here.');
      return;
    }
    if (done) {
      send(410, 'Already used', 'This login has finished; a callback is accepted only once.');
      return;
    }
    const hit = {
      state: url.searchParams.get('state'),
      code: url.searchParams.get('code'),
      error: url.searchParams.get('error'),
      description: url.searchParams.get('error_description'),
    };
    if (!expected) {
      send(409, 'Not ready', 'No login is waiting for this callback.');
      return;
    }
    if (hit.state !== expected.state) {
      send(400, 'Login refused', 'The state of this callback does not match the login Tea started.');
      return;
    }
    done = true;
    if (hit.error) {
      const detail = hit.description ? `${hit.error}: ${hit.description}` : hit.error;
      send(400, 'Login refused', `The authorization server said: ${detail}`);
      expected.reject(new AuthorizationDenied(`the authorization server refused the login (${detail})`));
      return;
    }
    if (!hit.code) {
      send(400, 'Login failed', 'The callback carries no code.');
      expected.reject(new AuthorizationDenied('the callback carried no authorization code'));
      return;
    }
    send(200, 'Logged in', 'You can close this tab and return to Tea.');
    expected.resolve(hit.code);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as { port: number };
  let closed = false;

  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    expected?.reject(new Error('the login was stopped'));
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    redirectUrl: `http://127.0.0.1:${bound}/callback`,
    waitForCode(state: string, timeoutMs: number): Promise<string> {
      if (closed) return Promise.reject(new Error('the login was stopped'));
      if (expected) return Promise.reject(new Error('a login is already waiting on this callback'));
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => {
          done = true;
          reject(
            new Error(
              `no login arrived within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`,
            ),
          );
        }, timeoutMs);
        const settle = () => clearTimeout(timer);
        expected = {
          state,
          resolve: (code) => {
            settle();
            resolve(code);
          },
          reject: (e) => {
            settle();
            reject(e);
          },
        };
      });
    },
    close,
  };
}
