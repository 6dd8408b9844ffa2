/**
 * Turns a validated rule into the sockets it needs: one listener per (protocol, address, port),
 * each with the target port it forwards to.
 */
import { parsePortList, type PortforwardRule } from '@lucky/contracts';
import { inCidr, ipBytes, parseCidr, type Cidr } from '../../core/cidr.js';

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

export function fmtAddr(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function planListeners(rule: PortforwardRule): ListenSpec[] {
  const listen = parsePortList(rule.listenPorts);
  const target = parsePortList(rule.targetPorts);
  if (!listen.ok || !target.ok) return [];
  const out = new Map<string, ListenSpec>();
  for (const proto of ['tcp', 'udp'] as const) {
    const kinds = rule.types.filter((t) => t.startsWith(proto)).map((t) => t.slice(3));
    if (kinds.length === 0) continue;
    // Where to bind for each wanted family.
    const binds: Array<{ host: string; ipv6Only: boolean; dual: boolean }> = [];
    if (rule.listenHost !== '') binds.push({ host: rule.listenHost, ipv6Only: false, dual: false });
    else if (kinds.includes('') || (kinds.includes('4') && kinds.includes('6'))) binds.push({ host: '::', ipv6Only: false, dual: true });
    else if (kinds.includes('4')) binds.push({ host: '0.0.0.0', ipv6Only: false, dual: false });
    else binds.push({ host: '::', ipv6Only: true, dual: false });
    listen.ports.forEach((port, i) => {
      const targetPort = target.ports.length === 1 ? target.ports[0]! : target.ports[i]!;
      for (const b of binds) {
        const id = `${proto} ${fmtAddr(b.host, port)}${b.ipv6Only ? ' v6only' : ''}`;
        out.set(id, { id, proto, host: b.host, port, ipv6Only: b.ipv6Only, dual: b.dual, targetPort });
      }
    });
  }
  return [...out.values()];
}

/** The IP filter, compiled once per rule version. */
export class IpFilter {
  private ranges: Cidr[];

  constructor(
    readonly mode: 'off' | 'blacklist' | 'whitelist',
    list: string[],
  ) {
    this.ranges = list.map((s) => parseCidr(s)).filter((c): c is Cidr => c !== null);
  }

  /** True when the address may connect. */
  allows(address: string | undefined): boolean {
    if (this.mode === 'off') return true;
    const b = address ? ipBytes(address) : null;
    const hit = b !== null && this.ranges.some((c) => inCidr(b, c));
    return this.mode === 'blacklist' ? !hit : hit;
  }
}
