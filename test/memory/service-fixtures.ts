import { OfflineEmbedder } from '../../src/memory/embed.js';
import { MemoryService, type MemoryServiceOptions } from '../../src/memory/service.js';
import type { Embedder } from '../../src/memory/types.js';
import { useStore } from '../store/helpers.js';
import { type TestClock, testClock } from './fixtures.js';

export const DAY = 86_400_000;

/** Opens a real store in a temp dir and a MemoryService over it with a settable clock. */
export function useService(): (opts?: Partial<MemoryServiceOptions>) => {
  service: MemoryService;
  clock: TestClock;
  path: string;
  reopen: (o?: Partial<MemoryServiceOptions>) => MemoryService;
} {
  const open = useStore();
  return (opts = {}) => {
    const { store, path } = open();
    const clock = testClock();
    const make = (o: Partial<MemoryServiceOptions> = {}): MemoryService =>
      new MemoryService({ db: store.db, now: clock, ...opts, ...o });
    return { service: make(), clock, path, reopen: make };
  };
}

/**
 * An embedder that is not the built-in class (like a remote one): it cannot
 * embed synchronously, and it counts its calls.
 */
export class CountingEmbedder implements Embedder {
  readonly id = 'counting-32';
  readonly dimensions = 32;
  calls = 0;
  private readonly inner = new OfflineEmbedder({ dimensions: 32 });

  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += 1;
    return this.inner.embed(texts);
  }
}

/** An embedder that fails until `up` is set, like a remote one that is down. */
export class FlakyEmbedder extends CountingEmbedder {
  up = false;

  override async embed(texts: string[]): Promise<Float32Array[]> {
    if (!this.up) throw new Error('connect ECONNREFUSED 127.0.0.1:1');
    return super.embed(texts);
  }
}
