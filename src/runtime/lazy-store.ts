/**
 * The runtime's store, opened on first use. The daily backup waits for the close (off
 * the first request's path); a process still up after `backupAfterMs` (tea serve, an
 * editor's tea acp) takes it then.
 */
import { Store } from '../store/index.js';
import { defaultDbPath } from '../store/paths.js';

export class LazyStore {
  private store: Store | undefined;
  private backupTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly home: string,
    private readonly backupAfterMs: number,
    private readonly warn: (message: string) => void,
  ) {}

  /** The store, opened now if it was not yet. */
  readonly open = (): Store => {
    if (this.store) return this.store;
    const opened = Store.open(defaultDbPath(this.home), { backup: {} });
    this.store = opened;
    this.backupTimer = setTimeout(() => {
      try {
        opened.backupIfDue();
      } catch (err) {
        this.warn(`the daily backup was not made: ${(err as Error).message}`);
      }
    }, this.backupAfterMs);
    this.backupTimer.unref();
    return opened;
  };

  /**
   * Closes the store if it was opened; true when it left its write-ahead log for the next
   * process (`exiting`), and the process must then end without Node's teardown.
   */
  close(exiting: boolean): boolean {
    clearTimeout(this.backupTimer);
    return this.store?.close({ exiting }) === true;
  }
}
