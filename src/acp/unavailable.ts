/**
 * `tea acp` when it cannot run sessions (no model is configured): it still answers
 * `initialize`, so the editor connects, and every session request fails with the
 * reason and the fix as the error message, which the editor shows. The process
 * stays until the editor closes the connection.
 */
import * as acp from '@agentclientprotocol/sdk';
import { initializeResponse } from './server.js';

/** JSON-RPC "internal error": the request was understood, but Tea cannot serve it here. */
const UNAVAILABLE = -32603;

export async function serveAcpUnavailable(opts: {
  version: string;
  /** Why sessions cannot run, and how to fix it (shown by the editor). */
  reason: string;
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}): Promise<void> {
  const refuse = (): never => {
    throw new acp.RequestError(UNAVAILABLE, opts.reason, { reason: 'no_model' });
  };
  const app = acp
    .agent({ name: 'tea' })
    .onRequest(acp.methods.agent.initialize, ({ params }) => initializeResponse(params, opts.version))
    .onRequest(acp.methods.agent.session.new, refuse)
    .onRequest(acp.methods.agent.session.load, refuse)
    .onRequest(acp.methods.agent.session.prompt, refuse)
    .onRequest(acp.methods.agent.session.setMode, refuse)
    .onNotification(acp.methods.agent.session.cancel, () => undefined);
  await app.connect(acp.ndJsonStream(opts.output, opts.input)).closed;
}
