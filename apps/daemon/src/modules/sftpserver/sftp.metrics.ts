/** SFTP series (docs/METRICS.md): a storage service's transfers, bytes, refusals, sessions and connections. */
import type { SftpFigures } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';

export function sftpMetrics(rules: Array<{ key: string; figures: unknown }>, m: Metrics): void {
  const transfers = m.counter('lucky_sftp_transfers_total', 'File transfers of an SFTP rule, by direction (upload, download).');
  const requests = m.counter('lucky_sftp_requests_total', 'SFTP requests an SFTP rule has answered.');
  const denied = m.counter('lucky_sftp_denied_total', 'Requests an SFTP rule refused (login, permission, path, limits).');
  const bytesIn = m.counter('lucky_sftp_received_bytes_total', 'Bytes received by an SFTP rule (uploads).');
  const bytesOut = m.counter('lucky_sftp_sent_bytes_total', 'Bytes sent by an SFTP rule (downloads).');
  const open = m.gauge('lucky_sftp_connections', 'SSH connections open now on an SFTP rule.');
  const sessions = m.gauge('lucky_sftp_sessions', 'Sessions logged in now on an SFTP rule.');
  for (const { key, figures } of rules) {
    const f = figures as SftpFigures | undefined;
    if (!f) continue;
    const l = { rule: key };
    transfers.set({ ...l, direction: 'upload' }, f.uploads);
    transfers.set({ ...l, direction: 'download' }, f.downloads);
    requests.set(l, f.requests);
    denied.set(l, f.denied);
    bytesIn.set(l, f.bytesIn);
    bytesOut.set(l, f.bytesOut);
    open.set(l, f.connections);
    sessions.set(l, f.sessions);
  }
}
