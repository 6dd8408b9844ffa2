/**
 * Storage series (docs/METRICS.md): bytes under each storage's directory (the cached, bounded walk
 * the console shows; a scrape starts a new walk only when the last has aged) and its filesystem's
 * space. Transfers are counted by the services that serve storages (WebDAV, FTP).
 */
import type { Storage } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { StorageContext } from './storage.state.js';
import { stateOf } from './storage.state.js';
import { fsSpace } from './storage.usage.js';

export async function storageMetrics(rules: RuleFigures<Storage, unknown>[], m: Metrics, mod: StorageContext): Promise<void> {
  const used = m.gauge('lucky_storage_used_bytes', 'Bytes of the files under a storage\'s directory (a lower bound when the walk stopped at its limits).');
  const size = m.gauge('lucky_storage_filesystem_size_bytes', 'Size of the filesystem a storage is on, in bytes.');
  const free = m.gauge('lucky_storage_filesystem_free_bytes', 'Bytes free to users on the filesystem a storage is on.');
  const usage = stateOf(mod).usage;
  for (const { key, rule } of rules) {
    const l = { rule: key };
    const walked = usage.peek(rule.path);
    if (walked) used.set(l, walked.used);
    const fs = await fsSpace(rule.path);
    if (fs.fsTotal > 0) {
      size.set(l, fs.fsTotal);
      free.set(l, fs.fsFree);
    }
  }
}
