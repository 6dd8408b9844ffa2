/**
 * Scheduled tasks: a task is a rule with a schedule (a cron expression with seconds, or a fixed
 * interval), a time zone, an optional window of dates, and actions run in order. Actions on other
 * modules name their rules by key; the daemon drives them through the `actions` service.
 */
import { z } from 'zod';
import { ok } from './envelope.js';
import { checkWebhook, secretHeaderLines, ZHttpMethod, ZHttpProxy, ZLines, ZSuccessCheck, ZWebhook, NO_PROXY } from './http.js';
import { message, msgKey, type Lang } from './i18n.js';
import { ZNonEmpty } from './net.js';
import { route } from './route.js';
import { moduleContract, ruleView, ZRuleKey, ZRuleParams } from './rules.js';

/** Whether the runtime knows the IANA zone (the browser and Node answer the same). */
export function isTimeZone(tz: string): boolean {
  if (tz === '') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const ZTimeZone = z
  .string()
  .trim()
  .max(64)
  .refine(isTimeZone, { error: msgKey('cronBadTimeZone') });

export const ZCronSchedule = z.object({
  kind: z.enum(['cron', 'interval']).default('cron'),
  /** Six fields with seconds (`*\/30 * * * * *`), five without, or `@daily`, `@hourly`… */
  expr: z.string().trim().max(256).default('0 0 * * * *'),
  /** Seconds between runs for `interval`, counted from the start date (or 1970 when none). */
  every: z.number().int().min(1).max(31 * 86400).default(3600),
});
export type CronSchedule = z.infer<typeof ZCronSchedule>;

const onFailure = z.enum(['stop', 'continue']).default('stop');

/** `NAME=value` a line. */
const ZEnvLines = ZLines.pipe(z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*=/, { error: msgKey('cronBadEnvLine') })));

export const ZCronCommand = z.object({
  type: z.literal('command'),
  onFailure,
  line: ZNonEmpty.max(4096),
  /** Working directory; empty for the daemon's data directory. */
  cwd: z.string().trim().max(1024).default(''),
  env: ZEnvLines.default([]),
  /** Seconds; the whole process group is killed after it. */
  timeout: z.number().int().min(1).max(86400).default(60),
});

export const ZCronUrl = z.object({
  type: z.literal('url'),
  onFailure,
  url: z.string().trim().max(2048).regex(/^https?:\/\/\S+$/i, { error: msgKey('invalidUrl') }),
  method: ZHttpMethod.default('GET'),
  /** Often an API token (`Authorization: Bearer …`): values are secrets, bound to the URL. */
  headers: secretHeaderLines(['url']).default([]),
  body: z.string().max(16384).default(''),
  successCheck: ZSuccessCheck.default({ enable: false, text: '' }),
  proxy: ZHttpProxy.default(NO_PROXY),
  timeout: z.number().int().min(1).max(600).default(20),
  skipVerify: z.boolean().default(false),
});

export const ZCronWol = z.object({ type: z.literal('wol'), onFailure, device: ZRuleKey });
/** Shut a wake-on-LAN device down with its own shutdown command or URL. */
export const ZCronWolShutdown = z.object({ type: z.literal('wolShutdown'), onFailure, device: ZRuleKey });

/** Modules whose rules a task may switch on or off. */
export const CRON_SWITCH_MODULES = ['ddns', 'web', 'portforward', 'stun'] as const;
export const ZCronSwitch = z.object({
  type: z.literal('switch'),
  onFailure,
  module: z.enum(CRON_SWITCH_MODULES),
  rule: ZRuleKey,
  enable: z.boolean(),
});

export const ZCronDdnsSync = z.object({ type: z.literal('ddnsSync'), onFailure, task: ZRuleKey });

