/** `/compact`: the turns so far go into the session's summary now, so the next request starts small. */
import type { TuiCommand } from '../host.js';
import { messageOf, plural, tokens } from './format.js';

export const compactCommand: TuiCommand = {
  name: 'compact',
  description: 'Summarize the conversation so far into the context now (on the cheap model)',
  async run(_arg, host) {
    const session = host.session();
    host.print('Compacting the context…', { tone: 'dim' });
    try {
      const r = await session.compact();
      if (r.turns === 0) {
        host.print('Nothing to compact: no finished turn since the last compaction.', { tone: 'dim' });
        return;
      }
      host.print(
        `Compacted ${plural(r.turns, 'turn')} into the summary: about ${tokens(r.tokensBefore)} → ${tokens(r.tokensAfter)} tokens. The transcript itself is kept.`,
        { tone: 'success' },
      );
    } catch (e) {
      host.print(`Not compacted (nothing changed): ${messageOf(e)}.`, { tone: 'error' });
    } finally {
      host.refreshStatus();
    }
  },
};
