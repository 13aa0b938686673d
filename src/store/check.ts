/**
 * `tea db check`: SQLite's integrity check of a database file, in lines a user can
 * read: each finding once, the b-tree it is in named (`Tree 4` is the index
 * `sessions_by_updated`), at most a screenful, and whether the damage is only in
 * what can be rebuilt (indexes). When the check itself cannot run (the damage stops
 * it), the lighter quick check is used, then the b-trees that cannot be read.
 */
import Database from 'better-sqlite3';
import { damagedTrees } from './probe.js';
import { readSchema, type Tree, type TreeRole, treesByRoot } from './schema.js';
import { sqliteAddon } from './sqlite-addon.js';

/** At most this many findings are listed. */
export const MAX_FINDINGS = 20;

export interface IntegrityReport {
  ok: boolean;
  /** What is wrong, one finding a line (empty when ok). */
  findings: string[];
  /** Findings left out past MAX_FINDINGS (0 when they all fit; SQLite stops counting at its own cap). */
  more: number;
  /** Tables whose rows are damaged (as far as the findings name them). */
  tables: string[];
  /**
   * Every finding is in an index, in memory's search indexes or in unused pages:
   * `tea db repair` rebuilds them and loses nothing. False when any finding is in
   * a table, or does not say where it is.
   */
  indexesOnly: boolean;
  /** The file is not a database at all (its header is damaged): nothing in it can be read. */
  unreadable: boolean;
}

const SOUND: IntegrityReport = {
  ok: true,
  findings: [],
  more: 0,
  tables: [],
  indexesOnly: false,
  unreadable: false,
};

/** Root page → the b-tree there, as far as the schema can be read. */
function trees(db: Database.Database): Map<number, Tree> {
  try {
    return treesByRoot(readSchema(db));
  } catch {
    return new Map(); // the schema itself is damaged: findings keep SQLite's numbers
  }
}

/** SQLite's finding for a page no b-tree reaches (it holds nothing a query could read). */
const UNUSED = /^Page (\d+):? (is )?never used$/;

/**
 * What a finding says is damaged: a b-tree by role (`data` loses rows, the others
 * are rebuilt from the data), `free` for pages that hold nothing (the free list, a
 * page no b-tree uses), or undefined when it does not say.
 */
function damagedBy(
  line: string,
  byRoot: Map<number, Tree>,
): { role: TreeRole | 'free'; name?: string } | undefined {
  const tree = /^Tree (\d+)/.exec(line);
  if (tree) {
    const t = byRoot.get(Number(tree[1]));
    return t && { role: t.role, name: t.name };
  }
  if (/(missing from|entries in|entry in UNIQUE) index \S+/.test(line)) return { role: 'index' };
  if (UNUSED.test(line) || /freelist/i.test(line)) return { role: 'free' };
  const unread = /^(table|index) (\S+): cannot be read/.exec(line);
  if (unread) {
    const t = [...byRoot.values()].find((x) => x.name === unread[2]);
    return t && { role: t.role, name: t.name };
  }
  return undefined;
}

/** How many findings SQLite is asked for (more than are shown, to tell where the damage is). */
const FINDINGS_READ = 200;

function integrityLines(db: Database.Database): string[] {
  let failure = 'the integrity check cannot run';
  for (const pragma of [`integrity_check(${FINDINGS_READ})`, `quick_check(${FINDINGS_READ})`]) {
    try {
      const rows = db.pragma(pragma, { simple: false }) as Array<Record<string, string>>;
      return rows.flatMap((r) => String(Object.values(r)[0] ?? '').split('\n'));
    } catch (err) {
      // the damage stops this check: try the lighter one, then the b-trees one by one
      failure = (err as Error).message;
    }
  }
  // Both checks also read each table's rows, and stop at the first damaged page they meet.
  const trees = damagedTrees(db, true);
  if (trees.length > 0) return trees.map((t) => `${t.type} ${t.name}: cannot be read (${t.reason})`);
  return [failure];
}

/** "3, 7–9": page numbers as runs. */
function runs(pages: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < pages.length; ) {
    let j = i;
    while (j + 1 < pages.length && pages[j + 1] === pages[j]! + 1) j++;
    out.push(i === j ? `${pages[i]}` : `${pages[i]}–${pages[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** The findings as shown: each b-tree named, the pages nothing uses on one line. */
function shownFindings(lines: string[], byRoot: Map<number, Tree>): string[] {
  const unused: number[] = [];
  const out: string[] = [];
  for (const l of lines) {
    const page = UNUSED.exec(l);
    if (page) {
      unused.push(Number(page[1]));
      continue;
    }
    out.push(
      l.replace(/^Tree (\d+)/, (whole, root: string) => {
        const tree = byRoot.get(Number(root));
        return tree ? `${whole} (${tree.type} ${tree.name})` : whole;
      }),
    );
  }
  if (unused.length > 0) {
    const n = unused.length;
    out.push(
      `${n} page${n === 1 ? '' : 's'} that no table or index reaches: ${runs(unused.sort((a, b) => a - b))}`,
    );
  }
  return [...new Set(out)];
}

/** The integrity check of the file at `path` (opened read-only). */
export function checkFile(path: string): IntegrityReport {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteAddon() as string });
    const lines = integrityLines(db).filter((l) => l.trim() !== '' && !/^\*\*\* in database/.test(l));
    if (lines.join() === 'ok') return { ...SOUND };
    const byRoot = trees(db);
    const shown = shownFindings(lines, byRoot);
    const damaged = lines.map((l) => damagedBy(l, byRoot));
    const tables = damaged.flatMap((d) =>
      d?.role === 'data' || d?.role === 'internal' ? [d.name ?? '?'] : [],
    );
    return {
      ok: false,
      findings: shown.slice(0, MAX_FINDINGS),
      more: Math.max(0, shown.length - MAX_FINDINGS),
      tables: [...new Set(tables)],
      // A check that stopped at its cap may not have reached damage in a table.
      indexesOnly:
        lines.length < FINDINGS_READ &&
        damaged.every((d) => d !== undefined && d.role !== 'data' && d.role !== 'internal'),
      unreadable: false,
    };
  } catch (err) {
    const message = (err as Error).message;
    return { ...SOUND, ok: false, findings: [message], unreadable: /not a database/i.test(message) };
  } finally {
    db?.close();
  }
}
