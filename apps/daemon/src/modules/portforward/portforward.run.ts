/**
 * What one running rule holds and what its TCP and UDP parts share: the rule version in force with
 * its limits, filter and TLS context, its listeners and connections, its counters, the order of
 * its targets and its log lines. What all rules share (the global counters and limits, whether the
 * native relay is used) is one ModuleState, owned by the engine.
 */
import type { Msg, PortforwardConfigure, PortforwardRule, PortforwardStats } from '@lucky/contracts';
import { listenProblem, type RuleContext } from '../../core/engine.js';
import { IpFilter } from '../../core/cidr.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ServerTls } from '../../lib/tls/contexts.js';
import type { ListenSpec } from './portforward.plan.js';
import type { Conn, TcpListener } from './portforward.tcp.js';
import type { UdpListener } from './portforward.udp.js';

/** A target that failed is tried last for this long. */
const TARGET_DOWN_MS = 30_000;
/** Refusals and other lines that can come thousands of times a second: at most one a second per rule. */
const THROTTLE_MS = 1000;

/** The part of the engine every rule shares. */
export class ModuleState {
  /** TCP pairs and UDP sessions across all rules, for the global limits. */
  tcpActive = 0;
  udpActive = 0;

  constructor(
    public cfg: PortforwardConfigure,
    /** Plain TCP pairs and UDP sessions go to the native relay (where it is built). */
    readonly native: boolean,
  ) {}
}

/** The limits in force for a rule: its own, or the module's defaults. */
export interface Limits {
  tcpMax: number;
  udpMax: number;
  udpTimeoutMs: number;
  udpPacketSize: number;
  idleMs: number;
}

function limitsOf(rule: PortforwardRule, c: PortforwardConfigure): Limits {
  const l = rule.limits;
  return {
    tcpMax: l.tcpMaxConnections ?? c.ruleTcpMaxConnections,
    udpMax: l.udpMaxSessions ?? c.ruleUdpMaxSessions,
    udpTimeoutMs: (l.udpSessionTimeout ?? c.udpSessionTimeout) * 1000,
    udpPacketSize: l.udpPacketSize ?? c.udpPacketSize,
    idleMs: (l.tcpIdleTimeout ?? c.tcpIdleTimeout) * 1000,
  };
}

class Counters {
  bytesIn = 0;
  bytesOut = 0;
  totalConnections = 0;
  refusedByLimit = 0;
  refusedByFilter = 0;
}

export class RuleRun {
  rule!: PortforwardRule;
  lim!: Limits;
  filter!: IpFilter;
  tls: ServerTls | null = null;
  /** Stops following the store certificates the rule names. */
  unfollow: () => void = () => {};
  tcp = new Map<string, TcpListener>();
  udp = new Map<string, UdpListener>();
  /** Listener id → why it is not running (retried by the engine). */
  failed = new Map<string, { spec: ListenSpec; why: Msg }>();
  conns = new Set<Conn>();
  udpSessions = 0;
  stats = new Counters();
  retry: NodeJS.Timeout | null = null;
  stopped = false;
  private rr = 0;
  private targetDown = new Map<string, number>();
  private lastThrottled = 0;
  private notShown = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly shared: ModuleState,
    readonly ctx: RuleContext<PortforwardConfigure>,
    rule: PortforwardRule,
    tls: ServerTls | null,
  ) {
    this.set(rule, tls);
  }

  /** Puts a rule version in force; connections already relayed keep what they started with. */
  set(rule: PortforwardRule, tls: ServerTls | null): void {
    this.rule = rule;
    this.tls = tls;
    this.filter = new IpFilter(rule.filter.mode, rule.filter.list);
    this.targetDown.clear();
    this.reconfigure();
  }

  /** The module settings changed: the limits that follow them apply at once. */
  reconfigure(): void {
    this.lim = limitsOf(this.rule, this.shared.cfg);
    for (const l of this.udp.values()) l.native?.setMaxPacket(this.lim.udpPacketSize);
  }

  /** Edits, listener retries and the stop of this rule run one after the other. */
  enqueue<T>(job: () => Promise<T> | T): Promise<T> {
    const next = this.queue.then(job);
    this.queue = next.catch(() => undefined);
    return next;
  }

  get listening(): number {
    return this.tcp.size + this.udp.size;
  }

  note(line: Msg): void {
    this.ctx.note(line);
  }

  /** A rule log line for things that can happen thousands of times a second: at most one a second. */
  throttled(line: Msg): void {
    const now = Date.now();
    if (now - this.lastThrottled < THROTTLE_MS) {
      this.notShown++;
      return;
    }
    const n = this.notShown;
    this.notShown = 0;
    this.lastThrottled = now;
    this.note(n ? { key: 'pfNotShown', vars: { line, n } } : line);
  }

  refused(why: 'limit' | 'filter', client: string): void {
    if (why === 'limit') this.stats.refusedByLimit++;
    else this.stats.refusedByFilter++;
    this.throttled({ key: why === 'limit' ? 'pfRefusedLimit' : 'pfRefusedFilter', vars: { client } });
  }

  /** Targets in the order to try: round robin start, ones that failed lately last. */
  targetOrder(port: number): string[] {
    const targets = this.rule.targets;
    const n = targets.length;
    if (n === 1) return [targets[0]!];
    const start = this.rr++ % n;
    const now = Date.now();
    const up: string[] = [];
    const down: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = targets[(start + i) % n]!;
      const until = this.targetDown.get(`${t}|${port}`);
      (until !== undefined && until > now ? down : up).push(t);
    }
    return up.concat(down);
  }

  targetFailed(host: string, port: number): void {
    this.targetDown.set(`${host}|${port}`, Date.now() + TARGET_DOWN_MS);
  }

  targetAnswered(host: string, port: number): void {
    this.targetDown.delete(`${host}|${port}`);
  }

  /** The live figures of the list, since the rule started; the native relay's bytes included. */
  figures(): PortforwardStats {
    let bytesIn = this.stats.bytesIn;
    let bytesOut = this.stats.bytesOut;
    for (const c of this.conns) {
      bytesIn += c.front.bytesRead;
      bytesOut += c.front.bytesWritten;
      if (c.native) {
        const { toTarget, toClient } = c.native.counters();
        bytesIn += toTarget;
        bytesOut += toClient;
      }
    }
    for (const l of this.udp.values()) {
      for (const u of l.sessions.values()) {
        if (!u.native) continue;
        const { toTarget, toClient } = u.native.counters();
        bytesIn += toTarget;
        bytesOut += toClient;
      }
    }
    return {
      tcpConnections: this.conns.size,
      udpSessions: this.udpSessions,
      bytesIn,
      bytesOut,
      totalConnections: this.stats.totalConnections,
      refusedByLimit: this.stats.refusedByLimit,
      refusedByFilter: this.stats.refusedByFilter,
      listeners: this.listening,
      listenersWanted: this.listening + this.failed.size,
    };
  }
}

/** Why a listener could not open, as the rule's log and status say it. */
export function listenError(proto: 'tcp' | 'udp', host: string, port: number, err: NodeJS.ErrnoException): Msg {
  return listenProblem(`${proto} ${fmtAddr(host, port)}`, port, err.code, err.message);
}

/**
 * A socket error as a log line shows it: Node's code (ECONNREFUSED, ERR_SSL_…) reads the same in
 * every language; the English message only when there is no code.
 */
export function errorDetail(err: NodeJS.ErrnoException): string {
  return err.code ?? err.message;
}
