import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { CONFORMANCE, conformanceSummary } from '../support/conformance.js';
import { startMcpHttp } from './mcp-http.js';

const run = promisify(execFile);

/**
 * The official MCP conformance runner's server scenarios that apply to a server
 * offering tools only. The others exercise the runner's own reference fixtures
 * (tools named test_image_content and the like, resources, prompts, completions,
 * sampling, elicitation), which Tea does not offer.
 */
const SCENARIOS = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-error',
  'dns-rebinding-protection',
];

let ctx: CliEnv;
let server: Awaited<ReturnType<typeof startMcpHttp>>;
beforeAll(async () => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\n');
  server = await startMcpHttp(ctx.env, ['--cwd', ctx.work, '--permission-mode', 'read-only']);
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  ctx.cleanup();
});

describe('tea mcp serve against the official conformance runner', () => {
  it.each(SCENARIOS)('%s passes', async (scenario) => {
    const args = [...CONFORMANCE.args, 'server', '--url', server.url, '--scenario', scenario];
    const { stdout } = await run(CONFORMANCE.command, args, {
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
      timeout: 30_000,
    });
    const summary = conformanceSummary(stdout);
    expect(summary, stdout).not.toBeNull();
    const { passed, total, failed } = summary!;
    expect(total, stdout).toBeGreaterThan(0);
    expect(passed, stdout).toBe(total);
    expect(failed, stdout).toBe(0);
    expect(stdout).not.toMatch(/FAILURE/);
  });
});
