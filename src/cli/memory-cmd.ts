/** `tea memory …`: list, search, add, history, restore, rm, pin, export, import, profile. */
import { closeSync, fchmodSync, fstatSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { type OpenMemory, openMemory } from '../runtime/light.js';
import {
  CATEGORIES,
  type Category,
  isoDate,
  type Memory,
  type MemorySearchHit,
  type RememberResult,
  readMemoryFile,
} from '../runtime/memory.js';
import { CliError, EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';
import { oneOf } from './usage.js';

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

function state(m: Memory): string {
  if (m.deletedAt !== null) return ' (deleted)';
  if (m.supersededBy !== null) return ` (superseded by #${m.supersededBy})`;
  return '';
}

function line(m: Memory): string {
  const pin = m.pinned ? ' 📌' : '';
  return `#${String(m.id).padEnd(5)} ${m.category.padEnd(11)} P${m.priority} i${m.importance}${pin}  ${m.content}${state(m)}  [${m.scope}]`;
}

/** "2024-01-05 → 2025-03-02" or "since 2025-03-02". */
const minute = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** "2024-01-05 → 2025-03-02", "since 2025-03-02", or with times (UTC) when both ends fall on one day. */
function validity(m: Memory, newer?: Memory): string {
  const end = m.validTo ?? (m.deletedAt !== null ? m.deletedAt : undefined) ?? newer?.validFrom;
  if (end === undefined) return `since ${day(m.validFrom)}`;
  if (day(end) === day(m.validFrom)) return `${day(m.validFrom)} ${minute(m.validFrom)} → ${minute(end)} UTC`;
  return `${day(m.validFrom)} → ${day(end)}`;
}

/**
 * Writes an export for the user alone (0600, like the data home's files), an existing
 * file included; a device or pipe (`/dev/stdout`) is written as it is.
 */
function writePrivate(file: string, text: string): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    if (fstatSync(fd).isFile()) fchmodSync(fd, 0o600);
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function hitLines(h: MemorySearchHit): string {
  const outdated =
    h.newer === undefined ? '' : `  (since ${isoDate(h.memory.validFrom)}; probably older than #${h.newer})`;
  const head = `${h.score.toFixed(2)}  ${line(h.memory)}${outdated}`;
  const others = h.versions.map(
    (v) =>
      `        ${v.validFrom > h.memory.validFrom ? 'later' : 'earlier'}: #${v.id} ${v.content}  (${validity(v)})`,
  );
  return [head, ...others].join('\n');
}

async function withMemory<T>(
  run: (open: OpenMemory) => Promise<T> | T,
  opts: { offline?: boolean } = {},
): Promise<T> {
  const open = await openMemory(opts);
  try {
    return await run(open);
  } finally {
    open.close();
  }
}

function category(value: string | undefined): Category {
  if (value === undefined) return 'fact';
  const name = value.trim().toLowerCase();
  if ((CATEGORIES as readonly string[]).includes(name)) return name as Category;
  return oneOf('--category', value, CATEGORIES, 'category') as Category;
}

function memoryId(value: string): number {
  const id = Number(value.replace(/^#/, ''));
  if (!Number.isInteger(id) || id <= 0) throw new UsageError(`not a memory id: ${JSON.stringify(value)}`);
  return id;
}

function describe(r: RememberResult, judge: string | undefined): string {
  const by = r.judged && judge ? ` (judged by ${judge})` : '';
  if (r.outcome === 'update' && r.superseded)
    return `update: ${line(r.memory)}, replacing #${r.superseded.id}${by}`;
  if (r.outcome === 'history' && r.supersededBy) {
    return `history: ${line(r.memory)} — an earlier version of #${r.supersededBy.id}${by}`;
  }
  return `${r.outcome}: ${line(r.memory)}${by}`;
}

export const memoryCommands = {
  async list(opts: { json?: boolean; all?: boolean; limit: number }): Promise<number> {
    return withMemory(({ memory }) => {
      const rows = opts.all ? memory.exportAll() : memory.list({ limit: opts.limit });
      if (opts.json) process.stdout.write(jsonText(rows));
      else
        process.stdout.write(
          rows.length ? `${rows.map(line).join('\n')}\n` : 'No memories yet. Add one: tea memory add "…"\n',
        );
      return EXIT.OK;
    });
  },
  async search(query: string, opts: { json?: boolean; limit: number; all?: boolean }): Promise<number> {
    if (query.trim() === '') throw new UsageError('give something to search for: tea memory search "deploy"');
    return withMemory(async ({ memory }) => {
      const hits = await memory.search(query, { limit: opts.limit, all: opts.all === true });
      if (opts.json) process.stdout.write(jsonText(hits));
      else process.stdout.write(hits.length ? `${hits.map(hitLines).join('\n')}\n` : 'No memory matches.\n');
      return EXIT.OK;
    });
  },
  async add(
    text: string,
    opts: { category?: string; importance?: number; pin?: boolean; offline?: boolean },
  ): Promise<number> {
    const kind = category(opts.category);
    return withMemory(
      async ({ memory, judgeModel }) => {
        const r = await memory.remember({
          content: text,
          category: kind,
          ...(opts.importance ? { importance: opts.importance } : {}),
          ...(opts.pin ? { pinned: true } : {}),
        });
        process.stdout.write(`${describe(r, judgeModel)}\n`);
        return EXIT.OK;
      },
      { offline: opts.offline === true },
    );
  },
  async history(id: string, opts: { json?: boolean }): Promise<number> {
    return withMemory(({ memory }) => {
      const versions = memory.history(memoryId(id));
      if (opts.json) {
        process.stdout.write(jsonText(versions));
        return EXIT.OK;
      }
      const rows = versions.map((v, i) => {
        const current = v.validTo === null && v.deletedAt === null ? 'current ' : '';
        return `#${String(v.id).padEnd(5)} ${current}${validity(v, versions[i - 1])}  ${v.content}${state(v)}`;
      });
      const hint =
        versions.length > 1
          ? '\nRestore an old version: tea memory restore <id> (--replace to make it current)'
          : '';
      process.stdout.write(`${rows.join('\n')}${hint}\n`);
      return EXIT.OK;
    });
  },
  async restore(id: string, opts: { replace?: boolean }): Promise<number> {
    return withMemory(({ memory }) => {
      const n = memoryId(id);
      let r: ReturnType<typeof memory.restore>;
      try {
        r = memory.restore(n, { replace: opts.replace === true });
      } catch (e) {
        if (e instanceof Error && e.name === 'StoreError' && /already/.test(e.message)) {
          throw new CliError(`${e.message} (tea memory history ${n} lists its versions)`);
        }
        throw e;
      }
      const note = r.replaced ? `, replacing #${r.replaced.id}` : '';
      process.stdout.write(`restored: ${line(r.memory)}${note}\n`);
      return EXIT.OK;
    });
  },
  async rm(ids: string[]): Promise<number> {
    return withMemory(({ memory }) => {
      for (const id of ids) process.stdout.write(`forgotten: ${line(memory.forget(memoryId(id)))}\n`);
      return EXIT.OK;
    });
  },
  async pin(id: string, opts: { off?: boolean }): Promise<number> {
    return withMemory(({ memory }) => {
      process.stdout.write(`${line(memory.update(memoryId(id), { pinned: !opts.off }))}\n`);
      return EXIT.OK;
    });
  },
  async exportTo(file: string | undefined): Promise<number> {
    return withMemory(({ memory }) => {
      const rows = memory.exportAll();
      const json = jsonText(rows);
      if (!file) {
        process.stdout.write(json);
        return EXIT.OK;
      }
      try {
        writePrivate(file, json);
      } catch (e) {
        throw new CliError(`cannot write ${file}: ${(e as Error).message}`);
      }
      process.stdout.write(
        `exported ${plural(rows.length, 'memory', 'memories')} (history included) to ${file}\n`,
      );
      return EXIT.OK;
    });
  },
  async importFrom(file: string, opts: { ingest?: boolean; offline?: boolean }): Promise<number> {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
    }
    let items: ReturnType<typeof readMemoryFile>;
    try {
      items = readMemoryFile(text);
    } catch (e) {
      throw new CliError(`${file}: ${(e as Error).message}`);
    }
    if (items.length === 0)
      throw new CliError(`${file}: no memories in it (expected a JSON array or JSON Lines)`);
    return withMemory(
      async ({ memory }) => {
        if (!opts.ingest) {
          const added = memory.importAll(items);
          process.stdout.write(
            `imported ${plural(added, 'memory', 'memories')} (${items.length - added} already known)\n`,
          );
          return EXIT.OK;
        }
        const progress = process.stderr.isTTY
          ? (done: number, total: number) => {
              if (done % 100 === 0 || done === total) process.stderr.write(`\r  ${done}/${total}`);
              if (done === total) process.stderr.write('\n');
            }
          : undefined;
        const counts = await memory.importStatements(items, progress ? { onProgress: progress } : {});
        process.stdout.write(
          `ingested ${items.length} statements in time order: ${counts.new} new, ${counts.update} updates, ` +
            `${counts.duplicate} duplicates, ${counts.history} earlier versions\n`,
        );
        return EXIT.OK;
      },
      { offline: opts.offline === true },
    );
  },
  async profile(text: string[] | undefined): Promise<number> {
    return withMemory(({ memory }) => {
      if (text && text.length > 0) {
        try {
          memory.setProfile(text.join(' '));
        } catch (e) {
          throw new CliError((e as Error).message);
        }
      }
      process.stdout.write(
        memory.profile() ? `${memory.profile()}\n` : '(no profile yet: tea memory profile "…")\n',
      );
      return EXIT.OK;
    });
  },
};
