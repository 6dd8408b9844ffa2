/** Scheduled tasks' series (docs/METRICS.md): runs by result, skipped runs, the last run and the next. */
import type { CronTask } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { CronFigures } from './cron.engine.js';
import type { CronHistory } from './cron.history.js';

export function cronMetrics(rules: RuleFigures<CronTask, CronFigures>[], m: Metrics, history: CronHistory): void {
  const runs = m.counter('lucky_cron_runs_total', 'Runs of a scheduled task since it started, by result (ok, failed).');
  const skipped = m.counter('lucky_cron_skipped_runs_total', 'Runs of a scheduled task skipped because the previous one was still running.');
  const running = m.gauge('lucky_cron_running', 'Whether a scheduled task is running now (1) or not (0).');
  const next = m.gauge('lucky_cron_next_run_timestamp_seconds', 'When a scheduled task runs next, since the Unix epoch, in seconds.');
  const last = m.gauge('lucky_cron_last_run_timestamp_seconds', 'When a scheduled task last started a run, since the Unix epoch, in seconds (from its history).');
  const lastOk = m.gauge('lucky_cron_last_run_success', 'Whether a scheduled task\'s last finished run succeeded (1) or failed (0).');
  for (const { key, figures: f } of rules) {
    const l = { rule: key };
    const done = history.last(key);
    if (done) {
      last.set(l, done.start / 1000);
      if (done.result !== 'running') lastOk.set(l, done.result === 'ok' ? 1 : 0);
    }
    if (!f) continue;
    runs.set({ ...l, result: 'ok' }, f.runs.ok);
    runs.set({ ...l, result: 'failed' }, f.runs.failed);
    skipped.set(l, f.skipped);
    running.set(l, f.running ? 1 : 0);
    if (f.nextRun !== null) next.set(l, f.nextRun / 1000);
  }
}
