/**
 * The journal's hooks into a turn: `journaled` wraps one turn's events with its round
 * (the `journal` event, or a notice, follows `turn_end`), and `mayChangeFiles` says
 * which tool calls take the snapshot before the round first.
 */
import path from 'node:path';
import { FILE_WRITERS } from '../../tools/file-writers.js';
import type { ToolInfo } from '../../tools/types.js';
import { expandHome } from '../../tools/workspace.js';
import { randomUUID } from '../../util/random-id.js';
import type { AgentEvent } from '../events.js';
import type { Journal } from './journal.js';
import type { Round } from './round.js';

/**
 * The files a call changes, when it names every one (write_file, append_file, edit_file:
 * its `path`, relative to the turn's directory); undefined when it may change anything.
 */
export function filesOf(tool: string, args: Record<string, unknown>, cwd: string): string[] | undefined {
  if (!FILE_WRITERS.has(tool) || typeof args.path !== 'string' || args.path.trim() === '') return undefined;
  return [path.resolve(cwd, expandHome(args.path))];
}

/** A call that may change files: write or exec approval, or any tool not declared read-only (user tools, sub-agents). */
export function mayChangeFiles(tool: Pick<ToolInfo, 'approval' | 'readOnly'> | undefined): boolean {
  if (!tool) return false;
  return tool.approval === 'write' || tool.approval === 'exec' || !tool.readOnly;
}

/** Where a turn keeps its round (the turn state's `round`). */
export interface RoundHolder {
  round?: Pick<Round, 'beforeChange'>;
  sessionId: string;
  cwd: string;
  depth: number;
}

/**
 * Runs one turn inside a round of the journal: top-level sessions only (a sub-agent's
 * changes belong to its parent's round). The round is finished even when the consumer
 * stops reading or the turn throws; its events come only after a normal end.
 */
export async function* journaled<T>(
  services: { journal?: Journal },
  state: RoundHolder,
  start: (turnId: string) => AsyncGenerator<AgentEvent, T>,
): AsyncGenerator<AgentEvent, T> {
  const turnId = `t_${randomUUID().slice(0, 12)}`;
  const run = start(turnId);
  const journal = state.depth === 0 ? services.journal : undefined;
  if (!journal) {
    delete state.round;
    return yield* run;
  }
  // The round starts at the first call that may change files: a turn that changes none
  // never checks for git, hashes the workspace path or spawns anything.
  let round: Round | undefined;
  let asked = false;
  state.round = {
    async beforeChange(files) {
      if (!asked) {
        asked = true;
        round = journal.round(state.sessionId, turnId, state.cwd);
      }
      await round?.beforeChange(files);
    },
  };
  let ended = false;
  try {
    const result = yield* run;
    ended = true;
    if (round) yield* await round.finish();
    return result;
  } finally {
    delete state.round;
    if (!ended && round) await round.finish();
  }
}
