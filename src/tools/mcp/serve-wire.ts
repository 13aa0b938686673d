/** The small HTTP pieces of `tea mcp serve --http`: JSON-RPC error answers and JSON bodies. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function rpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RangeError(`request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** A POST's JSON body, or undefined after answering why it is not one (415/400). */
export async function jsonBody(req: IncomingMessage, res: ServerResponse, limit: number) {
  // JSON only: a cross-site form or text/plain post (a "simple request") is not a client.
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    rpcError(res, 415, 'unsupported Content-Type: send application/json');
    return undefined;
  }
  try {
    return { body: await readJson(req, limit) };
  } catch (error) {
    rpcError(res, 400, `bad request body: ${(error as Error).message}`);
    return undefined;
  }
}
