/**
 * Schedules each task with its own timer (armed at most a minute ahead, so a changed wall clock is
 * noticed), runs its actions in order, never two runs of one task at once (the one due meanwhile is
 * skipped and logged, or waits: the task says which), catches up once after the daemon was down
 * when the task asks, and keeps every run in the history.
 */
import { renderMsg, type CronTask, type Msg } from '@lucky/contracts';
import type { Engine, RuleContext, RuleHandle } from '../../core/engine.js';
import { runAction, type ActionDeps, type RunInfo } from './cron.actions.js';
import type { ActionOutcome, CronHistory, RunRecord, Trigger } from './cron.history.js';
import { compile, type Schedule } from './cron.schedule.js';

export interface CronFigures {
  nextRun: number | null;
  running: boolean;
  skipped: number;
  /** Runs finished since the task started, by result. */
  runs: { ok: number; failed: number };
}

export interface CronEngineDeps extends ActionDeps {
  history: CronHistory;
  bounds: () => { rows: number; bytes: number };
  /** The task is still stored and switched on (its stop is a daemon stop, not the user's). */
  stillOn: (key: string) => boolean;
  now?: () => number;
  /** How often "last seen" is written (ms). */
  seenEveryMs?: number;
}

/** A run as stored, with its id in the history. */
export type DoneRun = RunRecord & { id: number };

/** Longest single wait: a wall clock set forward or back is seen within this. */
const MAX_WAIT = 60_000;

class TaskRunner {
  private timer: NodeJS.Timeout | null = null;
  private nextAt: number | null = null;
  running: Promise<DoneRun> | null = null;
  private queued: Trigger | null = null;
  skipped = 0;
  /** Runs finished since the task started, by result (metrics). */
  readonly results = { ok: 0, failed: 0 };
  private abort = new AbortController();
  private stopped = false;

  constructor(
    readonly key: string,
    public task: CronTask,
    private schedule: Schedule | null,
    private deps: CronEngineDeps,
    private note: (line: Msg) => void,
  ) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  get next(): number | null {
    return this.nextAt;
  }

  /**
   * An edited task: the new schedule and actions from now on. A run under way goes on with the
   * actions it started with (its command is not killed); the next run uses the new ones.
   */
  replace(task: CronTask, schedule: Schedule, now: number): void {
    this.task = task;
    this.schedule = schedule;
    this.arm(now);
  }

  /** Arms the timer for the first time after `after`. */
  arm(after: number): void {
    if (this.stopped || !this.schedule) return;
    this.nextAt = this.schedule.next(after);
    this.wait();
  }

