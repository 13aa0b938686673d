/** Hints for keys below `mcp_servers` (what a value should be, and how to fix it). */

/** What a value should be, and how to fix it (hints.ts re-exports it). */
export interface Hint {
  expected: string;
  fix: string;
}

const MCP_EXAMPLE =
  'e.g. `mcp_servers: { fs: { command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", /tmp] } }` or `{ docs: { url: "http://127.0.0.1:3001/mcp" } }`';
const MCP_ENTRY: Hint = {
  expected:
    'a server with either `command` (stdio; with args, env, cwd) or `url` (streamable HTTP; with headers), not both',
  fix: `keep exactly one of command and url, ${MCP_EXAMPLE}.`,
};
/** Keys of one `mcp_servers` entry. */
const MCP_KEYS: Record<string, Hint> = {
  roots: {
    expected: 'true or false',
    fix: 'use `roots: true` to offer the server the workspace as its roots, `roots: false` to never (default: offered unless its args name a directory).',
  },
  command: {
    expected: 'the program that starts a stdio MCP server',
    fix: 'e.g. `command: npx` (put its arguments in `args`), or use `url` for an HTTP server.',
  },
  args: {
    expected: 'a list of strings, only with `command` (stdio servers)',
    fix: 'e.g. `args: [-y, "@modelcontextprotocol/server-filesystem", /tmp]`; a `url` server takes no args.',
  },
  env: {
    expected: 'a mapping of variable names to values, only with `command` (stdio servers)',
    fix: 'e.g. `env: { API_TOKEN: "…" }`; a `url` server takes `headers` instead.',
  },
  cwd: {
    expected: 'a directory, only with `command` (stdio servers)',
    fix: 'e.g. `cwd: ./tools` (relative to the workspace), or remove it.',
  },
  url: {
    expected: 'an http(s) URL of a streamable HTTP MCP endpoint',
    fix: 'e.g. `url: "http://127.0.0.1:3001/mcp"`, or use `command` for a stdio server.',
  },
  headers: {
    expected: 'a mapping of header names to string values, only with `url` (HTTP servers)',
    fix: 'e.g. `headers: { Authorization: "Bearer …" }`; a stdio server takes `env` instead.',
  },
  timeout_s: {
    expected: 'a positive number of seconds',
    fix: 'set the time limit of one tool call, e.g. 60.',
  },
  disabled: { expected: 'true or false', fix: 'e.g. `disabled: true` to keep the entry but not use it.' },
  sandbox: {
    expected: 'true, false or `{ network: true | false }`, only with `command` (stdio servers)',
    fix: 'e.g. `sandbox: true` to run the server in the shell sandbox (no network), or `sandbox: { network: true }`.',
  },
  transport: {
    expected: '`http` or `sse`, only with `url`',
    fix: 'e.g. `transport: sse` for a server that speaks only the legacy SSE transport; leave it out to try streamable HTTP first.',
  },
  oauth: {
    expected:
      'false, or a mapping with client_id, client_secret, client_metadata_url, scope, callback_port, grant, private_key_file, signing_algorithm (only with `url`)',
    fix: 'e.g. `oauth: { client_id: my-app, callback_port: 33418 }`, or `oauth: false` to never log in.',
  },
  client_id: {
    expected: 'a client id registered with the authorization server',
    fix: 'e.g. `client_id: my-app`.',
  },
  client_secret: { expected: 'a string', fix: 'the secret of client_id, if it has one.' },
  client_metadata_url: {
    expected: 'an https URL with a path (a client metadata document)',
    fix: 'e.g. `client_metadata_url: "https://example.com/tea/client.json"`.',
  },
  scope: { expected: 'a space-separated list of scopes', fix: 'e.g. `scope: "read write"`.' },
  callback_port: {
    expected: 'a port, 1-65535',
    fix: 'the port of the redirect URI registered for client_id, e.g. `callback_port: 33418`.',
  },
  grant: {
    expected:
      '`authorization_code` (a browser login, the default) or `client_credentials` (a machine client)',
    fix: 'e.g. `oauth: { grant: client_credentials, client_id: my-bot, client_secret: "…" }`.',
  },
  private_key_file: {
    expected: 'the path of a PEM private key (private_key_jwt client authentication)',
    fix: 'e.g. `private_key_file: ~/.tea/keys/mcp-bot.pem` with `grant: client_credentials`.',
  },
  signing_algorithm: {
    expected: 'a JWS algorithm',
    fix: 'e.g. `signing_algorithm: ES256` (the default) or `RS256`.',
  },
  network: {
    expected: 'true or false',
    fix: 'e.g. `sandbox: { network: true }` to let the sandboxed server use the network.',
  },
};

/** Hints below `mcp_servers` (server names may hold dots, so match by the last key). */
export function mcpHint(genericPath: string, leafKey: string | undefined): Hint | undefined {
  if (genericPath === 'mcp_servers') {
    return { expected: 'a mapping of server names to servers', fix: `${MCP_EXAMPLE}.` };
  }
  if (genericPath.endsWith('headers.*')) {
    return { expected: 'a string', fix: 'quote the header value, e.g. `Authorization: "Bearer …"`.' };
  }
  if (leafKey !== undefined && genericPath.endsWith(`.${leafKey}`) && MCP_KEYS[leafKey]) {
    return MCP_KEYS[leafKey];
  }
  if (genericPath.includes('.env.')) return { expected: 'a string', fix: 'quote the value, e.g. `"1"`.' };
  return MCP_ENTRY;
}
