/**
 * What `tea db repair` prints: what was damaged, where the damaged file was kept,
 * per table what was copied and what could not be read, what was rebuilt, and how
 * the result compares with the newest backup (which of the two is more complete).
 */
import path from 'node:path';
import {
  type BackupComparison,
  type Counts,
  countsText,
  KINDS,
  type LostRange,
  type RepairOutcome,
  type TableOutcome,
} from '../runtime/database.js';

type Repaired = Extract<RepairOutcome, { status: 'repaired' }>;

function when(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

function range(r: LostRange): string {
  if (r.from === null && r.to === null) return 'all of it';
  if (r.from === null) return `ids up to ${r.to}`;
  if (r.to === null) return `ids from ${r.from} on`;
  if (r.from === r.to) return `id ${r.from}`;
  const most = r.to - r.from + 1n;
  return `ids ${r.from}–${r.to} (at most ${most} row${most === 1n ? '' : 's'})`;
}

/** What could not be read of one table, or undefined when it was copied whole. */
function losses(t: TableOutcome): string | undefined {
  const parts = t.lost.map(range);
  if (t.badRows > 0) parts.push(`${t.badRows} row${t.badRows === 1 ? '' : 's'} whose content is damaged`);
  if (t.lostUnknown) parts.push('some rows (how many is unknown)');
  if (t.refused > 0) parts.push(`${t.refused} row${t.refused === 1 ? '' : 's'} refused (${t.refusedReason})`);
  return parts.length > 0 ? parts.join('; ') : undefined;
}

function tableLines(tables: TableOutcome[]): string {
  const shown = tables.filter((t) => t.copied > 0 || losses(t) !== undefined);
  const width = Math.max(0, ...shown.map((t) => t.table.length));
  return shown
    .map((t) => {
      const lost = losses(t);
      const copied = `${String(t.copied).padStart(6)} copied`;
      return `  ${t.table.padEnd(width)} ${copied}${lost ? `; could not be read: ${lost}` : ''}\n`;
    })
    .join('');
}

const nonzero = (c: Counts): boolean => KINDS.some((k) => c[k] > 0);

/** Only the kinds that are there: "2 sessions, 14 messages". */
function some(c: Counts): string {
  return countsText(c)
    .split(', ')
    .filter((_, i) => c[KINDS[i]!] > 0)
    .join(', ');
}

function backupLine(cmp: BackupComparison | undefined): string {
  if (!cmp) return 'there is no backup to compare with (`tea db backup` makes one now)\n';
  const name = `the newest backup, ${path.basename(cmp.backup.path)} (from ${when(cmp.backup.at)}),`;
  const holds = `${name} holds ${countsText(cmp.holds)}`;
  if (!nonzero(cmp.missing)) {
    return nonzero(cmp.newer)
      ? `${holds}; every one of them is in the repaired database, which is more complete (${some(cmp.newer)} more)\n`
      : `${holds}; the repaired database holds every one of them too\n`;
  }
  const verdict = nonzero(cmp.newer)
    ? `the repaired database has ${some(cmp.newer)} that the backup lacks, so each holds something the other does not`
    : 'the backup is more complete';
  return (
    `${holds}; ${some(cmp.missing)} of them are not in the repaired database, and ${verdict}.\n` +
    'to put the backup back instead: tea db restore (it keeps the repaired file beside it)\n'
  );
}

/** The report of a repair of `file`. */
export function repairReport(file: string, r: Repaired): string {
  const s = r.salvage;
  const where = r.damage.indexesOnly
    ? 'only indexes were damaged'
    : r.damage.tables.length > 0
      ? `damaged: ${r.damage.tables.map((t) => `table ${t}`).join(', ')}`
      : 'damaged';
  const rebuilt = `${s.indexes} indexes${s.rebuilt.length > 0 ? ` and ${s.rebuilt.join(', ')}` : ''}`;
  const lines = [
    `${file}: ${where} (\`tea db check\` listed ${r.damage.findings.length + r.damage.more} finding${r.damage.findings.length + r.damage.more === 1 ? '' : 's'})\n`,
    `the damaged file is kept as ${r.keptAs}\n`,
    `rebuilt into a new file from every row that could be read:\n`,
    tableLines(s.tables),
    `  rebuilt from them: ${rebuilt}\n`,
  ];
  if (s.recreatedSessions > 0) {
    lines.push(
      `  ${s.recreatedSessions} session${s.recreatedSessions === 1 ? '' : 's'} whose own record was lost ` +
        'got one again, so their messages can be listed (workspace unknown)\n',
    );
  }
  for (const n of s.notRecreated) lines.push(`  not recreated: ${n}\n`);
  lines.push(
    s.lossless
      ? 'repaired: every row of every table was read; nothing is lost. The database passes its check.\n'
      : 'repaired, with losses: the rows above that could not be read are not in it (they may be in the kept file ' +
          'or in a backup). The database passes its check.\n',
  );
  lines.push(backupLine(r.backup));
  return lines.join('');
}
