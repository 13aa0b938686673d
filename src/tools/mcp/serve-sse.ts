/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05) for older clients: `GET /sse` opens a
 * session (an event stream whose first event names `POST /messages?sessionId=<id>`), and
 * the client posts its messages there; answers come back on the stream. Reached only
 * after serve-http.ts's Host, Origin and token checks; a session is bound to the
 * credentials that opened it, counts against the same cap as streamable sessions, and
 * ends when its stream closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { SessionTable } from './serve-sessions.js';
import { jsonBody, rpcError } from './serve-wire.js';

export const SSE_PATH = '/sse';
export const SSE_MESSAGES_PATH = '/messages';

export interface SseSetup {
  table: SessionTable;
  credential: string;
  create: () => Promise<Server>;
  limit: number;
}

/** `GET /sse`: a new session on an event stream, open until the client goes. */
export async function openSse(req: IncomingMessage, res: ServerResponse, setup: SseSetup): Promise<void> {
  if (req.method !== 'GET') return rpcError(res, 405, `method not allowed: GET ${SSE_PATH} opens a session`);
  const full = setup.table.full();
  if (full) return rpcError(res, full.status, full.message);
  const release = setup.table.reserve();
  try {
    const { SSEServerTransport } = await import('@modelcontextprotocol/sdk/server/sse.js');
    const server = await setup.create();
    const transport = new SSEServerTransport(SSE_MESSAGES_PATH, res);
    const id = transport.sessionId;
    const closed = server.onclose;
    server.onclose = () => {
      closed?.();
      void setup.table.end(id, 'closed');
    };
    await server.connect(transport);
    const session = setup.table.add(id, 'sse', server, transport, setup.credential);
    setup.table.track(session, res);
    // The stream is the session: when the client goes, the session ends (running calls stop).
    res.once('close', () => void setup.table.end(id, 'ended (stream closed)'));
  } finally {
    release();
  }
}

/** `POST /messages?sessionId=`: one message for a session opened with `GET /sse`. */
export async function postSse(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  setup: SseSetup,
): Promise<void> {
  if (req.method !== 'POST') return rpcError(res, 405, `method not allowed: POST ${SSE_MESSAGES_PATH}`);
  const session = setup.table.find(url.searchParams.get('sessionId') ?? undefined, setup.credential, 'sse');
  if (!session) return rpcError(res, 404, `session not found: open one with GET ${SSE_PATH}`);
  const parsed = await jsonBody(req, res, setup.limit);
  if (!parsed) return;
  const transport = session.transport as import('@modelcontextprotocol/sdk/server/sse.js').SSEServerTransport;
  await transport.handlePostMessage(req, res, parsed.body);
}
