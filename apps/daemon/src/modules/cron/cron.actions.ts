/**
 * What each kind of action does. Actions on other modules go through the `actions` service (the
 * same path as those modules' own API), URL calls and notifications through `webhooks` (the DDNS
 * webhook's variables and presets), backups through `backups` (Settings → backup's own file).
 */
import { stat } from 'node:fs/promises';
import type { CronAction, CronTask, Msg, MsgValue, WebhookPreset } from '@lucky/contracts';
import { AppError } from '../../core/envelope.js';
import type { ActionsService, BackupsService, WebhooksService } from '../../core/services/index.js';
import type { WebhookMessage } from '../../lib/webhook/webhook.js';
import { runCommand, type CommandEnd } from '../../lib/command.js';
import { msgOf } from '../../lib/msgerror.js';
import type { ActionOutcome, Trigger } from './cron.history.js';

export interface ActionDeps {
  actions: ActionsService;
  webhooks: WebhooksService;
  backups: () => Promise<BackupsService>;
  /** The environment commands start from (the daemon's). */
  childEnv: Readonly<Record<string, string>>;
  /** Where commands run when the action names no folder. */
  dataDir: string;
  outputBytes: () => number;
}

/** What a run knows while its actions run: the values URL and notification templates can use. */
export interface RunInfo {
  taskKey: string;
  task: CronTask;
  trigger: Trigger;
  start: number;
  signal: AbortSignal;
  /** The outcomes so far. */
  done: ActionOutcome[];
}

/** The push presets' title and text: the task and how its run went. */
export const NOTIFY_MESSAGE: WebhookMessage = { title: 'Lucky: #{taskName} #{result}', text: '#{taskName}: #{result} (#{duration} ms)\n#{summaryLine}' };

/** The errors of services as messages (an AppError carries a key). */
export function errMsg(err: unknown): Msg {
  if (err instanceof AppError && err.key) return { key: err.key, vars: err.vars };
  return msgOf(err);
}

function moduleName(m: string): MsgValue {
  return { key: `module_${m}` as 'module_ddns' };
}

/** The target still exists (the service lists it); a message when not. */
async function target(deps: ActionDeps, module: string, key: string): Promise<{ name: string } | { missing: Msg }> {
  try {
    const rule = (await deps.actions.rules(module)).find((r) => r.key === key);
    return rule ?? { missing: { key: 'cronTargetGone', vars: { module: moduleName(module), key } } };
  } catch (err) {
    return { missing: errMsg(err) };
  }
}

/** How a command ended, as a run's summary says it. */
export function commandMsg(end: CommandEnd): Msg {
  switch (end.kind) {
    case 'exit':
      return { key: 'cronCmdExit', vars: { code: end.code } };
    case 'signal':
      return { key: 'cronCmdSignal', vars: { signal: end.signal } };
    case 'timeout':
      return { key: 'cronCmdTimeout', vars: { seconds: end.seconds } };
    case 'stopped':
      return { key: 'cronCmdStopped' };
    case 'failed':
      return { key: 'cronCmdFailed', vars: { detail: end.detail } };
  }
}

/** Values for templates: the task, the run so far. */
export function runValues(run: RunInfo, render: (m: Msg) => string): Record<string, string | number | string[]> {
  const failed = run.done.some((a) => !a.ok);
  return {
    taskName: run.task.name,
    taskKey: run.taskKey,
    trigger: run.trigger,
    result: failed ? 'failed' : 'ok',
    duration: Date.now() - run.start,
    summary: run.done.map((a) => `${a.type}: ${render(a.msg)}`),
    output: run.done.map((a) => a.output.slice(0, 1000)),
  };
}

