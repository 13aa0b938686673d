/**
 * The official MCP conformance runner (0.1.16), its whole server suite (active and
 * pending scenarios) in one run, against `tea mcp serve --http` (the built CLI). The scenarios that call a named
 * tool, resource or prompt find it the way a Tea user provides one: user tools, user
 * resources and user commands (mcp-fixtures.ts). The test pins both lists: a scenario that starts failing, or starts
 * passing, changes this file.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { CONFORMANCE } from '../support/conformance.js';
import { installFixtures } from './mcp-fixtures.js';
import { startMcpHttp } from './mcp-http.js';

const run = promisify(execFile);

const PASSING = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'json-schema-2020-12',
  'elicitation-sep1034-defaults',
  'server-sse-polling',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
];

/**
 * Each failing scenario and why: what it needs that Tea does not offer (none today).
 * server-sse-polling passes with 2 warnings (no priming event, no retry field): it sends
 * `mcp-protocol-version: 2025-03-26`, and the SDK's transport primes streams (event id +
 * retry) only for 2025-11-25 clients; mcp-serve-resume.test.ts checks priming and replay.
 */
const FAILING: Record<string, string> = {};

let ctx: CliEnv;
let server: Awaited<ReturnType<typeof startMcpHttp>>;
beforeAll(async () => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\n');
  await installFixtures(ctx.home, ctx.work);
  server = await startMcpHttp(ctx.env, ['--cwd', ctx.work, '--permission-mode', 'read-only']);
}, 60_000);
afterAll(async () => {
  server.child.kill('SIGTERM');
  await server.exited;
  ctx.cleanup();
});

describe('tea mcp serve against the official conformance runner', () => {
  it('passes the scenarios it can, and fails only those that need what Tea does not offer', async () => {
    // The whole suite: the active scenarios and the pending ones (json-schema-2020-12, server-sse-polling).
    const args = [...CONFORMANCE.args, 'server', '--url', server.url, '--suite', 'all'];
    const { stdout } = await run(CONFORMANCE.command, args, {
      env: { PATH: process.env.PATH, NO_COLOR: '1' },
      timeout: 300_000,
    }).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr }));
    const summary = stdout.slice(stdout.indexOf('=== SUMMARY ==='));
    const rows = [...summary.matchAll(/^([✓✗]) ([\w-]+): (\d+) passed, (\d+) failed/gmu)];
    const passed = rows.filter((r) => r[1] === '✓' && r[4] === '0').map((r) => r[2]);
    const failed = rows.filter((r) => r[1] === '✗' || r[4] !== '0').map((r) => r[2]);
    expect(passed, summary).toEqual(PASSING);
    expect(failed.sort(), summary).toEqual(Object.keys(FAILING).sort());
    expect(summary).toContain(`Total: ${rows.reduce((n, r) => n + Number(r[3]), 0)} passed`);
  }, 320_000);
});
