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
import { connectReusePort, listenReusePort, nativeAddon } from '../../core/native.js';
import { RuleProblem } from '../../core/engine.js';
import { fmtAddr, type ForwardPlan, type Traffic } from './stun.forward.js';

const CONNECT_TIMEOUT_MS = 5000;

export class TcpPort {
  private server: net.Server | null = null;
  private plan: ForwardPlan | null = null;
  private live = new Set<net.Socket>();

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
    const server = net.createServer({ pauseOnConnect: false });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ fd }, () => resolve());
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
    const up = net.connect({ host: plan.host, port: plan.port, timeout: CONNECT_TIMEOUT_MS });
    this.live.add(c);
    this.traffic.connections = this.live.size;
    this.traffic.totalConnections++;
    let inBytes = 0;
    let outBytes = 0;
    let connected = false;
    up.once('connect', () => {
      connected = true;
      up.setTimeout(plan.idleTimeoutMs);
      c.setTimeout(plan.idleTimeoutMs);
      c.setNoDelay(true);
      up.setNoDelay(true);
      this.note({ key: 'stunAccepted', vars: { client, target } });
    });
    c.on('data', (d: Buffer) => {
      inBytes += d.length;
      this.traffic.bytesIn += d.length;
    });
    up.on('data', (d: Buffer) => {
      outBytes += d.length;
      this.traffic.bytesOut += d.length;
    });
    c.pipe(up);
    up.pipe(c);
    const fail = (err?: Error) => {
      if (!connected && err) this.note({ key: 'stunTargetFailed', vars: { target, detail: err.message } });
      c.destroy();
      up.destroy();
    };
    up.on('timeout', () => fail(connected ? undefined : new Error('timeout')));
    c.on('timeout', () => fail());
    up.on('error', fail);
    c.on('error', () => fail());
    c.once('close', () => {
      up.destroy();
      if (!this.live.delete(c)) return;
      this.traffic.connections = this.live.size;
      if (connected) this.note({ key: 'stunConnEnded', vars: { client, in: inBytes, out: outBytes } });
    });
    up.once('close', () => c.end());
  }

  close(): void {
    this.server?.close();
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

  constructor(
    private readonly port: TcpPort,
    private readonly url: URL,
    private readonly note: (m: Msg) => void,
  ) {}

  get up(): boolean {
    return this.sock !== null && !this.sock.destroyed;
  }

  /** Opens the connection when it is down, or sends the next request on it. */
  async beat(address: string): Promise<void> {
    if (!this.up) {
      const sock = await this.port.connect(address, Number(this.url.port || 80));
      sock.on('data', () => {});
      sock.on('error', () => {});
      sock.on('close', () => {
        if (this.sock === sock) this.sock = null;
      });
      sock.setKeepAlive(true, 30_000);
      this.sock = sock;
      this.note({ key: 'stunKeepaliveUp', vars: { url: this.url.href } });
    }
    this.sock!.write(`HEAD ${this.url.pathname}${this.url.search} HTTP/1.1\r\nHost: ${this.url.host}\r\nUser-Agent: lucky-stun\r\nConnection: keep-alive\r\n\r\n`);
  }

  close(): void {
    this.sock?.destroy();
    this.sock = null;
  }
}
