import { readFileSync, writeFileSync } from 'node:fs';
import { MemoryService } from '../memory/service.js';
import { CATEGORIES, type Category, type Memory } from '../memory/types.js';
import { CliError, EXIT } from './exit.js';
import { embedderFor, openStore } from './runtime.js';

function line(m: Memory): string {
  const state = m.deletedAt ? ' (deleted)' : m.supersededBy ? ` (superseded by #${m.supersededBy})` : '';
  const pin = m.pinned ? ' 📌' : '';
  return `#${String(m.id).padEnd(5)} ${m.category.padEnd(11)} P${m.priority} i${m.importance}${pin}  ${m.content}${state}  [${m.scope}]`;
}

async function withMemory<T>(run: (memory: MemoryService) => Promise<T> | T): Promise<T> {
  const { config, store } = await openStore();
  try {
    return await run(new MemoryService({ db: store.db, embedder: embedderFor(config) }));
  } finally {
    store.close();
  }
}

function category(value: string | undefined): Category {
  if (value === undefined) return 'fact';
  if ((CATEGORIES as readonly string[]).includes(value)) return value as Category;
  throw new CliError(`unknown category ${JSON.stringify(value)}: use one of ${CATEGORIES.join(', ')}`);
}

function memoryId(value: string): number {
  const id = Number(value.replace(/^#/, ''));
  if (!Number.isInteger(id) || id <= 0) throw new CliError(`not a memory id: ${JSON.stringify(value)}`);
  return id;
}

export const memoryCommands = {
  async list(opts: { json?: boolean; all?: boolean; limit: number }): Promise<number> {
    return withMemory((m) => {
      const rows = opts.all ? m.exportAll() : m.list({ limit: opts.limit });
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else
        process.stdout.write(
          rows.length ? `${rows.map(line).join('\n')}\n` : 'No memories yet. Add one: tea memory add "…"\n',
        );
      return EXIT.OK;
    });
  },
  async search(query: string, opts: { json?: boolean; limit: number }): Promise<number> {
    return withMemory(async (m) => {
      const hits = await m.search(query, { limit: opts.limit });
      if (opts.json) process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
      else
        process.stdout.write(
          hits.length ? `${hits.map((h) => line(h.memory)).join('\n')}\n` : 'No memory matches.\n',
        );
      return EXIT.OK;
    });
  },
  async add(text: string, opts: { category?: string; importance?: number; pin?: boolean }): Promise<number> {
    return withMemory(async (m) => {
      const r = await m.remember({
        content: text,
        category: category(opts.category),
        ...(opts.importance ? { importance: opts.importance } : {}),
        ...(opts.pin ? { pinned: true } : {}),
      });
      const was = r.superseded ? `, replacing #${r.superseded.id}` : '';
      process.stdout.write(`${r.outcome}: ${line(r.memory)}${was}\n`);
      return EXIT.OK;
    });
  },
  async rm(ids: string[]): Promise<number> {
    return withMemory((m) => {
      for (const id of ids) process.stdout.write(`forgotten: ${line(m.forget(memoryId(id)))}\n`);
      return EXIT.OK;
    });
  },
  async pin(id: string, opts: { off?: boolean }): Promise<number> {
    return withMemory((m) => {
      process.stdout.write(`${line(m.update(memoryId(id), { pinned: !opts.off }))}\n`);
      return EXIT.OK;
    });
  },
  async exportTo(file: string | undefined): Promise<number> {
    return withMemory((m) => {
      const json = `${JSON.stringify(m.exportAll(), null, 2)}\n`;
      if (file) writeFileSync(file, json);
      else process.stdout.write(json);
      return EXIT.OK;
    });
  },
  async importFrom(file: string): Promise<number> {
    let rows: unknown;
    try {
      rows = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
    }
    if (!Array.isArray(rows))
      throw new CliError(`${file}: expected a JSON array of memories (as tea memory export writes)`);
    return withMemory((m) => {
      const added = m.importAll(rows as Parameters<MemoryService['importAll']>[0]);
      process.stdout.write(`imported ${added} memories (${rows.length - added} already known)\n`);
      return EXIT.OK;
    });
  },
  async profile(text: string[] | undefined): Promise<number> {
    return withMemory((m) => {
      if (text && text.length > 0) {
        try {
          m.setProfile(text.join(' '));
        } catch (e) {
          throw new CliError((e as Error).message);
        }
      }
      process.stdout.write(m.profile() ? `${m.profile()}\n` : '(no profile yet: tea memory profile "…")\n');
      return EXIT.OK;
    });
  },
};
