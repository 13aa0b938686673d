import { describe, expect, it } from 'vitest';
import { systemTools } from '../../src/tools/builtin/system.js';
import type { SystemToolOptions } from '../../src/tools/builtin/system-options.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx } from './helpers.js';

/** 2024-03-30T11:00:00Z: a Saturday, the day before Europe's spring DST change. */
const FIXED_NOW = Date.UTC(2024, 2, 30, 11, 0, 0);

function run(
  name: string,
  args: Record<string, unknown>,
  opts: SystemToolOptions = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(systemTools({ now: () => FIXED_NOW, ...opts }));
  return runTool(registry, call(name, args), makeCtx(process.cwd()));
}

const calc = (args: Record<string, unknown>) => run('date_calc', args);

describe('current_time', () => {
  it('reads the clock in the requested zone', async () => {
    const berlin = await run('current_time', { timezone: 'Europe/Berlin' });
    expect(berlin).toEqual({
      output: [
        '2024-03-30T12:00:00+01:00',
        'weekday: Saturday',
        'time zone: Europe/Berlin, Central European Standard Time (UTC+01:00)',
        'UTC: 2024-03-30T11:00:00.000Z',
        'unix: 1711796400',
      ].join('\n'),
      isError: false,
      status: 'ok',
    });
    const kathmandu = await run('current_time', { timezone: 'Asia/Kathmandu' });
    expect(kathmandu.output.split('\n').slice(0, 2)).toEqual([
      '2024-03-30T16:45:00+05:45',
      'weekday: Saturday',
    ]);
    const la = await run('current_time', { timezone: 'america/los_angeles' });
    expect(la.output).toContain('2024-03-30T04:00:00-07:00');
    expect(la.output).toContain('time zone: America/Los_Angeles, Pacific Daylight Time (UTC-07:00)');
  });

  it('defaults to the system zone and the real clock', async () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const registry = new ToolRegistry();
    registry.registerAll(systemTools());
    const before = Math.floor(Date.now() / 1000);
    const r = await runTool(registry, call('current_time', {}), makeCtx(process.cwd()));
    const after = Math.floor(Date.now() / 1000);
    const unix = Number(/^unix: (\d+)$/m.exec(r.output)?.[1]);
    expect(unix).toBeGreaterThanOrEqual(before);
    expect(unix).toBeLessThanOrEqual(after);
    expect(r.output).toMatch(new RegExp(`^time zone: ${zone.replace('/', '\\/')}, `, 'm'));
    const iso = r.output.split('\n')[0]!;
    expect(Math.floor(Date.parse(iso) / 1000)).toBe(unix);
  });

  it('refuses unknown zones and suggests real ones', async () => {
    const city = await run('current_time', { timezone: 'Tokyo' });
    expect(city.status).toBe('error');
    expect(city.output).toMatch(/^\[ERROR\] Unknown time zone "Tokyo"\nHint: use an IANA zone name/);
    expect(city.output).toContain('(closest: Asia/Tokyo)');
    const typo = await run('current_time', { timezone: 'Europe/Berln' });
    expect(typo.output).toContain('closest: Europe/Berlin');
    const modern = await run('current_time', { timezone: 'Kolkata' });
    expect(modern.output).toContain('closest: Asia/Kolkata');
  });
});

