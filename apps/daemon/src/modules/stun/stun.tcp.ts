/**
 * The TCP side of a rule. A NAT maps a TCP port only while a connection through it lives, and STUN
 * servers close theirs after one answer; so the rule keeps a connection of its own open from the
 * local port to an HTTP server (the keepalive URL) and asks STUN servers from that same port. The
 * listener shares the port with those outbound connections (SO_REUSEPORT, native addon): clients
 * that reach the published address land on it. Node cannot share a port by itself, so without the
 * addon a TCP rule says so instead of running with a mapping that does not match its listener.
 */
import net from 'node:net';
import type { Msg } from '@lucky/contracts';
import { connectReusePort, LISTEN_BACKLOG, listenReusePort, nativeAddon } from '../../core/native.js';
import { RuleProblem } from '../../core/engine.js';
import { nativeTcp, type NativeFlow } from '../../core/relay.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ForwardPlan, Traffic } from './stun.forward.js';

const CONNECT_TIMEOUT_MS = 5000;

export class TcpPort {
  private server: net.Server | null = null;
  private plan: ForwardPlan | null = null;
  private live = new Set<net.Socket>();
  /** Pairs on the native relay: their bytes are counted there, and added here when they end. */
  private flows = new Set<NativeFlow>();
  /** False with LUCKY_NATIVE_RELAY=0: JavaScript relays every pair. */
  native = true;

  private constructor(
    readonly host: string,
    readonly port: number,
    private readonly traffic: Traffic,
    private readonly note: (m: Msg) => void,
  ) {}

