/** Port forwarding's series (docs/METRICS.md), from the counters each rule's relays keep. */
import type { PortforwardRule, PortforwardStats } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';

export function portforwardMetrics(rules: RuleFigures<PortforwardRule, PortforwardStats>[], m: Metrics): void {
  const tcp = m.gauge('lucky_portforward_tcp_connections', 'TCP connections relayed now by a forwarding rule.');
  const udp = m.gauge('lucky_portforward_udp_sessions', 'UDP sessions relayed now by a forwarding rule.');
  const total = m.counter('lucky_portforward_connections_total', 'Connections (TCP) and sessions (UDP) a forwarding rule has accepted.');
  const refused = m.counter('lucky_portforward_refused_total', 'Connections a forwarding rule refused, by reason (limit, filter).');
  const bytesIn = m.counter('lucky_portforward_received_bytes_total', 'Bytes from clients to targets.');
  const bytesOut = m.counter('lucky_portforward_sent_bytes_total', 'Bytes from targets to clients.');
  const listeners = m.gauge('lucky_portforward_listeners', 'Listening sockets of a forwarding rule that are open.');
  const wanted = m.gauge('lucky_portforward_listeners_wanted', 'Listening sockets a forwarding rule should have open.');
  for (const { key, figures: f } of rules) {
    if (!f) continue;
    const l = { rule: key };
    tcp.set(l, f.tcpConnections);
    udp.set(l, f.udpSessions);
    total.set(l, f.totalConnections);
    refused.set({ ...l, reason: 'limit' }, f.refusedByLimit);
    refused.set({ ...l, reason: 'filter' }, f.refusedByFilter);
    bytesIn.set(l, f.bytesIn);
    bytesOut.set(l, f.bytesOut);
    listeners.set(l, f.listeners);
    wanted.set(l, f.listenersWanted);
  }
}
