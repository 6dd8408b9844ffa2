/**
 * The task form: schedule fields as typed, dates as local `YYYY-MM-DDTHH:MM` text, and the action
 * list as editable entries (numbers kept as typed, lists one a line). Checked with the contracts'
 * own schema and its one-line message.
 */
import { ZCronTask, formatIssues, type CronAction, type CronActionType, type CronTask } from '@lucky/contracts';
import { lang } from '../../i18n';
import type { FormProblem } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { lines } from '../../lib/helpers';

/** An action as the form holds it: every field of every kind, the kind deciding which are sent. */
export interface ActionForm {
  /** A stable id for React lists while entries move. */
  id: number;
  type: CronActionType;
  onFailure: 'stop' | 'continue';
  line: string;
  cwd: string;
  env: string;
  timeout: Num;
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  headers: string;
  body: string;
  successText: string;
  target: string;
  module: 'ddns' | 'web' | 'portforward' | 'stun';
  enable: boolean;
  folder: string;
  keep: Num;
  secrets: boolean;
  when: 'always' | 'failure' | 'success';
  preset: string;
}

export interface CronForm {
  name: string;
  enable: boolean;
  kind: 'cron' | 'interval';
  expr: string;
  every: Num;
  timezone: string;
  start: string;
  end: string;
  overlap: 'skip' | 'queue';
  catchUp: 'skip' | 'once';
  actions: ActionForm[];
  note: string;
}

let nextId = 1;

export function emptyAction(type: CronActionType = 'command'): ActionForm {
  return {
    id: nextId++,
    type,
    onFailure: 'stop',
    line: '',
    cwd: '',
    env: '',
    timeout: type === 'url' ? 20 : 60,
    url: '',
    method: type === 'notify' ? 'POST' : 'GET',
    headers: '',
    body: '',
    successText: '',
    target: '',
    module: 'ddns',
    enable: true,
    folder: '',
    keep: 7,
    secrets: false,
    when: 'always',
    preset: 'custom',
  };
}

export const emptyForm = (): CronForm => ({
  name: '',
  enable: true,
  kind: 'cron',
  expr: '0 0 3 * * *',
  every: 3600,
  timezone: '',
  start: '',
  end: '',
  overlap: 'skip',
  catchUp: 'skip',
  actions: [emptyAction()],
  note: '',
});

/** Epoch ms ↔ the local text of a datetime-local input. */
export function toLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
}
export function fromLocalInput(s: string): number | null {
  if (s.trim() === '') return null;
  const t = new Date(s).getTime();
  return Number.isNaN(t) ? Number.NaN : t;
}

function actionToForm(a: CronAction): ActionForm {
  const f = { ...emptyAction(a.type), onFailure: a.onFailure };
  switch (a.type) {
    case 'command':
      return { ...f, line: a.line, cwd: a.cwd, env: joinLines(a.env), timeout: a.timeout };
    case 'url':
      return { ...f, url: a.url, method: a.method, headers: joinLines(a.headers), body: a.body, successText: a.successCheck.enable ? a.successCheck.text : '', timeout: a.timeout };
    case 'wol':
    case 'wolShutdown':
      return { ...f, target: a.device };
    case 'ddnsSync':
      return { ...f, target: a.task };
    case 'switch':
      return { ...f, module: a.module, target: a.rule, enable: a.enable };
    case 'backup':
      return { ...f, folder: a.folder, keep: a.keep, secrets: a.secrets };
    case 'notify':
      return { ...f, when: a.when, url: a.webhook.url, method: a.webhook.method, headers: joinLines(a.webhook.headers), body: a.webhook.body, successText: a.webhook.successCheck.enable ? a.webhook.successCheck.text : '', preset: a.webhook.preset };
  }
}

export const toForm = (t: CronTask): CronForm => ({
  name: t.name,
  enable: t.enable,
  kind: t.schedule.kind,
  expr: t.schedule.expr,
  every: t.schedule.every,
  timezone: t.timezone,
  start: toLocalInput(t.start),
  end: toLocalInput(t.end),
  overlap: t.overlap,
  catchUp: t.catchUp,
  actions: t.actions.map(actionToForm),
  note: t.note,
});

const check = (text: string) => ({ enable: text.trim() !== '', text: text.trim() });

export function formToAction(f: ActionForm): CronAction {
  const base = { onFailure: f.onFailure };
  switch (f.type) {
    case 'command':
      return { type: 'command', ...base, line: f.line.trim(), cwd: f.cwd.trim(), env: lines(f.env), timeout: toNumber(f.timeout) };
    case 'url':
      return { type: 'url', ...base, url: f.url.trim(), method: f.method, headers: lines(f.headers), body: f.body, successCheck: check(f.successText), proxy: { type: 'none', address: '', user: '', password: '' }, timeout: toNumber(f.timeout), skipVerify: false };
    case 'wol':
    case 'wolShutdown':
      return { type: f.type, ...base, device: f.target };
    case 'ddnsSync':
      return { type: 'ddnsSync', ...base, task: f.target };
    case 'switch':
      return { type: 'switch', ...base, module: f.module, rule: f.target, enable: f.enable };
    case 'backup':
      return { type: 'backup', ...base, folder: f.folder.trim(), keep: toNumber(f.keep), secrets: f.secrets };
    case 'notify':
      return {
        type: 'notify',
        ...base,
        when: f.when,
        webhook: { enable: true, preset: f.preset as 'custom', url: f.url.trim(), method: f.method, headers: lines(f.headers), body: f.body, successCheck: check(f.successText), proxy: { type: 'none', address: '', user: '', password: '' } },
      };
  }
}

/** The task as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToTask(f: CronForm): CronTask {
  return {
    name: f.name.trim(),
    enable: f.enable,
    schedule: { kind: f.kind, expr: f.expr.trim(), every: toNumber(f.every) },
    timezone: f.timezone.trim(),
    start: fromLocalInput(f.start),
    end: fromLocalInput(f.end),
    overlap: f.overlap,
    catchUp: f.catchUp,
    actions: f.actions.map(formToAction),
    note: f.note,
  };
}

/** The daemon's own line names the field ("参数 actions[0].line 错误：…"). */
export function checkTask(f: CronForm, inLang = lang): FormProblem[] {
  const task = formToTask(f);
  if (ZCronTask.safeParse(task).success) return [];
  const summary = formatIssues(ZCronTask, task, inLang);
  return [{ path: '', field: '', message: summary, inline: summary, summary }];
}

/** Moves entry `i` by `by` (−1 up, +1 down); the list unchanged at its ends. */
export function moveAction(list: ActionForm[], i: number, by: -1 | 1): ActionForm[] {
  const j = i + by;
  if (j < 0 || j >= list.length) return list;
  const out = [...list];
  [out[i], out[j]] = [out[j]!, out[i]!];
  return out;
}