  /**
   * Opens host:port (0 = the system chooses). In forward mode it listens; in mode none the port is
   * only used for outbound connections, and a local service may listen on it with SO_REUSEPORT.
   * Rejects with an error whose `code` is EADDRINUSE…
   */
  static async open(host: string, port: number, listen: boolean, traffic: Traffic, note: (m: Msg) => void): Promise<TcpPort> {
    if (!nativeAddon()) throw new RuleProblem({ key: 'stunTcpNeedsNative' }, false);
    const ip = host || '0.0.0.0';
    const fd = listenReusePort(ip, port, false);
    // Paused until the target answers: then the pair goes to the native relay whole, or to pipes.
    const server = net.createServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ fd }, LISTEN_BACKLOG, () => resolve());
    });
    const bound = (server.address() as net.AddressInfo).port;
    const p = new TcpPort(host, bound, traffic, note);
    if (listen) {
      p.server = server;
      server.on('connection', (c) => p.accept(c));
      server.on('error', () => {});
    } else await new Promise<void>((r) => server.close(() => r()));
    return p;
  }

  forward(plan: ForwardPlan | null): void {
    this.plan = plan;
  }

  /** A connection from the local port (keepalive, STUN). */
  connect(address: string, port: number): Promise<net.Socket> {
    return connectReusePort(this.host || '0.0.0.0', this.port, address, port, CONNECT_TIMEOUT_MS);
  }

  private accept(c: net.Socket): void {
    const plan = this.plan;
    const client = fmtAddr(c.remoteAddress ?? '?', c.remotePort ?? 0);
    if (!plan) return void c.destroy();
    if (!plan.filter.allows(c.remoteAddress)) {
      this.traffic.refused('filter', client);
      return void c.destroy();
    }
    if (plan.maxConnections > 0 && this.live.size >= plan.maxConnections) {
      this.traffic.refused('limit', client);
      return void c.destroy();
    }
    const target = fmtAddr(plan.host, plan.port);
    const up = net.connect({ host: plan.host, port: plan.port, allowHalfOpen: true, noDelay: true, timeout: CONNECT_TIMEOUT_MS });
    // A target that talks first (SSH, SMTP) waits for the relay.
    up.pause();
    this.live.add(c);
    this.traffic.connections = this.live.size;
    this.traffic.totalConnections++;
    let flow: NativeFlow | null = null;
    let bytes = { in: 0, out: 0 };
    let connected = false;
    let ended = false;
    const end = (err?: Error) => {
      if (ended) return;
      ended = true;
      if (!connected && err) this.note({ key: 'stunTargetFailed', vars: { target, detail: err.message } });
      if (flow) {
        const t = flow.remove();
        this.flows.delete(flow);
        bytes = { in: t.toTarget, out: t.toClient };
        this.traffic.bytesIn += t.toTarget;
        this.traffic.bytesOut += t.toClient;
      }
      c.destroy();
      up.destroy();
      this.live.delete(c);
      this.traffic.connections = this.live.size;
      if (connected) this.note({ key: 'stunConnEnded', vars: { client, in: bytes.in, out: bytes.out } });
    };
    up.on('error', end);
    c.on('error', () => end());
    up.once('timeout', () => end(new Error('timeout')));
    up.once('connect', () => {
      connected = true;
      up.setTimeout(0);
      this.note({ key: 'stunAccepted', vars: { client, target } });
      if (c.destroyed) return end();
      flow = this.native ? nativeTcp(c, up, plan.idleTimeoutMs, () => end()) : null;
      if (flow) return void this.flows.add(flow);
      this.pipe(c, up, plan.idleTimeoutMs, bytes, end);
    });
  }

  /** JavaScript relay: half-close passed on, idle timeout, bytes counted as they pass. */
  private pipe(c: net.Socket, up: net.Socket, idleMs: number, bytes: { in: number; out: number }, end: () => void): void {
    c.on('data', (d: Buffer) => {
      bytes.in += d.length;
      this.traffic.bytesIn += d.length;
    });
    up.on('data', (d: Buffer) => {
      bytes.out += d.length;
      this.traffic.bytesOut += d.length;
    });
    c.pipe(up);
    up.pipe(c);
    if (idleMs > 0) {
      c.setTimeout(idleMs, end);
      up.setTimeout(idleMs, end);
    }
    let closed = 0;
    const onClose = () => {
      if (++closed === 2) end();
    };
    // Each side's close: the pair ends when both are gone, or at once when one broke off.
    c.once('close', (hadError) => (hadError ? end() : onClose()));
    up.once('close', (hadError) => (hadError ? end() : onClose()));
  }

  /** Bytes of the pairs on the native relay so far (added to the totals when they end). */
  liveBytes(): { in: number; out: number } {
    let i = 0;
    let o = 0;
    for (const f of this.flows) {
      const c = f.counters();
      i += c.toTarget;
      o += c.toClient;
    }
    return { in: i, out: o };
  }

  close(): void {
    this.server?.close();
    for (const f of this.flows) f.remove();
    this.flows.clear();
    for (const c of this.live) c.destroy();
    this.live.clear();
  }
}

/**
 * The connection that keeps the TCP mapping: an HTTP/1.1 keep-alive connection from the local
 * port, with a HEAD request every interval so neither the NAT nor the server drops it as idle.
 */
export class TcpKeepalive {
  private sock: net.Socket | null = null;
  /** Where the open connection goes; a changed keepalive URL (settings) opens a new one. */
  private to = '';

  constructor(
    private readonly port: TcpPort,
    private readonly note: (m: Msg) => void,
  ) {}

  get up(): boolean {
    return this.sock !== null && !this.sock.destroyed;
  }

  /** Opens the connection when it is down, or sends the next request on it. */
  async beat(url: URL, address: string): Promise<void> {
    const to = `${address}:${url.port || 80}`;
    if (this.up && this.to !== to) this.close();
    if (!this.up) {
      const sock = await this.port.connect(address, Number(url.port || 80));
      this.to = to;
      sock.on('data', () => {});
      sock.on('error', () => {});
      sock.on('close', () => {
        if (this.sock === sock) this.sock = null;
      });
      sock.setKeepAlive(true, 30_000);
      this.sock = sock;
      this.note({ key: 'stunKeepaliveUp', vars: { url: url.href } });
    }
    this.sock!.write(`HEAD ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUser-Agent: lucky-stun\r\nConnection: keep-alive\r\n\r\n`);
  }

  close(): void {
    this.sock?.destroy();
    this.sock = null;
  }
}
