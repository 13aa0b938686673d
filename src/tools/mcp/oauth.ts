/**
 * Tea's side of the SDK's OAuth client (`auth()` in @modelcontextprotocol/sdk does
 * discovery, registration, PKCE, the code exchange and refresh): where the state
 * lives (oauth-store.ts), the loopback redirect (oauth-loopback.ts) and what
 * happens when a login is needed — a browser flow when a face allows one, else
 * LoginRequiredError naming `tea mcp login`.
 */
import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type Loopback, startLoopback } from './oauth-loopback.js';
import { OAuthStore } from './oauth-store.js';
import type { McpOAuthSettings } from './types.js';

/** How a face lets the user log in: it shows (or opens) the authorization URL. */
export interface LoginUi {
  /** Shows the URL to the user (and opens a browser when it may). */
  open(server: string, url: URL): void | Promise<void>;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
}

export const DEFAULT_LOGIN_TIMEOUT_MS = 300_000;

/** The server needs a login and this run cannot do one. */
export class LoginRequiredError extends Error {
  constructor(
    readonly server: string,
    readonly url: string,
  ) {
    super(`MCP server "${server}" (${url}) needs you to log in`);
  }
}

/** The server refused the request (401) and publishes no OAuth metadata. */
export class NoOAuthError extends Error {
  constructor(
    readonly server: string,
    readonly url: string,
  ) {
    super(
      `MCP server "${server}": cannot connect to ${url}: it answered 401 (a bearer token is needed) and offers no OAuth login`,
    );
  }
}

export interface ProviderOptions {
  /** The server's name in the config (for messages). */
  name: string;
  url: string;
  home: string;
  settings: McpOAuthSettings;
  /** Present when this run may do a browser login. */
  ui?: LoginUi;
  clientName?: string;
}

const FALLBACK_REDIRECT = 'http://127.0.0.1/callback';

export class TeaOAuthProvider implements OAuthClientProvider {
  readonly store: OAuthStore;
  private loopback: Loopback | undefined;
  private verifier: string | undefined;
  private flowState: string | undefined;
  /** The code of the pending browser login (set when the authorization URL was shown). */
  private pendingCode: Promise<string> | undefined;
  /** What discovery found in this run. */
  private discovered: OAuthDiscoveryState | undefined;

  constructor(private readonly o: ProviderOptions) {
    this.store = new OAuthStore(o.home, o.url);
  }

  get interactive(): boolean {
    return this.o.ui !== undefined;
  }

  /** True while a browser login waits for its callback. */
  get awaitingLogin(): boolean {
    return this.pendingCode !== undefined;
  }

  /** Starts the loopback redirect server (once per flow). */
  async prepareLogin(): Promise<void> {
    if (!this.o.ui || this.loopback) return;
    const fixed = this.o.settings.callbackPort;
    const remembered = fixed ?? portOf(this.storedClient()?.redirect_uris);
    try {
      this.loopback = await startLoopback(remembered ?? 0);
    } catch (error) {
      if (fixed !== undefined) {
        throw new Error(
          `cannot listen on 127.0.0.1:${fixed} for the login callback: ${(error as Error).message}`,
        );
      }
      this.loopback = await startLoopback(0);
    }
  }

  /** Waits for the browser to come back; resolves with the authorization code. */
  async waitForCode(): Promise<string> {
    const pending = this.pendingCode;
    if (!pending) throw new Error('no login is waiting');
    try {
      return await pending;
    } finally {
      this.pendingCode = undefined;
    }
  }

  /** Stops the loopback server (after the code was exchanged, or when the flow is abandoned). */
  async endLogin(): Promise<void> {
    const loopback = this.loopback;
    this.loopback = undefined;
    this.pendingCode = undefined;
    this.verifier = undefined;
    this.flowState = undefined;
    await loopback?.close();
  }

  get redirectUrl(): string {
    return this.loopback?.redirectUrl ?? this.storedClient()?.redirect_uris?.[0] ?? FALLBACK_REDIRECT;
  }

  get clientMetadataUrl(): string | undefined {
    return this.o.settings.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const metadata: OAuthClientMetadata = {
      client_name: this.o.clientName ?? 'Tea Agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.o.settings.clientSecret ? 'client_secret_basic' : 'none',
    };
    if (this.o.settings.scope) metadata.scope = this.o.settings.scope;
    return metadata;
  }

  state(): string {
    this.flowState = randomBytes(32).toString('base64url');
    return this.flowState;
  }

  private storedClient(): (OAuthClientInformationMixed & { redirect_uris?: string[] }) | undefined {
    try {
      return this.store.read().client as
        | (OAuthClientInformationMixed & { redirect_uris?: string[] })
        | undefined;
    } catch {
      return undefined;
    }
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    // No metadata: a plain bearer-token server, or an older one whose login uses the default
    // endpoints (2025-03-26). Only a login can tell; a run that cannot log in says both.
    const found = this.discovered ?? this.store.read().discovery;
    if (!this.interactive && found && !found.authorizationServerMetadata && !found.resourceMetadata) {
      throw new NoOAuthError(this.o.name, this.o.url);
    }
    const { clientId, clientSecret } = this.o.settings;
    if (clientId)
      return clientSecret ? { client_id: clientId, client_secret: clientSecret } : { client_id: clientId };
    const stored = this.store.read().client;
    // Registering needs a redirect this run can receive.
    if (!stored && !this.interactive) throw new LoginRequiredError(this.o.name, this.o.url);
    return stored;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    if (this.o.settings.clientId) return;
    this.store.update({ client: info });
  }

  tokens(): OAuthTokens | undefined {
    return this.store.read().tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.store.saveTokens(tokens);
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const ui = this.o.ui;
    if (!ui || !this.loopback || !this.flowState) throw new LoginRequiredError(this.o.name, this.o.url);
    // Listen for the callback before the browser can reach it.
    const pending = this.loopback.waitForCode(this.flowState, ui.timeoutMs ?? DEFAULT_LOGIN_TIMEOUT_MS);
    pending.catch(() => undefined);
    this.pendingCode = pending;
    await ui.open(this.o.name, url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no login in progress (no PKCE verifier)');
    return this.verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') this.verifier = undefined;
    // A configured client stays; only what Tea stored is dropped.
    this.store.invalidate(scope === 'all' && this.o.settings.clientId ? 'tokens' : scope);
    if (scope === 'all' && this.o.settings.clientId) this.store.invalidate('discovery');
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.store.read().discovery;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
    // A server without OAuth metadata leaves no file behind.
    if (state.authorizationServerMetadata || state.resourceMetadata) this.store.update({ discovery: state });
  }
}

function portOf(uris: readonly string[] | undefined): number | undefined {
  const first = uris?.[0];
  if (!first) return undefined;
  try {
    const u = new URL(first);
    return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : undefined;
  } catch {
    return undefined;
  }
}
