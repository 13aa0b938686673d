/**
 * `node:crypto`, loaded on first use. Loading it costs ~4 ms (a dozen internal modules),
 * which a run that never hashes need not pay just because a module it loads can. Ids
 * come from random-id.ts, which needs it only where the system has no /dev/urandom.
 */
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof Crypto | undefined;

export function nodeCrypto(): typeof Crypto {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto;
}

/** The SHA-256 of `data`, in hex. */
export function sha256Hex(data: string | Uint8Array): string {
  return nodeCrypto().createHash('sha256').update(data).digest('hex');
}