export async function runAction(a: CronAction, run: RunInfo, deps: ActionDeps, render: (m: Msg) => string): Promise<Omit<ActionOutcome, 'ms' | 'type'>> {
  const none = { output: '', truncated: false };
  switch (a.type) {
    case 'command': {
      const cwd = a.cwd || deps.dataDir;
      const isDir = await stat(cwd).then((s) => s.isDirectory(), () => false);
      if (!isDir) return { ok: false, msg: { key: 'cronCmdFailed', vars: { detail: `${cwd}: no such folder` } }, ...none };
      const env: Record<string, string> = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', ...deps.childEnv };
      env.LUCKY_TASK = run.task.name;
      env.LUCKY_TASK_KEY = run.taskKey;
      env.LUCKY_TRIGGER = run.trigger;
      for (const line of a.env) {
        const i = line.indexOf('=');
        env[line.slice(0, i)] = line.slice(i + 1);
      }
      const r = await runCommand({ line: a.line, cwd, env, timeoutMs: a.timeout * 1000, maxOutput: deps.outputBytes(), signal: run.signal });
      return { ok: r.ok, msg: commandMsg(r.end), output: r.output, truncated: r.truncated };
    }
    case 'url': {
      const hook = { enable: true, preset: 'custom' as const, url: a.url, method: a.method, headers: a.headers, body: a.body, successCheck: a.successCheck, proxy: a.proxy };
      const r = await deps.webhooks.test(hook, runValues(run, render), { timeoutMs: a.timeout * 1000, skipVerify: a.skipVerify });
      const msg: Msg = r.success ? r.reason : { key: 'cronUrlFailed', vars: { reason: r.reason } };
      const max = deps.outputBytes();
      return { ok: r.success, msg, output: r.body.slice(0, max), truncated: r.body.length > max };
    }
    case 'wol':
    case 'wolShutdown':
    case 'ddnsSync': {
      const [module, key] = a.type === 'ddnsSync' ? ['ddns', a.task] : ['wol', a.device];
      const t = await target(deps, module, key);
      if ('missing' in t) return { ok: false, msg: t.missing, ...none };
      try {
        // The device's shutdown is an operation WOL offers by name beside "run now" (= wake).
        const said = a.type === 'wolShutdown' ? await deps.actions.run(module, key, 'shutdown') : await deps.actions.run(module, key);
        const done = a.type === 'wol' ? 'cronWolDone' : a.type === 'wolShutdown' ? 'cronWolShutdownDone' : 'cronDdnsDone';
        return { ok: true, msg: { key: done, vars: { detail: said } }, ...none };
      } catch (err) {
        return { ok: false, msg: errMsg(err), ...none };
      }
    }
    case 'switch': {
      const t = await target(deps, a.module, a.rule);
      if ('missing' in t) return { ok: false, msg: t.missing, ...none };
      try {
        await deps.actions.setEnabled(a.module, a.rule, a.enable);
        return { ok: true, msg: { key: 'cronSwitchDone', vars: { module: moduleName(a.module), name: t.name, state: { key: a.enable ? 'cronSwitchOn' : 'cronSwitchOff' } } }, ...none };
      } catch (err) {
        return { ok: false, msg: errMsg(err), ...none };
      }
    }
    case 'backup': {
      try {
        const w = await (await deps.backups()).write(a.folder, { keep: a.keep, secrets: a.secrets });
        return { ok: true, msg: { key: 'cronBackupDone', vars: { file: w.path, bytes: w.bytes, removed: w.removed.length } }, ...none };
      } catch (err) {
        return { ok: false, msg: { key: 'cronBackupFailed', vars: { detail: errMsg(err) } }, ...none };
      }
    }
    case 'notify': {
      const failed = run.done.some((x) => !x.ok);
      if ((a.when === 'failure' && !failed) || (a.when === 'success' && failed)) return { ok: true, msg: { key: 'cronNotifySkipped' }, ...none };
      const r = await deps.webhooks.test({ ...a.webhook, enable: true }, runValues(run, render));
      return { ok: r.success, msg: { key: r.success ? 'cronNotifyDone' : 'cronNotifyFailed', vars: { reason: r.reason } }, output: r.body.slice(0, deps.outputBytes()), truncated: false };
    }
  }
}

/** The presets offered for a notification action. */
export function notifyPresets(webhooks: WebhooksService): Record<WebhookPreset, Partial<import('@lucky/contracts').Webhook>> {
  return webhooks.presets(NOTIFY_MESSAGE);
}
