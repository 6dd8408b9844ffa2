/** STUN series (docs/METRICS.md): the public mapping and its changes, router port mappings, and what the rule forwards. */
import type { StunRule } from '@lucky/contracts';
import type { Metrics } from '../../core/metrics.js';
import type { RuleFigures } from '../../core/module.js';
import type { RunFigures } from './stun.run.js';

const MAPPING_STATES = ['pending', 'ok', 'failed'] as const;

export function stunMetrics(rules: RuleFigures<StunRule, RunFigures>[], m: Metrics): void {
  const mapped = m.gauge('lucky_stun_mapped', 'Whether a STUN rule knows its public address (1) or not yet (0).');
  const changes = m.counter('lucky_stun_address_changes_total', 'Changes of a STUN rule\'s public address since it started (the first address counts).');
  const lastChange = m.gauge('lucky_stun_last_change_timestamp_seconds', 'When a STUN rule\'s public address last changed, since the Unix epoch, in seconds (0: not yet).');
  const lastCheck = m.gauge('lucky_stun_last_check_timestamp_seconds', 'When a STUN rule last asked a STUN server, since the Unix epoch, in seconds (0: not yet).');
  const portMap = m.gauge('lucky_stun_port_mapping', 'A port mapping a STUN rule asked of the router (upnp, natpmp): 1 for the state it is in.');
  const open = m.gauge('lucky_stun_connections', 'TCP connections a STUN rule forwards now.');
  const sessions = m.gauge('lucky_stun_udp_sessions', 'UDP sessions a STUN rule forwards now.');
  const total = m.counter('lucky_stun_forwarded_connections_total', 'Connections and sessions a STUN rule has forwarded.');
  const refused = m.counter('lucky_stun_refused_total', 'Connections a STUN rule refused, by reason (limit, filter).');
  const bytesIn = m.counter('lucky_stun_received_bytes_total', 'Bytes a STUN rule forwarded from clients.');
  const bytesOut = m.counter('lucky_stun_sent_bytes_total', 'Bytes a STUN rule forwarded to clients.');
  for (const { key, figures: f } of rules) {
    if (!f) continue;
    const l = { rule: key };
    mapped.set(l, f.publicAddr ? 1 : 0);
    changes.set(l, f.changes);
    lastChange.set(l, (f.lastChange ?? 0) / 1000);
    lastCheck.set(l, (f.lastCheck ?? 0) / 1000);
    for (const mp of f.mappings) for (const state of MAPPING_STATES) portMap.set({ ...l, kind: mp.kind, state }, mp.state === state ? 1 : 0);
    const t = f.traffic;
    open.set(l, t.connections);
    sessions.set(l, t.sessions);
    total.set(l, t.totalConnections);
    refused.set({ ...l, reason: 'limit' }, t.refusedByLimit);
    refused.set({ ...l, reason: 'filter' }, t.refusedByFilter);
    bytesIn.set(l, t.bytesIn);
    bytesOut.set(l, t.bytesOut);
  }
}
