import { createHash } from 'node:crypto';
import { MemoryRepo } from '../../src/memory/repo.js';
import { useStore } from '../store/helpers.js';

/** A settable clock for memory tests (epoch ms). */
export interface TestClock {
  (): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start = 1_700_000_000_000): TestClock {
  let t = start;
  const clock = (() => t) as TestClock;
  clock.set = (ms) => {
    t = ms;
  };
  clock.advance = (ms) => {
    t += ms;
  };
  return clock;
}

/** Opens a real store in a temp dir (migrations run) and wraps its database in a MemoryRepo. */
export function useMemoryRepo(): () => { repo: MemoryRepo; clock: TestClock; path: string } {
  const open = useStore();
  return () => {
    const { store, path } = open();
    const clock = testClock();
    return { repo: new MemoryRepo(store.db, clock), clock, path };
  };
}

/**
 * A tiny deterministic embedder: each lower-cased word adds to one of `dims`
 * buckets chosen by its hash; the result is L2-normalised. Texts sharing words
 * have nearby vectors.
 */
export function hashEmbed(text: string, dims = 16): Float32Array {
  const v = new Float32Array(dims);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const bucket = createHash('sha256').update(word).digest().readUInt32BE(0) % dims;
    v[bucket] = (v[bucket] ?? 0) + 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** A unit vector along one axis, for exact KNN expectations. */
export function axis(index: number, dims = 8, wobble = 0): Float32Array {
  const v = new Float32Array(dims);
  v[index % dims] = 1;
  v[(index + 1) % dims] = wobble;
  return v;
}
