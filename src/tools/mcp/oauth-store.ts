/**
 * OAuth state of remote MCP servers, one file per server URL in `<home>/mcp-auth/`:
 * the registered client, the tokens and the discovery result. Files are written
 * with mode 0600 in a 0700 directory; a file other users could read is refused
 * (not used, never repaired silently). Nothing here ever logs a token.
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface StoredTokens extends OAuthTokens {
  /** When the access token expires (ms since the epoch), from `expires_in` at saving time. */
  expires_at?: number;
}

export interface StoredAuth {
  /** The server URL the file belongs to (its name is this URL's hash). */
  url: string;
  client?: OAuthClientInformationMixed;
  tokens?: StoredTokens;
  discovery?: OAuthDiscoveryState;
  savedAt?: string;
}

/** A token file that is not safe to use. */
export class TokenFileError extends Error {}

/** The key of a server URL: scheme, host, port and path (no query, no fragment, no credentials). */
export function serverKey(url: string | URL): string {
  const u = new URL(String(url));
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export function authDir(home: string): string {
  return path.join(home, 'mcp-auth');
}

export function authFile(home: string, url: string | URL): string {
  const hash = createHash('sha256').update(serverKey(url)).digest('hex').slice(0, 32);
  return path.join(authDir(home), `${hash}.json`);
}

export class OAuthStore {
  readonly file: string;
  private readonly key: string;

  constructor(home: string, url: string | URL) {
    this.key = serverKey(url);
    this.file = authFile(home, url);
  }

  /** The stored state; empty when there is none. Throws TokenFileError when the file is unsafe. */
  read(): StoredAuth {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(this.file);
    } catch {
      return { url: this.key };
    }
    if ((stat.mode & 0o077) !== 0) {
      throw new TokenFileError(
        `the OAuth token file ${this.file} can be read by other users (mode ${(stat.mode & 0o777).toString(8)}), so it was not used; delete it and log in again`,
      );
    }
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) {
      throw new TokenFileError(
        `the OAuth token file ${this.file} belongs to another user, so it was not used`,
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, 'utf8'));
    } catch {
      return { url: this.key };
    }
    if (typeof parsed !== 'object' || parsed === null) return { url: this.key };
    const stored = parsed as StoredAuth;
    // A file copied from another server's name is not this server's.
    if (stored.url !== this.key) return { url: this.key };
    return stored;
  }

  /** Replaces some fields and writes the file (0600, written beside and renamed). */
  update(change: Partial<Omit<StoredAuth, 'url'>>): void {
    const next: StoredAuth = { ...this.read(), ...change, url: this.key, savedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(change)) if (v === undefined) delete next[k as keyof StoredAuth];
    const dir = path.dirname(this.file);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }

  saveTokens(tokens: OAuthTokens): void {
    const stored: StoredTokens = { ...tokens };
    if (typeof tokens.expires_in === 'number') stored.expires_at = Date.now() + tokens.expires_in * 1000;
    this.update({ tokens: stored });
  }

  /** True when the stored access token has expired (or expires within `marginMs`). */
  expired(marginMs = 30_000): boolean {
    const at = this.read().tokens?.expires_at;
    return at !== undefined && at - marginMs <= Date.now();
  }

  /** Forgets what the SDK says is no longer valid. */
  invalidate(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') return;
    if (scope === 'all') {
      this.remove();
      return;
    }
    this.update(
      scope === 'client'
        ? { client: undefined }
        : scope === 'tokens'
          ? { tokens: undefined }
          : { discovery: undefined },
    );
  }

  /** Deletes the file; true when there was one. */
  remove(): boolean {
    try {
      statSync(this.file);
    } catch {
      return false;
    }
    rmSync(this.file, { force: true });
    return true;
  }
}
