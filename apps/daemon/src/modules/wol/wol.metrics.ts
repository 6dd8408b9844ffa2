/**
 * Wake-on-LAN series (docs/METRICS.md): whether each device answers its online check, probed as the
 * console's list probes it (a few at a time, each answer reused for a few seconds), and its last wake.
 * A scrape is someone looking: nobody scraping and nobody on the list means no probing. A scrape
 * waits for the probes at most WAIT_MS (many devices asleep would outlast Prometheus's timeout);
 * the probes go on and a later scrape reads their answers.
 */
import type { WolDevice } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { WolFigures } from './wol.engine.js';
import { probesOf } from './wol.online.js';

const WAIT_MS = 2500;

export async function wolMetrics(rules: RuleFigures<WolDevice, WolFigures>[], m: Metrics, mod: object): Promise<void> {
  const online = m.gauge('lucky_wol_device_online', 'Whether a device answers its online check (1) or not (0); devices without a check are left out.');
  const wake = m.gauge('lucky_wol_last_wake_timestamp_seconds', 'When a device was last woken since its rule started, since the Unix epoch, in seconds.');
  const probes = probesOf(mod);
  const checked = rules.filter((r) => r.rule.checkHost !== '');
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    probes.states(checked.map((r) => ({ key: r.key, enable: r.rule.enable, checkHost: r.rule.checkHost, checkPort: r.rule.checkPort }))),
    new Promise((resolve) => (timer = setTimeout(resolve, WAIT_MS))),
  ]);
  clearTimeout(timer);
  for (const { key } of checked) {
    const up = probes.known(key);
    if (up !== undefined) online.set({ rule: key }, up ? 1 : 0);
  }
  for (const { key, figures } of rules) {
    if (figures?.lastWake) wake.set({ rule: key }, figures.lastWake.at / 1000);
  }
}
