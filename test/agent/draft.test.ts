import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { DraftWriter } from '../../src/agent/draft.js';
import type { Part } from '../../src/llm/types.js';
import { Store } from '../../src/store/index.js';
import { useStore } from '../store/helpers.js';

const open = useStore();
const INTERVAL_MS = 40;

const text = (t: string) => (): Part[] => [{ type: 'text', text: t }];
// The flush timer on an injected clock: advancing it is an explicit signal, not a wait
// that a busy machine can outlast.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);

/** The assistant rows of a session, as [status, text]. */
function drafts(store: Store, sessionId: string): Array<[string, string]> {
  return store.messages
    .list(sessionId)
    .filter((m) => m.role === 'assistant')
    .map((m) => [m.status, m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')]);
}

/** Assistant rows as another connection (another process) sees them: committed ones only. */
function committedDrafts(path: string): number {
  const reader = new Database(path, { readonly: true });
  try {
    return reader.prepare("SELECT COUNT(*) FROM messages WHERE role = 'assistant'").pluck().get() as number;
  } finally {
    reader.close();
  }
}

describe('DraftWriter', () => {
  it('writes the drafts of many streams in one commit, within one interval', async () => {
    const { store, path } = open();
    const ids = Array.from({ length: 5 }, (_, i) => store.sessions.create({ id: `s${i}`, cwd: '/w' }).id);
    const writers = ids.map((id) => new DraftWriter(store, id, 't1', INTERVAL_MS));
    const transactions = vi.spyOn(store.db, 'transaction');
    writers.forEach((w, i) => {
      w.update(text(`draft ${i}`));
    });
    // Nothing is written before the interval: that is the bound a killed process may lose.
    expect(drafts(store, 's0')).toEqual([]);
    await sleep(INTERVAL_MS * 3);
    ids.forEach((id, i) => {
      expect(drafts(store, id)).toEqual([['partial', `draft ${i}`]]);
    });
    expect(committedDrafts(path)).toBe(ids.length);
    expect(transactions).toHaveBeenCalledTimes(1);

    // Later content rewrites the same rows, again in one transaction.
    writers.forEach((w, i) => {
      w.update(text(`draft ${i}, longer`));
    });
    await sleep(INTERVAL_MS * 3);
    ids.forEach((id, i) => {
      expect(drafts(store, id)).toEqual([['partial', `draft ${i}, longer`]]);
    });
    expect(committedDrafts(path)).toBe(ids.length);
    expect(transactions).toHaveBeenCalledTimes(2);
  });

  it('splits a large flush into a few transactions, all done right after the interval', async () => {
    const { store, path } = open();
    const count = 600;
    const writers = Array.from(
      { length: count },
      (_, i) =>
        new DraftWriter(store, store.sessions.create({ id: `s${i}`, cwd: '/w' }).id, 't1', INTERVAL_MS),
    );
    const transactions = vi.spyOn(store.db, 'transaction');
    writers.forEach((w, i) => {
      w.update(text(`draft ${i}`));
    });
    await sleep(INTERVAL_MS * 3);
    expect(transactions).toHaveBeenCalledTimes(3); // 250 + 250 + 100
    expect(committedDrafts(path)).toBe(count);
    expect(drafts(store, 's0')).toEqual([['partial', 'draft 0']]);
    expect(drafts(store, `s${count - 1}`)).toEqual([['partial', `draft ${count - 1}`]]);
  });

  it('reads the parts when it writes, so the latest text is what lands', async () => {
    const { store } = open();
    store.sessions.create({ id: 's', cwd: '/w' });
    const w = new DraftWriter(store, 's', 't1', INTERVAL_MS);
    let streamed = '';
    const parts = (): Part[] => [{ type: 'text', text: streamed }];
    for (const piece of ['The ', 'quick ', 'fox']) {
      streamed += piece;
      w.update(parts);
    }
    await sleep(INTERVAL_MS * 3);
    expect(drafts(store, 's')).toEqual([['partial', 'The quick fox']]);
  });

  it('finish writes the final message at once and drops the pending write', async () => {
    const { store } = open();
    store.sessions.create({ id: 's', cwd: '/w' });
    const w = new DraftWriter(store, 's', 't1', INTERVAL_MS);
    w.update(text('partial text'));
    w.finish([{ type: 'text', text: 'final text' }], 'complete');
    expect(drafts(store, 's')).toEqual([['complete', 'final text']]);
    await sleep(INTERVAL_MS * 3);
    expect(drafts(store, 's')).toEqual([['complete', 'final text']]);

    // After a flushed draft, finish completes that same row.
    const w2 = new DraftWriter(store, 's', 't2', INTERVAL_MS);
    w2.update(text('second'));
    await sleep(INTERVAL_MS * 3);
    w2.finish([{ type: 'text', text: 'second, done' }], 'partial');
    expect(drafts(store, 's')).toEqual([
      ['complete', 'final text'],
      ['partial', 'second, done'],
    ]);
  });

  it('reports a failed write on the next update, without losing the other drafts', async () => {
    const { store } = open();
    store.sessions.create({ id: 'kept', cwd: '/w' });
    store.sessions.create({ id: 'gone', cwd: '/w' });
    const kept = new DraftWriter(store, 'kept', 't1', INTERVAL_MS);
    const gone = new DraftWriter(store, 'gone', 't1', INTERVAL_MS);
    store.sessions.delete('gone');
    kept.update(text('still here'));
    gone.update(text('nowhere to go'));
    await sleep(INTERVAL_MS * 3);
    expect(drafts(store, 'kept')).toEqual([['partial', 'still here']]);
    expect(() => gone.update(text('more'))).toThrow(/session not found: 'gone'/);
  });

  it('a stream that starts after another finished is written within the interval, by the same timer', async () => {
    const { store } = open();
    store.sessions.create({ id: 's', cwd: '/w' });
    const transactions = vi.spyOn(store.db, 'transaction');
    const first = new DraftWriter(store, 's', 't1', INTERVAL_MS);
    first.update(text('one'));
    first.finish([{ type: 'text', text: 'one, done' }], 'complete');
    const timers = vi.getTimerCount();
    await sleep(INTERVAL_MS / 2);
    const second = new DraftWriter(store, 's', 't2', INTERVAL_MS);
    second.update(text('two'));
    expect(vi.getTimerCount()).toBe(timers); // no new timer for it
    await sleep(INTERVAL_MS);
    expect(drafts(store, 's')).toEqual([
      ['complete', 'one, done'],
      ['partial', 'two'],
    ]);
    // One write for the second draft: the timer that fired with nothing to write wrote nothing.
    expect(transactions).toHaveBeenCalledTimes(1);
    second.finish([{ type: 'text', text: 'two, done' }], 'complete');
    await sleep(INTERVAL_MS * 3);
    expect(transactions).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a finished stream leaves nothing that keeps the process alive', async () => {
    const { path: dbPath } = open();
    const store = path.resolve(import.meta.dirname, '..', '..', 'src', 'store', 'index.ts');
    const draft = path.resolve(import.meta.dirname, '..', '..', 'src', 'agent', 'draft.ts');
    // An hour-long interval: a timer still holding the process would hang it, and this test.
    const script = `
      const { Store } = await import(${JSON.stringify(store)});
      const { DraftWriter } = await import(${JSON.stringify(draft)});
      const store = Store.open(${JSON.stringify(dbPath)});
      store.sessions.create({ id: 'child', cwd: '/w' });
      const w = new DraftWriter(store, 'child', 't1', 3_600_000);
      w.update(() => [{ type: 'text', text: 'streaming' }]);
      w.finish([{ type: 'text', text: 'done' }], 'complete');
      console.log('finished');`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill();
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect([code, out.trim()]).toEqual([0, 'finished']);
  });

  it('a draft pending when the store closes is dropped quietly (no write, no crash)', async () => {
    const { store, path } = open();
    store.sessions.create({ id: 's', cwd: '/w' });
    const w = new DraftWriter(store, 's', 't1', INTERVAL_MS);
    w.update(text('late'));
    store.close();
    await sleep(INTERVAL_MS * 3);
    const reopened = Store.open(path);
    try {
      expect(drafts(reopened, 's')).toEqual([]);
    } finally {
      reopened.close();
    }
  });
});
