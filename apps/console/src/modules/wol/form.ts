/** The device form: MACs one a line, numbers as typed; checked with the contracts' own one-line message. */
import { ZWolDevice, formatIssues, type WolDevice } from '@lucky/contracts';
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
  note: string;
}

export const emptyForm = (): DeviceForm => ({ name: '', enable: true, macs: '', broadcast: '255.255.255.255', port: 9, secureOn: '', repeat: 3, interface: '', targets: '', checkHost: '', checkPort: 0, note: '' });

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
