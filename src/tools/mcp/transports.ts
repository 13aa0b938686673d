/**
 * Connecting to a remote (`url`) MCP server: streamable HTTP, falling back to the
 * legacy HTTP+SSE transport when the first POST gets a 4xx (the spec's
 * backwards-compatibility procedure), or the one `transport` forces; with the
 * SDK's OAuth client (oauth.ts) unless `oauth: false` or an Authorization header
 * is configured. A browser login that the SDK starts mid-request is finished here:
 * wait for the loopback callback, exchange the code, send the request again.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolError } from '../types.js';
import { errorText, startError } from './errors.js';
import { LoginRequiredError, type LoginUi, NoOAuthError, TeaOAuthProvider } from './oauth.js';
import { AuthorizationDenied } from './oauth-loopback.js';
import { TokenFileError } from './oauth-store.js';
import type { McpHttpServerConfig } from './types.js';

export interface RemoteOptions {
  name: string;
  server: McpHttpServerConfig;
  /** Where OAuth state is kept (`<home>/mcp-auth/`). */
  home: string;
  /** Time limit of the handshake. */
  timeoutMs: number;
  /** Present when this run may do a browser login. */
  login?: LoginUi;
  clientName?: string;
  /** Who configured the server, for the hints of errors. */
  from?: 'config' | 'client';
}

export interface Remote {
  client: Client;
  transport: Transport;
  /** Which transport answered. */
  kind: 'http' | 'sse';
}

/** HTTP statuses of the first POST that mean "an old server: try SSE" (not auth, not rate limits). */
function legacyStatus(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && code >= 400 && code < 500 && ![401, 403, 408, 429].includes(code);
}

function hasAuthorization(headers: Record<string, string> | undefined): boolean {
  return Object.keys(headers ?? {}).some((h) => h.toLowerCase() === 'authorization');
}

/** Connects `newClient()` to the server; see the module comment. Failures are ToolErrors. */
export async function connectRemote(newClient: () => Promise<Client>, o: RemoteOptions): Promise<Remote> {
  try {
    return await connect(newClient, o);
  } catch (error) {
    throw remoteError(o, error);
  }
}

/** A clear error for a failed connection: a needed login names `tea mcp login`. */
function remoteError(o: RemoteOptions, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  if (error instanceof LoginRequiredError) {
    return new ToolError(
      `${error.message}`,
      o.from === 'client'
        ? 'log in to it where the editor configures it'
        : `run \`tea mcp login ${o.name}\` in a terminal, then try again`,
    );
  }
  if (error instanceof NoOAuthError) {
    return new ToolError(
      error.message,
      o.from === 'client'
        ? 'the editor must pass its token in the headers'
        : `if it takes a fixed token, set mcp_servers.${o.name}.headers: { Authorization: "Bearer …" }; if it has an OAuth login, run \`tea mcp login ${o.name}\``,
    );
  }
  if (error instanceof TokenFileError || error instanceof AuthorizationDenied) {
    return new ToolError(`MCP server "${o.name}": ${error.message}`, `run \`tea mcp login ${o.name}\``);
  }
  if ((error as Error | null)?.name === 'UnauthorizedError' || (error as { code?: unknown })?.code === 401) {
    return new ToolError(
      `MCP server "${o.name}" (${o.server.url}) refused the credentials: ${errorText(error)}`,
      o.server.oauth === false
        ? `it asks for a login; remove oauth: false from mcp_servers.${o.name}, or set an Authorization header`
        : `run \`tea mcp login ${o.name}\``,
    );
  }
  const status = (error as { code?: unknown } | null)?.code;
  if (typeof status === 'number' && status >= 400 && status < 600) {
    const forced = o.server.transport === 'http' && legacyStatus(error);
    return new ToolError(
      `MCP server "${o.name}": cannot connect to ${o.server.url}: the server answered HTTP ${status}`,
      forced
        ? `is it an MCP endpoint? Without transport: http, Tea also tries the legacy SSE transport`
        : o.from === 'client'
          ? `check the settings the editor passes for MCP server "${o.name}"`
          : `check mcp_servers.${o.name}.url in your config`,
    );
  }
  return startError(o.name, o.server.url, error, '', o.from);
}

