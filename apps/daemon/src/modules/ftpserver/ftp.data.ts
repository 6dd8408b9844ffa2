/**
 * The data connection of one transfer or listing: passive (PASV/EPSV: we listen on a port of the
 * rule's passive range and the client connects) or active (PORT/EPRT: we connect to the client).
 * Only the client of the control connection may use it: a passive connection from another address
 * is dropped, and an active one to another address is refused (no FTP bounce). With PROT P the
 * connection is wrapped in TLS, the client being the TLS client as RFC 4217 says.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { plainAddress } from '../../lib/ip.js';

export { plainAddress };

/** How long a data connection may take to come (and to finish its TLS handshake). */
export const DATA_CONNECT_MS = 30_000;

/** The ports of a rule's passive range, handed out round-robin so that sessions rarely meet. */
export class PassivePorts {
  private cursor: number;

  constructor(
    readonly min: number,
    readonly max: number,
  ) {
    this.cursor = min + Math.floor(Math.random() * (max - min + 1));
  }

  /** Every port of the range once, starting after the last one given. */
  *order(): Generator<number> {
    const n = this.max - this.min + 1;
    const start = this.cursor;
    for (let i = 0; i < n; i++) {
      const p = this.min + ((start - this.min + i) % n);
      this.cursor = p + 1 > this.max ? this.min : p + 1;
      yield p;
    }
  }
}

export type Wrap = (socket: Socket) => Promise<Duplex>;

export interface DataChannel {
  /**
   * The connection, once the client made it (passive) or we made it (active); TLS when `wrap` is
   * given. `paused` (plain only): Node has not read from it and will not until resume(), so that
   * the native relay can take its descriptor without racing libuv for the bytes.
   */
  open(wrap: Wrap | null, paused?: boolean): Promise<Duplex>;
  close(): void;
}

class Timeout extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<T>((_r, reject) => {
      timer = setTimeout(() => {
        onTimeout();
        reject(new Timeout('data connection timed out'));
      }, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Listens on the first free port of the range on `host` (the control connection's local address).
 * Null when every port is taken.
 */
export async function openPassive(ports: PassivePorts, host: string, peer: string): Promise<{ channel: DataChannel; port: number } | null> {
  for (const port of ports.order()) {
    const server: Server = createServer({ pauseOnConnect: true });
    const ok = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen({ host, port, exclusive: true }, () => resolve(true));
    });
    if (!ok) {
      server.close();
      continue;
    }
    return { channel: passiveChannel(server, peer), port };
  }
  return null;
}

function passiveChannel(server: Server, peer: string): DataChannel {
  let accepted: Socket | null = null;
  let closed = false;
  const arrived = new Promise<Socket>((resolve, reject) => {
    server.on('connection', (s: Socket) => {
      // Someone else guessing the port: dropped, the real client may still come.
      if (accepted || plainAddress(s.remoteAddress) !== peer) {
        s.destroy();
        return;
      }
      accepted = s;
      s.on('error', () => undefined);
      server.close();
      resolve(s);
    });
    server.on('close', () => {
      if (!accepted) reject(new Error('passive listener closed'));
    });
  });
  arrived.catch(() => undefined);
  server.on('error', () => undefined);
  const close = () => {
    if (closed) return;
    closed = true;
    server.close();
    accepted?.destroy();
  };
  return {
    async open(wrap, paused = false) {
      // Accepted with pauseOnConnect: nothing was read yet.
      const s = await withTimeout(arrived, DATA_CONNECT_MS, close);
      if (!wrap && paused) return s;
      s.resume();
      return wrap ? withTimeout(wrap(s), DATA_CONNECT_MS, close) : s;
    },
    close,
  };
}

/** PORT/EPRT: connects when the transfer starts. */
export function activeChannel(host: string, port: number): DataChannel {
  let sock: Socket | null = null;
  return {
    async open(wrap, paused = false) {
      const s = connect({ host, port });
      // Paused before the connect completes, Node does not start reading it (no read(0) on connect).
      if (!wrap && paused) s.pause();
      sock = s;
      s.on('error', () => undefined);
      await withTimeout(
        new Promise<void>((resolve, reject) => {
          s.once('connect', resolve);
          s.once('error', reject);
        }),
        DATA_CONNECT_MS,
        () => s.destroy(),
      );
      return wrap ? withTimeout(wrap(s), DATA_CONNECT_MS, () => s.destroy()) : s;
    },
    close() {
      sock?.destroy();
    },
  };
}

/** PORT h1,h2,h3,h4,p1,p2 → address and port; null when malformed. */
export function parsePort(arg: string): { host: string; port: number } | null {
  const n = arg.split(',').map((x) => Number(x.trim()));
  if (n.length !== 6 || n.some((x) => !Number.isInteger(x) || x < 0 || x > 255)) return null;
  const port = n[4]! * 256 + n[5]!;
  if (port === 0) return null;
  return { host: n.slice(0, 4).join('.'), port };
}

/** EPRT |1|1.2.3.4|5282| or |2|::1|5282| → address and port; null when malformed. */
export function parseEprt(arg: string): { host: string; port: number; family: 1 | 2 } | null {
  const d = arg[0];
  if (!d) return null;
  const parts = arg.split(d);
  if (parts.length !== 5 || parts[0] !== '' || parts[4] !== '') return null;
  const family = parts[1] === '1' ? 1 : parts[1] === '2' ? 2 : null;
  const port = Number(parts[3]);
  if (!family || !Number.isInteger(port) || port < 1 || port > 65535) return null;
  return { host: parts[2]!, port, family };
}