export const ZCronBackup = z.object({
  type: z.literal('backup'),
  onFailure,
  /** An absolute folder; created when missing. */
  folder: z.string().trim().min(1, { error: msgKey('cannotBeEmpty') }).max(1024).regex(/^\//, { error: msgKey('cronFolderAbsolute') }),
  keep: z.number().int().min(1).max(1000).default(7),
  /** With passwords and keys (as "download with secrets"). */
  secrets: z.boolean().default(false),
});

export const ZCronNotify = z.object({
  type: z.literal('notify'),
  onFailure,
  /** After which outcome of the actions before it. */
  when: z.enum(['always', 'failure', 'success']).default('always'),
  webhook: ZWebhook,
});

export const ZCronAction = z.discriminatedUnion('type', [ZCronCommand, ZCronUrl, ZCronWol, ZCronWolShutdown, ZCronSwitch, ZCronDdnsSync, ZCronBackup, ZCronNotify]);
export type CronAction = z.infer<typeof ZCronAction>;
export type CronActionType = CronAction['type'];
export const CRON_ACTION_TYPES = ['command', 'url', 'wol', 'wolShutdown', 'switch', 'ddnsSync', 'backup', 'notify'] as const satisfies readonly CronActionType[];

export const ZCronTaskFields = z.object({
    name: ZNonEmpty.max(64),
    enable: z.boolean().default(true),
    schedule: ZCronSchedule.default({ kind: 'cron', expr: '0 0 * * * *', every: 3600 }),
    /** IANA zone; empty for the system's. */
    timezone: ZTimeZone.default(''),
    /** Epoch ms; no run before it (and the interval counts from it). */
    start: z.number().int().nullable().default(null),
    /** Epoch ms; no run after it. */
    end: z.number().int().nullable().default(null),
    /** A run due while the previous one still runs: skipped and logged, or run right after it (one waits at most). */
    overlap: z.enum(['skip', 'queue']).default('skip'),
    /** Runs missed while the daemon was down: forgotten, or one run at start. */
    catchUp: z.enum(['skip', 'once']).default('skip'),
    actions: z.array(ZCronAction).min(1, { error: msgKey('cronNoActions') }).max(20),
    note: z.string().max(512).default(''),
});
export const ZCronTask = ZCronTaskFields.superRefine((t, ctx) => {
    if (t.start !== null && t.end !== null && t.end <= t.start) ctx.addIssue({ code: 'custom', path: ['end'], message: msgKey('cronEndBeforeStart') });
    t.actions.forEach((a, i) => {
      if (a.type === 'notify') checkWebhook({ ...a.webhook, enable: true }, ['actions', i, 'webhook'], ctx);
      if (a.type === 'url') checkWebhook({ ...a, enable: true, preset: 'custom' }, ['actions', i], ctx);
    });
  });
export type CronTask = z.infer<typeof ZCronTask>;
export type CronTaskInput = z.input<typeof ZCronTask>;

export const CRON_RESULTS = ['ok', 'failed', 'running'] as const;
export type CronResult = (typeof CRON_RESULTS)[number];

export const ZCronActionResult = z.object({
  type: z.enum(CRON_ACTION_TYPES),
  ok: z.boolean(),
  /** What happened, in the reader's language. */
  summary: z.string(),
  /** The command's output or the answer's start, bounded. */
  output: z.string(),
  /** Part of the output was dropped (over the module's limit). */
  truncated: z.boolean(),
  ms: z.number(),
});
export type CronActionResult = z.infer<typeof ZCronActionResult>;

export const ZCronRun = z.object({
  id: z.number(),
  trigger: z.enum(['schedule', 'manual', 'catchup']),
  start: z.number(),
  ms: z.number(),
  result: z.enum(CRON_RESULTS),
  actions: z.array(ZCronActionResult),
});
export type CronRun = z.infer<typeof ZCronRun>;

export const ZCronTaskView = ruleView(ZCronTaskFields, {
  /** The schedule in words, in the reader's language. */
  scheduleText: z.string(),
  nextRun: z.number().nullable(),
  running: z.boolean(),
  lastRun: z.object({ start: z.number(), ms: z.number(), result: z.enum(CRON_RESULTS) }).nullable(),
  /** Runs skipped because the previous one still ran, since the daemon started. */
  skipped: z.number(),
});
export type CronTaskView = z.infer<typeof ZCronTaskView>;

export const ZCronConfigure = z.object({
  /** Runs kept per task. */
  historyRows: z.number().int().min(1).max(1000).default(100),
  /** Bytes of run history (outputs) kept per task. */
  historyBytes: z.number().int().min(4096).max(16 * 1024 * 1024).default(1024 * 1024),
  /** Bytes of output kept per action of a run. */
  outputBytes: z.number().int().min(256).max(1024 * 1024).default(16 * 1024),
});
export type CronConfigure = z.infer<typeof ZCronConfigure>;

export const ZCronNextRequest = z.object({
  schedule: ZCronSchedule,
  timezone: ZTimeZone.default(''),
  start: z.number().int().nullable().default(null),
  end: z.number().int().nullable().default(null),
});

const ZChoiceRule = z.object({ key: ZRuleKey, name: z.string(), enable: z.boolean() });

export const cronContract = moduleContract(
  'cron',
  { input: ZCronTask, view: ZCronTaskView, configure: ZCronConfigure },
  {
    runNow: route({
      method: 'POST',
      path: '/api/cron/rules/:key/run',
      summary: 'Run a task now (refused while it runs and its overlap is "skip"); wait=1 answers when the run ends, with it',
      module: 'cron',
      params: ZRuleParams,
      query: z.object({ wait: z.enum(['0', '1']).default('0') }),
      response: ok({ msg: z.string(), run: ZCronRun.nullable() }),
    }),
    runs: route({
      method: 'GET',
      path: '/api/cron/rules/:key/runs',
      summary: "A task's runs, newest first, with each action's output",
      module: 'cron',
      params: ZRuleParams,
      query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) }),
      response: ok({ runs: z.array(ZCronRun) }),
    }),
    nextRuns: route({
      method: 'POST',
      path: '/api/cron/nextruns',
      summary: 'The next five run times of a schedule (checked as a save would check it)',
      module: 'cron',
      body: ZCronNextRequest,
      response: ok({ times: z.array(z.number()), text: z.string(), timezone: z.string() }),
    }),
    choices: route({
      method: 'GET',
      path: '/api/cron/choices',
      summary: 'What actions can refer to: rules of other modules, webhook presets, the system time zone',
      module: 'cron',
      response: ok({
        rules: z.record(z.string(), z.array(ZChoiceRule)),
        webhookPresets: z.record(z.string(), ZWebhook.partial()),
        timezone: z.string(),
      }),
    }),
  },
);
export const cronRoutes = cronContract.routes;

