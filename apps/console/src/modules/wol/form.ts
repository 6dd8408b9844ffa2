/** The device form: MACs one a line, numbers as typed; checked with the contracts' own one-line message. */
import { ZWolDevice, formatIssues, type CronTaskInput, type WolDevice, type WolShutdown } from '@lucky/contracts';
import { lang } from '../../i18n';
import type { FormProblem } from '../../kit/form/problems';
import { joinLines, toNumber, type Num } from '../../kit/form/values';
import { lines } from '../../lib/helpers';

export interface DeviceForm {
  name: string;
  enable: boolean;
  macs: string;
  broadcast: string;
  port: Num;
  secureOn: string;
  repeat: Num;
  interface: string;
  targets: string;
  checkHost: string;
  checkPort: Num;
  shutdownKind: WolShutdown['kind'];
  shutdownCommand: string;
  shutdownUrl: string;
  shutdownMethod: WolShutdown['method'];
  shutdownBody: string;
  shutdownTimeout: Num;
  note: string;
}

export const emptyForm = (): DeviceForm => ({ name: '', enable: true, macs: '', broadcast: '255.255.255.255', port: 9, secureOn: '', repeat: 3, interface: '', targets: '', checkHost: '', checkPort: 0, shutdownKind: 'none', shutdownCommand: '', shutdownUrl: '', shutdownMethod: 'GET', shutdownBody: '', shutdownTimeout: 30, note: '' });

export const toForm = (d: WolDevice): DeviceForm => ({
  name: d.name,
  enable: d.enable,
  macs: joinLines(d.macs),
  broadcast: d.broadcast,
  port: d.port,
  secureOn: d.secureOn,
  repeat: d.repeat,
  interface: d.interface,
  targets: joinLines(d.targets),
  checkHost: d.checkHost,
  checkPort: d.checkPort,
  shutdownKind: d.shutdown.kind,
  shutdownCommand: d.shutdown.command,
  shutdownUrl: d.shutdown.url,
  shutdownMethod: d.shutdown.method,
  shutdownBody: d.shutdown.body,
  shutdownTimeout: d.shutdown.timeout,
  note: d.note,
});

/** The device as the API takes it; numbers stay NaN when not numbers so validation names the field. */
export function formToDevice(f: DeviceForm): WolDevice {
  return {
    name: f.name.trim(),
    enable: f.enable,
    macs: lines(f.macs),
    broadcast: f.broadcast.trim(),
    port: toNumber(f.port),
    secureOn: f.secureOn.trim(),
    repeat: toNumber(f.repeat),
    interface: f.interface.trim(),
    targets: lines(f.targets),
    checkHost: f.checkHost.trim(),
    checkPort: toNumber(f.checkPort),
    shutdown: { kind: f.shutdownKind, command: f.shutdownCommand.trim(), url: f.shutdownUrl.trim(), method: f.shutdownMethod, body: f.shutdownBody, timeout: toNumber(f.shutdownTimeout) },
    note: f.note,
  };
}

/** The daemon's own line names the field ("参数 secureOn 错误：…"); the form shows it as it is. */
export function checkDevice(f: DeviceForm, inLang = lang): FormProblem[] {
  const device = formToDevice(f);
  if (ZWolDevice.safeParse(device).success) return [];
  const summary = formatIssues(ZWolDevice, device, inLang);
  return [{ path: '', field: '', message: summary, inline: summary, summary }];
}

// ------------------------------------------------------------------ "schedule wake / shutdown"

export type ScheduledOp = 'wake' | 'shutdown';

/** The shortcut's choice: what, at which local time (`HH:MM`), on which weekdays (0 = Sunday). */
export interface ScheduleChoice {
  op: ScheduledOp;
  time: string;
  days: number[];
}

/**
 * The cron expression (with seconds) for a time of day on some weekdays: `0 30 7 * * 1-5`, every
 * day as `*`; null when the time is not `H:MM`/`HH:MM` or no day is chosen.
 */
export function scheduleExpr(time: string, days: readonly number[]): string | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(time.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 23 || min > 59) return null;
  const set = [...new Set(days.filter((d) => Number.isInteger(d) && d >= 0 && d <= 6))].sort((a, b) => a - b);
  if (set.length === 0) return null;
  return `0 ${min} ${h} * * ${set.length === 7 ? '*' : daysField(set)}`;
}

/** Weekdays as a cron field: runs of three or more days as ranges (1-5), the rest listed. */
function daysField(days: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < days.length; ) {
    let j = i;
    while (j + 1 < days.length && days[j + 1] === days[j]! + 1) j++;
    if (j - i >= 2) parts.push(`${days[i]}-${days[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(days[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/** The scheduled task the shortcut creates: one action on the device, in the browser's time zone. */
export function scheduledTask(device: { key: string; name: string }, c: ScheduleChoice, name: string, timezone: string): CronTaskInput | null {
  const expr = scheduleExpr(c.time, c.days);
  if (expr === null) return null;
  return {
    name,
    enable: true,
    schedule: { kind: 'cron', expr, every: 3600 },
    timezone,
    overlap: 'skip',
    catchUp: 'skip',
    actions: [c.op === 'wake' ? { type: 'wol', device: device.key, onFailure: 'stop' } : { type: 'wolShutdown', device: device.key, onFailure: 'stop' }],
    note: '',
  };
}
