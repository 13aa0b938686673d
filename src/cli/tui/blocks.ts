/**
 * The transcript's own components besides Markdown: a tool call's line (expanding to
 * its output or diff, with nested lines for the sub-agents it runs), collapsed
 * thinking, and plain wrapped text.
 */
import { type Component, truncateToWidth, wrapTextWithAnsi } from '@mariozechner/pi-tui';
import type { ToolCallRecord } from '../../agent/index.js';
import { cyan, dim, gray, green, italic, red, yellow } from './theme.js';

/** Lines of `text` wrapped to `width` (ANSI kept). */
export function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (line === '') out.push('');
    else for (const l of wrapTextWithAnsi(line, Math.max(1, width))) out.push(truncateToWidth(l, width));
  }
  return out;
}

/** Wrapped text, cached per width. */
export class TextBlock implements Component {
  private cache: { width: number; lines: string[] } | undefined;
  constructor(private text: string) {}
  setText(text: string): void {
    this.text = text;
    this.cache = undefined;
  }
  invalidate(): void {
    this.cache = undefined;
  }
  render(width: number): string[] {
    if (this.cache?.width !== width) this.cache = { width, lines: wrap(this.text, width) };
    return this.cache.lines;
  }
}

/** What is shared by the lines of one transcript: whether outputs and thinking are open. */
export interface Expansion {
  tools: boolean;
  thinking: boolean;
}

const STATE_MARK: Record<string, (s: string) => string> = {
  completed: green,
  error: red,
  denied: red,
  cancelled: yellow,
  skipped: gray,
  running: cyan,
  pending: gray,
  awaiting_approval: yellow,
};

/** `12 ms`, `1.2 s`, `2 min 5 s`. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const OUTPUT_LINES = 40;

/** Colours a unified diff's lines. */
export function colourDiff(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return line;
  if (line.startsWith('+')) return green(line);
  if (line.startsWith('-')) return red(line);
  if (line.startsWith('@@')) return cyan(line);
  return line;
}

/** No diff under the line: the write did not happen, or has not happened yet (an approval shows it). */
const NO_DIFF = new Set(['error', 'denied', 'cancelled', 'skipped', 'pending', 'awaiting_approval']);

/** One tool call: `⏺ title · state · duration`, its diff, its output when expanded, its sub-agents. */
export class ToolLine implements Component {
  /** The diff it makes (a file edit): shown under the line, coloured, capped. */
  diff: string[] | undefined;
  /** Sub-agents it runs, by session id: their current one-line status. */
  readonly children = new Map<string, string>();
  constructor(
    public record: ToolCallRecord,
    private readonly expansion: Expansion,
  ) {}
  invalidate(): void {}
  render(width: number): string[] {
    const r = this.record;
    const paint = STATE_MARK[r.state] ?? ((s: string) => s);
    const took = r.durationMs !== undefined ? ` · ${duration(r.durationMs)}` : '';
    const title = r.title || r.name;
    const head = `${paint('⏺')} ${title} ${dim(`· ${r.state.replace('_', ' ')}${took}`)}`;
    const lines = [truncateToWidth(head, width)];
    for (const [, status] of this.children) lines.push(truncateToWidth(`  ${gray('↳')} ${status}`, width));
    // A refused or failed write changed nothing: its diff would say otherwise. One waiting
    // for approval has its diff in the approval prompt, under this line: not twice.
    if (this.diff && !NO_DIFF.has(r.state)) {
      const cap = this.expansion.tools ? this.diff.length : 12;
      for (const l of this.diff.slice(0, cap)) lines.push(truncateToWidth(`  ${colourDiff(l)}`, width));
      if (this.diff.length > cap)
        lines.push(dim(truncateToWidth(`  … ${this.diff.length - cap} more lines (Ctrl-O)`, width)));
    }
    const output = this.output();
    if (output && (this.expansion.tools || (r.state !== 'completed' && r.state !== 'running'))) {
      const all = wrap(output, Math.max(1, width - 4));
      const shown = this.expansion.tools ? all.slice(0, OUTPUT_LINES) : all.slice(0, 3);
      for (const l of shown) lines.push(`  ${gray('│')} ${dim(l)}`);
      if (all.length > shown.length)
        lines.push(dim(truncateToWidth(`  … ${all.length - shown.length} more lines`, width)));
    }
    return lines;
  }
  private output(): string {
    let s = '';
    for (const p of this.record.content) if (p.type === 'text') s += p.text;
    return s.replace(/\s+$/, '');
  }
}

/** Thinking: one line when collapsed (Ctrl-T opens all), the text when open. */
export class ThinkingBlock implements Component {
  text = '';
  constructor(private readonly expansion: Expansion) {}
  invalidate(): void {}
  render(width: number): string[] {
    const lines = this.text.trim().split('\n');
    if (!this.expansion.thinking) {
      const last = lines.at(-1) ?? '';
      return [truncateToWidth(dim(italic(`✻ thinking (${lines.length} lines, Ctrl-T) ${last}`)), width)];
    }
    return [dim(italic('✻ thinking')), ...wrap(this.text.trim(), width).map((l) => dim(italic(l)))];
  }
}
