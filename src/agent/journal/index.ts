export {
  JOURNAL_NOTE,
  Journal,
  type JournalOptions,
  type RoundInfo,
  type UndoRefusal,
  type UndoResult,
} from './journal.js';
export type { FileChange, JournalEvent, Round } from './round.js';
export { DEFAULT_LIMITS, type JournalLimits } from './shadow.js';
export { journaled, mayChangeFiles } from './turn.js';
