/** Loopback peers for the port forwarding tests: echo servers, clients, bounded waits. */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { ZPortforwardRule, type PortforwardRule, type PortforwardRuleInput } from '@lucky/contracts';

export function rule(input: Partial<PortforwardRuleInput>): PortforwardRule {
  return ZPortforwardRule.parse({ name: 'test', types: ['tcp'], targets: ['127.0.0.1'], ...input });
}

/** Polls `cond` every 20 ms, at most `tries` times. */
export async function waitFor(cond: () => boolean | Promise<boolean>, tries = 250): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

export interface TcpPeer {
  server: Server;
  port: number;
  /** Remote addresses of accepted connections, in order. */
  seen: string[];
  sockets: Set<Socket>;
  close(): Promise<void>;
}

/**
 * A TCP server on host:port (0 = any). Default behaviour: prefix every reply with `tag`, echo,
 * and end after the client ended (half-close).
 */
export function tcpEcho(host = '127.0.0.1', port = 0, tag = ''): Promise<TcpPeer> {
  const sockets = new Set<Socket>();
  const seen: string[] = [];
  const server = createServer({ allowHalfOpen: true }, (s) => {
    sockets.add(s);
    seen.push(s.remoteAddress ?? '');
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    if (tag) s.write(tag);
    s.pipe(s);
  });
  return listenPeer(server, host, port, seen, sockets);
}

export function listenPeer(server: Server, host: string, port: number, seen: string[] = [], sockets = new Set<Socket>()): Promise<TcpPeer> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        seen,
        sockets,
        close: () =>
          new Promise<void>((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** Sends `data`, half-closes, and collects everything until the other side ends. */
export function tcpExchange(
  port: number,
  data: Buffer | string,
  opts: { host?: string; localAddress?: string } = {},
): Promise<{ reply: Buffer; ended: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const s = connect({ port, host: opts.host ?? '127.0.0.1', ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    let ended = false;
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => (ended = true));
    s.on('error', () => undefined);
    s.on('close', () => resolve({ reply: Buffer.concat(chunks), ended }));
    s.end(data);
    setTimeout(() => s.destroy(), 15_000).unref();
  });
}

/** A connection held open; `closed` resolves when the other side closes it. */
export function tcpHold(port: number, host = '127.0.0.1', localAddress?: string) {
  const s = connect({ port, host, ...(localAddress ? { localAddress } : {}) });
  const received: Buffer[] = [];
  s.on('data', (c: Buffer) => received.push(c));
  s.on('error', () => undefined);
  const connected = new Promise<void>((r) => s.once('connect', () => r()));
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  return { socket: s, connected, closed, received };
}

export interface UdpPeer {
  socket: UdpSocket;
  port: number;
  seen: string[];
  close(): void;
}

/** Replies `tag` + the datagram to its sender. */
export function udpEcho(host = '127.0.0.1', port = 0, tag = ''): Promise<UdpPeer> {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  const seen: string[] = [];
  socket.on('message', (m, r) => {
    seen.push(`${r.address}|${r.port}`);
    socket.send(tag ? Buffer.concat([Buffer.from(tag), m]) : m, r.port, r.address);
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () =>
      resolve({ socket, port: socket.address().port, seen, close: () => socket.close() }),
    );
  });
}

/** A UDP client; `ask` sends and waits for one reply, resending a few times (datagrams may be lost). */
export async function udpClient(host = '127.0.0.1', localAddress?: string) {
  const socket = createSocket(host.includes(':') ? 'udp6' : 'udp4');
  await new Promise<void>((r) => socket.bind(0, localAddress ?? (host.includes(':') ? '::1' : '127.0.0.1'), () => r()));
  const inbox: Buffer[] = [];
  socket.on('message', (m) => inbox.push(m));
  return {
    socket,
    inbox,
    async ask(port: number, data: string, tries = 5): Promise<string | null> {
      const before = inbox.length;
      for (let i = 0; i < tries; i++) {
        socket.send(data, port, host);
        if (await waitFor(() => inbox.length > before, 25)) return inbox[before]!.toString();
      }
      return null;
    },
    close: () => socket.close(),
  };
}

/** `n` consecutive ports free on 127.0.0.1 and ::1 for TCP and UDP at the time of asking. */
export async function freeRange(n: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20000 + Math.floor(Math.random() * 30000);
    let ok = true;
    for (let p = base; p < base + n && ok; p++) ok = (await portFree(p, 'tcp')) && (await portFree(p, 'udp'));
    if (ok) return base;
  }
  throw new Error('no free port range found');
}

function portFree(port: number, proto: 'tcp' | 'udp'): Promise<boolean> {
  return new Promise((resolve) => {
    if (proto === 'tcp') {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen({ port, host: '::', ipv6Only: false }, () => s.close(() => resolve(true)));
    } else {
      const s = createSocket({ type: 'udp6', ipv6Only: false });
      s.once('error', () => {
        s.close();
        resolve(false);
      });
      s.bind(port, '::', () => s.close(() => resolve(true)));
    }
  });
}