describe('date_calc add', () => {
  it('clamps month ends', async () => {
    const leap = await calc({ op: 'add', date: '2024-01-31', amount: 1, unit: 'months', timezone: 'UTC' });
    expect(leap.output).toBe(
      '2024-01-31 + 1 month = 2024-02-29 (Thursday)\ntime zone: UTC\n' +
        'note: February 2024 has 29 days, so the day was clamped to its last day',
    );
    const plain = await calc({ op: 'add', date: '2023-01-31', amount: 1, unit: 'months', timezone: 'UTC' });
    expect(plain.output.split('\n')[0]).toBe('2023-01-31 + 1 month = 2023-02-28 (Tuesday)');
    const back = await calc({ op: 'add', date: '2024-03-31', amount: -1, unit: 'months', timezone: 'UTC' });
    expect(back.output.split('\n')[0]).toBe('2024-03-31 - 1 month = 2024-02-29 (Thursday)');
    const year = await calc({ op: 'add', date: '2024-02-29', amount: 1, unit: 'years', timezone: 'UTC' });
    expect(year.output.split('\n')[0]).toBe('2024-02-29 + 1 year = 2025-02-28 (Friday)');
    const across = await calc({ op: 'add', date: '2024-11-30', amount: 3, unit: 'months', timezone: 'UTC' });
    expect(across.output).toBe(
      '2024-11-30 + 3 months = 2025-02-28 (Friday)\ntime zone: UTC\nnote: February 2025 has 28 days, so the day was clamped to its last day',
    );
    const noClamp = await calc({ op: 'add', date: '2024-01-15', amount: 2, unit: 'weeks', timezone: 'UTC' });
    expect(noClamp.output).toBe('2024-01-15 + 2 weeks = 2024-01-29 (Monday)\ntime zone: UTC');
  });

  it('keeps the wall-clock time for calendar units across DST, and exact time for hours', async () => {
    const days = await calc({
      op: 'add',
      date: '2024-03-30T12:00',
      amount: 1,
      unit: 'days',
      timezone: 'Europe/Berlin',
    });
    expect(days.output).toBe(
      '2024-03-30T12:00:00+01:00 + 1 day = 2024-03-31T12:00:00+02:00 (Sunday)\ntime zone: Europe/Berlin\n' +
        'note: the UTC offset changes in between (+01:00 → +02:00)',
    );
    const hours = await calc({
      op: 'add',
      date: '2024-03-30T12:00',
      amount: 24,
      unit: 'hours',
      timezone: 'Europe/Berlin',
    });
    expect(hours.output.split('\n')[0]).toBe(
      '2024-03-30T12:00:00+01:00 + 24 hours = 2024-03-31T13:00:00+02:00 (Sunday)',
    );
    const minutes = await calc({
      op: 'add',
      date: '2024-01-01T23:50Z',
      amount: 15,
      unit: 'minutes',
      timezone: 'UTC',
    });
    expect(minutes.output.split('\n')[0]).toBe(
      '2024-01-01T23:50:00+00:00 + 15 minutes = 2024-01-02T00:05:00+00:00 (Tuesday)',
    );
  });

  it('moves a result that lands in a DST gap forward and says so', async () => {
    const r = await calc({ op: 'add', date: '2024-03-30T02:30', amount: 1, timezone: 'Europe/Berlin' });
    expect(r.output).toContain('2024-03-30T02:30:00+01:00 + 1 day = 2024-03-31T03:30:00+02:00 (Sunday)');
    expect(r.output).toContain('note: that local time does not exist in Europe/Berlin (DST); moved forward');
  });

  it('explains missing or fractional amounts', async () => {
    const missing = await calc({ op: 'add', date: '2024-01-01' });
    expect(missing.output).toMatch(/^\[ERROR\] date_calc add needs `amount`\nHint: /);
    const fraction = await calc({ op: 'add', date: '2024-01-01', amount: 1.5, unit: 'days' });
    expect(fraction.output).toBe(
      '[ERROR] amount must be a whole number of days (got 1.5)\n' +
        'Hint: use a whole number, or a smaller unit such as hours for fractions',
    );
    const hours = await calc({
      op: 'add',
      date: '2024-01-01T00:00Z',
      amount: 1.5,
      unit: 'hours',
      timezone: 'UTC',
    });
    expect(hours.output).toContain('= 2024-01-01T01:30:00+00:00');
    const huge = await calc({ op: 'add', date: '2024-01-01', amount: 1e12, unit: 'years' });
    expect(huge.output).toMatch(/^\[ERROR\] The result is outside the supported date range/);
    const hugeMinutes = await calc({ op: 'add', amount: 1e300, unit: 'minutes' });
    expect(hugeMinutes.output).toMatch(/^\[ERROR\] The result is outside the supported date range/);
    const unit = await calc({ op: 'add', date: '2024-01-01', amount: 1, unit: 'fortnights' });
    expect(unit.output).toMatch(/^\[ERROR\] Invalid arguments for date_calc: unit: /);
  });
});

