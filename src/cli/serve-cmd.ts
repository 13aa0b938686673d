/** `tea serve`: builds the runtime, starts the HTTP server and runs until SIGINT/SIGTERM. */
import { existsSync, readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeDeps } from '../server/agents.js';
import { isLoopback } from '../server/auth.js';
import { startServer } from '../server/server.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { givenMode } from './options.js';
import { cliRuntime } from './runtime.js';
import { upkeepLines } from './upkeep-lines.js';
import { VERSION } from './version.js';

/** Flags of `tea serve`. */
export interface ServeFlags {
  host: string;
  port: number;
  /** read-only | ask | auto-edit | yolo. */
  permissionMode?: string;
  /** The deprecated name of `--permission-mode`. */
  mode?: string;
  yolo?: boolean;
  cors: string[];
  /** Extra Host names (`--allowed-host`), added to `server.allowed_hosts`. */
  allowedHost?: string[];
  reasoningField: string;
  /** Seconds of silence before an event stream gets a keep-alive comment (0: none). */
  keepAlive?: number;
  /** Requests per minute per client address; 0 turns the limit off. */
  rateLimit: number;
  profile?: string;
  cwd?: string;
  sandbox?: SandboxMode;
  /** `--allow` rules and `--add-dir` roots (root options, given before or after `serve`). */
  allow?: string[];
  addDir?: string[];
  /** false (`--no-upkeep`): no hourly upkeep. */
  upkeep?: boolean;
}

/** `dist/web` of this package (works from src/ and from the dist/ bundle), if built. */
function webDir(): string | undefined {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'tea-agent') {
        const web = path.join(dir, 'dist', 'web');
        return existsSync(web) ? web : undefined;
      }
    } catch {
      // not here; look one level up
    }
    dir = path.dirname(dir);
  }
  return undefined;
}

/** A shorter TEA_API_TOKEN is refused on a non-loopback address (and warned about on loopback). */
export const MIN_TOKEN_LENGTH = 16;

/** At most this many of the machine's addresses are listed for a server on all of them. */
const MAX_ADDRESSES = 4;

/** `0.0.0.0`, `::` and the like: every address of the machine. */
function isWildcard(host: string): boolean {
  return ['0.0.0.0', '::', '[::]', ''].includes(host.trim());
}

/** URLs of this machine's network addresses that other machines can open (IPv4 for 0.0.0.0). */
function reachableUrls(host: string, port: number): string[] {
  const v4only = host.trim() === '0.0.0.0';
  const urls: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) {
      if (a.internal || (v4only && a.family !== 'IPv4')) continue;
      // Link-local IPv6 addresses need a zone id a browser does not take.
      if (a.family === 'IPv6' && a.address.toLowerCase().startsWith('fe80:')) continue;
      urls.push(`http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${port}`);
    }
  }
  return urls.slice(0, MAX_ADDRESSES);
}

/**
 * What `tea serve` prints once it listens (on stderr): first `listening on <url>`, the
 * address it bound, which scripts read the port from (`--port 0`); for a server on all
 * addresses, the URLs to open; with a token, how the UI and clients pass it.
 */
export function listeningLines(url: string, host: string, port: number, token: boolean): string[] {
  let where = '';
  let open = url;
  if (isWildcard(host)) {
    const local = `http://127.0.0.1:${port}`;
    const remote = reachableUrls(host, port);
    open = remote[0] ?? local;
    where = remote.length
      ? ` (all interfaces: open ${remote.join(' or ')} from other machines, ${local} on this one)`
      : ` (all interfaces: open ${local} on this machine; it has no other network address now)`;
  }
  const lines = [`listening on ${url}${where}`];
  if (token) {
    lines.push(
      `the web UI and the API need the token in TEA_API_TOKEN: open ${open}/?token=<the token> once ` +
        '(the browser keeps it), or type it when the UI asks; API clients send "Authorization: Bearer <the token>"',
    );
  }
  return lines;
}

