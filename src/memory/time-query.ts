/**
 * What time a memory question asks about: now ("currently", "still", "现在",
 * "目前"), a past moment ("in 2023", "March 2024", "2023年", "last year", "去年",
 * "two years ago"), the version before the current one ("used to", "previously",
 * "以前", "原来"), or nothing in particular (then the newest version answers).
 */

export type TimeIntent =
  | { kind: 'any' }
  | { kind: 'now' }
  /** The version valid at `at` (epoch ms). */
  | { kind: 'at'; at: number }
  /** The version before the current one. */
  | { kind: 'before' };

const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];
const MONTH_RE = `(${MONTHS.join('|')}|${MONTHS.map((m) => m.slice(0, 3)).join('|')})`;
const DAY_MS = 86_400_000;
const ZH_DIGITS: Record<string, number> = {
  一: 1,
  两: 2,
  二: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
  十: 10,
};

const NOW_WORDS =
  /\b(?:now|currently|current|still|nowadays|these days|at the moment|at present|today|anymore)\b|现在|目前|如今|当前|眼下|仍然|依然|还在/i;
const BEFORE_WORDS =
  /\b(?:used to|previously|formerly|originally|at first|at the start|former|before that|in the past)\b|以前|之前|原来|曾经|过去|当初|起初|早先|原先|先前/i;

const mid = (year: number, month?: number): number =>
  month === undefined ? Date.UTC(year, 6, 1) : Date.UTC(year, month - 1, 15);

/** 1 … 12 for a month name or its three-letter abbreviation. */
function monthNumber(name: string): number {
  const short = name.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(short)) + 1;
}

function count(text: string): number {
  const n = Number(text);
  if (Number.isFinite(n)) return n;
  if (text === 'a' || text === 'an' || text === 'one') return 1;
  const english = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
  const i = english.indexOf(text.toLowerCase());
  return i >= 0 ? i : (ZH_DIGITS[text] ?? Number.NaN);
}

/** An explicit past time in the question, as epoch ms (capped at `now`). */
function pastMoment(q: string, now: number): number | undefined {
  const year = new Date(now).getUTCFullYear();
  const cap = (t: number): number | undefined => (Number.isFinite(t) ? Math.min(t, now) : undefined);
  let m = new RegExp(`\\b${MONTH_RE}\\.?\\s+(?:of\\s+)?((?:19|20)\\d{2})\\b`, 'i').exec(q);
  if (m?.[1] && m[2]) return cap(mid(Number(m[2]), monthNumber(m[1])));
  m = /((?:19|20)\d{2})\s*年\s*(\d{1,2})\s*月/.exec(q) ?? /\b((?:19|20)\d{2})-(\d{2})\b/.exec(q);
  if (m?.[1] && m[2]) return cap(mid(Number(m[1]), Number(m[2])));
  m =
    /\b(?:in|during|back in|as of|around|through|throughout|early|late|mid)\s+((?:19|20)\d{2})\b/i.exec(q) ??
    /((?:19|20)\d{2})\s*年/.exec(q);
  if (m?.[1]) return cap(mid(Number(m[1])));
  if (/\blast year\b|去年/i.test(q)) return cap(mid(year - 1));
  if (/\bthe year before last\b|前年/i.test(q)) return cap(mid(year - 2));
  if (/\blast month\b|上个月|上月/i.test(q)) return now - 30 * DAY_MS;
  m = /\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten)\s+(year|month|week)s?\s+ago\b/i.exec(q);
  if (m?.[1] && m[2]) {
    const unit = m[2].toLowerCase() === 'year' ? 365 : m[2].toLowerCase() === 'month' ? 30 : 7;
    return now - count(m[1]) * unit * DAY_MS;
  }
  m = /(\d+|[一两二三四五六七八九十])\s*(年|个月|周|星期)前/.exec(q);
  if (m?.[1] && m[2]) {
    const unit = m[2] === '年' ? 365 : m[2] === '个月' ? 30 : 7;
    return now - count(m[1]) * unit * DAY_MS;
  }
  return undefined;
}

/** Reads the time a question is about. */
export function timeIntent(query: string, now: number): TimeIntent {
  const at = pastMoment(query, now);
  if (at !== undefined) return { kind: 'at', at };
  if (BEFORE_WORDS.test(query)) return { kind: 'before' };
  if (NOW_WORDS.test(query)) return { kind: 'now' };
  return { kind: 'any' };
}