describe('date_calc diff', () => {
  it('tells calendar days from elapsed hours across a DST change', async () => {
    const spring = await calc({
      op: 'diff',
      date: '2024-03-30T12:00',
      other_date: '2024-03-31T12:00',
      timezone: 'Europe/Berlin',
    });
    expect(spring.output).toBe(
      [
        'from: 2024-03-30T12:00:00+01:00 (Saturday)',
        'to:   2024-03-31T12:00:00+02:00 (Sunday)',
        'difference: 1 day',
        'calendar days: 1 (0.143 weeks)',
        'elapsed: 23 hours = 1380 minutes',
        'time zone: Europe/Berlin',
        'note: the UTC offset changes in between (+01:00 → +02:00), so calendar days and elapsed hours differ',
      ].join('\n'),
    );
    const autumn = await calc({
      op: 'diff',
      date: '2024-10-26T12:00',
      other_date: '2024-10-27T12:00',
      timezone: 'Europe/Berlin',
    });
    expect(autumn.output).toContain('elapsed: 25 hours = 1500 minutes');
    expect(autumn.output).toContain('difference: 1 day\n');
  });

  it('breaks a span into years, months and days, month ends included', async () => {
    const r = await calc({ op: 'diff', date: '2024-01-31', other_date: '2025-03-01', timezone: 'UTC' });
    expect(r.output).toContain('difference: 1 year 1 month 1 day\ncalendar days: 395 (56.429 weeks)');
    const monthEnd = await calc({
      op: 'diff',
      date: '2023-01-31',
      other_date: '2023-02-28',
      timezone: 'UTC',
    });
    expect(monthEnd.output).toContain('difference: 1 month\ncalendar days: 28 (4 weeks)');
    const short = await calc({
      op: 'diff',
      date: '2024-01-01T08:00',
      other_date: '2024-01-01T09:30:15',
      timezone: 'UTC',
    });
    expect(short.output).toContain('difference: 1 hour 30 minutes 15 seconds\ncalendar days: 0 (0 weeks)');
    const same = await calc({ op: 'diff', date: '2024-01-01', other_date: '2024-01-01', timezone: 'UTC' });
    expect(same.output).toContain('difference: 0 (the same moment)');
  });

  it('signs a span that runs backwards and defaults the start to now', async () => {
    const back = await calc({ op: 'diff', date: '2025-03-01', other_date: '2024-01-31', timezone: 'UTC' });
    expect(back.output).toContain('difference: -(1 year 1 month 1 day); to is before from');
    expect(back.output).toContain('calendar days: -395 (-56.429 weeks)');
    expect(back.output).toContain('elapsed: -9480 hours = -568800 minutes');
    const untilChristmas = await calc({ op: 'diff', other_date: '2024-12-25', timezone: 'UTC' });
    expect(untilChristmas.output).toContain('from: 2024-03-30T11:00:00+00:00 (Saturday)');
    expect(untilChristmas.output).toContain('difference: 8 months 24 days 13 hours');
  });

  it('needs the second date', async () => {
    const r = await calc({ op: 'diff', date: '2024-01-01' });
    expect(r.output).toBe(
      '[ERROR] date_calc diff needs `other_date`\nHint: pass other_date (the end); date is the start and defaults to now',
    );
  });
});

