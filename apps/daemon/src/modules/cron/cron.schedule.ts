/**
 * When a task runs: a cron expression (croner: seconds, L, #, W, nicknames, IANA zones with their
 * DST changes) or a fixed interval counted from the start date, inside the task's window of dates.
 * Pure functions of the time given, so tests choose the clock.
 */
import { Cron } from 'croner';
import type { CronSchedule } from '@lucky/contracts';

/** The zone the daemon runs in (TZ, /etc/localtime), for tasks that name none. */
export function systemZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export class ScheduleError extends Error {}

const lastNext = new Map<string, { after: number; at: number | null }>();

export interface TaskTimes {
  schedule: CronSchedule;
  timezone: string;
  start: number | null;
  end: number | null;
}

export interface Schedule {
  /** The zone the times are computed in. */
  readonly zone: string;
  /** The first run strictly after `after` (epoch ms), or null when there is none. */
  next(after: number): number | null;
}

/** Compiles a task's times; a bad expression or zone throws ScheduleError with the library's words. */
export function compile(t: TaskTimes): Schedule {
  const zone = t.timezone || systemZone();
  let base: (after: number) => number | null;
  if (t.schedule.kind === 'interval') {
    const every = t.schedule.every * 1000;
    const anchor = t.start ?? 0;
    base = (after) => (after < anchor ? anchor : anchor + (Math.floor((after - anchor) / every) + 1) * every);
  } else {
    let cron: Cron;
    try {
      // No function: croner only computes times here, the engine keeps the timers.
      cron = new Cron(t.schedule.expr, { timezone: zone, paused: true, mode: '5-or-6-parts' });
      cron.nextRun(new Date(0));
    } catch (err) {
      throw new ScheduleError((err as Error).message.replace(/^Cron\w*:\s*/, ''));
    }
    // Tasks with the same expression and zone fire together and ask for the same next time: the
    // last answer is shared (croner's zone arithmetic costs ~0.1 ms a call).
    const id = `${t.schedule.expr}\u0000${zone}`;
    base = (after) => {
      const hit = lastNext.get(id);
      if (hit && hit.after === after) return hit.at;
      const at = cron.nextRun(new Date(after))?.getTime() ?? null;
      if (lastNext.size > 1000) lastNext.clear();
      lastNext.set(id, { after, at });
      return at;
    };
  }
  return {
    zone,
    next(after) {
      const from = t.start !== null && after < t.start ? t.start - 1 : after;
      const at = base(from);
      if (at === null || (t.end !== null && at > t.end)) return null;
      return at;
    },
  };
}

/** The next `n` run times after `from`. */
export function nextTimes(s: Schedule, from: number, n: number): number[] {
  const out: number[] = [];
  let t: number | null = from;
  while (out.length < n && (t = s.next(t)) !== null) out.push(t);
  return out;
}
