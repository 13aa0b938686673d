/**
 * Test-only: an OAuth-protected MCP server on loopback, built from the SDK's server-side
 * auth helpers (mcpAuthRouter, requireBearerAuth) with a small in-memory provider that
 * approves (or, with `deny`, refuses) every authorization at once, issues one-time codes,
 * access and refresh tokens, and records what it saw. It serves streamable HTTP at /mcp
 * and the legacy HTTP+SSE transport at /sse (+ /messages); `open: true` drops the bearer
 * check (a plain server for the transport tests). Plain JS: express has no types here.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';

export async function startOAuthMcpServer({ deny = false, open = false, noStreamable = false } = {}) {
  const seen = { authorize: [], token: [], requests: [], issued: [], registered: [] };
  const clients = new Map();
  const codes = new Map();
  const access = new Map();
  const refresh = new Map();

  const issue = (clientId, scopes) => {
    const at = `at-${randomUUID()}`;
    const rt = `rt-${randomUUID()}`;
    access.set(at, { clientId, scopes });
    refresh.set(rt, { clientId, scopes });
    seen.issued.push(at);
    return {
      access_token: at,
      token_type: 'bearer',
      expires_in: 3600,
      refresh_token: rt,
      scope: scopes.join(' '),
    };
  };

  const provider = {
    clientsStore: {
      getClient: async (id) => clients.get(id),
      registerClient: async (client) => {
        clients.set(client.client_id, client);
        seen.registered.push(client);
        return client;
      },
    },
    async authorize(client, params, res) {
      seen.authorize.push({
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        state: params.state,
      });
      const target = new URL(params.redirectUri);
      if (params.state !== undefined) target.searchParams.set('state', params.state);
      if (deny) {
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'the user said no');
      } else {
        const code = `code-${randomUUID()}`;
        codes.set(code, { client, params });
        target.searchParams.set('code', code);
      }
      res.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client, code) {
      const entry = codes.get(code);
      if (!entry) throw new InvalidGrantError('unknown or used authorization code');
      return entry.params.codeChallenge;
    },
    async exchangeAuthorizationCode(client, code) {
      seen.token.push({ grant: 'authorization_code', code });
      const entry = codes.get(code);
      if (!entry || entry.client.client_id !== client.client_id) {
        throw new InvalidGrantError('unknown or used authorization code');
      }
      codes.delete(code);
      return issue(client.client_id, entry.params.scopes ?? []);
    },
    async exchangeRefreshToken(client, token) {
      seen.token.push({ grant: 'refresh_token' });
      const entry = refresh.get(token);
      if (!entry || entry.clientId !== client.client_id) throw new InvalidGrantError('unknown refresh token');
      refresh.delete(token);
      return issue(client.client_id, entry.scopes);
    },
    async verifyAccessToken(token) {
      const entry = access.get(token);
      if (!entry) throw new InvalidTokenError('unknown or expired token');
      return {
        token,
        clientId: entry.clientId,
        scopes: entry.scopes,
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
      };
    },
  };

  const mcpServer = (who) => {
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    server.registerTool('whoami', { description: 'Says which client called.' }, async () => ({
      content: [{ type: 'text', text: `client ${who ?? 'anonymous'}` }],
    }));
    return server;
  };

  const app = express();
  const listener = http.createServer(app);
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${listener.address().port}`;
  const mcpUrl = new URL(`${base}/mcp`);
  // One protected resource for both endpoints (/mcp and /sse lie under it).
  const resource = new URL(`${base}/`);
  const noLimit = { rateLimit: false };
  app.use((req, _res, next) => {
    if (!req.path.startsWith('/.well-known')) {
      seen.requests.push({ method: req.method, path: req.path, authorization: req.headers.authorization });
    }
    next();
  });
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: resource,
      authorizationOptions: noLimit,
      clientRegistrationOptions: noLimit,
      tokenOptions: noLimit,
    }),
  );
  const bearer = open
    ? (_req, _res, next) => next()
    : requireBearerAuth({
        verifier: provider,
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(resource),
      });

  if (!noStreamable) {
    app.post('/mcp', bearer, express.json(), async (req, res) => {
      const server = mcpServer(req.auth?.clientId);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    });
    app.get('/mcp', (_req, res) => res.status(405).end());
  }
  const sse = new Map();
  app.get('/sse', bearer, async (req, res) => {
    const transport = new SSEServerTransport('/messages', res);
    sse.set(transport.sessionId, transport);
    res.on('close', () => sse.delete(transport.sessionId));
    await mcpServer(req.auth?.clientId).connect(transport);
  });
  app.post('/messages', bearer, express.json(), async (req, res) => {
    const transport = sse.get(String(req.query.sessionId));
    if (!transport) {
      res.status(404).end();
      return;
    }
    await transport.handlePostMessage(req, res, req.body);
  });

  return {
    base,
    url: mcpUrl.href,
    sseUrl: `${base}/sse`,
    seen,
    /** Forgets every access token (as if they expired); refresh tokens stay valid. */
    expireAccessTokens: () => access.clear(),
    close: async () => {
      for (const t of sse.values()) await t.close().catch(() => undefined);
      listener.closeAllConnections();
      await new Promise((resolve) => listener.close(resolve));
    },
  };
}
