/**
 * The forwarding engine. Each enabled rule owns its listeners; an edit reopens only the sockets
 * whose address changed and swaps the rest of the settings in place, so established connections
 * (of this rule and of every other) carry on. Runtime failures (port in use, bad certificate,
 * unreachable target) become the rule's status and log lines, never exceptions.
 *
 * TCP: accept paused → limits → filter → (TLS) → connect a target (round robin, failing over to the
 * next one) → optional PROXY header → relay both ways with backpressure and half-close.
 * UDP: one socket per client address towards the chosen target, replies sent back from the
 * listening socket; sessions end after the idle timeout.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { lookup } from 'node:dns';
import { constants as osConstants } from 'node:os';
import { isIP, connect as netConnect, createServer, Socket, type Server } from 'node:net';
import { connect as tlsConnect, createSecureContext, TLSSocket, type SecureContext } from 'node:tls';
import type { PortforwardConfigure, PortforwardRule, PortforwardStats } from '@lucky/contracts';
import { ZPortforwardConfigure } from '@lucky/contracts';
import { listenProblem, statusOf, statusText, type EngineStatus, type RuleEngine, type RuleLogs, type StatusPart } from '../../core/engine.js';
import type { Logger } from '../../core/logs.js';
import { formatTime } from '../../core/time.js';
import { fmtAddr, IpFilter, planListeners, type ListenSpec } from './portforward.plan.js';
import { proxyV1Header, proxyV2Header } from './portforward.proxyproto.js';
import { nativeTcp, nativeUdpListener, nativeUdpSession, type NativeFlow, type NativeUdpListener } from './portforward.native.js';

/** A target that failed is tried last for this long. */
const TARGET_DOWN_MS = 30_000;
/** Listeners that could not bind are retried this often. */
const RETRY_LISTEN_MS = 10_000;
/** A TLS client must finish its handshake within this time. */
const TLS_HANDSHAKE_MS = 30_000;
/** Packets kept per UDP session while its socket is being set up. */
const UDP_PENDING_MAX = 64;
/** Refusal and other high-rate log lines at most this often per rule. */
const REFUSAL_LOG_MS = 1000;

export interface PortforwardEngineOptions {
  log: Logger;
  logs: RuleLogs;
  settings?: PortforwardConfigure;
  /** Plain TCP pairs and UDP sessions go to the native relay when it is built (default true). */
  native?: boolean;
}

interface TcpListener {
  spec: ListenSpec;
  server: Server;
  bound: string;
}

interface UdpSession {
  key: string;
  clientAddress: string;
  clientPort: number;
  /** The socket towards the target, set once it is connected (datagrams wait in `pending` until then). */
  out: UdpSocket | null;
  /** The same socket from its creation on, so that ending the session can close it at any time. */
  sock: UdpSocket | null;
  pending: Buffer[] | null;
  target: string;
  last: number;
  closed: boolean;
  /** Set once the native relay carries the session's datagrams. */
  native: NativeFlow | null;
}

interface UdpListener {
  spec: ListenSpec;
  socket: UdpSocket;
  bound: string;
  sessions: Map<string, UdpSession>;
  sweeper: NodeJS.Timeout | null;
  /** Set while the native relay reads the listening socket. */
  native: NativeUdpListener | null;
}

interface Conn {
  /** The client side as relayed: the accepted socket, or the TLS socket around it. */
  front: Socket;
  upstream: Socket | null;
  /** Set while the native relay moves this pair's bytes. */
  native: NativeFlow | null;
  /** Ends the pair (rule stopped...). */
  end: (reason: string) => void;
}

class Counters {
  bytesIn = 0;
  bytesOut = 0;
  totalConnections = 0;
  refusedByLimit = 0;
  refusedByFilter = 0;
}

type Resolved = { tcpMax: number; udpMax: number; udpTimeoutMs: number; udpPacketSize: number; idleMs: number };

/** Everything the engine keeps for one running rule. */
class RuleRun {
  rule: PortforwardRule;
  filter: IpFilter;
  tls: SecureContext | null = null;
  tcp = new Map<string, TcpListener>();
  udp = new Map<string, UdpListener>();
  /** Listener id → why it is not running. */
  failed = new Map<string, { spec: ListenSpec; why: StatusPart }>();
  /** Why the rule cannot run at all (bad certificate...), or null. */
  fatal: StatusPart | null = null;
  conns = new Set<Conn>();
  udpSessions = 0;
  stats = new Counters();
  rr = 0;
  targetDown = new Map<string, number>();
  since = Date.now();
  retry: NodeJS.Timeout | null = null;
  lastRefusalLog = 0;
  refusalsNotLogged = 0;
  /** Edits and stops of this rule run one after the other. */
  queue: Promise<void> = Promise.resolve();
  stopped = false;

