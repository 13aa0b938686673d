/**
 * WAL checkpoints on a thread of their own, for long-running processes (`tea serve`).
 * SQLite copies the write-ahead log back into the database when a commit finds it
 * over 1,000 pages, in the committing thread, and fsyncs: after a pasted 5 MB
 * prompt that is tens of milliseconds (on a slow disk, a hundred) during which a
 * server answers nobody. Here the main connection stops checkpointing and a worker
 * thread with its own connection runs a PASSIVE checkpoint (which never blocks
 * readers or writers) every INTERVAL_MS. If the worker fails, the main connection
 * checkpoints again as before.
 */
import { createRequire } from 'node:module';
import type * as WorkerThreads from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { sqliteAddon } from './sqlite-addon.js';

/** How often the worker checkpoints. */
export const CHECKPOINT_INTERVAL_MS = 1_000;
/** SQLite's own default, restored when the worker is gone. */
const DEFAULT_AUTOCHECKPOINT = 1_000;

export interface CheckpointResult {
  /** Pages in the log, and of those copied back into the database (PRAGMA wal_checkpoint). */
  log: number;
  checkpointed: number;
}

export interface BackgroundCheckpoints {
  /** Checkpoints now (also between intervals); resolves with what SQLite reported. */
  now(): Promise<CheckpointResult>;
  /** Stops the worker; the main connection checkpoints again. */
  stop(): Promise<void>;
}

// Plain CommonJS run by the worker: this file is bundled, the worker script is not.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.lib);
const describe = (err) => String((err && err.message) || err) + (err && err.code ? ' (' + err.code + ')' : '');
let db;
try {
  db = new Database(workerData.file, {
    fileMustExist: true,
    ...(workerData.addon ? { nativeBinding: workerData.addon } : {}),
  });
  db.pragma('busy_timeout = 5000');
} catch (err) {
  parentPort.postMessage({ id: 0, error: 'cannot open ' + workerData.file + ': ' + describe(err) });
}
parentPort.on('message', (id) => {
  if (id === 'close') {
    if (db) db.close();
    parentPort.close();
    return;
  }
  if (!db) return;
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ id, log: row.log, checkpointed: row.checkpointed });
  } catch (err) {
    parentPort.postMessage({ id, error: describe(err) });
  }
});
`;

interface Reply {
  id: number;
  log?: number;
  checkpointed?: number;
  error?: string;
}

/** Moves the checkpoints of `db` (a file database in WAL mode) to a worker thread. */
export function checkpointInBackground(
  db: Database.Database,
  opts: { intervalMs?: number; onError?: (message: string) => void } = {},
): BackgroundCheckpoints {
  const addon = sqliteAddon();
  // Loaded here: node:worker_threads costs ~3.5 ms to load, which a run that never
  // checkpoints in the background (tea -p) need not pay.
  const { Worker } = createRequire(import.meta.url)('node:worker_threads') as typeof WorkerThreads;
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      lib: createRequire(import.meta.url).resolve('better-sqlite3'),
      file: db.name,
      addon: typeof addon === 'string' ? addon : undefined,
    },
  });
  worker.unref();
  const pending = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failed: Error | undefined;
  let stopped = false;

  const fallBack = (err: Error): void => {
    if (failed || stopped) return;
    failed = err;
    clearInterval(timer);
    if (db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    void worker.terminate();
    opts.onError?.(err.message);
  };
  worker.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.error !== undefined) {
      p?.reject(new Error(reply.error));
      fallBack(new Error(`background checkpoint failed: ${reply.error}`));
      return;
    }
    p?.resolve({ log: reply.log ?? 0, checkpointed: reply.checkpointed ?? 0 });
  });
  worker.on('error', (err: unknown) => {
    // an error thrown in the worker arrives as a plain object with its message
    const { message, code } = (err ?? {}) as { message?: unknown; code?: unknown };
    const why = typeof message === 'string' ? message : typeof code === 'string' ? code : String(err);
    fallBack(new Error(`the checkpoint thread failed: ${why}`));
  });
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopped) fallBack(new Error('the checkpoint thread stopped'));
      resolve();
    }),
  );

  const now = (): Promise<CheckpointResult> => {
    if (failed) return Promise.reject(failed);
    if (stopped) return Promise.reject(new Error('background checkpoints were stopped'));
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage(id);
    });
  };
  const timer = setInterval(() => {
    if (pending.size === 0) now().catch(() => {});
  }, opts.intervalMs ?? CHECKPOINT_INTERVAL_MS);
  timer.unref();
  db.pragma('wal_autocheckpoint = 0');

  return {
    now,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      if (!failed && db.open) db.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT}`);
      worker.ref(); // the process waits for the thread to close its connection
      worker.postMessage('close');
      await exited;
      for (const p of pending.values()) p.reject(new Error('background checkpoints were stopped'));
      pending.clear();
    },
  };
}
