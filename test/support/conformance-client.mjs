/**
 * Test-only: the command the MCP conformance runner starts for its client scenarios
 * (`conformance client --command "node conformance-client.mjs" --scenario X`; it appends the
 * server URL and sets MCP_CONFORMANCE_SCENARIO / MCP_CONFORMANCE_CONTEXT). It drives Tea's
 * real client path, the built CLI: `tea mcp tools` / `tea mcp call --login`, in a fresh
 * TEA_HOME whose config names the server (with the pre-registered client or the client
 * metadata URL a scenario gives), and a headless "browser" for the OAuth redirect.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const here = import.meta.dirname;
const TEA = path.resolve(here, '..', '..', 'bin', 'tea.js');
const BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(here, 'headless-browser.mjs'))}`;
/** The client metadata document URL the conformance suite expects for its CIMD scenario. */
const CIMD_URL = 'https://conformance-test.local/client-metadata.json';

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');

const root = mkdtempSync(path.join(os.tmpdir(), 'tea-conformance-'));
const home = path.join(root, 'tea-home');
mkdirSync(home);

const oauth = {};
if (context.client_id) oauth.client_id = context.client_id;
if (context.client_secret) oauth.client_secret = context.client_secret;
if (scenario === 'auth/basic-cimd') oauth.client_metadata_url = CIMD_URL;
const machine = scenario.startsWith('auth/client-credentials-');
if (machine) oauth.grant = 'client_credentials';
if (context.private_key_pem) {
  oauth.private_key_file = path.join(root, 'client-key.pem');
  writeFileSync(oauth.private_key_file, context.private_key_pem, { mode: 0o600 });
  if (context.signing_algorithm) oauth.signing_algorithm = context.signing_algorithm;
}

/** Which Tea command a scenario runs (the server's tool and its arguments). */
function command() {
  if (scenario === 'initialize' || machine) return ['mcp', 'tools', 'conf'];
  if (scenario === 'tools_call') return ['mcp', 'call', 'conf', 'add_numbers', '{"a":5,"b":3}'];
  if (scenario === 'sse-retry') return ['mcp', 'call', 'conf', 'test_reconnection', '{}'];
  // Nobody can answer here (no terminal): the config accepts a form whose fields all have defaults.
  if (scenario === 'elicitation-sep1034-client-defaults')
    return ['mcp', 'call', 'conf', 'test_client_elicitation_defaults', '{}'];
  if (scenario.startsWith('auth/')) return ['mcp', 'call', '--login', 'conf', 'test-tool', '{}'];
  return undefined;
}

const args = command();
if (!args) {
  rmSync(root, { recursive: true, force: true });
  process.stderr.write(`conformance-client: scenario ${scenario} is not driven by this harness (pending)\n`);
  process.exit(2);
}
const server = Object.keys(oauth).length ? { url, oauth } : { url };
const elicitation = scenario.startsWith('elicitation-') ? 'mcp_elicitation: { unattended: defaults }\n' : '';
writeFileSync(
  path.join(home, 'config.yaml'),
  `${elicitation}mcp_servers:\n  conf: ${JSON.stringify(server)}\n`,
);
const result = spawnSync(process.execPath, [TEA, ...args], {
  env: {
    PATH: process.env.PATH,
    HOME: root,
    TEA_HOME: home,
    OLLAMA_HOST: 'http://127.0.0.1:9',
    TEA_BROWSER: BROWSER,
    ...(process.env.HEADLESS_BROWSER_LOG ? { HEADLESS_BROWSER_LOG: process.env.HEADLESS_BROWSER_LOG } : {}),
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
rmSync(root, { recursive: true, force: true });
process.exit(result.status ?? 1);
