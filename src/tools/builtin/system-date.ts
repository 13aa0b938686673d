/** current_time and date_calc: clock reading and calendar arithmetic with Intl only. */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import type { ResolvedSystemOptions } from './system-options.js';
import {
  DAY_MS,
  dayOfYear,
  daysInMonth,
  formatDate,
  formatIso,
  formatOffset,
  fromWall,
  isLeapYear,
  isoWeek,
  monthName,
  offsetMinutes,
  type ParsedDate,
  parseDateInput,
  resolveZone,
  utcMsToWall,
  type WallTime,
  WEEKDAYS,
  wallTime,
  wallToUtcMs,
} from './system-zone.js';

const UNITS = ['minutes', 'hours', 'days', 'weeks', 'months', 'years'] as const;
type Unit = (typeof UNITS)[number];

const zoneParam = z
  .string()
  .optional()
  .describe('IANA time zone, e.g. Europe/Berlin (default: the system zone)');

/** Up to three decimals, no trailing zeros. */
function num(n: number): string {
  const rounded = Number(n.toFixed(3));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

function quantity(n: number, unit: string): string {
  const singular = unit.endsWith('s') ? unit.slice(0, -1) : unit;
  return `${num(n)} ${Math.abs(n) === 1 ? singular : `${singular}s`}`;
}

function weekdayName(epochMs: number, zone: string): string {
  return WEEKDAYS[new Date(wallToUtcMs({ ...wallTime(epochMs, zone), hour: 12 })).getUTCDay()] ?? '';
}

/** The long zone name in English, e.g. "Central European Summer Time". */
function zoneLongName(epochMs: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'long' }).formatToParts(
    new Date(epochMs),
  );
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? zone;
}

