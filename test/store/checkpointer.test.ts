/**
 * `tea serve` checkpoints the write-ahead log on a thread of its own: the main
 * connection no longer stalls in a checkpoint's copy and fsync after a big write.
 */
import { unlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkpointInBackground } from '../../src/store/checkpointer.js';
import { useStore } from './helpers.js';

const openStore = useStore();
const autocheckpoint = (db: { pragma(s: string, o: { simple: true }): unknown }) =>
  db.pragma('wal_autocheckpoint', { simple: true });

describe('background checkpoints', () => {
  it('take checkpoints off the main connection and hand them back when stopped', async () => {
    const { store } = openStore();
    const cp = checkpointInBackground(store.db, { intervalMs: 60_000 });
    try {
      expect(autocheckpoint(store.db)).toBe(0);
      store.sessions.create({ id: 's', cwd: '/w' });
      const page = 'x'.repeat(3000);
      for (let i = 0; i < 1500; i++) {
        store.messages.append('s', { turnId: 't', role: 'user', parts: [{ type: 'text', text: page }] });
      }
      // the main connection did not checkpoint: the log holds all of it
      const result = await cp.now();
      expect(result.log).toBeGreaterThan(1000);
      expect(result.checkpointed).toBe(result.log);
      expect(store.messages.count('s')).toBe(1500);
    } finally {
      await cp.stop();
    }
    expect(autocheckpoint(store.db)).toBe(1000);
    await expect(cp.now()).rejects.toThrow(/stopped/);
  });

  it('falls back to checkpoints on the main connection when the thread cannot work', async () => {
    const { store, path } = openStore();
    unlinkSync(path); // the worker's connection cannot open a file that is gone
    const errors: string[] = [];
    const failed = new Promise<void>((resolve) => {
      const cp = checkpointInBackground(store.db, {
        intervalMs: 60_000,
        onError: (m) => {
          errors.push(m);
          resolve();
        },
      });
      cp.now().catch(() => {});
    });
    await failed;
    expect(errors[0]).toMatch(/database|file|open/i);
    expect(autocheckpoint(store.db)).toBe(1000);
  });
});