  constructor(
    readonly key: string,
    rule: PortforwardRule,
    public lim: Resolved,
  ) {
    this.rule = rule;
    this.filter = new IpFilter(rule.filter.mode, rule.filter.list);
  }
}

export class PortforwardEngine implements RuleEngine<PortforwardRule> {
  private runs = new Map<string, RuleRun>();
  private cfg: PortforwardConfigure;
  private tcpActive = 0;
  private udpActive = 0;
  private log: Logger;
  private logs: RuleLogs;
  private native: boolean;

  constructor(opts: PortforwardEngineOptions) {
    this.native = opts.native ?? true;
    this.log = opts.log;
    this.logs = opts.logs;
    this.cfg = opts.settings ?? ZPortforwardConfigure.parse({});
  }

  /** Module settings changed: limits and defaults apply to new connections at once. */
  setSettings(cfg: PortforwardConfigure): void {
    this.cfg = cfg;
    for (const run of this.runs.values()) {
      run.lim = this.resolve(run.rule);
      for (const l of run.udp.values()) l.native?.setMaxPacket(run.lim.udpPacketSize);
    }
  }

  private line(run: RuleRun, text: string): void {
    this.logs.add(run.key, `${formatTime(Date.now())} ${text}`);
  }

  /** The limits in force for a rule: its own, or the module's defaults. */
  private resolve(rule: PortforwardRule): Resolved {
    const l = rule.limits;
    const c = this.cfg;
    return {
      tcpMax: l.tcpMaxConnections ?? c.ruleTcpMaxConnections,
      udpMax: l.udpMaxSessions ?? c.ruleUdpMaxSessions,
      udpTimeoutMs: (l.udpSessionTimeout ?? c.udpSessionTimeout) * 1000,
      udpPacketSize: l.udpPacketSize ?? c.udpPacketSize,
      idleMs: (l.tcpIdleTimeout ?? c.tcpIdleTimeout) * 1000,
    };
  }

  // ---------------------------------------------------------------- lifecycle

  start(key: string, rule: PortforwardRule): Promise<void> {
    let run = this.runs.get(key);
    if (!run || run.stopped) {
      run = new RuleRun(key, rule, this.resolve(rule));
      this.runs.set(key, run);
    }
    const r = run;
    r.queue = r.queue.then(() => this.apply(r, rule)).catch((err: unknown) => {
      r.fatal = { key: 'statusApplyFailed', vars: { detail: (err as Error).message } };
      this.log.error({ key, err }, 'port forwarding rule failed to apply');
    });
    return r.queue;
  }

  private async apply(run: RuleRun, rule: PortforwardRule): Promise<void> {
    if (run.stopped) return;
    const firstStart = run.tcp.size + run.udp.size + run.failed.size === 0 && run.fatal === null;
    run.rule = rule;
    run.lim = this.resolve(rule);
    for (const l of run.udp.values()) l.native?.setMaxPacket(run.lim.udpPacketSize);
    run.filter = new IpFilter(rule.filter.mode, rule.filter.list);
    run.targetDown.clear();
    run.fatal = null;
    run.tls = null;
    if (rule.tls.listen) {
      try {
        run.tls = createSecureContext({ cert: rule.tls.cert, key: rule.tls.key });
      } catch (err) {
        run.fatal = { key: 'statusTlsRejected', vars: { detail: (err as Error).message } };
      }
    }
    const wanted = run.fatal ? [] : planListeners(rule);
    const wantedIds = new Set(wanted.map((s) => s.id));
    // Close what is no longer wanted: its listening sockets only (the port is free at once);
    // connections already relayed through them finish on their own.
    for (const [id, l] of run.tcp) {
      if (wantedIds.has(id)) continue;
      run.tcp.delete(id);
      l.server.close();
      this.line(run, `stopped listening on tcp ${l.bound}`);
    }
    for (const [id, l] of run.udp) {
      if (wantedIds.has(id)) continue;
      run.udp.delete(id);
      this.closeUdpListener(run, l);
      this.line(run, `stopped listening on udp ${l.bound}`);
    }
    run.failed.clear();
    // Keep the sockets whose address did not change (new target port applies to new connections); open the rest.
    const opening: Promise<void>[] = [];
    for (const spec of wanted) {
      const t = run.tcp.get(spec.id);
      const u = run.udp.get(spec.id);
      if (t) t.spec = spec;
      else if (u) u.spec = spec;
      else opening.push(this.open(run, spec));
    }
    await Promise.all(opening);
    if (run.stopped) return;
    if (run.fatal) this.line(run, statusText([run.fatal], 'en_US'));
    if (run.failed.size) this.scheduleRetry(run);
    const running = run.tcp.size + run.udp.size;
    this.line(run, `${firstStart ? 'started' : 'applied'}: ${running} of ${wanted.length} listener(s) running`);
    this.log.info({ key: run.key, name: rule.name, listeners: running, failed: run.failed.size }, 'port forwarding rule applied');
  }

