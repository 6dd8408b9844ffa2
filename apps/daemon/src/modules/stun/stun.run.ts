/**
 * One running STUN rule: its local port (UDP socket or TCP listener), the check of its public
 * address every keepalive interval, the router mappings it asked for, and the announcement when
 * the public address changes. The rule runtime starts and stops it; it never throws after start:
 * what goes wrong later is the rule's reported status and log.
 */
import type { Msg, StunConfigure, StunRule } from '@lucky/contracts';
import type { RuleContext } from '../../core/engine.js';
import { msgOf } from '../../lib/msgerror.js';
import { resolveStunServer, tcpBinding, type BindingResult } from './stun.client.js';
import { forwardPlan, Traffic, type TrafficFigures } from './stun.forward.js';
import { natpmpMapper } from './stun.natpmp.js';
import { announce, type NotifyDeps } from './stun.notify.js';
import type { PortMapper } from './stun.portmap.js';
import type { StunStore } from './stun.store.js';
import { TcpKeepalive, TcpPort } from './stun.tcp.js';
import { UdpPort } from './stun.udp.js';
import { upnpMapper } from './stun.upnp.js';
import { defaultGateway } from './stun.gateway.js';

/** What the figures keep of a mapping; the view renders the reason in the reader's language. */
export interface MappingState {
  kind: 'upnp' | 'natpmp';
  state: 'pending' | 'ok' | 'failed';
  gateway: string;
  externalPort: number | null;
  expires: number | null;
  reason: Msg | null;
}

export interface RunFigures {
  publicAddr: string | null;
  localPort: number | null;
  server: string | null;
  lastChange: number | null;
  lastCheck: number | null;
  changes: number;
  mappings: MappingState[];
  traffic: TrafficFigures;
}

/** A STUN check gives up on one server after this long (UDP retransmits included). */
const CHECK_TIMEOUT_MS = 3000;
/** After a failed check the next comes sooner than the interval: 5 s, doubling. */
const RETRY_FIRST_MS = 5000;
/** A router that went away must not hold a stop (or the daemon's exit) for NAT-PMP's minute of retransmits. */
const UNMAP_WAIT_MS = 3000;

interface Mapper {
  impl: PortMapper;
  state: MappingState;
  lifetime: number;
  /** The port mapped now, to remove it at stop or when the public port moves. */
  mapped: { externalPort: number } | null;
  renew: NodeJS.Timeout | null;
}

export interface RunDeps {
  store: StunStore;
  /** False with LUCKY_NATIVE_RELAY=0: TCP pairs and UDP sessions are relayed in JavaScript. */
  nativeRelay: boolean;
  notify: Omit<NotifyDeps, 'note'>;
  /** After a check whose public address or mappings differ from the one before (the `stunAddresses` service). */
  changed?: () => void;
}

export class StunRun {
  private udp: UdpPort | null = null;
  private tcp: TcpPort | null = null;
  private keepalive: TcpKeepalive | null = null;
  private timer: NodeJS.Timeout | null = null;
  private failures = 0;
  private stopped = false;
  private checking: Promise<void> | null = null;
  private mappers: Mapper[] = [];
  /** What the second server said: undefined before it was asked, null when it agreed (or could not tell). */
  private symmetric: Msg | null | undefined = undefined;
  readonly traffic: Traffic;
  private state: Omit<RunFigures, 'traffic' | 'mappings'> = { publicAddr: null, localPort: null, server: null, lastChange: null, lastCheck: null, changes: 0 };

  constructor(
    private rule: StunRule,
    private readonly ctx: RuleContext<StunConfigure>,
    private readonly deps: RunDeps,
  ) {
    this.traffic = new Traffic((m) => ctx.note(m));
  }

