/**
 * `/undo`, `/redo` and `/diff`: the operation journal of the session (runtime/journal.ts).
 * Undo reverts the files the last round (turn) changed — by any tool, `bash` included —
 * and refuses, changing nothing, when one of them changed since.
 */
import { diffReply, undoText } from '../../../runtime/journal.js';
import type { TuiCommand, TuiHost } from '../host.js';

async function undoOrRedo(action: 'undo' | 'redo', host: TuiHost): Promise<void> {
  const { journal } = host.runtime;
  const id = host.session().id;
  const result = action === 'undo' ? await journal.undo(id) : await journal.redo(id);
  host.print(undoText(result), { tone: result.ok ? 'success' : 'error' });
}

export const undoCommand: TuiCommand = {
  name: 'undo',
  description: "Revert the files the last turn changed (bash's edits too)",
  run: (_arg, host) => undoOrRedo('undo', host),
};

export const redoCommand: TuiCommand = {
  name: 'redo',
  description: 'Re-apply the changes the last /undo reverted',
  run: (_arg, host) => undoOrRedo('redo', host),
};

export const diffCommand: TuiCommand = {
  name: 'diff',
  description: 'Show what the last turn changed in the workspace (or round N)',
  argumentHint: '[round]',
  whileBusy: true,
  complete(prefix, host) {
    return host.runtime.journal
      .rounds(host.session().id)
      .filter((r) => String(r.id).startsWith(prefix))
      .reverse()
      .slice(0, 20)
      .map((r) => ({
        value: String(r.id),
        label: `round ${r.id}`,
        description: `${r.files.length} file${r.files.length === 1 ? '' : 's'} · ${r.state}`,
      }));
  },
  async run(arg, host) {
    const reply = await diffReply(host.runtime.journal, host.session().id, arg);
    if (reply.kind === 'diff')
      host.print(`Round ${reply.roundId}:\n\n\`\`\`diff\n${reply.text.trimEnd()}\n\`\`\``, {
        markdown: true,
      });
    else host.print(reply.text, { tone: reply.kind === 'error' ? 'error' : 'dim' });
  },
};
