/** DDNS series (docs/METRICS.md): record syncs by result, the last success and check, records failing now. */
import { DDNS_SYNC_STATUSES, type DdnsTask } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { DdnsFigures } from './ddns.view.js';

/** What a run can leave a record in (the others are states of a task that does not run). */
const RESULTS = DDNS_SYNC_STATUSES.filter((s) => s !== 'syncStopped' && s !== 'syncPaused' && s !== 'waitingForSync');

export function ddnsMetrics(rules: RuleFigures<DdnsTask, DdnsFigures>[], m: Metrics): void {
  const syncs = m.counter('lucky_ddns_record_syncs_total', 'Records a DDNS task has checked or synced, by the result each run left them in (updateSucceeded, updateFailed, ipUnchanged...).');
  const success = m.gauge('lucky_ddns_last_success_timestamp_seconds', 'When a DDNS task last changed a record at its provider, since the Unix epoch, in seconds (0: not since it started).');
  const check = m.gauge('lucky_ddns_last_check_timestamp_seconds', 'When a DDNS task last ran, since the Unix epoch, in seconds (0: not since it started).');
  const failing = m.gauge('lucky_ddns_records_failed', 'Records of a DDNS task whose last sync failed.');
  const records = m.gauge('lucky_ddns_records', 'Records a DDNS task keeps (domains times address families).');
  for (const { key, figures: f } of rules) {
    if (!f) continue;
    const l = { rule: key };
    for (const result of RESULTS) syncs.set({ ...l, result }, f.syncs[result] ?? 0);
    success.set(l, f.lastSync === null ? 0 : f.lastSync / 1000);
    check.set(l, f.lastCheck === null ? 0 : f.lastCheck / 1000);
    failing.set(l, f.records.filter((r) => r.status === 'updateFailed').length);
    records.set(l, f.records.length);
  }
}
