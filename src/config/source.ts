/** One config file as read, whether parsed now or taken from the validated-config cache. */
import { sha256Hex } from '../util/node-crypto.js';
import type { RawFile } from './schema.js';

/** Its validated settings and the SHA-256 of the exact bytes (made when first read: project trust asks). */
export interface ConfigSource {
  raw: RawFile;
  readonly sha256: string;
}

export function configSource(raw: RawFile, bytes: Buffer): ConfigSource {
  let hash: string | undefined;
  return {
    raw,
    get sha256() {
      hash ??= sha256Hex(bytes);
      return hash;
    },
  };
}