export async function runServe(flags: ServeFlags): Promise<number> {
  const host = flags.host;
  const token = process.env.TEA_API_TOKEN?.trim() || undefined;
  if (!isLoopback(host) && !token) {
    throw new UsageError(
      `refusing to listen on ${host} without an API token: set TEA_API_TOKEN to a long random secret (clients send it as "Authorization: Bearer …"), or bind 127.0.0.1`,
    );
  }
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    const weak = `TEA_API_TOKEN is ${token.length} characters long; use a random secret of at least ${MIN_TOKEN_LENGTH} (openssl rand -hex 24)`;
    // Off this machine a short token can be guessed: refused. On loopback, a warning.
    if (!isLoopback(host)) throw new UsageError(`refusing to listen on ${host}: ${weak}`);
    process.stderr.write(`tea serve: warning: ${weak}\n`);
  }
  if (flags.cors.includes('*') && !token) {
    throw new UsageError(
      '--cors * would let every web site drive this server: list the origins you trust (--cors http://localhost:5173), or set TEA_API_TOKEN so that requests need the token',
    );
  }
  const requested = givenMode(flags);
  const rt = await cliRuntime({
    ...(flags.cwd ? { cwd: flags.cwd } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(requested ? { permissionMode: requested } : {}),
    ...(flags.yolo ? { yolo: true } : {}),
    ...(flags.sandbox ? { sandbox: flags.sandbox } : {}),
    ...(flags.allow?.length ? { allow: flags.allow } : {}),
    ...(flags.addDir?.length ? { addDir: flags.addDir } : {}),
    // With no model, rules still work; other prompts get a 503 saying how to configure one.
    modelOptional: () => true,
  });
  const web = webDir();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(
      {
        ...runtimeDeps(rt),
        version: VERSION,
        ...(token ? { token } : {}),
        cors: flags.cors,
        allowedHosts: [...new Set([...rt.config.server.allowedHosts, ...(flags.allowedHost ?? [])])],
        reasoningField: flags.reasoningField,
        ...(flags.keepAlive !== undefined ? { pingIntervalMs: Math.round(flags.keepAlive * 1000) } : {}),
        rateLimit: flags.rateLimit > 0 ? { perMinute: flags.rateLimit } : false,
        ...(web ? { webDir: web } : {}),
      },
      { host, port: flags.port },
    );
  } catch (e) {
    await rt.close();
    const code = (e as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new CliError(
        `port ${flags.port} on ${host} is already in use: pick another with --port (0 = any free port)`,
        EXIT.ERROR,
      );
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
      throw new CliError(`cannot bind ${host}: no such address on this machine`, EXIT.USAGE);
    throw e;
  }
  // A long-running server: WAL checkpoints (copy and fsync) move off the main thread.
  const checkpoints = rt.checkpointInBackground((m) =>
    process.stderr.write(`tea serve: ${m}; checkpoints run on the main thread again\n`),
  );
  // Upkeep every hour (tool statistics, unused user tools and skills, the tools reference).
  const upkeep =
    flags.upkeep === false
      ? undefined
      : await rt.upkeepInBackground({
          onResult: (r) => {
            for (const line of upkeepLines(r)) process.stderr.write(`tea serve: upkeep: ${line}\n`);
          },
          onError: (e) =>
            process.stderr.write(`tea serve: upkeep failed: ${e instanceof Error ? e.message : String(e)}\n`),
        });
  for (const line of listeningLines(server.url, host, server.port, token !== undefined))
    process.stderr.write(`tea serve: ${line}\n`);
  if (!web) process.stderr.write('tea serve: the web UI is not built (dist/web); the API and /docs work\n');
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  process.stderr.write(`tea serve: ${signal}, shutting down\n`);
  await server.close();
  await upkeep?.stop();
  await checkpoints.stop();
  await rt.close();
  return EXIT.OK;
}