  private wait(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.nextAt === null || this.stopped) return;
    const delay = Math.min(Math.max(0, this.nextAt - this.now()), MAX_WAIT);
    this.timer = setTimeout(() => this.tick(), delay);
  }

  private tick(): void {
    this.timer = null;
    if (this.nextAt === null || this.stopped) return;
    const now = this.now();
    // Early (a long wait cut to a minute, or a timer a millisecond early): wait again for the same time.
    if (now < this.nextAt) return this.wait();
    const due = this.nextAt;
    this.trigger('schedule');
    // The next one after this one; after now when the loop was held up past a whole second.
    this.arm(now - due < 1000 ? due : now);
  }

  /** A run is due: started, or skipped/queued when one runs. Returns the run when it started. */
  trigger(trigger: Trigger): Promise<DoneRun> | null {
    if (this.running) {
      if (this.task.overlap === 'queue' && this.queued === null) {
        this.queued = trigger;
        this.note({ key: 'cronRunQueued' });
      } else {
        this.skipped++;
        this.note({ key: 'cronRunSkipped' });
      }
      return null;
    }
    const run = this.execute(trigger);
    this.running = run;
    void run.finally(() => {
      this.running = null;
      const q = this.queued;
      this.queued = null;
      if (q && !this.stopped) this.trigger(q);
    });
    return run;
  }

  private async execute(trigger: Trigger): Promise<DoneRun> {
    const start = this.now();
    const t0 = performance.now();
    const task = this.task;
    this.note({ key: 'cronRunStarted', vars: { trigger: { key: `cronTrigger_${trigger}` } } });
    const info: RunInfo = { taskKey: this.key, task, trigger, start, signal: this.abort.signal, done: [] };
    const render = (m: Msg) => renderMsg('en_US', m);
    let stop = false;
    for (const action of task.actions) {
      // After a failure that stops the run, only notifications still go (they say it failed).
      if (stop && action.type !== 'notify') continue;
      const a0 = performance.now();
      let r: Omit<ActionOutcome, 'ms' | 'type'>;
      try {
        r = await runAction(action, info, this.deps, render);
      } catch (err) {
        r = { ok: false, msg: { key: 'cronActionFailed', vars: { detail: (err as Error).message } }, output: '', truncated: false };
      }
      info.done.push({ type: action.type, ...r, ms: Math.round(performance.now() - a0) });
      if (!r.ok && action.onFailure === 'stop') stop = true;
    }
    const record: RunRecord = {
      trigger,
      start,
      ms: Math.round(performance.now() - t0),
      result: info.done.some((a) => !a.ok) ? 'failed' : 'ok',
      actions: info.done,
    };
    this.results[record.result]++;
    const id = await this.deps.history.add(this.key, record, this.deps.bounds());
    this.note({ key: 'cronRunFinished', vars: { result: { key: `cronResult_${record.result}` }, ms: record.ms } });
    return { ...record, id };
  }

  /** Stops the timer and ends what runs (commands are killed); resolves when the run has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextAt = null;
    this.queued = null;
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }
}

export class CronEngine implements Engine<CronTask, unknown, CronFigures> {
  private runners = new Map<string, TaskRunner>();
  /** Runs started by "run now" on a task that is not scheduled (switched off). */
  private manual = new Map<string, TaskRunner>();
  private seenTimer: NodeJS.Timeout | null = null;

  constructor(private deps: CronEngineDeps) {}

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  async start(task: CronTask, ctx: RuleContext<unknown>): Promise<RuleHandle<CronTask, CronFigures>> {
    // Saved tasks were checked when saved; one that no longer compiles (a zone removed from the system) waits for an edit.
    const schedule = compile(task);
    const runner = new TaskRunner(ctx.key, task, schedule, this.deps, (line) => ctx.note(line));
    this.runners.set(ctx.key, runner);
    const now = this.now();
    const seen = this.deps.history.seen(ctx.key);
    this.deps.history.setSeen([[ctx.key, now]]);
    this.watchSeen();
    // Missed while the daemon was down: a time came after it was last seen and at least a second ago.
    if (task.catchUp === 'once' && seen !== undefined) {
      const missed = schedule.next(seen);
      if (missed !== null && missed < now - 1000) {
        ctx.note({ key: 'cronCatchUp' });
        runner.trigger('catchup');
      }
    }
    runner.arm(now);
    return {
      stop: async () => {
        this.runners.delete(ctx.key);
        await runner.stop();
        if (this.deps.stillOn(ctx.key)) this.deps.history.setSeen([[ctx.key, this.now()]]);
        else this.deps.history.forgetSeen(ctx.key);
      },
      // In place: the timer is set again for the new schedule, a run under way finishes as it began.
      update: (edited) => {
        let next: Schedule;
        try {
          next = compile(edited);
        } catch {
          return false;
        }
        runner.replace(edited, next, this.now());
        return true;
      },
      figures: () => ({ nextRun: runner.next, running: runner.running !== null, skipped: runner.skipped, runs: { ...runner.results } }),
    };
  }

  /** Writes "last seen" of every scheduled task now and then (a crash loses at most this much). */
  private watchSeen(): void {
    if (this.seenTimer) return;
    this.seenTimer = setInterval(() => {
      const now = this.now();
      this.deps.history.setSeen([...this.runners.keys()].map((k) => [k, now] as [string, number]));
    }, this.deps.seenEveryMs ?? 30_000);
    this.seenTimer.unref();
  }

  /**
   * Runs a task now. A scheduled task's run obeys its overlap choice (null when skipped or
   * queued); a switched-off task runs once on its own.
   */
  runNow(key: string, task: CronTask): Promise<DoneRun> | null {
    const scheduled = this.runners.get(key);
    if (scheduled) return scheduled.trigger('manual');
    const busy = this.manual.get(key);
    if (busy) return busy.trigger('manual');
    const runner = new TaskRunner(key, task, null, this.deps, () => undefined);
    this.manual.set(key, runner);
    const run = runner.trigger('manual')!;
    void run.finally(() => this.manual.delete(key));
    return run;
  }

  isRunning(key: string): boolean {
    return (this.runners.get(key) ?? this.manual.get(key))?.running != null;
  }

  async close(): Promise<void> {
    if (this.seenTimer) clearInterval(this.seenTimer);
    this.seenTimer = null;
    await Promise.all([...this.manual.values()].map((r) => r.stop()));
  }
}
