/**
 * `tea db check`: SQLite's integrity check of a database file, in lines a user can
 * read: each finding once, the b-tree it is in named (`Tree 4` is the index
 * `sessions_by_updated`), at most a screenful. When the check itself cannot run
 * (the damage stops it), the tables and indexes that cannot be read are listed instead.
 */
import Database from 'better-sqlite3';
import { damagedTrees } from './probe.js';
import { sqliteAddon } from './sqlite-addon.js';

/** At most this many findings are listed. */
export const MAX_FINDINGS = 20;

export interface IntegrityReport {
  ok: boolean;
  /** What is wrong, one finding a line (empty when ok). */
  findings: string[];
  /** Findings left out past MAX_FINDINGS (0 when they all fit; SQLite stops counting at its own cap). */
  more: number;
}

/** Root page → "table messages" / "index sessions_by_updated", as far as the schema can be read. */
function treeNames(db: Database.Database): Map<number, string> {
  const names = new Map<number, string>();
  try {
    const rows = db
      .prepare<[], { type: string; name: string; rootpage: number }>(
        "SELECT type, name, rootpage FROM sqlite_schema WHERE type IN ('table', 'index') AND rootpage > 0",
      )
      .all();
    for (const r of rows) names.set(r.rootpage, `${r.type} ${r.name}`);
  } catch {
    // the schema itself is damaged: findings keep SQLite's numbers
  }
  return names;
}

function integrityLines(db: Database.Database): string[] {
  let failure = 'the integrity check cannot run';
  for (const pragma of [`integrity_check(${MAX_FINDINGS + 1})`, `quick_check(${MAX_FINDINGS + 1})`]) {
    try {
      const rows = db.pragma(pragma, { simple: false }) as Array<Record<string, string>>;
      return rows.flatMap((r) => String(Object.values(r)[0] ?? '').split('\n'));
    } catch (err) {
      // the damage stops this check: try the lighter one, then the b-trees one by one
      failure = (err as Error).message;
    }
  }
  const trees = damagedTrees(db);
  if (trees.length > 0) return trees.map((t) => `${t.type} ${t.name}: cannot be read (${t.reason})`);
  return [failure];
}

/** The integrity check of the file at `path` (opened read-only). */
export function checkFile(path: string): IntegrityReport {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteAddon() as string });
    const lines = integrityLines(db).filter((l) => l.trim() !== '' && !/^\*\*\* in database/.test(l));
    if (lines.join() === 'ok') return { ok: true, findings: [], more: 0 };
    const names = treeNames(db);
    const named = lines.map((l) =>
      l.replace(/^Tree (\d+)/, (whole, root: string) => {
        const name = names.get(Number(root));
        return name ? `${whole} (${name})` : whole;
      }),
    );
    const unique = [...new Set(named)];
    return {
      ok: false,
      findings: unique.slice(0, MAX_FINDINGS),
      more: Math.max(0, unique.length - MAX_FINDINGS),
    };
  } catch (err) {
    return { ok: false, findings: [(err as Error).message], more: 0 };
  } finally {
    db?.close();
  }
}
