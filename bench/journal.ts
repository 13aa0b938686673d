/**
 * The operation journal's cost per round: the snapshot before a turn's first
 * file-changing call, the one after it, the tree diff and the rows. Measured on Tea's
 * own repository (about 1,500 files; only snapshots there, nothing in it is changed)
 * and on a generated 20,000-file workspace (real rounds: one file changed, then undo).
 * Prints figures. Alone: `node --import tsx bench/journal.ts`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Journal } from '../src/agent/journal/journal.js';
import { DEFAULT_LIMITS, ShadowRepo } from '../src/agent/journal/shadow.js';
import { Store } from '../src/store/index.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = 5;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number): string => `${ms.toFixed(0)} ms`;

async function time<T>(f: () => Promise<T>): Promise<[T, number]> {
  const t = performance.now();
  const r = await f();
  return [r, performance.now() - t];
}

/** Snapshots only: the cold first one (every file hashed) and warm ones (the stat cache). */
async function snapshots(label: string, home: string, workspace: string): Promise<void> {
  const repo = new ShadowRepo({ home, workspace, sessionId: 'bench' });
  const [first, cold] = await time(() => repo.snapshot(DEFAULT_LIMITS));
  if (!first.ok) throw new Error(first.reason);
  const warm: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const [s, ms] = await time(() => repo.snapshot(DEFAULT_LIMITS));
    if (!s.ok || s.tree !== first.tree) throw new Error('the tree changed between snapshots');
    warm.push(ms);
  }
  const [, diff] = await time(() => repo.changes(first.tree, first.tree));
  console.log(
    `journal ${label}: ${first.files} files · first snapshot ${fmt(cold)} · warm snapshot median ${fmt(median(warm))} · round without changes ≈ ${fmt(2 * median(warm) + diff)}`,
  );
}

/** Real rounds in a generated workspace: one file changed per round, then undo. */
async function rounds(home: string, workspace: string): Promise<void> {
  const store = Store.open(path.join(home, 'tea.db'));
  try {
    const journal = new Journal({ home, store: () => store });
    const sessionId = store.sessions.create({ cwd: workspace }).id;
    const first = journal.round(sessionId, 't0', workspace)!;
    const [, cold] = await time(() => first.beforeChange());
    await first.finish();
    const costs: number[] = [];
    const undos: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const round = journal.round(sessionId, `t${i + 1}`, workspace)!;
      const [, before] = await time(() => round.beforeChange());
      writeFileSync(path.join(workspace, 'd0', `f${i}.txt`), `changed ${i}\n`);
      const [events, after] = await time(() => round.finish());
      if (events[0]?.type !== 'journal') throw new Error(`no journal event: ${JSON.stringify(events)}`);
      costs.push(before + after);
      const [r, undo] = await time(() => journal.undo(sessionId));
      if (!r.ok) throw new Error(r.message);
      undos.push(undo);
    }
    // The fast path: a round whose change is a write_file/edit_file call names its file.
    const fast: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const file = path.join(workspace, 'd1', `f${i}.txt`);
      const round = journal.round(sessionId, `w${i + 1}`, workspace)!;
      const [, before] = await time(() => round.beforeChange([file]));
      writeFileSync(file, `written ${i}\n`);
      const [events, after] = await time(() => round.finish());
      if (events[0]?.type !== 'journal') throw new Error(`no journal event: ${JSON.stringify(events)}`);
      fast.push(before + after);
    }
    console.log(
      `journal 20,000-file workspace: first snapshot ${fmt(cold)} · round (1 file changed by bash) median ${fmt(median(costs))} · round (1 file by write_file/edit_file) median ${(median(fast)).toFixed(2)} ms · undo median ${fmt(median(undos))}`,
    );
  } finally {
    store.close();
  }
}

export async function benchJournal(): Promise<void> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'tea-bench-journal-'));
  try {
    await snapshots("on Tea's own repository", path.join(home, 'own'), ROOT);
    const work = path.join(home, 'work');
    for (let d = 0; d < 200; d++) {
      mkdirSync(path.join(work, `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++)
        writeFileSync(path.join(work, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n${'x'.repeat(200)}\n`);
    }
    await snapshots('20,000-file workspace', path.join(home, 'gen'), work);
    await rounds(path.join(home, 'rounds'), work);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchJournal();
