/**
 * Leaving sessions and the terminal UI. A session this screen created (at start, by
 * /new or /fork) that never got a message is deleted when the screen leaves it: there
 * is nothing in it to resume, and `tea sessions list` would fill with `0 msgs
 * (untitled)`. A session the user opened (--resume, --continue, /resume, /sessions) is
 * never deleted, nor one with messages.
 */
import { settleBackground } from '../print.js';
import type { Runtime } from '../runtime.js';
import { keptLine, sessionKeptText } from '../session-kept.js';
import type { Screen } from './screen.js';
import type { Turns } from './turns.js';

export class FreshSessions {
  private readonly ids = new Set<string>();

  constructor(private readonly sessions: Pick<Runtime['sessions'], 'messageCount' | 'delete'>) {}

  /** `id` was made by this screen. */
  created(id: string): void {
    this.ids.add(id);
  }

  /** The screen left `id`: deleted when this screen made it and it is still empty. */
  left(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    if (this.sessions.messageCount(id) > 0) return false;
    return this.sessions.delete(id);
  }
}

/**
 * The end of the TUI: the terminal is given back first (a clean last frame, raw mode
 * off), then the `Session … is kept` line; only then the slow part (a running turn
 * interrupted and settled, titles still being made, the store closed).
 */
export async function leaveTui(
  screen: Screen,
  turns: Turns,
  rt: Runtime,
  fresh: FreshSessions,
): Promise<void> {
  screen.stop();
  turns.interrupt();
  const id = turns.session.id;
  const kept = turns.busy || rt.sessions.messageCount(id) > 0;
  const line = kept ? (keptLine(rt, id) ?? sessionKeptText(id)) : undefined;
  if (line) process.stdout.write(line);
  await turns.settle();
  if (!kept) fresh.left(id);
  await settleBackground(turns.session);
  await rt.close();
}
