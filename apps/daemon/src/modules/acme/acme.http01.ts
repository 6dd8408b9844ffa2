/**
 * HTTP-01 answered by a listener of our own for the length of an order, when no web services rule
 * listens on the port (those answer through the `httpChallenges` service): `GET
 * /.well-known/acme-challenge/<token>` answers the key authorization, anything else 404. Opened on
 * the rule's address and port (80 by default) when the order needs it, claimed in the port registry
 * while open (a rule that owns the port is named in the error), closed and released when it ends.
 * Certificate rules ordering at the same time on the same port share one listener (`Http01Listeners`).
 */
import { createServer, type Server } from 'node:http';
import { listenProblem, RuleProblem } from '../../core/engine.js';
import { PortConflict, type Endpoint } from '../../core/ports.js';

const PREFIX = '/.well-known/acme-challenge/';

export class Http01Listener {
  private tokens = new Map<string, string>();
  private server: Server | null = null;
  private opening: Promise<void> | null = null;
  private release: (() => void) | null = null;

  constructor(
    private readonly host: string,
    private readonly port: number,
    /** Claims the port in the registry for as long as the listener is open (throws PortConflict). */
    private readonly claim: (ep: Endpoint) => () => void,
  ) {}

  get address(): string {
    return `${this.host.includes(':') ? `[${this.host}]` : this.host || '0.0.0.0'}:${this.port}`;
  }

  /** Opens once, however many orders ask at the same time. */
  open(): Promise<void> {
    this.opening ??= this.listen().catch((err: unknown) => {
      this.opening = null;
      throw err;
    });
    return this.opening;
  }

  private async listen(): Promise<void> {
    try {
      this.release = this.claim({ proto: 'tcp', address: this.host || '0.0.0.0', port: this.port });
    } catch (err) {
      if (err instanceof PortConflict) throw new RuleProblem(err.msg);
      throw err;
    }
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0]!;
      const answer = req.method === 'GET' && path.startsWith(PREFIX) ? this.tokens.get(path.slice(PREFIX.length)) : undefined;
      if (answer === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(answer);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(new RuleProblem(listenProblem(this.host || '0.0.0.0', this.port, err.code, err.message))),
      );
      server.listen(this.port, this.host || undefined, () => resolve());
    }).catch((err: unknown) => {
      this.release?.();
      this.release = null;
      throw err;
    });
    this.server = server;
  }

  add(token: string, keyAuth: string): () => Promise<void> {
    this.tokens.set(token, keyAuth);
    return async () => void this.tokens.delete(token);
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    this.opening = null;
    this.tokens.clear();
    this.release?.();
    this.release = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}

/** The listeners of the orders running now, one per address and port, closed when the last order using one ends. */
export class Http01Listeners {
  private open = new Map<string, { listener: Http01Listener; users: number }>();

  /** A listener for an order (opened by `open()`), and its leave for when the order ends. */
  join(host: string, port: number, claim: (ep: Endpoint) => () => void): { listener: Http01Listener; leave: () => Promise<void> } {
    const id = `${host}|${port}`;
    let e = this.open.get(id);
    if (!e) {
      // The port is claimed for the rule whose order opens it; the others answer on the same socket.
      e = { listener: new Http01Listener(host, port, claim), users: 0 };
      this.open.set(id, e);
    }
    e.users++;
    const entry = e;
    let left = false;
    return {
      listener: entry.listener,
      leave: async () => {
        if (left) return;
        left = true;
        if (--entry.users > 0) return;
        this.open.delete(id);
        await entry.listener.close();
      },
    };
  }
}
