import type Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { migrations as builtInMigrations, type Migration } from './migrations.js';

export interface MigrationResult {
  /** Schema version found when the database was opened. */
  from: number;
  /** Schema version after migrating. */
  to: number;
  applied: string[];
}

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** How many of `list`'s migrations the database has not had yet. */
export function pendingMigrations(
  db: Database.Database,
  list: readonly Migration[] = builtInMigrations,
): number {
  return Math.max(0, list.length - schemaVersion(db));
}

/**
 * Brings the database up to the newest migration. Each step runs in an IMMEDIATE
 * transaction and re-reads the version inside it, so two processes opening the same
 * new file at once do not both apply a step.
 */
export function migrate(
  db: Database.Database,
  list: readonly Migration[] = builtInMigrations,
): MigrationResult {
  checkOrder(list);
  const latest = list.length;
  const from = schemaVersion(db);
  if (from > latest) {
    throw new StoreError(
      `database ${db.name} has schema version ${from}, newer than this version of Tea Agent supports ` +
        `(${latest}); upgrade Tea Agent or point it at another database file`,
      'schema-too-new',
    );
  }
  const applied: string[] = [];
  for (const migration of list.slice(from)) {
    const step = db.transaction(() => {
      if (schemaVersion(db) >= migration.version) return;
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
      applied.push(`${migration.version} ${migration.name}`);
    });
    try {
      step.immediate();
    } catch (err) {
      if (err instanceof StoreError) throw err;
      throw new StoreError(
        `migration ${migration.version} (${migration.name}) failed on ${db.name}: ${(err as Error).message}`,
        'migration-failed',
        { cause: err },
      );
    }
  }
  return { from, to: schemaVersion(db), applied };
}

function checkOrder(list: readonly Migration[]): void {
  list.forEach((migration, index) => {
    if (migration.version !== index + 1) {
      throw new StoreError(
        `migration list is out of order: entry ${index} has version ${migration.version}, expected ${index + 1}`,
      );
    }
  });
}
