/** The journal without a model: a store, a session, a workspace, and rounds driven by hand. */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { AgentEvent } from '../../../src/agent/events.js';
import { Journal, type JournalOptions } from '../../../src/agent/journal/journal.js';
import { Store } from '../../../src/store/index.js';
import { useTempDirs } from '../../store/helpers.js';

export interface Direct {
  store: Store;
  journal: Journal;
  home: string;
  work: string;
  /** A new session in the workspace. */
  session(): string;
  /** One round of `sessionId`: the snapshot before, `change`, then the one after; its events. */
  round(sessionId: string, change: () => void | Promise<void>): Promise<AgentEvent[]>;
}

export function useDirect() {
  const tempDir = useTempDirs();
  const stores: Store[] = [];
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
  });
  return (opts: Partial<JournalOptions> = {}): Direct => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    const store = Store.open(path.join(home, 'tea.db'));
    stores.push(store);
    const journal = new Journal({ home, store: () => store, ...opts });
    let turns = 0;
    return {
      store,
      journal,
      home,
      work,
      session: () => store.sessions.create({ cwd: work }).id,
      async round(sessionId, change) {
        const round = journal.round(sessionId, `t_${++turns}`, work);
        if (!round) throw new Error('the journal is off');
        await round.beforeChange();
        await change();
        return round.finish();
      },
    };
  };
}

export function journalFiles(events: AgentEvent[]) {
  const j = events.find((e) => e.type === 'journal');
  return j?.type === 'journal' ? j.files : undefined;
}
