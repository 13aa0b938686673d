import { readFileSync } from 'node:fs';

/**
 * Piped stdin, whole. Read from fd 0 directly: `process.stdin` would first build a
 * stream for it (loading Node's file streams, ~2 ms, for /dev/null too). A pipe its
 * writer made non-blocking cannot be read that way (EAGAIN): that one is read as a stream.
 */
export async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
