/**
 * UDP of one rule: a session per client address, each with its own socket connected to the chosen
 * target; replies go back from the listening socket. A session ends after the idle timeout, or
 * when its target answers "port unreachable" (the next datagram then fails over). Where the native
 * relay runs, it reads the listening socket and carries established sessions both ways.
 */
import { createSocket, type RemoteInfo, type Socket as UdpSocket } from 'node:dgram';
import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import type { Msg } from '@lucky/contracts';
import { errnoName, nativeUdpListener, nativeUdpSession, type NativeFlow, type NativeUdpListener } from '../../core/relay.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ListenSpec } from './portforward.plan.js';
import { errorDetail, listenError, type RuleRun } from './portforward.run.js';

/** Packets kept per UDP session while its socket is being set up. */
const UDP_PENDING_MAX = 64;

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

export interface UdpListener {
  spec: ListenSpec;
  socket: UdpSocket;
  /** "udp 0.0.0.0:53", as log lines name it. */
  name: string;
  sessions: Map<string, UdpSession>;
  sweeper: NodeJS.Timeout | null;
  /** Set while the native relay reads the listening socket. */
  native: NativeUdpListener | null;
}

/** Opens a listener of the rule; a `::` meant for both families falls back to 0.0.0.0 on a host without IPv6. */
export function listenUdp(run: RuleRun, spec: ListenSpec): Promise<Msg | UdpListener> {
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
        const listener: UdpListener = { spec, socket, name: `udp ${fmtAddr(host, spec.port)}`, sessions: new Map(), sweeper: null, native: null };
        // Send failures under a flood (ENOBUFS...) drop that datagram, as the network would.
        socket.on('error', (err: NodeJS.ErrnoException) => run.throttled({ key: 'pfSocketError', vars: { listener: listener.name, detail: errorDetail(err) } }));
        socket.on('message', (msg, rinfo) => onUdp(run, listener, msg, rinfo));
        if (run.shared.native) {
          // From here the relay thread reads the socket; clients without a session come back here.
          listener.native = nativeUdpListener(socket, run.lim.udpPacketSize, (msg, address, port) =>
            onUdp(run, listener, msg, { address, port, family: address.includes(':') ? 'IPv6' : 'IPv4', size: msg.length }),
          );
        }
        resolve(listener);
      });
    };
    attempt(spec.host);
  });
}

function onUdp(run: RuleRun, listener: UdpListener, msg: Buffer, rinfo: RemoteInfo): void {
  if (run.stopped) return;
  const lim = run.lim;
  if (msg.length > lim.udpPacketSize) return;
  const skey = `${rinfo.address}|${rinfo.port}`;
  let s = listener.sessions.get(skey);
  if (!s) {
    const from = fmtAddr(rinfo.address, rinfo.port);
    const shared = run.shared;
    if ((lim.udpMax > 0 && run.udpSessions >= lim.udpMax) || (shared.cfg.udpMaxSessions > 0 && shared.udpActive >= shared.cfg.udpMaxSessions)) {
      run.refused('limit', `udp ${from}`);
      return;
    }
    if (!run.filter.allows(rinfo.address)) {
      run.refused('filter', `udp ${from}`);
      return;
    }
    s = openSession(run, listener, skey, rinfo);
  }
  s.last = Date.now();
  run.stats.bytesIn += msg.length;
  if (s.out) s.out.send(msg);
  else if (s.pending && s.pending.length < UDP_PENDING_MAX) s.pending.push(msg);
}

function openSession(run: RuleRun, listener: UdpListener, skey: string, rinfo: RemoteInfo): UdpSession {
  const lim = run.lim;
  const targetPort = listener.spec.targetPort;
  const host = run.targetOrder(targetPort)[0]!;
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
  run.shared.udpActive++;
  run.stats.totalConnections++;
  const client = fmtAddr(rinfo.address, rinfo.port);
  if (run.shared.cfg.logConnections) run.note({ key: 'pfUdpSession', vars: { client, target: s.target } });
  ensureSweeper(run, listener);
  const targetFailed = (detail: string) => {
    run.targetFailed(host, targetPort);
    endSession(run, listener, s, { key: 'pfTargetFailed', vars: { target: s.target, detail } });
  };

  const setup = (address: string, family: number) => {
    if (s.closed) return;
    const out = createSocket({ type: family === 6 ? 'udp6' : 'udp4', lookup: literalLookup });
    out.on('error', (err: NodeJS.ErrnoException) => {
      // "Port unreachable" from the target ends the session so the next datagram can fail over;
      // transient send errors only drop the datagram.
      if (err.code !== 'ECONNREFUSED' && err.code !== 'EHOSTUNREACH' && err.code !== 'ENETUNREACH') {
        run.throttled({ key: 'pfUdpSessionError', vars: { client, detail: errorDetail(err) } });
        return;
      }
      targetFailed(errorDetail(err));
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
          if (end.reason !== 'error') return endSession(run, listener, s, { key: 'pfEndTimedOut' });
          targetFailed(errnoName(end.errno));
        });
      }
    });
    s.sock = out;
  };
  const fam = isIP(host);
  if (fam) setup(host, fam);
  else
    lookup(host, (err, address, family) => {
      if (err) targetFailed(errorDetail(err));
      else setup(address, family);
    });
  return s;
}

function endSession(run: RuleRun, listener: UdpListener, s: UdpSession, reason: Msg): void {
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
  run.shared.udpActive--;
  if (s.sock) {
    try {
      s.sock.close();
    } catch {
      // already closed
    }
  }
  // Sessions that time out are the normal end: logged only with connection logging on.
  if (run.shared.cfg.logConnections || reason.key !== 'pfEndTimedOut') {
    run.note({ key: 'pfUdpSessionEnded', vars: { client: fmtAddr(s.clientAddress, s.clientPort), reason } });
  }
}

function ensureSweeper(run: RuleRun, listener: UdpListener): void {
  if (listener.sweeper) return;
  const tick = () => {
    const timeout = run.lim.udpTimeoutMs;
    const now = Date.now();
    for (const s of listener.sessions.values()) {
      if (s.native) s.last = now - s.native.counters().idleMs;
      if (now - s.last >= timeout) endSession(run, listener, s, { key: 'pfEndTimedOut' });
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

/** Ends the listener's sessions and closes its socket (the port is free at once). */
export function closeUdpListener(run: RuleRun, l: UdpListener): void {
  if (l.sweeper) clearInterval(l.sweeper);
  l.sweeper = null;
  for (const s of [...l.sessions.values()]) endSession(run, l, s, { key: 'pfEndListenerClosed' });
  l.native?.remove();
  l.native = null;
  try {
    l.socket.close();
  } catch {
    // already closed
  }
}

/** dgram's lookup for addresses that are already IP literals. */
function literalLookup(address: string, _family: unknown, cb: (err: Error | null, address: string, family: number) => void): void {
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
