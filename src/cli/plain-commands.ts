/**
 * The plain prompt's journal commands and user commands, on the runtime services the
 * terminal UI's commands use (runtime/journal.ts, runtime/user-commands.ts): the same
 * words, written as lines instead of screen blocks.
 */
import { diffReply, undoText } from '../runtime/journal.js';
import { loadUserCommands, type UserCommand } from '../runtime/user-commands.js';
import type { Writer } from './render.js';
import type { Runtime } from './runtime.js';
import { PLAIN_COMMAND_NAMES } from './slash.js';

export interface PlainOut {
  out: Writer;
  err: Writer;
}

/** `/undo`, `/redo` or `/diff [round]` for the session. */
export async function runJournalCommand(
  rt: Runtime,
  sessionId: string,
  action: 'undo' | 'redo' | 'diff',
  arg: string,
  io: PlainOut,
): Promise<void> {
  if (action !== 'diff') {
    if (arg) {
      const what =
        action === 'undo' ? "reverts the last turn's changes" : 're-applies what the last /undo reverted';
      io.err.write(`tea: /${action} takes no argument (it ${what}); nothing was done.\n`);
      return;
    }
    const result = action === 'undo' ? await rt.journal.undo(sessionId) : await rt.journal.redo(sessionId);
    (result.ok ? io.out : io.err).write(`${undoText(result)}\n`);
    return;
  }
  const reply = await diffReply(rt.journal, sessionId, arg);
  if (reply.kind === 'diff') io.out.write(`Round ${reply.roundId}:\n${reply.text.replace(/\n*$/, '\n')}`);
  else (reply.kind === 'error' ? io.err : io.out).write(`${reply.text}\n`);
}

/** The workspace's user commands (the plain prompt's names hidden); a skipped file is one warning on stderr. */
export function plainUserCommands(rt: Runtime, cwd: string, err: Writer): Promise<UserCommand[]> {
  return loadUserCommands({
    cwd,
    home: rt.config.home,
    reserved: PLAIN_COMMAND_NAMES,
    warn: (m) => err.write(`tea: warning: ${m}\n`),
  });
}
