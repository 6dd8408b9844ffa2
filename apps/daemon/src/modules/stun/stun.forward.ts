/**
 * What a STUN rule in forward mode does with the traffic that arrives: its target, limits and IP
 * filter (the same options as a port forwarding rule), and the counters both transports share.
 */
import { ZPortforwardConfigure, type Msg, type StunRule } from '@lucky/contracts';
import { IpFilter } from '../../core/cidr.js';

/** Limits a rule leaves at null take the port forwarding module's own defaults (its per-rule ones). */
const PF = ZPortforwardConfigure.parse({});
const DEFAULTS = { tcpMaxConnections: PF.ruleTcpMaxConnections, udpMaxSessions: PF.ruleUdpMaxSessions, udpSessionTimeout: PF.udpSessionTimeout, udpPacketSize: PF.udpPacketSize, tcpIdleTimeout: PF.tcpIdleTimeout };

export interface ForwardPlan {
  host: string;
  port: number;
  filter: IpFilter;
  maxConnections: number;
  maxSessions: number;
  sessionTimeoutMs: number;
  maxPacket: number;
  idleTimeoutMs: number;
}

/** null in mode none: the rule keeps the mapping and forwards nothing. */
export function forwardPlan(rule: StunRule): ForwardPlan | null {
  if (rule.mode !== 'forward') return null;
  const l = rule.limits;
  return {
    host: rule.targetHost,
    port: rule.targetPort,
    filter: new IpFilter(rule.filter.mode, rule.filter.list),
    maxConnections: l.tcpMaxConnections ?? DEFAULTS.tcpMaxConnections,
    maxSessions: l.udpMaxSessions ?? DEFAULTS.udpMaxSessions,
    sessionTimeoutMs: (l.udpSessionTimeout ?? DEFAULTS.udpSessionTimeout) * 1000,
    maxPacket: l.udpPacketSize ?? DEFAULTS.udpPacketSize,
    idleTimeoutMs: (l.tcpIdleTimeout ?? DEFAULTS.tcpIdleTimeout) * 1000,
  };
}

/** The counters as the figures carry them. */
export type TrafficFigures = Pick<Traffic, 'connections' | 'sessions' | 'totalConnections' | 'bytesIn' | 'bytesOut' | 'refusedByFilter' | 'refusedByLimit'>;

export class Traffic {
  connections = 0;
  sessions = 0;
  totalConnections = 0;
  bytesIn = 0;
  bytesOut = 0;
  refusedByFilter = 0;
  refusedByLimit = 0;
  /** Refusals are logged, but a flood of them must not wash the rule's log away. */
  private lastRefusalNote = 0;

  constructor(private readonly note: (m: Msg) => void) {}

  refused(why: 'filter' | 'limit', client: string): void {
    if (why === 'filter') this.refusedByFilter++;
    else this.refusedByLimit++;
    const now = Date.now();
    if (now - this.lastRefusalNote < 1000) return;
    this.lastRefusalNote = now;
    this.note({ key: why === 'filter' ? 'stunRefusedFilter' : 'stunRefusedLimit', vars: { client } });
  }
}
