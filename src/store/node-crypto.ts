/**
 * `node:crypto`, loaded on first use. Loading it costs ~3 ms, which commands that
 * never hash or make an id (`tea memory search`, `tea sessions list`) need not pay
 * just because a module they load can.
 */
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof Crypto | undefined;

export function nodeCrypto(): typeof Crypto {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return crypto;
}
