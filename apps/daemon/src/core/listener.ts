/**
 * The admin console's HTTP listener. It can move to another address without a restart: the new
 * socket is opened first, and only when that worked is the old one closed (gracefully).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from './logs.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export class ListenError extends Error {
  constructor(
    readonly code: string,
    readonly address: string,
    message: string,
  ) {
    super(message);
  }
}

function fmt(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function listenOnce(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port, exclusive: true });
  });
}

export class AdminListener {
  private server: Server | undefined;
  private sockets = new Set<Socket>();
  private bound = '';

  constructor(
    private handler: Handler,
    private log: Logger,
  ) {}

  get address(): string {
    return this.bound;
  }

  /** Open connections on every admin socket, old ones still draining included. */
  connections(): number {
    return this.sockets.size;
  }

  private make(): Server {
    const server = createServer({ requestTimeout: 60_000, headersTimeout: 20_000, keepAliveTimeout: 5_000 }, this.handler);
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      if (socket.writable && err.code !== 'ECONNRESET') socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    return server;
  }

  /**
   * Listens on host:port, then retires the previous socket. `retryInUseMs` waits for a port still
   * held by the process we replace (self-restart).
   */
  async bind(host: string, port: number, retryInUseMs = 0): Promise<string> {
    const server = this.make();
    const wanted = host === '' ? '::' : host;
    const deadline = Date.now() + retryInUseMs;
    let usedHost = wanted;
    for (;;) {
      try {
        await listenOnce(server, usedHost, port);
        break;
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        // No IPv6 on this machine (some containers): "all addresses" falls back to IPv4.
        if (usedHost === '::' && (err.code === 'EAFNOSUPPORT' || err.code === 'EADDRNOTAVAIL')) {
          usedHost = '0.0.0.0';
          continue;
        }
        if (err.code === 'EADDRINUSE' && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        throw new ListenError(err.code ?? 'EUNKNOWN', fmt(usedHost, port), err.message);
      }
    }
    const old = this.server;
    this.server = server;
    this.bound = fmt(usedHost, port);
    if (old) this.retire(old);
    return this.bound;
  }

  /** The port actually bound (useful with port 0 in tests). */
  port(): number {
    const a = this.server?.address();
    return a && typeof a === 'object' ? a.port : 0;
  }

  private retire(server: Server): void {
    server.close();
    server.closeIdleConnections();
    // Requests still in flight get a few seconds, then the old socket goes for good.
    setTimeout(() => server.closeAllConnections(), 5000).unref();
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (!s) return;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeIdleConnections();
      setTimeout(() => {
        s.closeAllConnections();
      }, 2000).unref();
    });
    this.log.debug('admin listener closed');
  }
}
