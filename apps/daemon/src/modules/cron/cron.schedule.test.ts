/** When tasks run, with the clock chosen by the test: expressions, both DST changes of Berlin, Shanghai, intervals, windows. */
import { describeSchedule, type CronSchedule } from '@lucky/contracts';
import { describe, expect, it } from 'vitest';
import { compile, nextTimes, ScheduleError } from './cron.schedule.js';

const cron = (expr: string): CronSchedule => ({ kind: 'cron', expr, every: 3600 });
/** The next n times after `from`, as local wall times of the zone (and the UTC instant). */
function next(expr: string, timezone: string, from: string, n: number, window: { start?: string; end?: string } = {}) {
  const s = compile({ schedule: cron(expr), timezone, start: window.start ? Date.parse(window.start) : null, end: window.end ? Date.parse(window.end) : null });
  return nextTimes(s, Date.parse(from), n).map((t) => `${new Date(t).toLocaleString('sv-SE', { timeZone: timezone })} ${new Date(t).toISOString()}`);
}

describe('cron expressions', () => {
  it('read seconds, steps, ranges, lists, L, # and nicknames', () => {
    expect(next('*/20 * * * * *', 'UTC', '2026-01-01T00:00:00Z', 3)).toEqual([
      '2026-01-01 00:00:20 2026-01-01T00:00:20.000Z',
      '2026-01-01 00:00:40 2026-01-01T00:00:40.000Z',
      '2026-01-01 00:01:00 2026-01-01T00:01:00.000Z',
    ]);
    // Five fields: seconds are 0.
    expect(next('15 9-10 * * 1,3', 'UTC', '2026-01-05T09:20:00Z', 3).map((s) => s.slice(0, 19))).toEqual(['2026-01-05 10:15:00', '2026-01-07 09:15:00', '2026-01-07 10:15:00']);
    expect(next('0 0 12 L * *', 'UTC', '2026-01-01T00:00:00Z', 3).map((s) => s.slice(0, 10))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31']);
    expect(next('0 0 8 * * 5#2', 'UTC', '2026-01-01T00:00:00Z', 2).map((s) => s.slice(0, 10))).toEqual(['2026-01-09', '2026-02-13']);
    expect(next('@daily', 'UTC', '2026-01-01T10:00:00Z', 2).map((s) => s.slice(0, 19))).toEqual(['2026-01-02 00:00:00', '2026-01-03 00:00:00']);
    expect(next('@hourly', 'UTC', '2026-01-01T10:00:00Z', 1).map((s) => s.slice(0, 19))).toEqual(['2026-01-01 11:00:00']);
  });

  it('refuse what is not an expression, naming the problem', () => {
    for (const bad of ['61 * * * * *', '* * * *', 'hello', '* * * * * * * *', '0 0 25 * * *']) {
      expect(() => compile({ schedule: cron(bad), timezone: 'UTC', start: null, end: null }), bad).toThrow(ScheduleError);
    }
    expect(() => compile({ schedule: cron('* * * * * *'), timezone: 'Mars/Olympus', start: null, end: null })).toThrow(ScheduleError);
  });
});

describe('time zones and DST', () => {
  it('Europe/Berlin, spring forward (29 March 2026, 02:00 → 03:00): a time in the gap runs once, right after it', () => {
    expect(next('0 30 2 * * *', 'Europe/Berlin', '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28 02:30:00 2026-03-28T01:30:00.000Z',
      '2026-03-29 03:00:00 2026-03-29T01:00:00.000Z',
      '2026-03-30 02:30:00 2026-03-30T00:30:00.000Z',
    ]);
    // An every-30-minutes task skips the hour that does not exist: 01:30 is followed by 03:00.
    expect(next('0 */30 * * * *', 'Europe/Berlin', '2026-03-29T00:10:00Z', 3)).toEqual([
      '2026-03-29 01:30:00 2026-03-29T00:30:00.000Z',
      '2026-03-29 03:00:00 2026-03-29T01:00:00.000Z',
      '2026-03-29 03:30:00 2026-03-29T01:30:00.000Z',
    ]);
    // A daily 09:00 task stays at 09:00 local time: 8 h UTC in winter, 7 h in summer.
    expect(next('0 0 9 * * *', 'Europe/Berlin', '2026-03-28T00:00:00Z', 2).map((s) => s.slice(20))).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z']);
  });

  it('Europe/Berlin, fall back (25 October 2026, 03:00 → 02:00): a fixed time runs once, an interval runs in both hours', () => {
    expect(next('0 30 2 * * *', 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25 02:30:00 2026-10-25T00:30:00.000Z',
      '2026-10-26 02:30:00 2026-10-26T01:30:00.000Z',
    ]);
    expect(next('0 */30 * * * *', 'Europe/Berlin', '2026-10-24T23:10:00Z', 6)).toEqual([
      '2026-10-25 01:30:00 2026-10-24T23:30:00.000Z',
      '2026-10-25 02:00:00 2026-10-25T00:00:00.000Z',
      '2026-10-25 02:30:00 2026-10-25T00:30:00.000Z',
      '2026-10-25 02:00:00 2026-10-25T01:00:00.000Z',
      '2026-10-25 02:30:00 2026-10-25T01:30:00.000Z',
      '2026-10-25 03:00:00 2026-10-25T02:00:00.000Z',
    ]);
  });

  it('Asia/Shanghai (no DST): always UTC+8, the same on Berlin\'s change days', () => {
    for (const from of ['2026-03-28T00:00:00Z', '2026-10-24T00:00:00Z']) {
      const times = next('0 30 2 * * *', 'Asia/Shanghai', from, 3);
      for (const t of times) expect(t).toMatch(/ 02:30:00 \d{4}-\d\d-\d\dT18:30:00\.000Z$/);
    }
    expect(next('@daily', 'Asia/Shanghai', '2026-03-27T12:00:00Z', 2)).toEqual(['2026-03-28 00:00:00 2026-03-27T16:00:00.000Z', '2026-03-29 00:00:00 2026-03-28T16:00:00.000Z']);
  });
});

describe('intervals and windows', () => {
  it('an interval counts from the start date, none before it and none after the end', () => {
    const start = Date.parse('2026-05-01T10:00:07Z');
    const s = compile({ schedule: { kind: 'interval', expr: '', every: 90 }, timezone: 'UTC', start, end: start + 270_000 });
    expect(nextTimes(s, Date.parse('2026-01-01T00:00:00Z'), 10).map((t) => new Date(t).toISOString())).toEqual([
      '2026-05-01T10:00:07.000Z',
      '2026-05-01T10:01:37.000Z',
      '2026-05-01T10:03:07.000Z',
      '2026-05-01T10:04:37.000Z',
    ]);
  });

  it('a cron schedule keeps to its window', () => {
    expect(next('0 0 * * * *', 'UTC', '2026-01-01T00:00:00Z', 5, { start: '2026-01-01T05:30:00Z', end: '2026-01-01T07:00:00Z' }).map((s) => s.slice(0, 19))).toEqual([
      '2026-01-01 06:00:00',
      '2026-01-01 07:00:00',
    ]);
  });
});

describe('the schedule in words', () => {
  it('says common schedules in both languages', () => {
    expect(describeSchedule(cron('*/30 * * * * *'), 'en_US')).toBe('every 30 seconds');
    expect(describeSchedule(cron('*/30 * * * * *'), 'zh_CN')).toBe('每 30 秒');
    expect(describeSchedule(cron('0 30 2 * * *'), 'en_US')).toBe('every day at 02:30');
    expect(describeSchedule(cron('@daily'), 'zh_CN')).toBe('每天 00:00');
    expect(describeSchedule(cron('0 0 8 * * 1-5'), 'en_US')).toBe('every Monday–Friday at 08:00');
    expect(describeSchedule({ kind: 'interval', expr: '', every: 7200 }, 'zh_CN')).toBe('每 2 小时');
    expect(describeSchedule(cron('0 0 12 L * *'), 'en_US')).toBe('monthly on the last day at 12:00');
  });
});
