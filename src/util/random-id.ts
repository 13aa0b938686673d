/**
 * Random (version 4) UUIDs for sessions, turns, calls and leases, from the kernel's
 * random source (/dev/urandom: what OpenSSL seeds node:crypto from) read 4 KiB at a
 * time, so making ids does not load node:crypto (~4 ms at start, before the first
 * request). Where there is no /dev/urandom (Windows) it is node:crypto's randomFillSync.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { nodeCrypto } from './node-crypto.js';

const POOL_BYTES = 4096;
let pool: Buffer | undefined;
let used = POOL_BYTES;
let urandom = true;

function fill(buf: Buffer): void {
  if (urandom) {
    try {
      const fd = openSync('/dev/urandom', 'r');
      try {
        let got = 0;
        while (got < buf.length) {
          const n = readSync(fd, buf, got, buf.length - got, null);
          if (n <= 0) throw new Error('short read');
          got += n;
        }
        return;
      } finally {
        closeSync(fd);
      }
    } catch {
      urandom = false;
    }
  }
  nodeCrypto().randomFillSync(buf);
}

/** 16 bytes no other call gets. */
function take16(): Buffer {
  if (pool === undefined || used + 16 > POOL_BYTES) {
    pool ??= Buffer.allocUnsafe(POOL_BYTES);
    fill(pool);
    used = 0;
  }
  const out = pool.subarray(used, used + 16);
  used += 16;
  return out;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A random version 4 UUID (`xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`), as crypto.randomUUID makes. */
export function randomUUID(): string {
  const b = take16();
  const h = (i: number): string =>
    HEX[i === 6 ? (b[6]! & 0x0f) | 0x40 : i === 8 ? (b[8]! & 0x3f) | 0x80 : b[i]!]!;
  return (
    `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-` +
    `${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`
  );
}

/** `bytes` random bytes in hex (temporary file names). */
export function randomHex(bytes: number): string {
  let out = '';
  while (out.length < bytes * 2) {
    const b = take16();
    for (let i = 0; i < 16 && out.length < bytes * 2; i++) out += HEX[b[i]!];
  }
  return out;
}