// ------------------------------------------------------------------ the schedule in words

const FIELD_NAMES = ['second', 'minute', 'hour', 'day', 'month', 'weekday'] as const;

/** A short sentence for a schedule, in `lang`; falls back to the expression itself. */
export function describeSchedule(s: CronSchedule, lang: Lang): string {
  if (s.kind === 'interval') {
    const e = s.every;
    if (e % 86400 === 0) return message(lang, 'cronEveryDays', { n: e / 86400 });
    if (e % 3600 === 0) return message(lang, 'cronEveryHours', { n: e / 3600 });
    if (e % 60 === 0) return message(lang, 'cronEveryMinutes', { n: e / 60 });
    return message(lang, 'cronEverySeconds', { n: e });
  }
  const expr = s.expr.trim();
  const nick: Record<string, string> = { '@yearly': '0 0 0 1 1 *', '@annually': '0 0 0 1 1 *', '@monthly': '0 0 0 1 * *', '@weekly': '0 0 0 * * 0', '@daily': '0 0 0 * * *', '@midnight': '0 0 0 * * *', '@hourly': '0 0 * * * *' };
  let f = (nick[expr.toLowerCase()] ?? expr).split(/\s+/);
  if (f.length === 5) f = ['0', ...f];
  if (f.length !== 6) return expr;
  const [sec, min, hour, dom, mon, dow] = f as [string, string, string, string, string, string];
  const num = (x: string) => /^\d{1,2}$/.test(x);
  const two = (x: string) => x.padStart(2, '0');
  const step = (x: string) => /^\*\/(\d+)$/.exec(x)?.[1];
  // Common shapes first; anything else is listed field by field.
  if (f.every((x) => x === '*')) return message(lang, 'cronEverySecond');
  if (step(sec) && [min, hour, dom, mon, dow].every((x) => x === '*')) return message(lang, 'cronEverySeconds', { n: step(sec)! });
  if (sec === '0' && min === '*' && [hour, dom, mon, dow].every((x) => x === '*')) return message(lang, 'cronEveryMinute');
  if (sec === '0' && step(min) && [hour, dom, mon, dow].every((x) => x === '*')) return message(lang, 'cronEveryMinutes', { n: step(min)! });
  if (num(sec) && num(min) && hour === '*' && [dom, mon, dow].every((x) => x === '*')) return message(lang, 'cronHourlyAt', { time: `${two(min)}:${two(sec)}` });
  if (num(sec) && num(min) && step(hour) && [dom, mon, dow].every((x) => x === '*')) return message(lang, 'cronEveryHoursAt', { n: step(hour)!, time: `${two(min)}:${two(sec)}` });
  if (num(sec) && num(min) && num(hour)) {
    const time = `${two(hour)}:${two(min)}${sec === '0' ? '' : `:${two(sec)}`}`;
    if (dom === '*' && mon === '*' && dow === '*') return message(lang, 'cronDailyAt', { time });
    if (dom === '*' && mon === '*') return message(lang, 'cronWeekdaysAt', { days: describeWeekdays(dow, lang), time });
    if (mon === '*' && dow === '*') return dom === 'L' ? message(lang, 'cronMonthlyLastAt', { time }) : message(lang, 'cronMonthlyAt', { days: dom, time });
  }
  return f.map((x, i) => (x === '*' ? '' : `${message(lang, `cronField_${FIELD_NAMES[i]!}`)} ${x}`)).filter(Boolean).join(lang === 'zh_CN' ? '，' : ', ');
}

function describeWeekdays(dow: string, lang: Lang): string {
  const names = (n: string) => {
    const i = Number(n) % 7;
    return Number.isInteger(i) && /^\d$/.test(n) ? message(lang, `cronDay${i}` as 'cronDay0') : n;
  };
  return dow
    .split(',')
    .map((part) => part.split('-').map(names).join(lang === 'zh_CN' ? '至' : '–'))
    .join(lang === 'zh_CN' ? '、' : ', ');
}
