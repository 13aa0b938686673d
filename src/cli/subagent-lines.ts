/**
 * Sub-agents on the terminal: one line per child (its label, status, tokens so far
 * and the tool it runs), on stderr. On a terminal the running children's lines sit
 * in a block redrawn in place, and a child that ends leaves its last line above it;
 * elsewhere (a pipe, --verbose) each change of status or tool is one line, never
 * one per token. Children's text never reaches stdout.
 */
import type { AgentEvent } from '../agent/index.js';
import type { Usage } from '../llm/types.js';
import { hasEnded, SubagentTracker, subagentLine } from '../runtime/subagents.js';

/** Where the lines go (stderr): render.ts's Writer, named here so the two files do not import each other. */
interface Writer {
  write(s: string): unknown;
}

/** 17259 → `17,259`. */
const num = (n: number): string => n.toLocaleString('en-US');

/** The closing usage line when sub-agents ran: the total, and their share of it. */
export function usageSplitLine(
  usage: Usage,
  costUsd: number,
  subagents: { count: number; usage: Usage; costUsd: number },
): string {
  const total = usage.inputTokens + usage.outputTokens;
  const theirs = subagents.usage.inputTokens + subagents.usage.outputTokens;
  const n = `${subagents.count} sub-agent${subagents.count === 1 ? '' : 's'}`;
  return `tea: usage: ${num(total)} tokens, $${costUsd.toFixed(4)}; of which ${n}: ${num(theirs)} tokens, $${subagents.costUsd.toFixed(4)}\n`;
}

export interface SubagentLines {
  /** Takes one event of the parent's stream (only sub-agent news is shown). */
  event(e: AgentEvent): void;
  /** Clears the live block before other output (a terminal); a no-op without one. */
  clear(): void;
  /** Draws the live block again after other output. */
  redraw(): void;
}

export function subagentLines(
  err: Writer,
  opts: { live: boolean; columns?: () => number | undefined },
): SubagentLines {
  const tracker = new SubagentTracker();
  /** Lines of the live block on the screen now. */
  let drawn = 0;
  const toWidth = (line: string): string => {
    const width = opts.columns?.() ?? 0;
    return width > 1 && line.length >= width ? `${line.slice(0, width - 2)}…` : line;
  };
  const clear = (): void => {
    if (drawn === 0) return;
    err.write(`\u001b[${drawn}A\r\u001b[J`);
    drawn = 0;
  };
  const redraw = (): void => {
    if (!opts.live || drawn > 0) return;
    const running = tracker.running();
    if (running.length === 0) return;
    err.write(`${running.map((c) => toWidth(subagentLine(c))).join('\n')}\n`);
    drawn = running.length;
  };
  return {
    event(e) {
      const changes = tracker.feed(e);
      if (changes.length === 0) return;
      if (!opts.live) {
        // One line per change of status or tool; tokens alone change no line.
        for (const { state, change } of changes) {
          if (change === 'tokens' || state.status === 'stopping') continue;
          err.write(`${subagentLine(state)}\n`);
        }
        return;
      }
      clear();
      for (const { state, change } of changes)
        if (change === 'status' && hasEnded(state.status)) err.write(`${toWidth(subagentLine(state))}\n`);
      redraw();
    },
    clear,
    redraw,
  };
}
