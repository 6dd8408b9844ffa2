/**
 * The UDP side of a rule: ONE socket does STUN, keepalive and forwarding, so the mapping the NAT
 * made for our STUN requests is exactly the one clients reach. Answers to our own requests are
 * taken out by the STUN client; every other datagram is a client's, relayed to the target through
 * a session socket of its own (replies go back out of the shared socket). Where the native relay
 * runs, its thread reads the shared socket and carries the sessions' datagrams; what has no session
 * yet (a new client, a STUN answer) still comes here first.
 */
import dgram from 'node:dgram';
import type { Msg } from '@lucky/contracts';
import { nativeUdpListener, nativeUdpSession, type NativeFlow, type NativeUdpListener } from '../../core/relay.js';
import { UdpStunClient } from './stun.client.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ForwardPlan, Traffic } from './stun.forward.js';

interface Session {
  sock: dgram.Socket;
  timer: NodeJS.Timeout;
  /** Datagrams that came while the target's name was being resolved (Node cannot send before). */
  waiting: Buffer[] | null;
  /** Set once the native relay carries the session. */
  flow: NativeFlow | null;
  last: number;
}

/** Datagrams kept per session while it connects; more are dropped, as a full socket buffer would. */
const WAITING_MAX = 64;
const MAX_DATAGRAM = 65_507;

type Peer = { address: string; port: number };

export class UdpPort {
  readonly stun: UdpStunClient;
  private sessions = new Map<string, Session>();
  private plan: ForwardPlan | null = null;
  private relay: NativeUdpListener | null = null;

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly traffic: Traffic,
    private readonly note: (m: Msg) => void,
  ) {
    this.stun = new UdpStunClient((buf, port, address) => socket.send(buf, port, address));
    socket.on('message', (msg, rinfo) => this.datagram(msg, rinfo));
    // A send to a vanished client (ICMP unreachable) must not end the rule's socket.
    socket.on('error', () => {});
  }

  /** Binds host:port (0 = the system chooses); rejects with Node's error (code EADDRINUSE…). */
  static open(host: string, port: number, traffic: Traffic, note: (m: Msg) => void): Promise<UdpPort> {
    return new Promise((resolve, reject) => {
      const s = dgram.createSocket({ type: 'udp4' });
      s.once('error', (err) => {
        s.close();
        reject(err);
      });
      s.bind({ address: host || '0.0.0.0', port, exclusive: true }, () => {
        s.removeAllListeners('error');
        resolve(new UdpPort(s, traffic, note));
      });
    });
  }

  get port(): number {
    return this.socket.address().port;
  }

  /** Lets the native relay thread read the socket (false with LUCKY_NATIVE_RELAY=0, or without the addon). */
  useNativeRelay(): void {
    this.relay ??= nativeUdpListener(this.socket, this.plan?.maxPacket ?? MAX_DATAGRAM, (msg, address, port) => this.datagram(msg, { address, port }));
  }

  forward(plan: ForwardPlan | null): void {
    this.plan = plan;
    this.relay?.setMaxPacket(plan?.maxPacket ?? MAX_DATAGRAM);
    if (!plan) this.dropSessions();
  }

  private datagram(msg: Buffer, from: Peer): void {
    if (this.stun.offer(msg, from)) return;
    const plan = this.plan;
    if (!plan) return;
    const id = fmtAddr(from.address, from.port);
    let s = this.sessions.get(id);
    if (!s) {
      if (!plan.filter.allows(from.address)) return this.traffic.refused('filter', id);
      if (plan.maxSessions > 0 && this.sessions.size >= plan.maxSessions) return this.traffic.refused('limit', id);
      s = this.openSession(id, from, plan);
    }
    if (msg.length > plan.maxPacket) return;
    this.traffic.bytesIn += msg.length;
    s.last = Date.now();
    if (s.waiting) {
      if (s.waiting.length < WAITING_MAX) s.waiting.push(msg);
    } else s.sock.send(msg);
  }

  private openSession(id: string, client: Peer, plan: ForwardPlan): Session {
    const sock = dgram.createSocket({ type: 'udp4' });
    const end = () => this.endSession(id);
    const session: Session = { sock, timer: setTimeout(() => this.expire(id), plan.sessionTimeoutMs), waiting: [], flow: null, last: Date.now() };
    session.timer.unref();
    this.sessions.set(id, session);
    this.traffic.sessions = this.sessions.size;
    this.traffic.totalConnections++;
    sock.on('error', (err) => {
      this.note({ key: 'stunTargetFailed', vars: { target: fmtAddr(plan.host, plan.port), detail: err.message } });
      end();
    });
    sock.on('message', (reply) => {
      session.last = Date.now();
      this.traffic.bytesOut += reply.length;
      this.socket.send(reply, client.port, client.address);
    });
    // connect() resolves a name once per session.
    sock.connect(plan.port, plan.host, () => {
      const queued = session.waiting ?? [];
      session.waiting = null;
      for (const m of queued) sock.send(m);
      if (this.relay && this.sessions.get(id) === session) session.flow = nativeUdpSession(this.relay, sock, client.address, client.port, end);
    });
    return session;
  }

  /** The session's timer: it ends when nothing passed for the timeout, wherever its datagrams went. */
  private expire(id: string): void {
    const s = this.sessions.get(id);
    const timeout = this.plan?.sessionTimeoutMs;
    if (!s || timeout === undefined) return this.endSession(id);
    const idle = s.flow ? Math.min(s.flow.counters().idleMs, Date.now() - s.last) : Date.now() - s.last;
    if (idle >= timeout) return this.endSession(id);
    s.timer = setTimeout(() => this.expire(id), timeout - idle);
    s.timer.unref();
  }

  private endSession(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    clearTimeout(s.timer);
    if (s.flow) {
      // Taken back before the socket closes: the relay thread must be done with its descriptor.
      const t = s.flow.remove();
      this.traffic.bytesIn += t.toTarget;
      this.traffic.bytesOut += t.toClient;
    }
    s.sock.close();
    this.traffic.sessions = this.sessions.size;
  }

  /** Bytes of the sessions on the native relay so far (added to the totals when they end). */
  liveBytes(): { in: number; out: number } {
    let i = 0;
    let o = 0;
    for (const s of this.sessions.values()) {
      if (!s.flow) continue;
      const c = s.flow.counters();
      i += c.toTarget;
      o += c.toClient;
    }
    return { in: i, out: o };
  }

  private dropSessions(): void {
    for (const id of [...this.sessions.keys()]) this.endSession(id);
  }

  close(): void {
    this.dropSessions();
    this.relay?.remove();
    this.relay = null;
    this.stun.close();
    this.socket.close();
  }
}
