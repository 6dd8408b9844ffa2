/**
 * Turns a validated rule into the sockets it needs: one listener per (protocol, address, port),
 * each with the target port it forwards to. Light on purpose: the module's index uses it for the
 * port registry before any engine code is loaded.
 */
import { parsePortList, type PortforwardRule } from '@lucky/contracts';
import type { Endpoint } from '../../core/ports.js';
import { fmtAddr } from '../../lib/ip.js';

export interface ListenSpec {
  /** Identity of the socket: the same id across edits means the socket is kept. */
  id: string;
  proto: 'tcp' | 'udp';
  host: string;
  port: number;
  /** `::` that must not take IPv4 too (tcp6/udp6 on all addresses). */
  ipv6Only: boolean;
  /** `::` with dual stack: falls back to 0.0.0.0 on hosts without IPv6. */
  dual: boolean;
  targetPort: number;
}


/** Where a rule binds for one protocol: one address (or none when it has no type of that protocol). */
function bindOf(rule: PortforwardRule, proto: 'tcp' | 'udp'): { host: string; ipv6Only: boolean; dual: boolean } | null {
  const kinds = rule.types.filter((t) => t.startsWith(proto)).map((t) => t.slice(3));
  if (kinds.length === 0) return null;
  if (rule.listenHost !== '') return { host: rule.listenHost, ipv6Only: false, dual: false };
  if (kinds.includes('') || (kinds.includes('4') && kinds.includes('6'))) return { host: '::', ipv6Only: false, dual: true };
  if (kinds.includes('4')) return { host: '0.0.0.0', ipv6Only: false, dual: false };
  return { host: '::', ipv6Only: true, dual: false };
}

export function planListeners(rule: PortforwardRule): ListenSpec[] {
  const listen = parsePortList(rule.listenPorts);
  const target = parsePortList(rule.targetPorts);
  if (!listen.ok || !target.ok) return [];
  const out: ListenSpec[] = [];
  for (const proto of ['tcp', 'udp'] as const) {
    const b = bindOf(rule, proto);
    if (!b) continue;
    listen.ports.forEach((port, i) => {
      const targetPort = target.ports.length === 1 ? target.ports[0]! : target.ports[i]!;
      const id = `${proto} ${fmtAddr(b.host, port)}${b.ipv6Only ? ' v6only' : ''}`;
      out.push({ id, proto, host: b.host, port, ipv6Only: b.ipv6Only, dual: b.dual, targetPort });
    });
  }
  return out;
}

/**
 * Every (protocol, address, port) a rule listens on, for the port registry. Made without the
 * listeners' ids: a rule of 4096 ports is checked on every save. A `::` that falls back to 0.0.0.0
 * (no IPv6 on the host) stays inside its claim.
 */
export function listenEndpoints(rule: PortforwardRule): Endpoint[] {
  const listen = parsePortList(rule.listenPorts);
  if (!listen.ok) return [];
  const out: Endpoint[] = [];
  for (const proto of ['tcp', 'udp'] as const) {
    const b = bindOf(rule, proto);
    if (!b) continue;
    for (const port of listen.ports) out.push({ proto, address: b.host, port, ...(b.ipv6Only ? { v6only: true } : {}) });
  }
  return out;
}
