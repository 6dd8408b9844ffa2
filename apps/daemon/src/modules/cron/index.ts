/**
 * Scheduled tasks: a task is a rule with a schedule and a list of actions. Acts on other modules
 * only through the `actions` service, calls URLs and sends notifications through `webhooks`, and
 * writes backups through `backups`. Runs are kept in lucky.db (cron.history.ts).
 */
import { cronContract, describeSchedule, Ret } from '@lucky/contracts';
import { fail } from '../../core/envelope.js';
import { defineModule, type ModuleContext } from '../../core/module.js';
import type { CronEngine } from './cron.engine.js';
import { CronHistory, cronMigrations } from './cron.history.js';
import { checkedSchedule, checkTargets, cronRoutes } from './cron.routes.js';

export type CronContext = ModuleContext<typeof cronContract, 'actions' | 'webhooks' | 'backups', CronEngine>;

export default defineModule({
  key: 'cron',
  contract: cronContract,
  migrations: cronMigrations,
  services: { needs: ['actions', 'webhooks', 'backups'] },
  engine: async (mod: CronContext) => {
    const { CronEngine } = await import('./cron.engine.js');
    const { services } = mod;
    return new CronEngine({
      actions: services.actions,
      webhooks: services.webhooks,
      backups: async () => services.backups,
      childEnv: mod.env.childEnv ?? {},
      dataDir: mod.dataDir,
      outputBytes: () => mod.rules.settings().outputBytes,
      history: new CronHistory(mod.db),
      bounds: () => ({ rows: mod.rules.settings().historyRows, bytes: mod.rules.settings().historyBytes }),
      stillOn: (key) => mod.rules.get(key)?.data.enable === true,
    });
  },
  prepare: async (task, previous, mod) => {
    if (task.name !== previous?.name && mod.rules.list().some((r) => r.data.name === task.name)) throw fail(Ret.badRequest, 'duplicateName');
    checkedSchedule(task);
    await checkTargets(task, mod);
    return task;
  },
  view: (task, figures, lang, mod) => ({
    scheduleText: describeSchedule(task.data.schedule, lang),
    nextRun: figures?.nextRun ?? null,
    running: figures?.running ?? false,
    skipped: figures?.skipped ?? 0,
    lastRun: new CronHistory(mod.db).last(task.key),
  }),
  run: async (task, mod) => {
    const run = (await mod.engine()).runNow(task.key, task.data);
    if (!run) throw fail(Ret.failed, 'cronAlreadyRunning');
    const done = await run;
    return { key: 'cronRunDone', vars: { result: { key: `cronResult_${done.result}` } } };
  },
  routes: cronRoutes,
  metrics: async (tasks, m, mod) => (await import('./cron.metrics.js')).cronMetrics(tasks, m, new CronHistory(mod.db)),
  removed: (key, mod) => new CronHistory(mod.db).drop(key),
});
