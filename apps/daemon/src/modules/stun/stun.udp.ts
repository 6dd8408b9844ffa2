/**
 * The UDP side of a rule: ONE socket does STUN, keepalive and forwarding, so the mapping the NAT
 * made for our STUN requests is exactly the one clients reach. Answers to our own requests are
 * taken out by the STUN client; every other datagram is a client's, relayed to the target through
 * a session socket of its own (replies go back out of the shared socket).
 */
import dgram from 'node:dgram';
import type { Msg } from '@lucky/contracts';
import { UdpStunClient } from './stun.client.js';
import { fmtAddr, type ForwardPlan, type Traffic } from './stun.forward.js';

interface Session {
  sock: dgram.Socket;
  timer: NodeJS.Timeout;
  /** Datagrams that came while the target's name was being resolved (Node cannot send before). */
  waiting: Buffer[] | null;
}

/** Datagrams kept per session while it connects; more are dropped, as a full socket buffer would. */
const WAITING_MAX = 64;

export class UdpPort {
  readonly stun: UdpStunClient;
  private sessions = new Map<string, Session>();
  private plan: ForwardPlan | null = null;

  private constructor(
    private readonly socket: dgram.Socket,
    private readonly traffic: Traffic,
    private readonly note: (m: Msg) => void,
  ) {
    this.stun = new UdpStunClient((buf, port, address) => socket.send(buf, port, address));
    socket.on('message', (msg, rinfo) => {
      if (this.stun.offer(msg, rinfo)) return;
      this.fromClient(msg, rinfo);
    });
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

  forward(plan: ForwardPlan | null): void {
    this.plan = plan;
    if (!plan) this.dropSessions();
  }

  private fromClient(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const plan = this.plan;
    if (!plan) return;
    const id = fmtAddr(rinfo.address, rinfo.port);
    let s = this.sessions.get(id);
    if (!s) {
      if (!plan.filter.allows(rinfo.address)) return this.traffic.refused('filter', id);
      if (plan.maxSessions > 0 && this.sessions.size >= plan.maxSessions) return this.traffic.refused('limit', id);
      s = this.openSession(id, rinfo, plan);
    }
    if (msg.length > plan.maxPacket) return;
    this.traffic.bytesIn += msg.length;
    s.timer.refresh();
    if (s.waiting) {
      if (s.waiting.length < WAITING_MAX) s.waiting.push(msg);
    } else s.sock.send(msg);
  }

  private openSession(id: string, client: dgram.RemoteInfo, plan: ForwardPlan): Session {
    const sock = dgram.createSocket({ type: 'udp4' });
    const end = () => this.endSession(id);
    const session: Session = { sock, timer: setTimeout(end, plan.sessionTimeoutMs), waiting: [] };
    session.timer.unref();
    this.sessions.set(id, session);
    this.traffic.sessions = this.sessions.size;
    this.traffic.totalConnections++;
    sock.on('error', (err) => {
      this.note({ key: 'stunTargetFailed', vars: { target: fmtAddr(plan.host, plan.port), detail: err.message } });
      end();
    });
    sock.on('message', (reply) => {
      session.timer.refresh();
      this.traffic.bytesOut += reply.length;
      this.socket.send(reply, client.port, client.address);
    });
    // connect() resolves a name once per session.
    sock.connect(plan.port, plan.host, () => {
      const queued = session.waiting ?? [];
      session.waiting = null;
      for (const m of queued) sock.send(m);
    });
    return session;
  }

  private endSession(id: string): void {
    const s = this.sessions.get(id);
    if (!s) return;
    this.sessions.delete(id);
    clearTimeout(s.timer);
    s.sock.close();
    this.traffic.sessions = this.sessions.size;
  }

  private dropSessions(): void {
    for (const id of [...this.sessions.keys()]) this.endSession(id);
  }

  close(): void {
    this.dropSessions();
    this.stun.close();
    this.socket.close();
  }
}
