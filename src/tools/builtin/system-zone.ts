/**
 * Time-zone arithmetic on top of `Intl` alone: wall-clock fields of an instant in a
 * zone, the instant of a wall-clock time (DST gaps and overlaps resolved like
 * Temporal's "compatible" mode), and parsing of the date strings models send.
 */
import { distance } from 'fastest-levenshtein';
import { ToolError } from '../types.js';

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** A local date and time; `month` is 1-12. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

export function monthName(month: number): string {
  return MONTHS[month - 1] ?? String(month);
}

/** The zone the machine runs in. */
export function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const REGIONS = ['Europe', 'Asia', 'America', 'Africa', 'Australia', 'Pacific', 'Atlantic', 'Indian'];

function isZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** Zones the model may have meant: a bare city name in a region, else the nearest spellings. */
function zoneSuggestions(name: string): string[] {
  const city = name
    .trim()
    .replace(/\s+/g, '_')
    .replace(/(^|[_/-])(\p{L})/gu, (_, sep: string, letter: string) => sep + letter.toUpperCase());
  if (!city.includes('/')) {
    const byCity = REGIONS.map((region) => `${region}/${city}`).filter(isZone);
    if (byCity.length > 0) return byCity.slice(0, 3);
  }
  const wanted = city.toLowerCase();
  return [...Intl.supportedValuesOf('timeZone'), 'UTC']
    .map((z) => ({ z, d: distance(wanted, z.toLowerCase()) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map((e) => e.z);
}

/**
 * The IANA name of `name` (default: the system zone); a ToolError when unknown. The
 * spelling given is kept when ICU would swap it for an older alias (Asia/Kolkata
 * stays, not Asia/Calcutta); only its letter case is fixed.
 */
export function resolveZone(name: string | undefined): string {
  const given = name?.trim() ?? '';
  if (given === '' || given.toLowerCase() === 'local') return systemZone();
  if (!isZone(given)) {
    throw new ToolError(
      `Unknown time zone "${name}"`,
      `use an IANA zone name such as Europe/Berlin, America/New_York, Asia/Shanghai or UTC (closest: ${zoneSuggestions(given).join(', ')})`,
    );
  }
  const canonical = new Intl.DateTimeFormat('en-US', { timeZone: given }).resolvedOptions().timeZone;
  return canonical.toLowerCase() === given.toLowerCase() ? canonical : given;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Milliseconds since the epoch of wall-clock fields read as UTC (years 0-99 kept literal). */
export function wallToUtcMs(w: WallTime): number {
  const d = new Date(0);
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, w.ms);
  return d.getTime();
}

/** Wall-clock fields of a UTC-based millisecond count (the inverse of `wallToUtcMs`). */
export function utcMsToWall(ms: number): WallTime {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    ms: d.getUTCMilliseconds(),
  };
}

/** The local date and time of an instant in `zone`. */
export function wallTime(epochMs: number, zone: string): WallTime {
  const fields: Record<string, string> = {};
  for (const part of formatterFor(zone).formatToParts(new Date(epochMs))) fields[part.type] = part.value;
  const yearOfEra = Number(fields.year);
  const bc = fields.era === 'BC' || fields.era === 'B';
  return {
    year: bc ? 1 - yearOfEra : yearOfEra,
    month: Number(fields.month),
    day: Number(fields.day),
    hour: Number(fields.hour),
    minute: Number(fields.minute),
    second: Number(fields.second),
    ms: ((epochMs % 1000) + 1000) % 1000,
  };
}

/** The zone's UTC offset at an instant, in minutes east of UTC. */
export function offsetMinutes(epochMs: number, zone: string): number {
  return Math.round((wallToUtcMs(wallTime(epochMs, zone)) - epochMs) / MINUTE_MS);
}

export interface ZonedInstant {
  epochMs: number;
  /** Set when the wall time did not exist (clocks jumped forward) or happened twice. */
  adjusted?: 'gap' | 'overlap';
}

/**
 * The instant a wall-clock time happens in `zone`. A time inside a DST gap moves
 * forward by the gap; a time that happens twice takes the earlier occurrence.
 */
export function fromWall(w: WallTime, zone: string): ZonedInstant {
  const local = wallToUtcMs(w);
  const before = offsetMinutes(local - DAY_MS, zone);
  const after = offsetMinutes(local + DAY_MS, zone);
  const valid = [...new Set([before, after])]
    .map((offset) => local - offset * MINUTE_MS)
    .filter((t) => offsetMinutes(t, zone) * MINUTE_MS === local - t)
    .sort((a, b) => a - b);
  const first = valid[0];
  if (first === undefined) return { epochMs: local - before * MINUTE_MS, adjusted: 'gap' };
  return valid.length > 1 ? { epochMs: first, adjusted: 'overlap' } : { epochMs: first };
}

const pad = (n: number, width = 2): string => String(Math.abs(n)).padStart(width, '0');

/** `+05:30`, `-04:00`, `+00:00`. */
export function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

export function formatDate(w: Pick<WallTime, 'year' | 'month' | 'day'>): string {
  const year = w.year < 0 ? `-${pad(w.year, 4)}` : pad(w.year, 4);
  return `${year}-${pad(w.month)}-${pad(w.day)}`;
}

/** ISO 8601 with the zone's offset, e.g. `2024-03-31T03:30:00+02:00` (milliseconds only when set). */
export function formatIso(epochMs: number, zone: string): string {
  const w = wallTime(epochMs, zone);
  const ms = w.ms > 0 ? `.${pad(w.ms, 3)}` : '';
  const time = `${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}${ms}`;
  return `${formatDate(w)}T${time}${formatOffset(offsetMinutes(epochMs, zone))}`;
}

/** 0 = Sunday … 6 = Saturday. */
export function weekdayOf(w: Pick<WallTime, 'year' | 'month' | 'day'>): number {
  return new Date(wallToUtcMs({ ...w, hour: 0, minute: 0, second: 0, ms: 0 })).getUTCDay();
}

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** 1-based day of the year. */
export function dayOfYear(w: Pick<WallTime, 'year' | 'month' | 'day'>): number {
  const start = wallToUtcMs({ year: w.year, month: 1, day: 1, hour: 0, minute: 0, second: 0, ms: 0 });
  const today = wallToUtcMs({ ...w, hour: 0, minute: 0, second: 0, ms: 0 });
  return Math.round((today - start) / DAY_MS) + 1;
}

/** The ISO 8601 week: weeks start on Monday; week 1 holds the year's first Thursday. */
export function isoWeek(w: Pick<WallTime, 'year' | 'month' | 'day'>): { year: number; week: number } {
  const isoDay = ((weekdayOf(w) + 6) % 7) + 1;
  const thursday = utcMsToWall(
    wallToUtcMs({ ...w, hour: 0, minute: 0, second: 0, ms: 0 }) + (4 - isoDay) * DAY_MS,
  );
  return { year: thursday.year, week: Math.floor((dayOfYear(thursday) - 1) / 7) + 1 };
}

export interface ParsedDate {
  epochMs: number;
  /** The input named a day without a time of day. */
  dateOnly: boolean;
  /** A note for the model, e.g. when a local time fell into a DST gap. */
  note?: string;
}

const DATE_HINT =
  'use ISO form such as 2024-03-31, 2024-03-31T14:30, 2024-03-31T14:30:00Z or 2024-03-31T14:30+08:00, ' +
  'or "now", "today", "tomorrow", "yesterday", or Unix seconds';

const ISO_PATTERN =
  /^(-?\d{4})[-/](\d{1,2})[-/](\d{1,2})(?:[T\s]+(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function startOfDay(epochMs: number, zone: string, dayShift: number): ParsedDate {
  const w = wallTime(epochMs, zone);
  const shifted = utcMsToWall(
    wallToUtcMs({ ...w, hour: 0, minute: 0, second: 0, ms: 0 }) + dayShift * DAY_MS,
  );
  return { epochMs: fromWall(shifted, zone).epochMs, dateOnly: true };
}

function parseOffset(text: string): number {
  if (text.toUpperCase() === 'Z') return 0;
  const digits = text.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return text.startsWith('-') ? -minutes : minutes;
}

function checkRange(input: string, what: string, value: number, min: number, max: number): void {
  if (value < min || value > max) {
    throw new ToolError(
      `"${input}" is not a valid date: ${what} ${value} is out of range ${min}-${max}`,
      DATE_HINT,
    );
  }
}

/**
 * Reads a date the way a person writes it. A time without an offset is local time in
 * `zone`; `Z` or `+hh:mm` make it absolute.
 */
export function parseDateInput(input: string, zone: string, nowMs: number): ParsedDate {
  const text = input.trim();
  const lower = text.toLowerCase();
  if (lower === 'now') return { epochMs: nowMs, dateOnly: false };
  const shift = lower === 'today' ? 0 : lower === 'tomorrow' ? 1 : lower === 'yesterday' ? -1 : undefined;
  if (shift !== undefined) return startOfDay(nowMs, zone, shift);
  if (/^\d+$/.test(text)) {
    if (text.length >= 9 && text.length <= 11) return { epochMs: Number(text) * 1000, dateOnly: false };
    if (text.length >= 12 && text.length <= 14) return { epochMs: Number(text), dateOnly: false };
    throw new ToolError(`Cannot read the date "${input}": a bare number is ambiguous`, DATE_HINT);
  }
  const m = ISO_PATTERN.exec(text);
  if (m === null) throw new ToolError(`Cannot read the date "${input}"`, DATE_HINT);
  const [, y, mo, d, h, mi, s, frac, offset] = m;
  const w: WallTime = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    ms: frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000),
  };
  checkRange(input, 'month', w.month, 1, 12);
  const maxDay = daysInMonth(w.year, w.month);
  if (w.day < 1 || w.day > maxDay) {
    throw new ToolError(
      `"${input}" is not a valid date: ${monthName(w.month)} ${w.year} has ${maxDay} days`,
      DATE_HINT,
    );
  }
  checkRange(input, 'hour', w.hour, 0, 23);
  checkRange(input, 'minute', w.minute, 0, 59);
  checkRange(input, 'second', w.second, 0, 59);
  const dateOnly = h === undefined;
  if (offset !== undefined) {
    return { epochMs: wallToUtcMs(w) - parseOffset(offset) * MINUTE_MS, dateOnly };
  }
  const zoned = fromWall(w, zone);
  const result: ParsedDate = { epochMs: zoned.epochMs, dateOnly };
  const shown = `${formatDate(w)} ${pad(w.hour)}:${pad(w.minute)}`;
  if (zoned.adjusted === 'gap') {
    result.note = `${shown} does not exist in ${zone} (clocks jump forward); used ${formatIso(zoned.epochMs, zone)}`;
  } else if (zoned.adjusted === 'overlap') {
    result.note = `${shown} happens twice in ${zone} (clocks go back); used the first, ${formatIso(zoned.epochMs, zone)}`;
  }
  return result;
}