  private scheduleRetry(run: RuleRun): void {
    if (run.retry || run.stopped) return;
    run.retry = setTimeout(() => {
      run.retry = null;
      run.queue = run.queue.then(async () => {
        if (run.stopped || run.failed.size === 0) return;
        const specs = [...run.failed.values()].map((f) => f.spec);
        run.failed.clear();
        await Promise.all(specs.map((s) => this.open(run, s, true)));
        if (run.failed.size) this.scheduleRetry(run);
      });
    }, RETRY_LISTEN_MS);
    run.retry.unref();
  }

  private async open(run: RuleRun, spec: ListenSpec, quiet = false): Promise<void> {
    const r = spec.proto === 'tcp' ? await this.listenTcp(run, spec) : await this.listenUdp(run, spec);
    if ('key' in r) {
      run.failed.set(spec.id, { spec, why: r });
      if (!quiet) {
        const text = statusText([r], 'en_US');
        this.line(run, text);
        this.log.warn({ key: run.key, listener: spec.id, error: text }, 'port forwarding listener failed');
      }
    } else {
      this.line(run, `listening on ${spec.proto} ${r.bound} → port ${spec.targetPort}`);
    }
  }

  async stop(key: string): Promise<void> {
    const run = this.runs.get(key);
    if (!run) return;
    this.runs.delete(key);
    run.queue = run.queue.then(() => this.teardown(run));
    await run.queue;
  }

  private teardown(run: RuleRun): void {
    run.stopped = true;
    if (run.retry) clearTimeout(run.retry);
    run.retry = null;
    for (const l of run.tcp.values()) l.server.close();
    for (const l of run.udp.values()) this.closeUdpListener(run, l);
    for (const c of [...run.conns]) c.end('rule stopped');
    run.tcp.clear();
    run.udp.clear();
    run.failed.clear();
    this.line(run, 'stopped');
  }

  status(key: string): EngineStatus {
    const run = this.runs.get(key);
    if (!run) return { state: 'stopped', message: '', since: Date.now() };
    if (run.fatal) return statusOf('error', run.since, [run.fatal]);
    if (run.failed.size) {
      const parts: StatusPart[] = [[...run.failed.values()][0]!.why];
      if (run.failed.size > 1) parts.push({ key: 'statusMoreProblems', vars: { n: run.failed.size - 1 } });
      parts.push({ key: 'statusListenersRunning', vars: { n: run.tcp.size + run.udp.size } });
      return statusOf('error', run.since, parts);
    }
    return { state: 'running', message: '', since: run.since };
  }

  stats(key: string): PortforwardStats {
    const run = this.runs.get(key);
    if (!run) {
      return {
        tcpConnections: 0,
        udpSessions: 0,
        bytesIn: 0,
        bytesOut: 0,
        totalConnections: 0,
        refusedByLimit: 0,
        refusedByFilter: 0,
        listeners: 0,
        listenersWanted: 0,
      };
    }
    let bytesIn = run.stats.bytesIn;
    let bytesOut = run.stats.bytesOut;
    for (const c of run.conns) {
      bytesIn += c.front.bytesRead;
      bytesOut += c.front.bytesWritten;
      if (c.native) {
        const { toTarget, toClient } = c.native.counters();
        bytesIn += toTarget;
        bytesOut += toClient;
      }
    }
    for (const l of run.udp.values()) {
      for (const u of l.sessions.values()) {
        if (!u.native) continue;
        const { toTarget, toClient } = u.native.counters();
        bytesIn += toTarget;
        bytesOut += toClient;
      }
    }
    return {
      tcpConnections: run.conns.size,
      udpSessions: run.udpSessions,
      bytesIn,
      bytesOut,
      totalConnections: run.stats.totalConnections,
      refusedByLimit: run.stats.refusedByLimit,
      refusedByFilter: run.stats.refusedByFilter,
      listeners: run.tcp.size + run.udp.size,
      listenersWanted: run.tcp.size + run.udp.size + run.failed.size,
    };
  }

  /** Bound addresses of a rule's listeners (tests use port 0 ranges rarely; this helps them look). */
  listeners(key: string): string[] {
    const run = this.runs.get(key);
    if (!run) return [];
    return [...[...run.tcp.values()].map((l) => `tcp ${l.bound}`), ...[...run.udp.values()].map((l) => `udp ${l.bound}`)];
  }

  connections(): number {
    return this.tcpActive + this.udpActive;
  }

  /** TCP pairs and UDP sessions the native relay is moving right now. */
  nativeFlows(): number {
    let n = 0;
    for (const run of this.runs.values()) {
      for (const c of run.conns) if (c.native) n++;
      for (const l of run.udp.values()) for (const s of l.sessions.values()) if (s.native) n++;
    }
    return n;
  }

