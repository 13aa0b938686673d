/**
 * Text helpers that are safe for any script (Chinese, emoji, combining marks):
 * they count user-perceived characters, never UTF-16 code units.
 */

const segmenter =
  typeof Intl !== 'undefined' && 'Segmenter' in Intl
    ? new Intl.Segmenter(undefined, { granularity: 'grapheme' })
    : null;

function graphemes(s: string): string[] {
  if (segmenter) return Array.from(segmenter.segment(s), (x) => x.segment);
  return Array.from(s);
}

/** Shortens to at most `max` characters, adding an ellipsis; never splits a character. */
export function truncate(s: string, max: number): string {
  const chars = graphemes(s);
  return chars.length <= max ? s : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** One line: collapses whitespace (titles and previews). */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** 1234 → "1.2k", 2_500_000 → "2.5M". */
export function compactNumber(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** A local date, "2025-03-02": the one date format of the UI. */
export function localDate(epochMs: number): string {
  const d = new Date(epochMs);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
}

/** A local date and time, "2025-03-02 14:05". */
export function localDateTime(epochMs: number): string {
  const d = new Date(epochMs);
  return `${localDate(epochMs)} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}

/** A relative time for the session list ("just now", "5 min ago", a date). */
export function relativeTime(epochMs: number, now = Date.now()): string {
  const diff = Math.max(0, now - epochMs);
  if (diff < 60_000) return 'just now';
  if (diff < 3_600_000) return `${Math.floor(diff / 60_000)} min ago`;
  if (diff < 86_400_000) return `${Math.floor(diff / 3_600_000)} h ago`;
  return localDate(epochMs);
}

/** Pretty JSON for tool arguments; strings stay readable. */
export function prettyArgs(args: Record<string, unknown>): string {
  try {
    return JSON.stringify(args, null, 2);
  } catch {
    return String(args);
  }
}

/** The most telling argument of a tool call, for the collapsed card header. */
export function argSummary(args: Record<string, unknown>): string {
  for (const key of ['path', 'file', 'command', 'cmd', 'query', 'pattern', 'url', 'name']) {
    const value = args[key];
    if (typeof value === 'string' && value) return truncate(oneLine(value), 80);
  }
  const first = Object.values(args).find((v) => typeof v === 'string');
  return typeof first === 'string' ? truncate(oneLine(first), 80) : '';
}
