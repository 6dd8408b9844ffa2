/** FTP series (docs/METRICS.md): a storage service's transfers, bytes, refusals, sessions and connections. */
import type { FtpFigures } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';

export function ftpMetrics(rules: Array<{ key: string; figures: unknown }>, m: Metrics): void {
  const transfers = m.counter('lucky_ftp_transfers_total', 'File transfers of an FTP rule, by direction (upload, download).');
  const commands = m.counter('lucky_ftp_commands_total', 'Commands an FTP rule has answered.');
  const denied = m.counter('lucky_ftp_denied_total', 'Requests an FTP rule refused (login, permission, path, limits).');
  const bytesIn = m.counter('lucky_ftp_received_bytes_total', 'Bytes received by an FTP rule (uploads).');
  const bytesOut = m.counter('lucky_ftp_sent_bytes_total', 'Bytes sent by an FTP rule (downloads and listings).');
  const open = m.gauge('lucky_ftp_connections', 'Control connections open now on an FTP rule.');
  const sessions = m.gauge('lucky_ftp_sessions', 'Sessions logged in now on an FTP rule.');
  for (const { key, figures } of rules) {
    const f = figures as FtpFigures | undefined;
    if (!f) continue;
    const l = { rule: key };
    transfers.set({ ...l, direction: 'upload' }, f.uploads);
    transfers.set({ ...l, direction: 'download' }, f.downloads);
    commands.set(l, f.commands);
    denied.set(l, f.denied);
    bytesIn.set(l, f.bytesIn);
    bytesOut.set(l, f.bytesOut);
    open.set(l, f.connections);
    sessions.set(l, f.sessions);
  }
}
