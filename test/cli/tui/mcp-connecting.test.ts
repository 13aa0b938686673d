/**
 * `/mcp` while a stdio server is still starting: a "Connecting to …" line at once,
 * replaced by the listing when the server answers. The server here waits for a file
 * the test creates, so the line is seen for certain before the server is let go.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_MEMORY_JOBS, useScriptedCli } from '../../support/cli.js';
import { startTui } from './harness.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'mcp-features-server.mjs');
const GATE = path.join(mkdtempSync(path.join(tmpdir(), 'tea-mcp-gate-')), 'go');
const GATED = `while [ ! -e ${JSON.stringify(GATE)} ]; do sleep 0.05; done; exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FIXTURE)}`;
const SERVER = `mcp_servers:\n  slow: { command: sh, args: ["-c", ${JSON.stringify(GATED)}] }\n`;
const t = useScriptedCli('sk-test', { config: `${NO_MEMORY_JOBS}agent:\n  auto_title: false\n${SERVER}` });

describe('/mcp while servers connect', () => {
  it('shows "Connecting to …" at once, then the listing in its place', async () => {
    const tui = startTui({ env: { ...t.ctx.env, TERM: 'xterm-256color' }, cwd: t.ctx.work, rows: 40 });
    await tui.waitForText('scripted-model');
    tui.type('/mcp');
    tui.press('enter');
    await tui.waitForText('Connecting to MCP server "slow"…');
    expect(tui.screen()).not.toContain('slow (stdio) — connected');
    expect(existsSync(GATE)).toBe(false);
    writeFileSync(GATE, '');
    await tui.waitForText('slow (stdio) — connected');
    await tui.waitForGone('Connecting to MCP server');
    expect(tui.screen()).toMatch(/tools \(6\): .*grow/);
    await tui.finish('mcp-connecting');
  });
});
