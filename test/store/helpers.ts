import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Store, StoreError, type StoreOptions } from '../../src/store/index.js';

/** Returns a function that makes a fresh temp directory; all are removed after each test. */
export function useTempDirs(): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'tea-store-'));
    made.push(dir);
    return dir;
  };
}

/** Opens a store on a real file in a fresh temp directory; closed after each test. */
export function useStore(options: StoreOptions = {}): () => { store: Store; path: string } {
  const tempDir = useTempDirs();
  const opened: Store[] = [];
  afterEach(() => {
    for (const store of opened.splice(0)) store.close();
  });
  return () => {
    const path = join(tempDir(), 'tea.db');
    const store = Store.open(path, options);
    opened.push(store);
    return { store, path };
  };
}

/** A clock that advances one second per reading, for deterministic ordering. */
export function steppingClock(start = 1_700_000_000_000): () => number {
  let t = start;
  return () => {
    t += 1000;
    return t;
  };
}

/** Runs `fn`, which must throw a StoreError, and returns that error for inspection. */
export function storeError(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreError) return err;
    throw err;
  }
  throw new Error('expected a StoreError, but the call returned normally');
}
