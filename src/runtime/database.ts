/**
 * The database file's upkeep, for `tea db` and for reporting damage: check, back
 * up, repair, restore, and rebuild the memory search indexes. Loaded only by
 * those commands.
 */
export { rebuildSearchIndexes } from '../memory/rebuild.js';
export {
  type BackupComparison,
  type Counts,
  countsText,
  KINDS,
  readableCounts,
} from '../store/census.js';
export { checkFile } from '../store/check.js';
export { damageReport } from '../store/db.js';
export {
  defaultDbPath,
  listBackups,
  makeBackup,
  openDatabase,
  pickBackup,
  recoveryLines,
  restoreBackup,
} from '../store/index.js';
export { type RepairOutcome, repairDatabase, workingPids } from '../store/repair.js';
export type { TableOutcome } from '../store/salvage.js';
export type { LostRange } from '../store/scan.js';
