/**
 * TCP of one rule: accept paused → limits → IP filter → (TLS) → connect a target (round robin,
 * failing over to the next one) → optional PROXY header → relay both ways (portforward.relay.ts).
 */
import { createServer, isIP, connect as netConnect, type Server, type Socket } from 'node:net';
import { connect as tlsConnect, TLSSocket } from 'node:tls';
import type { Msg, PortforwardRule } from '@lucky/contracts';
import type { NativeFlow } from '../../core/relay.js';
import { fmtAddr } from '../../lib/ip.js';
import type { ListenSpec } from './portforward.plan.js';
import { adopt, Reader, relay, type Finish } from './portforward.relay.js';
import { errorDetail, listenError, type RuleRun } from './portforward.run.js';

/** A TLS client must finish its handshake within this time. */
const TLS_HANDSHAKE_MS = 30_000;

export interface TcpListener {
  spec: ListenSpec;
  server: Server;
  /** "tcp 0.0.0.0:80", as log lines name it. */
  name: string;
}

export interface Conn {
  /** The client side as relayed: the accepted socket, or the TLS socket around it. */
  front: Socket;
  upstream: Socket | null;
  /** Set while the native relay moves this pair's bytes. */
  native: NativeFlow | null;
  /** Ends the pair (rule stopped...). */
  end: (reason: Msg) => void;
}

/** Opens a listener of the rule; a `::` meant for both families falls back to 0.0.0.0 on a host without IPv6. */
export function listenTcp(run: RuleRun, spec: ListenSpec): Promise<Msg | TcpListener> {
  const server = createServer({ pauseOnConnect: true, allowHalfOpen: true, noDelay: true });
  const listener: TcpListener = { spec, server, name: '' };
  server.on('connection', (c: Socket) => onTcp(run, listener, c));
  return new Promise((resolve) => {
    const attempt = (host: string) => {
      const onError = (err: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        if (spec.dual && host === '::' && (err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL')) return attempt('0.0.0.0');
        resolve(listenError('tcp', host, spec.port, err));
      };
      const onListening = () => {
        server.off('error', onError);
        listener.name = `tcp ${fmtAddr(host, spec.port)}`;
        // Accept failures (out of file descriptors) go to the rule's log, at most once a second.
        server.on('error', (err: NodeJS.ErrnoException) => run.throttled({ key: 'pfAcceptFailed', vars: { listener: listener.name, detail: errorDetail(err) } }));
        resolve(listener);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      server.listen({ host, port: spec.port, ipv6Only: spec.ipv6Only });
    };
    attempt(spec.host);
  });
}

/** Stops accepting; connections already relayed through it finish on their own. */
export function closeTcpListener(l: TcpListener): void {
  l.server.close();
}

function onTcp(run: RuleRun, listener: TcpListener, client: Socket): void {
  const from = fmtAddr(client.remoteAddress ?? '?', client.remotePort ?? 0);
  if (run.stopped) {
    client.destroy();
    return;
  }
  const lim = run.lim;
  const shared = run.shared;
  if ((lim.tcpMax > 0 && run.conns.size >= lim.tcpMax) || (shared.cfg.tcpMaxConnections > 0 && shared.tcpActive >= shared.cfg.tcpMaxConnections)) {
    client.destroy();
    run.refused('limit', `tcp ${from}`);
    return;
  }
  if (!run.filter.allows(client.remoteAddress)) {
    client.destroy();
    run.refused('filter', `tcp ${from}`);
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
  shared.tcpActive++;
  run.stats.totalConnections++;
  const logConns = shared.cfg.logConnections;
  const rule = run.rule;
  const tls = run.tls;
  const targetPort = listener.spec.targetPort;
  let done = false;
  let relaying = false;
  let target = '';

  const finish: Finish = (reason, notable = false) => {
    if (done) return;
    done = true;
    run.conns.delete(conn);
    shared.tcpActive--;
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
      const vars = { reason, client: from, in: bytesIn, out: bytesOut };
      run.note(target ? { key: 'pfConnEnded', vars: { ...vars, target } } : { key: 'pfConnEndedNoTarget', vars });
    }
  };
  conn.end = (reason) => finish(reason);

  let secured = tls === null;
  let inbound: Reader | null = null;
  if (tls) {
    client.on('error', () => undefined);
    const t = new TLSSocket(client, { isServer: true, secureContext: tls.secureContext, SNICallback: (name, cb) => cb(null, tls.context(name)) });
    conn.front = t;
    const hs = setTimeout(() => finish({ key: 'pfEndTlsTimeout' }, true), TLS_HANDSHAKE_MS);
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
  front.on('error', (err: NodeJS.ErrnoException) => {
    const detail = errorDetail(err);
    finish(secured ? { key: 'pfEndClientError', vars: { detail } } : { key: 'pfEndTlsFailed', vars: { detail } }, !secured);
  });
  front.once('close', () => {
    if (!relaying) finish({ key: 'pfEndClientLeft' });
  });
  if (logConns) run.note({ key: 'pfAccepted', vars: { client: from, listener: listener.name } });

  const order = run.targetOrder(targetPort);
  const tryNext = (i: number): void => {
    if (done) return;
    const host = order[i];
    if (host === undefined) {
      finish({ key: 'pfEndNoTarget' }, true);
      return;
    }
    const addr = fmtAddr(host, targetPort);
    const { socket: up, reader: outbound } = connectTarget(rule, host, targetPort);
    conn.upstream = up;
    const timer = setTimeout(() => onFail({ key: 'pfEndTimedOut' }), shared.cfg.connectTimeout * 1000);
    const onFail = (detail: Msg | string) => {
      clearTimeout(timer);
      up.removeAllListeners();
      up.on('error', () => undefined);
      up.destroy();
      conn.upstream = null;
      run.targetFailed(host, targetPort);
      run.note({ key: order.length > i + 1 ? 'pfTargetFailedNext' : 'pfTargetFailed', vars: { target: addr, detail } });
      tryNext(i + 1);
    };
    const onError = (err: NodeJS.ErrnoException) => {
      if (err.code === 'EMFILE' || err.code === 'ENFILE') {
        // Our own shortage, not the target's fault: do not mark it down.
        clearTimeout(timer);
        finish({ key: 'pfEndNoConnection', vars: { target: addr, detail: errorDetail(err) } }, true);
        return;
      }
      onFail(errorDetail(err));
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
      run.targetAnswered(host, targetPort);
      if (front.destroyed) {
        finish({ key: 'pfEndClientLeft' });
        return;
      }
      relay(run, conn, up, inbound, outbound, ends, finish);
    });
  };
  tryNext(0);
}

function connectTarget(rule: PortforwardRule, host: string, port: number): { socket: Socket; reader: Reader | null } {
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
