/** The module's own routes: run now, the history, the next run times, what actions can refer to. */
import { CRON_SWITCH_MODULES, describeSchedule, message, Ret, type cronContract, type CronTask } from '@lucky/contracts';
import { AppError, fail } from '../../core/envelope.js';
import type { OwnHandlers } from '../../core/module.js';
import { errMsg, notifyPresets } from './cron.actions.js';
import { CronHistory } from './cron.history.js';
import { compile, nextTimes, ScheduleError, type TaskTimes } from './cron.schedule.js';
import type { CronContext } from './index.js';

/** Compiles a task's times as a save checks them: a bad expression or a schedule that never runs is a ret 1. */
export function checkedSchedule(t: TaskTimes, now = Date.now()) {
  let s;
  try {
    s = compile(t);
  } catch (err) {
    if (err instanceof ScheduleError) throw fail(Ret.badRequest, 'cronBadExpression', { detail: err.message });
    throw err;
  }
  if (s.next(now) === null) throw fail(Ret.badRequest, 'cronNeverRuns');
  return s;
}

/** Action targets must exist now (the service lists them); the first that does not is named. */
export async function checkTargets(task: CronTask, mod: CronContext): Promise<void> {
  for (const [i, a] of task.actions.entries()) {
    const ref = a.type === 'wol' || a.type === 'wolShutdown' ? ['wol', a.device] : a.type === 'ddnsSync' ? ['ddns', a.task] : a.type === 'switch' ? [a.module, a.rule] : null;
    if (!ref) continue;
    const [module, key] = ref as [string, string];
    const n = i + 1;
    const moduleName = { key: `module_${module}` as 'module_ddns' };
    let rules;
    try {
      rules = await mod.services.actions.rules(module);
    } catch {
      throw fail(Ret.badRequest, 'cronTargetModuleOff', { n, module: moduleName });
    }
    if (!rules.some((r) => r.key === key)) throw fail(Ret.badRequest, 'cronTargetMissing', { n, module: moduleName, key });
  }
}

export function cronRoutes(mod: CronContext): OwnHandlers<typeof cronContract> {
  const history = new CronHistory(mod.db);
  return {
    runNow: async ({ params, query, req }) => {
      const task = mod.rules.require(params.key);
      const engine = await mod.engine();
      const run = engine.runNow(task.key, task.data);
      if (!run) throw fail(Ret.failed, 'cronAlreadyRunning');
      if (query.wait !== '1') {
        run.catch(() => undefined);
        return { msg: message(req.lang, 'cronRunStarted', { trigger: { key: 'cronTrigger_manual' } }), run: null };
      }
      const done = await run;
      return { msg: message(req.lang, 'cronRunDone', { result: { key: `cronResult_${done.result}` } }), run: history.get(done.id, req.lang) ?? null };
    },
    runs: async ({ params, query, req }) => {
      mod.rules.require(params.key);
      return { runs: history.list(params.key, query.limit, req.lang) };
    },
    nextRuns: async ({ body, req }) => {
      const s = checkedSchedule(body);
      return { times: nextTimes(s, Date.now(), 5), text: describeSchedule(body.schedule, req.lang), timezone: s.zone };
    },
    choices: async () => {
      const { actions, webhooks } = mod.services;
      const rules: Record<string, Array<{ key: string; name: string; enable: boolean }>> = {};
      for (const m of ['wol', ...CRON_SWITCH_MODULES]) {
        try {
          rules[m] = (await actions.rules(m)).map((r) => ({ key: r.key, name: r.name, enable: r.enable }));
        } catch (err) {
          // A module switched off offers nothing.
          if (!(err instanceof AppError)) mod.log.debug({ err: errMsg(err) }, 'cron choices');
        }
      }
      return { rules, webhookPresets: notifyPresets(webhooks), timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC' };
    },
  };
}
