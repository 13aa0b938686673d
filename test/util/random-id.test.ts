import { afterEach, describe, expect, it, vi } from 'vitest';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.doUnmock('node:fs');
  vi.resetModules();
});

describe('random ids', () => {
  it('are version 4 UUIDs, all different, across many refills of the pool', async () => {
    const { randomUUID } = await import('../../src/util/random-id.js');
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(randomUUID()); // 80 refills of 4 KiB
    expect(seen.size).toBe(20_000);
    for (const id of [...seen].slice(0, 500)) expect(id).toMatch(V4);
    // Every hex digit turns up in every free position (the bytes are not stuck).
    const digits = new Set([...seen].map((id) => id[0]));
    expect(digits.size).toBe(16);
  });

  it('come from node:crypto where there is no /dev/urandom', async () => {
    vi.doMock('node:fs', async (load) => {
      const real = await load<typeof import('node:fs')>();
      return {
        ...real,
        openSync: (file: string, ...rest: unknown[]) => {
          if (file === '/dev/urandom') throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
          return (real.openSync as (...a: unknown[]) => number)(file, ...rest);
        },
      };
    });
    const { randomUUID } = await import('../../src/util/random-id.js');
    const { nodeCrypto } = await import('../../src/util/node-crypto.js');
    const fill = vi.spyOn(nodeCrypto(), 'randomFillSync');
    const ids = [randomUUID(), randomUUID()];
    expect(ids[0]).toMatch(V4);
    expect(ids[0]).not.toBe(ids[1]);
    expect(fill).toHaveBeenCalledTimes(1);
  });
});

describe('random hex', () => {
  it('has two digits per byte, across the pool, and differs call to call', async () => {
    const { randomHex } = await import('../../src/util/random-id.js');
    for (const n of [1, 6, 16, 40]) expect(randomHex(n)).toMatch(new RegExp(`^[0-9a-f]{${n * 2}}$`));
    const seen = new Set(Array.from({ length: 2000 }, () => randomHex(6)));
    expect(seen.size).toBe(2000);
  });
});
