/** WebDAV series (docs/METRICS.md): a storage service's requests, bytes, refusals and connections. */
import type { WebdavFigures } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';

export function webdavMetrics(rules: Array<{ key: string; figures: unknown }>, m: Metrics): void {
  const requests = m.counter('lucky_webdav_requests_total', 'Requests a WebDAV rule has answered.');
  const denied = m.counter('lucky_webdav_denied_total', 'Requests a WebDAV rule refused (login, permission, path outside the storage).');
  const bytesIn = m.counter('lucky_webdav_received_bytes_total', 'Bytes received by a WebDAV rule (uploads).');
  const bytesOut = m.counter('lucky_webdav_sent_bytes_total', 'Bytes sent by a WebDAV rule (downloads).');
  const open = m.gauge('lucky_webdav_connections', 'Client connections open now on a WebDAV rule.');
  for (const { key, figures } of rules) {
    const f = figures as WebdavFigures | undefined;
    if (!f) continue;
    const l = { rule: key };
    requests.set(l, f.requests);
    denied.set(l, f.denied);
    bytesIn.set(l, f.bytesIn);
    bytesOut.set(l, f.bytesOut);
    open.set(l, f.connections);
  }
}
