/** Small formatters the commands share: ages, token counts, money, and errors as one line. */
import { closest } from '../../../config/suggest.js';

/** "just now", "5 min ago", "3 h ago", "2 d ago", or the date for older. */
export function age(then: number, now: number = Date.now()): string {
  const s = Math.max(0, Math.round((now - then) / 1000));
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ago`;
  if (s < 30 * 86_400) return `${Math.floor(s / 86_400)} d ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** 950, 12.3k, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** $0.0123 under a dollar, $1.23 above. */
export function usd(n: number): string {
  return n < 1 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

/** An error's message, for a printed line. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** "1 message", "3 messages". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * One sentence for a name that is not one of `known`: `head` (`There is no profile "x"`),
 * then the near ones as a question, or else all of them after `listed` ("the profiles are").
 */
export function notOneOf(head: string, word: string, known: readonly string[], listed: string): string {
  const near = closest(word, known);
  if (near.length > 0) return `${head}; did you mean ${near.join(' or ')}?`;
  return known.length > 0 ? `${head}; ${listed} ${known.join(', ')}.` : `${head}.`;
}