  async close(): Promise<void> {
    await Promise.all([...this.runs.keys()].map((k) => this.stop(k)));
  }

  private refused(run: RuleRun, why: 'limit' | 'filter', what: string): void {
    if (why === 'limit') run.stats.refusedByLimit++;
    else run.stats.refusedByFilter++;
    this.throttled(run, `refused ${what} (${why === 'limit' ? 'limit reached' : 'IP filter'})`);
  }

  /** A rule log line for things that can happen thousands of times a second: at most one a second. */
  private throttled(run: RuleRun, text: string): void {
    const now = Date.now();
    if (now - run.lastRefusalLog < REFUSAL_LOG_MS) {
      run.refusalsNotLogged++;
      return;
    }
    const more = run.refusalsNotLogged ? ` (+${run.refusalsNotLogged} more like it not shown)` : '';
    run.refusalsNotLogged = 0;
    run.lastRefusalLog = now;
    this.line(run, `${text}${more}`);
  }

  /** Targets in the order to try: round robin start, ones that failed lately last. */
  private targetOrder(run: RuleRun, port: number): string[] {
    const targets = run.rule.targets;
    const n = targets.length;
    if (n === 1) return [targets[0]!];
    const start = run.rr++ % n;
    const now = Date.now();
    const up: string[] = [];
    const down: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = targets[(start + i) % n]!;
      const until = run.targetDown.get(`${t}|${port}`);
      (until !== undefined && until > now ? down : up).push(t);
    }
    return up.concat(down);
  }

  // ---------------------------------------------------------------- TCP

  private listenTcp(run: RuleRun, spec: ListenSpec): Promise<StatusPart | TcpListener> {
    const server = createServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true });
    const listener: TcpListener = { spec, server, bound: '' };
    server.on('connection', (c: Socket) => this.onTcp(run, listener, c));
    return new Promise((resolve) => {
      const attempt = (host: string) => {
        const onError = (err: NodeJS.ErrnoException) => {
          server.off('listening', onListening);
          if (spec.dual && host === '::' && (err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL')) return attempt('0.0.0.0');
          resolve(listenError('tcp', host, spec.port, err));
        };
        const onListening = () => {
          server.off('error', onError);
          // Accept failures (out of file descriptors) go to the rule's log, at most once a second.
          server.on('error', (err) => this.throttled(run, `accept failed on tcp ${listener.bound}: ${err.message}`));
          listener.bound = fmtAddr(host, spec.port);
          run.tcp.set(spec.id, listener);
          resolve(listener);
        };
        server.once('error', onError);
        server.once('listening', onListening);
        server.listen({ host, port: spec.port, ipv6Only: spec.ipv6Only });
      };
      attempt(spec.host);
    });
  }

  private onTcp(run: RuleRun, listener: TcpListener, client: Socket): void {
    const from = fmtAddr(client.remoteAddress ?? '?', client.remotePort ?? 0);
    if (run.stopped) {
      client.destroy();
      return;
    }
    const lim = run.lim;
    if (
      (lim.tcpMax > 0 && run.conns.size >= lim.tcpMax) ||
      (this.cfg.tcpMaxConnections > 0 && this.tcpActive >= this.cfg.tcpMaxConnections)
    ) {
      client.destroy();
      this.refused(run, 'limit', `tcp ${from}`);
      return;
    }
    if (!run.filter.allows(client.remoteAddress)) {
      client.destroy();
      this.refused(run, 'filter', `tcp ${from}`);
      return;
    }
    const ends = {
      srcAddress: client.remoteAddress ?? '',
      srcPort: client.remotePort ?? 0,
      dstAddress: client.localAddress ?? '',
      dstPort: client.localPort ?? listener.spec.port,
    };
    const conn: Conn = { front: client, upstream: null, native: null, end: () => undefined };
    run.conns.add(conn);
    this.tcpActive++;
    run.stats.totalConnections++;
    const logConns = this.cfg.logConnections;
    const rule = run.rule;
    const targetPort = listener.spec.targetPort;
    let done = false;
    let relaying = false;
    let target = '';

    /** Ends the pair once; `notable` lines are logged even when connection logging is off. */
    const finish = (reason: string, notable = false) => {
      if (done) return;
      done = true;
      run.conns.delete(conn);
      this.tcpActive--;
      const f = conn.front;
      let bytesIn = f.bytesRead;
      let bytesOut = f.bytesWritten;
      if (conn.native) {
        // Taken back before the sockets close: the relay thread must be done with their descriptors.
        const { toTarget, toClient } = conn.native.remove();
        bytesIn += toTarget;
        bytesOut += toClient;
      }
      run.stats.bytesIn += bytesIn;
      run.stats.bytesOut += bytesOut;
      f.destroy();
      if (f !== client) client.destroy();
      conn.upstream?.destroy();
      if (logConns || notable) {
        this.line(run, `${reason}: ${from}${target ? ` → ${target}` : ''}, in ${bytesIn} B, out ${bytesOut} B`);
      }
    };
    conn.end = (reason) => finish(reason);

    let secured = run.tls === null;
    let inbound: Reader | null = null;
    if (run.tls) {
      client.on('error', () => undefined);
      const t = new TLSSocket(client, { isServer: true, secureContext: run.tls });
      conn.front = t;
      const hs = setTimeout(() => finish('TLS handshake timed out', true), TLS_HANDSHAKE_MS);
      hs.unref();
      t.once('secure', () => {
        secured = true;
        clearTimeout(hs);
      });
      t.once('close', () => clearTimeout(hs));
    } else {
      inbound = new Reader();
      const adopted = adopt(client, inbound);
      if (adopted) conn.front = adopted;
      else inbound = null;
    }
    const front = conn.front;
    front.on('error', (err) => finish(secured ? `closed (client: ${err.message})` : `TLS handshake failed (${err.message})`, !secured));
    front.once('close', () => {
      if (!relaying) finish('client left before a target answered');
    });
    if (logConns) this.line(run, `accepted ${from} on ${listener.bound}`);

    const order = this.targetOrder(run, targetPort);
    const tryNext = (i: number): void => {
      if (done) return;
      const host = order[i];
      if (host === undefined) {
        finish('no target reachable', true);
        return;
      }
      const addr = fmtAddr(host, targetPort);
      const { socket: up, reader: outbound } = this.connectTarget(rule, host, targetPort);
      conn.upstream = up;
      const timer = setTimeout(() => onFail('timed out'), this.cfg.connectTimeout * 1000);
      const onFail = (why: string) => {
        clearTimeout(timer);
        up.removeAllListeners();
        up.on('error', () => undefined);
        up.destroy();
        conn.upstream = null;
        run.targetDown.set(`${host}|${targetPort}`, Date.now() + TARGET_DOWN_MS);
        this.line(run, `target ${addr} failed (${why})${order.length > i + 1 ? ', trying the next one' : ''}`);
        tryNext(i + 1);
      };
      const onError = (err: NodeJS.ErrnoException) => {
        if (err.code === 'EMFILE' || err.code === 'ENFILE') {
          // Our own shortage, not the target's fault: do not mark it down.
          clearTimeout(timer);
          finish(`cannot open a connection to ${addr}: ${err.message}`, true);
          return;
        }
        onFail(err.message);
      };
      up.once('error', onError);
      up.once(rule.tls.target ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        up.off('error', onError);
        if (done) {
          up.destroy();
          return;
        }
        target = addr;
        relaying = true;
        run.targetDown.delete(`${host}|${targetPort}`);
        if (front.destroyed) {
          finish('client left before a target answered');
          return;
        }
        this.relay(run, conn, up, inbound, outbound, ends, finish);
      });
    };
    tryNext(0);
  }

  private connectTarget(rule: PortforwardRule, host: string, port: number): { socket: Socket; reader: Reader | null } {
    if (rule.tls.target) {
      const servername = rule.tls.targetServerName || (isIP(host) ? undefined : host);
      // A plain socket underneath carries allowHalfOpen to the TLS socket around it.
      const socket = netConnect({ host, port, allowHalfOpen: true, noDelay: true });
      const tls = tlsConnect({
        socket,
        host,
        rejectUnauthorized: !rule.tls.targetInsecure,
        ...(servername ? { servername } : {}),
      });
      return { socket: tls, reader: null };
    }
    const reader = new Reader();
    const up = netConnect({ host, port, allowHalfOpen: true, noDelay: true, onread: reader.onread });
    reader.src = up;
    // Paused until the relay starts: a target that talks first (SSH, SMTP banners) waits for it.
    up.pause();
    return { socket: up, reader };
  }

  /** Relays both ways, natively where it can (see portforward.native.ts). */
  private relay(
    run: RuleRun,
    conn: Conn,
    up: Socket,
    inbound: Reader | null,
    outbound: Reader | null,
    ends: { srcAddress: string; srcPort: number; dstAddress: string; dstPort: number },
    finish: (reason: string, notable?: boolean) => void,
  ): void {
    const front = conn.front;
    up.on('error', (err) => finish(`closed (target: ${err.message})`));
    const pp = run.rule.proxyProtocol;
    const header = pp === 'off' ? null : pp === 'v2' ? proxyV2Header(ends) : proxyV1Header(ends);
    // Plain TCP both ways (both sockets still paused, nothing read yet): the native relay takes the
    // pair once the PROXY header is out; otherwise, or if it declines, JavaScript relays.
    if (this.native && inbound && outbound) {
      const handOver = () => {
        if (conn.upstream !== up || front.destroyed || up.destroyed) return finish('closed');
        conn.native = nativeTcp(front, up, run.lim.idleMs, (end) => {
          if (end.reason === 'idle') finish('idle timeout');
          else if (end.reason === 'error') finish(`closed (${errnoName(end.errno)})`);
          else finish('closed');
        });
        if (!conn.native) this.relayJs(run, front, up, inbound, outbound, null, finish);
      };
      if (header) up.write(header, (err) => (err ? undefined : handOver()));
      else handOver();
      return;
    }
    this.relayJs(run, front, up, inbound, outbound, header, finish);
  }

  /**
   * Relays in JavaScript. Each side's FIN is passed on (half-close); a side that closed after both
   * its directions ended waits for the other to flush, a side that broke off takes the other with it.
   */
  private relayJs(
    run: RuleRun,
    front: Socket,
    up: Socket,
    inbound: Reader | null,
    outbound: Reader | null,
    header: Buffer | null,
    finish: (reason: string, notable?: boolean) => void,
  ): void {
    front.on('end', () => up.end());
    up.on('end', () => front.end());
    const onClose = (a: Socket, b: Socket) => () => {
      if (b.destroyed || !(a.readableEnded && a.writableFinished)) finish('closed');
    };
    front.on('close', onClose(front, up));
    up.on('close', onClose(up, front));
    const idleMs = run.lim.idleMs;
    if (idleMs > 0) {
      const onIdle = () => finish('idle timeout');
      front.setTimeout(idleMs, onIdle);
      up.setTimeout(idleMs, onIdle);
    }
    if (header) up.write(header);
    if (inbound) inbound.start(front, up);
    else pump(front, up);
    if (outbound) outbound.start(up, front);
    else pump(up, front);
  }

  // ---------------------------------------------------------------- UDP

  private listenUdp(run: RuleRun, spec: ListenSpec): Promise<StatusPart | UdpListener> {
    return new Promise((resolve) => {
      const attempt = (host: string) => {
        const v6 = host.includes(':');
        // Replies go to the IP a datagram came from: no name lookup (and no extra tick) per packet.
        const socket = createSocket({ type: v6 ? 'udp6' : 'udp4', ipv6Only: spec.ipv6Only, lookup: literalLookup });
        const onError = (err: NodeJS.ErrnoException) => {
          socket.close();
          if (spec.dual && host === '::' && (err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL')) return attempt('0.0.0.0');
          resolve(listenError('udp', host, spec.port, err));
        };
        socket.once('error', onError);
        socket.bind({ address: host, port: spec.port, exclusive: true }, () => {
          socket.off('error', onError);
          tuneBuffers(socket);
          const listener: UdpListener = { spec, socket, bound: fmtAddr(host, spec.port), sessions: new Map(), sweeper: null, native: null };
          // Send failures under a flood (ENOBUFS...) drop that datagram, as the network would.
          socket.on('error', (err) => this.throttled(run, `udp ${listener.bound}: ${err.message}`));
          socket.on('message', (msg, rinfo) => this.onUdp(run, listener, msg, rinfo));
          if (this.native) {
            // From here the relay thread reads the socket; clients without a session come back here.
            listener.native = nativeUdpListener(socket, run.lim.udpPacketSize, (msg, address, port) =>
              this.onUdp(run, listener, msg, { address, port, family: address.includes(':') ? 'IPv6' : 'IPv4', size: msg.length }),
            );
          }
          run.udp.set(spec.id, listener);
          resolve(listener);
        });
      };
      attempt(spec.host);
    });
  }

  private onUdp(run: RuleRun, listener: UdpListener, msg: Buffer, rinfo: RemoteInfo): void {
    if (run.stopped) return;
    const lim = run.lim;
    if (msg.length > lim.udpPacketSize) return;
    const skey = `${rinfo.address}|${rinfo.port}`;
    let s = listener.sessions.get(skey);
    if (!s) {
      const from = fmtAddr(rinfo.address, rinfo.port);
      if ((lim.udpMax > 0 && run.udpSessions >= lim.udpMax) || (this.cfg.udpMaxSessions > 0 && this.udpActive >= this.cfg.udpMaxSessions)) {
        this.refused(run, 'limit', `udp ${from}`);
        return;
      }
      if (!run.filter.allows(rinfo.address)) {
        this.refused(run, 'filter', `udp ${from}`);
        return;
      }
      s = this.openSession(run, listener, skey, rinfo, lim);
    }
    s.last = Date.now();
    run.stats.bytesIn += msg.length;
    if (s.out) s.out.send(msg);
    else if (s.pending && s.pending.length < UDP_PENDING_MAX) s.pending.push(msg);
  }

  private openSession(run: RuleRun, listener: UdpListener, skey: string, rinfo: RemoteInfo, lim: Resolved): UdpSession {
    const targetPort = listener.spec.targetPort;
    const host = this.targetOrder(run, targetPort)[0]!;
    const s: UdpSession = {
      key: skey,
      clientAddress: rinfo.address,
      clientPort: rinfo.port,
      out: null,
      sock: null,
      pending: [],
      target: fmtAddr(host, targetPort),
      last: Date.now(),
      closed: false,
      native: null,
    };
    listener.sessions.set(skey, s);
    run.udpSessions++;
    this.udpActive++;
    run.stats.totalConnections++;
    const logConns = this.cfg.logConnections;
    if (logConns) this.line(run, `udp session ${fmtAddr(rinfo.address, rinfo.port)} → ${s.target}`);
    this.ensureSweeper(run, listener);

    const setup = (address: string, family: number) => {
      if (s.closed) return;
      const out = createSocket({ type: family === 6 ? 'udp6' : 'udp4', lookup: literalLookup });
      out.on('error', (err: NodeJS.ErrnoException) => {
        // "Port unreachable" from the target ends the session so the next datagram can fail over;
        // transient send errors only drop the datagram.
        if (err.code !== 'ECONNREFUSED' && err.code !== 'EHOSTUNREACH' && err.code !== 'ENETUNREACH') {
          this.throttled(run, `udp session ${fmtAddr(s.clientAddress, s.clientPort)}: ${err.message}`);
          return;
        }
        run.targetDown.set(`${host}|${targetPort}`, Date.now() + TARGET_DOWN_MS);
        this.endSession(run, listener, s, `target ${s.target} failed (${err.message})`);
      });
      out.on('message', (reply) => {
        if (s.closed || reply.length > lim.udpPacketSize) return;
        s.last = Date.now();
        run.stats.bytesOut += reply.length;
        listener.socket.send(reply, s.clientPort, s.clientAddress);
      });
      out.connect(targetPort, address, () => {
        if (s.closed) return;
        s.out = out;
        const queued = s.pending ?? [];
        s.pending = null;
        for (const m of queued) out.send(m);
        if (listener.native) {
          s.native = nativeUdpSession(listener.native, out, s.clientAddress, s.clientPort, (end) => {
            if (end.reason !== 'error') return this.endSession(run, listener, s, 'timed out');
            run.targetDown.set(`${host}|${targetPort}`, Date.now() + TARGET_DOWN_MS);
            this.endSession(run, listener, s, `target ${s.target} failed (${errnoName(end.errno)})`);
          });
        }
      });
      s.sock = out;
    };
    const fam = isIP(host);
    if (fam) setup(host, fam);
    else
      lookup(host, (err, address, family) => {
        if (err) {
          run.targetDown.set(`${host}|${targetPort}`, Date.now() + TARGET_DOWN_MS);
          this.endSession(run, listener, s, `target ${s.target} failed (${err.message})`);
        } else setup(address, family);
      });
    return s;
  }

  private endSession(run: RuleRun, listener: UdpListener, s: UdpSession, reason: string): void {
    if (s.closed) return;
    s.closed = true;
    s.pending = null;
    if (listener.sessions.get(s.key) === s) listener.sessions.delete(s.key);
    if (s.native) {
      // Taken back before the socket closes: the relay thread must be done with its descriptor.
      const { toTarget, toClient } = s.native.remove();
      run.stats.bytesIn += toTarget;
      run.stats.bytesOut += toClient;
    }
    run.udpSessions--;
    this.udpActive--;
    if (s.sock) {
      try {
        s.sock.close();
      } catch {
        // already closed
      }
    }
    if (this.cfg.logConnections || reason !== 'timed out') this.line(run, `udp session ${fmtAddr(s.clientAddress, s.clientPort)} ended: ${reason}`);
  }

  private ensureSweeper(run: RuleRun, listener: UdpListener): void {
    if (listener.sweeper) return;
    const tick = () => {
      const timeout = run.lim.udpTimeoutMs;
      const now = Date.now();
      for (const s of listener.sessions.values()) {
        if (s.native) s.last = now - s.native.counters().idleMs;
        if (now - s.last >= timeout) this.endSession(run, listener, s, 'timed out');
      }
      if (listener.sessions.size === 0 && listener.sweeper) {
        clearInterval(listener.sweeper);
        listener.sweeper = null;
      }
    };
    const every = Math.max(100, Math.min(1000, Math.floor(run.lim.udpTimeoutMs / 4)));
    listener.sweeper = setInterval(tick, every);
    listener.sweeper.unref();
  }

  private closeUdpListener(run: RuleRun, l: UdpListener): void {
    if (l.sweeper) clearInterval(l.sweeper);
    l.sweeper = null;
    for (const s of [...l.sessions.values()]) this.endSession(run, l, s, 'listener closed');
    l.native?.remove();
    l.native = null;
    try {
      l.socket.close();
    } catch {
      // already closed
    }
  }
}

/** dgram's lookup for addresses that are already IP literals. */
function literalLookup(address: string, family: unknown, cb: (err: Error | null, address: string, family: number) => void): void {
  cb(null, address, address.includes(':') ? 6 : 4);
}

/** Room for bursts on busy relays; the kernel caps it at its own maximum. */
function tuneBuffers(socket: UdpSocket): void {
  try {
    socket.setRecvBufferSize(4 * 1024 * 1024);
    socket.setSendBufferSize(4 * 1024 * 1024);
  } catch {
    // not supported here: keep the defaults
  }
}

/** ECONNRESET for 104, so that log lines name the cause the way Node's own errors do. */
function errnoName(errno: number): string {
  for (const [name, value] of Object.entries(osConstants.errno)) if (value === errno) return name;
  return `errno ${errno}`;
}

function listenError(proto: string, host: string, port: number, err: NodeJS.ErrnoException): StatusPart {
  return listenProblem(`${proto} ${fmtAddr(host, port)}`, port, err.code, err.message);
}

/**
 * Reads land first in one buffer shared by every connection (idle connections own no buffer);
 * a read that fills it moves the connection to a big buffer, which goes back to a small free list
 * when reads turn small again or when the write that carried it is done (so busy relays do not
 * fault in fresh memory for every read).
 */
const READ_SHARED = Buffer.allocUnsafe(64 * 1024);
const READ_BIG = 256 * 1024;
const FREE_MAX = 32;
const freeBig: Buffer[] = [];
const takeBig = (): Buffer => freeBig.pop() ?? Buffer.allocUnsafe(READ_BIG);
const giveBig = (b: Buffer): void => {
  if (freeBig.length < FREE_MAX) freeBig.push(b);
};

/**
 * One direction of a relay that reads with net.Socket `onread` instead of a fresh 64 KiB
 * allocation per read. Bytes read into the shared buffer are copied before they are written (the
 * next read of any connection reuses it). A big buffer is written as it is and reused when the
 * other side took the bytes at once; while the write is pending it belongs to that write (and
 * returns to the free list when written), and the next read gets another one. A full write queue
 * pauses reading until drain.
 */
class Reader {
  src: Socket | null = null;
  private dst: Socket | null = null;
  private buf: Buffer = READ_SHARED;
  /** Big buffers of writes in flight, in write order; null for writes that completed at once. */
  private lent: Array<Buffer | null> = [];
  private resume = () => this.src?.resume();
  private written = () => {
    const b = this.lent.shift();
    if (b) giveBig(b);
  };
  readonly onread = {
    buffer: () => this.buf,
    callback: (n: number, b: Buffer): boolean => this.chunk(n, b),
  };

  start(src: Socket, dst: Socket): void {
    this.src = src;
    this.dst = dst;
    src.resume();
  }

  private chunk(n: number, b: Buffer): boolean {
    const dst = this.dst;
    if (!dst) return false;
    let ok: boolean;
    if (b === READ_SHARED) {
      ok = dst.write(Buffer.from(b.subarray(0, n)));
      if (n === b.length) this.buf = takeBig();
    } else {
      const i = this.lent.push(b) - 1;
      ok = dst.write(n === b.length ? b : b.subarray(0, n), this.written);
      if (dst.writableLength > 0) {
        // In flight: the write owns `b` now.
        this.buf = n < b.length >> 3 ? READ_SHARED : takeBig();
      } else {
        this.lent[i] = null;
        if (n < b.length >> 3) {
          giveBig(b);
          this.buf = READ_SHARED;
        }
      }
    }
    if (!ok) {
      dst.once('drain', this.resume);
      return false;
    }
    return true;
  }
}

/**
 * Moves an accepted socket's handle into a socket that reads with `reader`. Node has no `onread`
 * for accepted sockets; `new Socket({ handle })` is how its own internals hand sockets over. The
 * old object is closed without its handle. Null when the socket has no handle to hand over.
 */
function adopt(accepted: Socket, reader: Reader): Socket | null {
  const holder = accepted as unknown as { _handle: unknown };
  const handle = holder._handle;
  if (!handle || accepted.destroyed) return null;
  try {
    const s = new Socket({ handle, allowHalfOpen: true, readable: true, writable: true, pauseOnCreate: true, onread: reader.onread } as ConstructorParameters<typeof Socket>[0]);
    holder._handle = null;
    accepted.destroy();
    reader.src = s;
    return s;
  } catch {
    return null;
  }
}

/**
 * One direction of a relay: what `pipe` does, without its bookkeeping. Reading pauses while the
 * other side's buffer is full and resumes on drain, so memory stays bounded per connection.
 */
function pump(src: Socket, dst: Socket): void {
  src.on('data', (chunk: Buffer) => {
    if (!dst.write(chunk)) src.pause();
  });
  dst.on('drain', () => src.resume());
  src.resume();
}
