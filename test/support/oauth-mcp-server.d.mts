/** Types of oauth-mcp-server.mjs (a test-only OAuth-protected MCP server). */
export interface Seen {
  authorize: Array<{ clientId: string; redirectUri: string; state?: string }>;
  token: Array<{ grant: 'authorization_code' | 'refresh_token'; code?: string }>;
  requests: Array<{ method: string; path: string; authorization?: string }>;
  issued: string[];
  registered: Array<{ client_id: string; redirect_uris: string[] }>;
}

export interface OAuthMcpServer {
  base: string;
  url: string;
  sseUrl: string;
  seen: Seen;
  expireAccessTokens(): void;
  close(): Promise<void>;
}

export function startOAuthMcpServer(opts?: {
  deny?: boolean;
  open?: boolean;
  noStreamable?: boolean;
}): Promise<OAuthMcpServer>;