function currentTimeTool(opts: ResolvedSystemOptions): Tool {
  return defineTool({
    name: 'current_time',
    description:
      'Get the current date and time in a time zone (default: the system zone): ISO time, weekday, UTC ' +
      'offset and Unix time. Use it whenever the answer depends on today or now.',
    parameters: z.object({ timezone: zoneParam }),
    category: 'system',
    keywords: [
      'time',
      'date',
      'now',
      'today',
      'clock',
      'timezone',
      'weekday',
      '时间',
      '日期',
      '现在',
      '几点',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 5000,
    subject: (args) => args.timezone ?? 'local',
    async execute(args) {
      const zone = resolveZone(args.timezone);
      const now = opts.now();
      const offset = formatOffset(offsetMinutes(now, zone));
      return [
        formatIso(now, zone),
        `weekday: ${weekdayName(now, zone)}`,
        `time zone: ${zone}, ${zoneLongName(now, zone)} (UTC${offset})`,
        `UTC: ${new Date(now).toISOString()}`,
        `unix: ${Math.floor(now / 1000)}`,
      ].join('\n');
    },
  });
}

interface DateArgs {
  op: 'add' | 'diff' | 'convert' | 'weekday';
  date?: string | undefined;
  other_date?: string | undefined;
  amount?: number | undefined;
  unit?: Unit | undefined;
  timezone?: string | undefined;
  to_timezone?: string | undefined;
}

function shown(parsed: ParsedDate, zone: string): string {
  return parsed.dateOnly ? formatDate(wallTime(parsed.epochMs, zone)) : formatIso(parsed.epochMs, zone);
}

/** Adds calendar months to a wall time, clamping the day to the target month's end. */
function addMonths(w: WallTime, months: number): { wall: WallTime; clamped: boolean } {
  const index = w.year * 12 + (w.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  const last = daysInMonth(year, month);
  return { wall: { ...w, year, month, day: Math.min(w.day, last) }, clamped: w.day > last };
}

/** The largest instant a JavaScript Date can hold (±100 million days from 1970). */
const MAX_EPOCH_MS = 8.64e15;

/** An upper bound of each unit in milliseconds, to refuse absurd amounts before computing. */
const UNIT_MS_AT_MOST: Record<Unit, number> = {
  minutes: 60_000,
  hours: 3_600_000,
  days: DAY_MS,
  weeks: 7 * DAY_MS,
  months: 31 * DAY_MS,
  years: 366 * DAY_MS,
};

function outOfRange(): ToolError {
  return new ToolError(
    'The result is outside the supported date range (about 271,821 BC to 275,760 AD)',
    'use a smaller amount',
  );
}

function addAmount(args: DateArgs, zone: string, start: ParsedDate): string {
  if (args.amount === undefined) {
    throw new ToolError(
      'date_calc add needs `amount`',
      'pass amount (negative to go back) and unit, e.g. 3 and "days"',
    );
  }
  const unit = args.unit ?? 'days';
  const amount = args.amount;
  const calendar = unit !== 'minutes' && unit !== 'hours';
  if (calendar && !Number.isInteger(amount)) {
    throw new ToolError(
      `amount must be a whole number of ${unit} (got ${amount})`,
      'use a whole number, or a smaller unit such as hours for fractions',
    );
  }
  if (Math.abs(start.epochMs + amount * UNIT_MS_AT_MOST[unit]) > MAX_EPOCH_MS) throw outOfRange();
  const notes: string[] = [];
  let epochMs: number;
  if (!calendar) {
    epochMs = start.epochMs + amount * (unit === 'hours' ? 3_600_000 : 60_000);
  } else {
    const wall = wallTime(start.epochMs, zone);
    let target: WallTime;
    if (unit === 'days' || unit === 'weeks') {
      const days = unit === 'weeks' ? amount * 7 : amount;
      target = utcMsToWall(wallToUtcMs(wall) + days * DAY_MS);
    } else {
      const moved = addMonths(wall, unit === 'years' ? amount * 12 : amount);
      target = moved.wall;
      if (moved.clamped) {
        notes.push(
          `${monthName(target.month)} ${target.year} has ${target.day} days, so the day was clamped to its last day`,
        );
      }
    }
    const zoned = fromWall(target, zone);
    epochMs = zoned.epochMs;
    if (zoned.adjusted === 'gap')
      notes.push(`that local time does not exist in ${zone} (DST); moved forward`);
    if (zoned.adjusted === 'overlap') notes.push(`that local time happens twice in ${zone}; took the first`);
  }
  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > MAX_EPOCH_MS) throw outOfRange();
  const dateOnly = start.dateOnly && calendar;
  const result: ParsedDate = { epochMs, dateOnly };
  const sign = amount < 0 ? '-' : '+';
  const lines = [
    `${shown(start, zone)} ${sign} ${quantity(Math.abs(amount), unit)} = ${shown(result, zone)} (${weekdayName(epochMs, zone)})`,
  ];
  if (!dateOnly && offsetMinutes(start.epochMs, zone) !== offsetMinutes(epochMs, zone)) {
    notes.push(
      `the UTC offset changes in between (${formatOffset(offsetMinutes(start.epochMs, zone))} → ${formatOffset(offsetMinutes(epochMs, zone))})`,
    );
  }
  lines.push(`time zone: ${zone}`, ...notes.map((n) => `note: ${n}`));
  return lines.join('\n');
}

function compareWall(a: WallTime, b: WallTime): number {
  return wallToUtcMs(a) - wallToUtcMs(b);
}

/** Whole months, then days, hours, minutes, seconds between two wall times (`to` not before `from`). */
function calendarParts(from: WallTime, to: WallTime): string {
  let months = (to.year - from.year) * 12 + (to.month - from.month);
  let anchor = addMonths(from, months).wall;
  while (months > 0 && compareWall(anchor, to) > 0) {
    months--;
    anchor = addMonths(from, months).wall;
  }
  let rest = Math.max(0, compareWall(to, anchor));
  const take = (size: number): number => {
    const n = Math.floor(rest / size);
    rest -= n * size;
    return n;
  };
  const days = take(DAY_MS);
  const hours = take(3_600_000);
  const minutes = take(60_000);
  const seconds = take(1000);
  const parts: Array<[number, string]> = [
    [Math.floor(months / 12), 'years'],
    [months % 12, 'months'],
    [days, 'days'],
    [hours, 'hours'],
    [minutes, 'minutes'],
    [seconds, 'seconds'],
  ];
  const text = parts
    .filter(([n]) => n > 0)
    .map(([n, unit]) => quantity(n, unit))
    .join(' ');
  return text === '' ? '0 (the same moment)' : text;
}

function diffDates(args: DateArgs, zone: string, start: ParsedDate, nowMs: number): string {
  if (args.other_date === undefined) {
    throw new ToolError(
      'date_calc diff needs `other_date`',
      'pass other_date (the end); date is the start and defaults to now',
    );
  }
  const end = parseDateInput(args.other_date, zone, nowMs);
  const negative = end.epochMs < start.epochMs;
  const [a, b] = negative ? [end, start] : [start, end];
  const wallA = wallTime(a.epochMs, zone);
  const wallB = wallTime(b.epochMs, zone);
  const signed = (n: number): string => num(negative ? -n : n);
  const elapsedMs = b.epochMs - a.epochMs;
  const calendarDays = Math.floor(compareWall(wallB, wallA) / DAY_MS);
  const parts = calendarParts(wallA, wallB);
  const lines = [
    `from: ${shown(start, zone)} (${weekdayName(start.epochMs, zone)})`,
    `to:   ${shown(end, zone)} (${weekdayName(end.epochMs, zone)})`,
    `difference: ${negative ? `-(${parts}); to is before from` : parts}`,
    `calendar days: ${signed(calendarDays)} (${signed(calendarDays / 7)} weeks)`,
    `elapsed: ${signed(elapsedMs / 3_600_000)} hours = ${signed(elapsedMs / 60_000)} minutes`,
    `time zone: ${zone}`,
  ];
  const offsetA = offsetMinutes(a.epochMs, zone);
  const offsetB = offsetMinutes(b.epochMs, zone);
  if (offsetA !== offsetB) {
    lines.push(
      `note: the UTC offset changes in between (${formatOffset(offsetA)} → ${formatOffset(offsetB)}), ` +
        'so calendar days and elapsed hours differ',
    );
  }
  if (end.note !== undefined) lines.push(`note: ${end.note}`);
  return lines.join('\n');
}

function convertDate(args: DateArgs, zone: string, start: ParsedDate): string {
  if (args.to_timezone === undefined) {
    throw new ToolError('date_calc convert needs `to_timezone`', 'pass to_timezone, e.g. "Asia/Tokyo"');
  }
  const target = resolveZone(args.to_timezone);
  const t = start.epochMs;
  const delta = offsetMinutes(t, target) - offsetMinutes(t, zone);
  const hours = quantity(Math.abs(delta) / 60, 'hours');
  const relation = delta === 0 ? 'the same time as' : `${hours} ${delta > 0 ? 'ahead of' : 'behind'}`;
  return [
    `${formatIso(t, zone)} ${zone} (${weekdayName(t, zone)})`,
    `= ${formatIso(t, target)} ${target} (${weekdayName(t, target)})`,
    `${target} is ${relation} ${zone} at that moment`,
  ].join('\n');
}

function describeWeekday(zone: string, start: ParsedDate): string {
  const w = wallTime(start.epochMs, zone);
  const week = isoWeek(w);
  const weekday = WEEKDAYS[new Date(wallToUtcMs({ ...w, hour: 12 })).getUTCDay()] ?? '';
  return (
    `${formatDate(w)} is a ${weekday}; ISO week ${week.year}-W${String(week.week).padStart(2, '0')}; ` +
    `day ${dayOfYear(w)} of ${isLeapYear(w.year) ? 366 : 365}`
  );
}

function dateCalcTool(opts: ResolvedSystemOptions): Tool {
  return defineTool({
    name: 'date_calc',
    description:
      'Date arithmetic: add an amount to a date (month ends clamp: Jan 31 + 1 month = Feb 28/29), diff two ' +
      'dates, convert a time between zones, or find the weekday. Local times are read in `timezone`; DST is handled.',
    parameters: z.object({
      op: z.enum(['add', 'diff', 'convert', 'weekday']).describe('The operation'),
      date: z
        .string()
        .optional()
        .describe('Date, e.g. 2024-03-31 or 2024-03-31T14:30 or "today" (default: now)'),
      other_date: z.string().optional().describe('diff: the end date'),
      amount: z.number().optional().describe('add: how many units; negative goes back'),
      unit: z.enum(UNITS).optional().describe('add: unit of amount (default days)'),
      timezone: zoneParam,
      to_timezone: z.string().optional().describe('convert: target IANA time zone'),
    }),
    category: 'system',
    keywords: [
      'date',
      'days',
      'between',
      'until',
      'ago',
      'add',
      'weekday',
      'convert',
      'timezone',
      'deadline',
      '日期',
      '天数',
      '星期',
      '时区',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 5000,
    subject: (args) => args.op,
    async execute(args) {
      const zone = resolveZone(args.timezone);
      const nowMs = opts.now();
      const start: ParsedDate =
        args.date === undefined
          ? { epochMs: nowMs, dateOnly: args.op === 'weekday' }
          : parseDateInput(args.date, zone, nowMs);
      let output: string;
      if (args.op === 'add') output = addAmount(args, zone, start);
      else if (args.op === 'diff') output = diffDates(args, zone, start, nowMs);
      else if (args.op === 'convert') output = convertDate(args, zone, start);
      else output = describeWeekday(zone, start);
      return start.note === undefined ? output : `${output}\nnote: ${start.note}`;
    },
  });
}

export function dateTools(opts: ResolvedSystemOptions): Tool[] {
  return [currentTimeTool(opts), dateCalcTool(opts)];
}
