/** `tea acp` with no model configured: it connects, and every session request says why it cannot run. */
import { realpathSync } from 'node:fs';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { type AcpPeer, initialize, newSession, prompt, startPeer } from './peer.js';

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
  it('answers initialize, then fails session requests with how to configure a model', async () => {
    const work = realpathSync(ctx.work);
    peer = startPeer({ env: ctx.env, cwd: work });
    const init = await initialize(peer);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentInfo).toMatchObject({ name: 'tea' });
    expect(init.agentCapabilities?.loadSession).toBe(true);

    const created = await failure(newSession(peer, work));
    expect(created.code).toBe(-32603);
    expect(created.message).toMatch(/^Tea has no model configured\./);
    expect(created.message).toMatch(/OPENAI_API_KEY/);
    expect(created.message).toMatch(/config\.yaml/);

    const prompted = await failure(prompt(peer, 'f'.repeat(36), 'hello'));
    expect(prompted.message).toMatch(/OPENAI_API_KEY/);
    const loaded = await failure(
      peer.agent.request(acp.methods.agent.session.load, { sessionId: 'x', cwd: work, mcpServers: [] }),
    );
    expect(loaded.message).toMatch(/no model configured/);

    // stdout carried protocol messages only; the reason is on stderr for the editor's log.
    for (const line of peer.stdoutLines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
    expect(peer.stderr()).toMatch(/tea acp: .*OPENAI_API_KEY/s);
    expect(await peer.close()).toBe(3);
  });
});
