import { join } from 'node:path';

/** The database file inside the data home (`~/.tea` or `TEA_HOME`). */
export function defaultDbPath(home: string): string {
  return join(home, 'tea.db');
}