async function connect(newClient: () => Promise<Client>, o: RemoteOptions): Promise<Remote> {
  const { server } = o;
  const url = new URL(server.url);
  const requestInit = server.headers ? { headers: server.headers } : undefined;
  const machine = await machineProvider(o);
  const provider =
    machine || server.oauth === false || hasAuthorization(server.headers)
      ? undefined
      : new TeaOAuthProvider({
          name: o.name,
          url: server.url,
          home: o.home,
          settings: server.oauth ?? {},
          ...(o.login ? { ui: o.login } : {}),
          ...(o.clientName ? { clientName: o.clientName } : {}),
        });
  if (provider) await refreshIfExpired(provider, url);
  const timeout = o.login ? Math.max(o.timeoutMs, o.login.timeoutMs ?? 300_000) : o.timeoutMs;
  // Start the loopback redirect as soon as the server asks for credentials, so the SDK's
  // auth() sees its address.
  const fetchFn = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    if (provider?.interactive && (response.status === 401 || response.status === 403)) {
      await provider.prepareLogin();
    }
    return response;
  };
  const common = {
    ...(requestInit ? { requestInit } : {}),
    ...(provider || machine ? { authProvider: provider ?? machine } : {}),
    fetch: fetchFn,
  };

  try {
    if (server.transport !== 'sse') {
      const { StreamableHTTPClientTransport } = await import(
        '@modelcontextprotocol/sdk/client/streamableHttp.js'
      );
      const transport = new StreamableHTTPClientTransport(url, common);
      if (provider) finishLoginsOn(transport, provider);
      const client = await newClient();
      try {
        await client.connect(transport, { timeout });
        return { client, transport, kind: 'http' };
      } catch (error) {
        await client.close().catch(() => undefined);
        if (server.transport === 'http' || !legacyStatus(error)) throw error;
      }
    }
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js');
    for (let attempt = 0; ; attempt++) {
      const transport = new SSEClientTransport(url, common);
      if (provider) finishLoginsOn(transport, provider);
      const client = await newClient();
      try {
        await client.connect(transport, { timeout });
        return { client, transport, kind: 'sse' };
      } catch (error) {
        await client.close().catch(() => undefined);
        // The stream itself needed a login: an SSE transport cannot be started twice.
        if (attempt > 0 || !(error instanceof UnauthorizedError) || !provider?.awaitingLogin) throw error;
        try {
          await transport.finishAuth(await provider.waitForCode());
        } finally {
          await provider.endLogin();
        }
      }
    }
  } finally {
    if (provider && !provider.awaitingLogin) await provider.endLogin();
  }
}

/**
 * The SDK's providers for `grant: client_credentials` (a machine client: no browser, tokens
 * kept in memory for the run): client_secret_basic, or private_key_jwt with a PEM key file.
 */
async function machineProvider(o: RemoteOptions): Promise<OAuthClientProvider | undefined> {
  const settings = o.server.oauth;
  if (settings === false || settings?.grant !== 'client_credentials') return undefined;
  const { clientId, clientSecret, privateKeyFile, scope } = settings;
  const key = `mcp_servers.${o.name}.oauth`;
  if (!clientId)
    throw new ToolError(`MCP server "${o.name}": grant: client_credentials needs ${key}.client_id`);
  const { ClientCredentialsProvider, PrivateKeyJwtProvider } = await import(
    '@modelcontextprotocol/sdk/client/auth-extensions.js'
  );
  const common = {
    clientId,
    ...(scope ? { scope } : {}),
    ...(o.clientName ? { clientName: o.clientName } : {}),
  };
  if (privateKeyFile) {
    let privateKey: string;
    try {
      privateKey = await readFile(privateKeyFile.replace(/^~(?=\/)/, homedir()), 'utf8');
    } catch (error) {
      throw new ToolError(
        `MCP server "${o.name}": cannot read ${key}.private_key_file ${privateKeyFile}: ${(error as Error).message}`,
      );
    }
    return new PrivateKeyJwtProvider({
      ...common,
      privateKey,
      algorithm: settings.signingAlgorithm ?? 'ES256',
    });
  }
  if (!clientSecret) {
    throw new ToolError(
      `MCP server "${o.name}": grant: client_credentials needs ${key}.client_secret or ${key}.private_key_file`,
    );
  }
  return new ClientCredentialsProvider({ ...common, clientSecret });
}

/** Refreshes an expired access token before connecting (failures are left to the 401 path). */
async function refreshIfExpired(provider: TeaOAuthProvider, url: URL): Promise<void> {
  let tokens: ReturnType<TeaOAuthProvider['tokens']>;
  try {
    tokens = provider.tokens();
  } catch {
    return;
  }
  if (!tokens?.refresh_token || !provider.store.expired()) return;
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  await auth(provider, { serverUrl: url }).catch(() => undefined);
}

type LoginCapable = Transport & { finishAuth(code: string): Promise<void> };

/** Browser logins one message may start before its failure is final (a server that never accepts). */
const MAX_LOGINS_PER_MESSAGE = 2;

/**
 * When a send fails because the SDK started a browser login (a 401 without usable
 * tokens, or a 403 asking for more scope), waits for the callback, exchanges the
 * code and sends the message again — at most MAX_LOGINS_PER_MESSAGE times. The
 * loopback server is closed whichever way the send ends.
 */
function finishLoginsOn(transport: LoginCapable, provider: TeaOAuthProvider): void {
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    for (let logins = 0; ; logins++) {
      try {
        const result = await send(message, options);
        if (!provider.awaitingLogin) await provider.endLogin();
        return result;
      } catch (error) {
        if (!provider.awaitingLogin || logins >= MAX_LOGINS_PER_MESSAGE) {
          await provider.endLogin();
          throw error;
        }
        try {
          await transport.finishAuth(await provider.waitForCode());
        } finally {
          await provider.endLogin();
        }
      }
    }
  };
}
