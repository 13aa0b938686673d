/**
 * A stored session drawn again when it is reopened (`tea -c`, `tea -r`, /resume,
 * /sessions, /fork, /model): its last whole turns as they looked live. The user's
 * messages (`› …`), answers as Markdown, thinking collapsed, one line per tool call
 * in its final state (Ctrl-O opens its output), a rule's output, journal notes; a
 * first line saying how many earlier messages are left out. It also says how much
 * context the session last used (its last model call).
 */
import type { Session, ToolCallRecord, ToolCallState } from '../../agent/index.js';
import { JOURNAL_NOTE } from '../../runtime/journal.js';
import { RULE_CALL_PREFIX } from '../../runtime/rules.js';
import type { StoredMessage, ToolCallRow } from '../../runtime/sessions.js';
import { isFinished, loadForTitles, toolTitle } from '../../runtime/tool-record.js';
import type { Runtime } from '../runtime.js';
import type { ToolLine } from './blocks.js';
import { plural } from './commands/format.js';
import type { Transcript } from './transcript.js';

/** Messages drawn at most (whole turns when they fit): a long session opens fast. */
export const REPLAY_MESSAGES = 40;

export interface ReplayOptions {
  /** At most this many messages (default REPLAY_MESSAGES). */
  cap?: number;
  /** A first line naming the session: `Continuing session <id> · <title> · N messages`. */
  continuing?: boolean;
}

export interface Replayed {
  /** Messages drawn, and the earlier ones left out. */
  shown: number;
  left: number;
  /** Settles once the tools called are loaded and their lines carry their subjects. */
  titled: Promise<void>;
}

/** The last whole turns of `messages` (the last cap+1 of the session): where to begin. */
function firstShown(tail: readonly StoredMessage[], cap: number): number {
  if (tail.length <= cap) return 0;
  for (let i = 1; i < tail.length; i++) if (tail[i]!.turnId !== tail[i - 1]!.turnId) return i;
  // The last turn alone is longer than the cap: its last messages.
  return 1;
}

function textOf(m: StoredMessage): string {
  return m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
}

export function replaySession(
  transcript: Transcript,
  rt: Runtime,
  session: Session,
  opts: ReplayOptions = {},
): Replayed {
  const cap = Math.max(1, opts.cap ?? REPLAY_MESSAGES);
  const id = session.id;
  const short = id.slice(0, 8);
  const total = rt.sessions.messageCount(id);
  const tail = rt.sessions.lastMessages(id, cap + 1);
  const shown = tail.slice(firstShown(tail, cap));
  const left = total - shown.length;
  if (opts.continuing) {
    const title = session.row.title?.trim() || 'Untitled';
    transcript.print(`Continuing session ${short} · ${title} · ${plural(total, 'message')}`, 'success');
  }
  if (left > 0)
    transcript.print(
      `… ${plural(left, 'earlier message')} (tea sessions show ${short} prints them all)`,
      'dim',
    );
  const turnIds = [...new Set(shown.map((m) => m.turnId))];
  const rows = new Map(rt.sessions.toolCallsOfTurns(id, turnIds).map((r) => [r.callId, r]));
  const lines = new Map<string, ToolLine>();
  const draw = new Drawing(transcript, rt, rows, lines);
  for (const m of shown) draw.message(m);
  draw.endTurn();
  // Context use: the last model call's (input and output, as the live status counts it).
  const last = rt.sessions.lastModelCall(id);
  transcript.contextTokens = last ? last.inputTokens + last.outputTokens : 0;
  // Tools not loaded yet are titled by name; once loaded, their lines name their subjects.
  const names = [...new Set([...lines.values()].map((l) => l.record.name))];
  const titled = loadForTitles(rt.tools, names).then(() => {
    for (const line of lines.values())
      line.record = { ...line.record, title: toolTitle(rt.tools, line.record.name, line.record.args) };
  });
  return { shown: shown.length, left, titled };
}

/** Draws stored messages one by one; a turn's end is seen when the next turn begins. */
class Drawing {
  private turnId: string | undefined;
  /** The turn wrote an answer; the output of its last rule call, when it ran one. */
  private answered = false;
  private ruleOutput: string | undefined;

  constructor(
    private readonly transcript: Transcript,
    private readonly rt: Runtime,
    private readonly rows: Map<string, ToolCallRow>,
    private readonly lines: Map<string, ToolLine>,
  ) {}

  message(m: StoredMessage): void {
    if (m.turnId !== this.turnId) {
      this.endTurn();
      this.turnId = m.turnId;
    }
    if (m.role === 'user') this.user(m);
    else if (m.role === 'assistant') this.assistant(m);
    else if (m.role === 'tool') this.results(m);
  }

  /** A rule's turn (`!ls`, `/read …`) has no answer: its output is shown, as live. */
  endTurn(): void {
    if (!this.answered && this.ruleOutput?.trim()) this.transcript.ruleOutput(this.ruleOutput);
    this.answered = false;
    this.ruleOutput = undefined;
  }

  private user(m: StoredMessage): void {
    const text = textOf(m);
    // What undo/redo told the model is shown as the note it is, not as something typed.
    if (text.startsWith(JOURNAL_NOTE)) {
      this.transcript.print(text, 'dim');
      return;
    }
    const images = m.parts.filter((p) => p.type === 'image').length;
    if (!text.trim() && images === 0) return;
    this.transcript.user(text, images > 0 ? `(${plural(images, 'image')})` : undefined);
  }

  private assistant(m: StoredMessage): void {
    let text = '';
    const flush = (): void => {
      if (text.trim()) {
        this.transcript.storedAnswer(text);
        this.answered = true;
      }
      text = '';
    };
    for (const p of m.parts) {
      if (p.type === 'text') text += p.text;
      else if (p.type === 'thinking') {
        flush();
        if (p.text.trim()) this.transcript.storedThinking(p.text);
      } else if (p.type === 'tool-call') {
        flush();
        this.call(p.id, p.name, p.args, m);
      }
    }
    flush();
    if (m.status === 'partial') this.transcript.print('interrupted', 'dim');
  }

  private call(callId: string, name: string, args: Record<string, unknown>, m: StoredMessage): ToolLine {
    const row = this.rows.get(callId);
    // A call the log has not seen end, and no result stored: the process running it stopped.
    const state: ToolCallState = row && isFinished(row.state) ? row.state : 'interrupted';
    const record: ToolCallRecord = {
      callId,
      turnId: m.turnId,
      name,
      args,
      state,
      title: toolTitle(this.rt.tools, name, args),
      kind: 'other',
      content: row?.output ? [{ type: 'text', text: row.output }] : [],
      createdAt: row?.createdAt ?? m.createdAt,
      ...(row?.durationMs != null ? { durationMs: row.durationMs } : {}),
    };
    const line = this.transcript.storedTool(record);
    this.lines.set(callId, line);
    return line;
  }

  private results(m: StoredMessage): void {
    for (const p of m.parts) {
      if (p.type !== 'tool-result') continue;
      // Its call may be in a message left out (a turn longer than the cap).
      const line = this.lines.get(p.callId) ?? this.call(p.callId, p.name, {}, m);
      const row = this.rows.get(p.callId);
      const state: ToolCallState =
        row && isFinished(row.state) ? row.state : p.isError ? 'error' : 'completed';
      line.record = { ...line.record, state, content: [{ type: 'text', text: p.output }] };
      if (p.callId.startsWith(RULE_CALL_PREFIX))
        this.ruleOutput = state === 'completed' ? p.output : undefined;
    }
  }
}