  /** Opens the local port and starts checking; throws what keeps the rule from running at all. */
  async start(): Promise<void> {
    const { rule, ctx } = this;
    const saved = this.deps.store.get(ctx.key);
    const wanted = rule.localPort || saved.localPort;
    const note = (m: Msg) => ctx.note(m);
    const open = (port: number) =>
      rule.protocol === 'udp' ? UdpPort.open(rule.listenHost, port, this.traffic, note) : TcpPort.open(rule.listenHost, port, rule.mode === 'forward', this.traffic, note);
    let port: UdpPort | TcpPort;
    try {
      port = await open(wanted);
    } catch (err) {
      // The port chosen last time went to someone else: a new one beats not running.
      if (rule.localPort !== 0 || wanted === 0 || (err as { code?: string }).code !== 'EADDRINUSE') throw err;
      port = await open(0);
      ctx.note({ key: 'stunPortChangedOnRestart', vars: { port: wanted, local: port.port } });
    }
    if (port instanceof UdpPort) {
      this.udp = port;
      if (this.deps.nativeRelay) port.useNativeRelay();
    } else {
      this.tcp = port;
      port.native = this.deps.nativeRelay;
    }
    const local = port.port;
    try {
      if (rule.localPort === 0) ctx.claim({ proto: rule.protocol, address: rule.listenHost || '0.0.0.0', port: local });
    } catch (err) {
      this.closePorts();
      throw err;
    }
    if (rule.localPort === 0 && saved.localPort !== local) this.deps.store.setLocalPort(ctx.key, local);
    this.state.localPort = local;
    port.forward(forwardPlan(rule));
    ctx.note({ key: 'stunOpened', vars: { protocol: rule.protocol.toUpperCase(), local } });
    if (this.tcp) this.keepalive = new TcpKeepalive(this.tcp, note);
    this.mappers = this.makeMappers();
    this.schedule(0);
  }

  private makeMappers(): Mapper[] {
    const { rule } = this;
    const out: Mapper[] = [];
    const pending = (kind: MappingState['kind'], gateway: string): MappingState => ({ kind, state: 'pending', gateway, externalPort: null, expires: null, reason: null });
    if (rule.upnp.enable) {
      const impl = upnpMapper({ gatewayUrl: rule.upnp.gatewayUrl || undefined, localAddress: rule.listenHost || undefined });
      out.push({ impl, state: pending('upnp', rule.upnp.gatewayUrl), lifetime: rule.upnp.lease, mapped: null, renew: null });
    }
    if (rule.natpmp.enable) {
      const gateway = rule.natpmp.gateway || defaultGateway() || '';
      const impl = natpmpMapper({ gateway: gateway || undefined });
      out.push({ impl, state: pending('natpmp', gateway), lifetime: rule.natpmp.lifetime, mapped: null, renew: null });
    }
    return out;
  }

