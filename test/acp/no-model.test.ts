/**
 * `tea acp` with no model configured: it connects and sessions open; a prompt a rule
 * answers runs (shown as a tool call), any other fails with how to configure a model
 * and the rules that work.
 */
import { realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { type AcpPeer, initialize, newSession, prompt, startPeer, updatesOf } from './peer.js';

let ctx: CliEnv;
let peer: AcpPeer | undefined;
beforeEach(() => {
  ctx = cliEnv();
});
afterEach(async () => {
  await peer?.close();
  peer = undefined;
  ctx.cleanup();
});

/** The error a request ends with. */
async function failure(request: Promise<unknown>): Promise<acp.RequestError> {
  try {
    await request;
  } catch (error) {
    return error as acp.RequestError;
  }
  throw new Error('the request succeeded');
}

describe('tea acp without a model', () => {
  it('runs rules as tool calls, and fails other prompts with how to configure a model', async () => {
    const work = realpathSync(ctx.work);
    writeFileSync(path.join(work, 'notes.md'), 'acp without a model\n');
    peer = startPeer({ env: ctx.env, cwd: work });
    const init = await initialize(peer);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: 'tea' });

    const { sessionId } = await newSession(peer, work);
    const read = await prompt(peer, sessionId, '/read notes.md');
    expect(read.stopReason).toBe('end_turn');
    const calls = updatesOf(peer, 'tool_call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ kind: 'read', status: 'pending' });
    const ends = updatesOf(peer, 'tool_call_update').filter((u) => u.status === 'completed');
    expect(ends).toHaveLength(1);
    expect(JSON.stringify(ends[0]!.content ?? ends[0]!.rawOutput)).toContain('acp without a model');

    const shell = await prompt(peer, sessionId, '!echo from-acp');
    expect(shell.stopReason).toBe('end_turn');
    expect(peer.permissions).toHaveLength(1); // asked like any bash call (the peer allows once)

    const other = await failure(prompt(peer, sessionId, 'hello'));
    expect(other.message).toMatch(/OPENAI_API_KEY/);
    expect(other.message).toMatch(/!<command>/);

    // stdout carried protocol messages only; the note is on stderr for the editor's log.
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    expect(peer.stderr()).toMatch(/tea acp: no model is configured: only rules/);
    expect(await peer.close()).toBe(0);
  });
});
