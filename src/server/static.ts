/**
 * The built web UI from `dist/web/`: files with their content types, `index.html`
 * for unknown non-API GET paths (client-side routes), and never a file outside the folder.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

export function contentType(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** True for paths the API owns (never answered with index.html). */
export function isApiPath(p: string): boolean {
  return p.startsWith('/v1/') || p === '/v1' || p === '/health' || p === '/openapi.json' || p === '/docs';
}

/** The real file for a URL path inside `root`, or undefined (missing, a directory, or outside). */
async function resolveInside(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const candidate = path.resolve(root, `.${path.posix.normalize(`/${decoded}`)}`);
  if (candidate !== root && !candidate.startsWith(root + path.sep)) return undefined;
  try {
    const real = await realpath(candidate);
    if (real !== root && !real.startsWith(root + path.sep)) return undefined; // a symlink pointing out
    return (await stat(real)).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

async function send(c: Context, file: string): Promise<Response> {
  const data = await readFile(file);
  c.header('content-type', contentType(file));
  c.header('x-content-type-options', 'nosniff');
  c.header('cache-control', file.endsWith('index.html') ? 'no-cache' : 'public, max-age=300');
  return c.body(new Uint8Array(data));
}

/** Serves `webDir` for GET/HEAD requests that no API route took. */
export function staticRoutes(app: Hono, webDir: string): void {
  let root: string | undefined;
  const rootDir = async (): Promise<string | undefined> => {
    if (root) return root;
    try {
      root = await realpath(path.resolve(webDir));
      return root;
    } catch {
      return undefined;
    }
  };
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    if (isApiPath(c.req.path)) return next();
    const dir = await rootDir();
    if (!dir) return next();
    const urlPath = c.req.path === '/' ? '/index.html' : c.req.path;
    const file = await resolveInside(dir, urlPath);
    if (file) return send(c, file);
    // Client-side routes get the app; a missing asset (with an extension) is a 404.
    if (path.extname(urlPath) !== '') return next();
    const index = await resolveInside(dir, '/index.html');
    return index ? send(c, index) : next();
  });
}
