import { mkdtempSync, existsSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryService } from '/work/main/src/memory/service.js';
import { Store } from '/work/main/src/store/index.js';
import { buildIngestCorpus, CORPUS_END } from '/work/main/bench/memory-ingest-corpus.js';
const corpus = buildIngestCorpus({ size: 10000 });
const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-prof-'));
const cached = '/tmp/prof10k-' + (process.env.DIMS ?? 'x') + '.db';
if (existsSync(cached)) copyFileSync(cached, path.join(dir, 'tea.db'));
const store = Store.open(path.join(dir, 'tea.db'));
const service = new MemoryService({ db: store.db, now: () => CORPUS_END });
if (!existsSync(cached)) { service.importAll(corpus.events.map((e) => ({ content: e.content, category: e.category, createdAt: e.at }))); store.db.exec('PRAGMA wal_checkpoint(TRUNCATE)'); copyFileSync(path.join(dir, 'tea.db'), cached); }
const qs = corpus.questions.map((q) => q.text);
for (const q of qs.slice(0, 20)) await service.search(q);
const reps = Number(process.env.REPS ?? 3);
const lat: number[] = [];
for (let r = 0; r < reps; r++) for (const q of qs) { const t0 = performance.now(); await service.search(q); lat.push(performance.now() - t0); }
lat.sort((a, b) => a - b);
console.log(`p50 ${lat[lat.length >> 1]?.toFixed(2)} p95 ${lat[Math.floor(lat.length * 0.95)]?.toFixed(2)} n=${lat.length}`);