  private interval(): number {
    return (this.rule.keepaliveInterval ?? this.ctx.settings().keepaliveInterval) * 1000;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.recheck(), ms);
    this.timer.unref();
  }

  /** Checks the public address now (also the console's "recheck"); one check at a time. */
  recheck(): Promise<void> {
    this.checking ??= this.check().finally(() => {
      this.checking = null;
      if (!this.stopped) this.schedule(this.failures === 0 ? this.interval() : Math.min(RETRY_FIRST_MS * 2 ** (this.failures - 1), this.interval()));
    });
    return this.checking;
  }

  private async check(): Promise<void> {
    const servers = this.rule.stunServers.length > 0 ? this.rule.stunServers : this.ctx.settings().stunServers;
    const problems: Msg[] = [];
    if (this.keepalive) {
      try {
        const url = new URL(this.rule.keepaliveUrl || this.ctx.settings().keepaliveUrl);
        const wasUp = this.keepalive.up;
        const server = await resolveStunServer(`${url.hostname}:${url.port || 80}`);
        await this.keepalive.beat(url, server.address);
        if (!wasUp && this.state.publicAddr !== null) this.ctx.note({ key: 'stunKeepaliveLost', vars: { detail: url.host } });
      } catch (err) {
        problems.push({ key: 'stunKeepaliveFailed', vars: { detail: msgOf(err) } });
      }
    }
    for (const [i, label] of servers.entries()) {
      if (this.stopped) return;
      try {
        const server = await resolveStunServer(label);
        const r = await this.binding(server);
        this.state.lastCheck = Date.now();
        this.failures = 0;
        const changed = await this.learnt(r);
        if (changed || this.symmetric === undefined) this.symmetric = await this.crossCheck(servers, i, r);
        if (this.stopped) return;
        const all = [...problems, ...(this.symmetric ? [this.symmetric] : []), ...(this.mappingProblems() ?? [])];
        this.ctx.report(all.length ? all : null);
        this.tellIfChanged();
        return;
      } catch (err) {
        if (this.stopped) return;
        this.ctx.note({ key: 'stunServerFailed', vars: { server: label, detail: msgOf(err) } });
      }
    }
    this.failures++;
    this.state.lastCheck = Date.now();
    this.ctx.report([...problems, { key: 'stunNoServerAnswered', vars: { servers: servers.join(', ') } }]);
  }

  private told = '';
  private tellIfChanged(): void {
    const now = JSON.stringify([this.state.publicAddr, this.mappers.map((m) => [m.state.state, m.state.externalPort])]);
    if (now === this.told) return;
    this.told = now;
    this.deps.changed?.();
  }

  /**
   * A symmetric NAT gives every destination its own public port, so the address one server saw is
   * useless to anyone else. Asking a second server from the same port tells (once per address).
   * Null when the answers agree, or when there is no second server to ask.
   */
  private async crossCheck(servers: string[], first: number, seen: BindingResult): Promise<Msg | null> {
    const label = servers.find((_, j) => j !== first);
    if (!label) return null;
    try {
      const other = await this.binding(await resolveStunServer(label));
      const a = `${seen.mapped.address}:${seen.mapped.port}`;
      const b = `${other.mapped.address}:${other.mapped.port}`;
      if (a === b) return null;
      this.ctx.note({ key: 'stunSymmetric', vars: { a, b } });
      return { key: 'stunSymmetric', vars: { a, b } };
    } catch {
      return null;
    }
  }

  private async binding(server: { address: string; port: number; label: string }): Promise<BindingResult> {
    if (this.udp) return this.udp.stun.binding(server, { timeoutMs: CHECK_TIMEOUT_MS });
    const sock = await this.tcp!.connect(server.address, server.port);
    try {
      return await tcpBinding(sock, server.label, CHECK_TIMEOUT_MS);
    } finally {
      sock.destroy();
    }
  }

  /** Takes a server's answer; true when the public address changed. */
  private async learnt(r: BindingResult): Promise<boolean> {
    const addr = `${r.mapped.address}:${r.mapped.port}`;
    this.state.server = r.server;
    const old = this.state.publicAddr;
    if (addr !== old) {
      this.state.publicAddr = addr;
      this.state.changes++;
      this.state.lastChange = Date.now();
      this.ctx.note(old === null ? { key: 'stunFirstAddr', vars: { addr } } : { key: 'stunChanged', vars: { addr, old } });
    }
    await this.mapAll(r.mapped.port);
    const saved = this.deps.store.get(this.ctx.key);
    if (saved.publicAddr === addr) return addr !== old;
    // Stored before the announcement: a restart in the middle must not announce twice.
    this.deps.store.setPublic(this.ctx.key, addr, Date.now());
    await announce({ ip: r.mapped.address, port: r.mapped.port, localPort: this.state.localPort!, rule: this.rule }, { ...this.deps.notify, note: (m) => this.ctx.note(m) });
    return true;
  }

  /** Asks the routers for public port → local port; again when the public port moved or a mapping failed. */
  private async mapAll(externalPort: number): Promise<void> {
    const local = this.state.localPort!;
    await Promise.all(
      this.mappers.map(async (m) => {
        if (m.state.state === 'ok' && m.mapped?.externalPort === externalPort) return;
        await this.map(m, externalPort, local);
      }),
    );
  }

  private async map(m: Mapper, externalPort: number, local: number): Promise<void> {
    const protocol = this.rule.protocol;
    try {
      if (m.mapped && m.mapped.externalPort !== externalPort) {
        await m.impl.unmap({ protocol, externalPort: m.mapped.externalPort, internalPort: local }).catch(() => {});
        m.mapped = null;
      }
      const r = await m.impl.map({ protocol, internalPort: local, externalPort, lifetimeSec: m.lifetime, description: `Lucky STUN ${this.rule.name}` });
      if (this.stopped) {
        await m.impl.unmap({ protocol, externalPort: r.externalPort, internalPort: local }).catch(() => {});
        return;
      }
      const renewing = m.mapped !== null;
      m.mapped = { externalPort: r.externalPort };
      m.state = { kind: m.state.kind, state: 'ok', gateway: r.gateway, externalPort: r.externalPort, expires: r.lifetimeSec > 0 ? Date.now() + r.lifetimeSec * 1000 : null, reason: null };
      const vars = { gateway: r.gateway, external: r.externalPort, internal: local, protocol: protocol.toUpperCase(), lifetime: r.lifetimeSec };
      this.ctx.note(renewing ? { key: 'stunMappingRenewed', vars: { kind: m.state.kind === 'upnp' ? 'UPnP' : 'NAT-PMP', external: r.externalPort } } : { key: m.state.kind === 'upnp' ? 'stunUpnpMapped' : 'stunNatpmpMapped', vars });
      if (m.renew) clearTimeout(m.renew);
      m.renew = null;
      if (r.lifetimeSec > 0) {
        m.renew = setTimeout(() => void this.map(m, externalPort, local), (r.lifetimeSec * 1000) / 2);
        m.renew.unref();
      }
    } catch (err) {
      if (this.stopped) return;
      const reason = msgOf(err);
      m.state = { ...m.state, state: 'failed', reason };
      this.ctx.note({ key: m.state.kind === 'upnp' ? 'stunUpnpFailed' : 'stunNatpmpFailed', vars: { detail: reason } });
    }
  }

  private mappingProblems(): Msg[] | null {
    const failed = this.mappers.filter((m) => m.state.state === 'failed' && m.state.reason);
    return failed.length ? failed.map((m) => ({ key: m.state.kind === 'upnp' ? 'stunUpnpFailed' : 'stunNatpmpFailed', vars: { detail: m.state.reason! } })) : null;
  }

  /** Limits, filter and target apply in place; anything else restarts the rule. */
  update(rule: StunRule): boolean {
    const same = (a: StunRule, b: StunRule) =>
      JSON.stringify({ ...a, limits: 0, filter: 0, targetHost: 0, targetPort: 0, webhook: 0, command: 0, ddnsTasks: 0, note: 0, name: 0 }) ===
      JSON.stringify({ ...b, limits: 0, filter: 0, targetHost: 0, targetPort: 0, webhook: 0, command: 0, ddnsTasks: 0, note: 0, name: 0 });
    if (!same(rule, this.rule)) return false;
    this.rule = rule;
    (this.udp ?? this.tcp)?.forward(forwardPlan(rule));
    return true;
  }

  figures(): RunFigures {
    const t = this.traffic;
    const live = (this.udp ?? this.tcp)?.liveBytes() ?? { in: 0, out: 0 };
    return {
      ...this.state,
      mappings: this.mappers.map((m) => m.state),
      traffic: {
        connections: t.connections,
        sessions: t.sessions,
        totalConnections: t.totalConnections,
        bytesIn: t.bytesIn + live.in,
        bytesOut: t.bytesOut + live.out,
        refusedByFilter: t.refusedByFilter,
        refusedByLimit: t.refusedByLimit,
      },
    };
  }

  private closePorts(): void {
    this.keepalive?.close();
    this.udp?.close();
    this.tcp?.close();
    this.udp = null;
    this.tcp = null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const local = this.state.localPort;
    const unmapping = Promise.all(
      this.mappers.map(async (m) => {
        if (m.renew) clearTimeout(m.renew);
        if (m.mapped && local !== null) {
          const externalPort = m.mapped.externalPort;
          await m.impl
            .unmap({ protocol: this.rule.protocol, externalPort, internalPort: local })
            .then(() => this.ctx.note({ key: m.state.kind === 'upnp' ? 'stunUpnpRemoved' : 'stunNatpmpRemoved', vars: { external: externalPort, protocol: this.rule.protocol.toUpperCase() } }))
            .catch(() => {});
        }
      }),
    );
    await Promise.race([unmapping, new Promise((r) => setTimeout(r, UNMAP_WAIT_MS).unref())]);
    for (const m of this.mappers) m.impl.close();
    this.closePorts();
  }
}