describe('date_calc convert and weekday', () => {
  it('converts between zones, keeping the spelling of the zone asked for', async () => {
    const r = await calc({
      op: 'convert',
      date: '2024-03-10T09:00',
      timezone: 'America/New_York',
      to_timezone: 'Asia/Kolkata',
    });
    expect(r.output).toBe(
      '2024-03-10T09:00:00-04:00 America/New_York (Sunday)\n' +
        '= 2024-03-10T18:30:00+05:30 Asia/Kolkata (Sunday)\n' +
        'Asia/Kolkata is 9.5 hours ahead of America/New_York at that moment',
    );
    const absolute = await calc({
      op: 'convert',
      date: '2024-06-01T23:00:00Z',
      timezone: 'UTC',
      to_timezone: 'Asia/Tokyo',
    });
    expect(absolute.output).toContain('= 2024-06-02T08:00:00+09:00 Asia/Tokyo (Sunday)');
    const behind = await calc({
      op: 'convert',
      date: '2024-06-01T12:00',
      timezone: 'UTC',
      to_timezone: 'America/Denver',
    });
    expect(behind.output).toContain('America/Denver is 6 hours behind UTC');
  });

  it('explains a missing or unknown target zone', async () => {
    const missing = await calc({ op: 'convert', date: '2024-06-01' });
    expect(missing.output).toMatch(/^\[ERROR\] date_calc convert needs `to_timezone`/);
    const unknown = await calc({ op: 'convert', date: '2024-06-01', to_timezone: 'Mars/Olympus' });
    expect(unknown.output).toMatch(/^\[ERROR\] Unknown time zone "Mars\/Olympus"/);
  });

  it('names the weekday, ISO week and day of the year', async () => {
    const leap = await calc({ op: 'weekday', date: '2024-02-29' });
    expect(leap.output).toBe('2024-02-29 is a Thursday; ISO week 2024-W09; day 60 of 366');
    const edge = await calc({ op: 'weekday', date: '2021-01-03' });
    expect(edge.output).toBe('2021-01-03 is a Sunday; ISO week 2020-W53; day 3 of 365');
    const next = await calc({ op: 'weekday', date: '2024-12-30' });
    expect(next.output).toContain('ISO week 2025-W01');
  });

  it('reads today and tomorrow in the requested zone', async () => {
    // At 11:00 UTC it is already 20:00 in Tokyo; late in the day there, "tomorrow" is the 31st.
    const today = await calc({ op: 'weekday', date: 'today', timezone: 'Asia/Tokyo' });
    expect(today.output).toMatch(/^2024-03-30 is a Saturday/);
    const tomorrow = await calc({ op: 'weekday', date: 'tomorrow', timezone: 'Pacific/Kiritimati' });
    expect(tomorrow.output).toMatch(/^2024-04-01 is a Monday/);
    const unix = await calc({ op: 'weekday', date: '1711796400', timezone: 'UTC' });
    expect(unix.output).toMatch(/^2024-03-30 is a Saturday/);
  });
});

describe('date_calc input errors', () => {
  it('rejects impossible and unreadable dates', async () => {
    const feb = await calc({ op: 'weekday', date: '2023-02-29' });
    expect(feb.output).toMatch(
      /^\[ERROR\] "2023-02-29" is not a valid date: February 2023 has 28 days\nHint: use ISO form/,
    );
    const hour = await calc({ op: 'weekday', date: '2024-01-01T25:00' });
    expect(hour.output).toMatch(
      /^\[ERROR\] "2024-01-01T25:00" is not a valid date: hour 25 is out of range 0-23/,
    );
    const words = await calc({ op: 'weekday', date: 'next tuesday-ish' });
    expect(words.output).toMatch(/^\[ERROR\] Cannot read the date "next tuesday-ish"\nHint: /);
    const proto = await calc({ op: 'weekday', date: 'constructor' });
    expect(proto.output).toMatch(/^\[ERROR\] Cannot read the date "constructor"/);
    const compact = await calc({ op: 'weekday', date: '20240131' });
    expect(compact.output).toMatch(/^\[ERROR\] Cannot read the date "20240131": a bare number is ambiguous/);
  });

  it('notes local times that fall in a DST gap or overlap', async () => {
    const gap = await calc({
      op: 'convert',
      date: '2024-03-31T02:30',
      timezone: 'Europe/Berlin',
      to_timezone: 'UTC',
    });
    expect(gap.output).toContain('2024-03-31T03:30:00+02:00 Europe/Berlin');
    expect(gap.output).toContain(
      'note: 2024-03-31 02:30 does not exist in Europe/Berlin (clocks jump forward); used 2024-03-31T03:30:00+02:00',
    );
    const overlap = await calc({
      op: 'convert',
      date: '2024-10-27T02:30',
      timezone: 'Europe/Berlin',
      to_timezone: 'UTC',
    });
    expect(overlap.output).toContain('= 2024-10-27T00:30:00+00:00 UTC');
    expect(overlap.output).toContain('happens twice in Europe/Berlin (clocks go back); used the first');
  });
});
