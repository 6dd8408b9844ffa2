/**
 * The plain-HTTP companion of an HTTPS rule (`httpRedirectPort`, 80 as a rule): every request is
 * sent on to the same host and path over HTTPS (308, so a POST stays a POST), except ACME HTTP-01
 * checks, answered from the daemon's tokens for the port (the CA may look at any time while an
 * order is open). Light traffic by nature, so a small node:http server on the main thread.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { WebRule } from '@lucky/contracts';
import { listenProblem, RuleProblem } from '../../core/engine.js';
import type { HttpChallengesService } from '../../core/services/httpChallenges.js';
import { fmtAddr } from '../../lib/ip.js';
import { listenHost } from './web.listen.js';

const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

/** The host without its port, bracketed when IPv6; null when it is not a host. */
function bareHost(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(:\d{1,5})?$/.exec(header.trim());
  return m ? m[1]!.toLowerCase() : null;
}

function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

export class HttpCompanion {
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  private leave: () => void = () => {};

  constructor(
    private rule: Pick<WebRule, 'network' | 'address' | 'port' | 'httpRedirectPort' | 'redirectToPort' | 'name'>,
    private challenges: HttpChallengesService,
  ) {}

  get port(): number {
    return this.rule.httpRedirectPort;
  }

  /** The HTTPS port browsers are sent to may change in place (a rule saved with another name keeps its companion). */
  retarget(rule: HttpCompanion['rule']): void {
    this.rule = rule;
  }

  private handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    if (url.startsWith(CHALLENGE_PREFIX)) {
      const token = url.slice(CHALLENGE_PREFIX.length).split('?')[0]!;
      const keyAuth = this.challenges.tokens(this.port).get(token);
      return keyAuth === undefined ? answer(res, 404, 'not found\n') : answer(res, 200, keyAuth, { 'content-type': 'application/octet-stream' });
    }
    const host = bareHost(req.headers.host);
    if (!host || !url.startsWith('/')) return answer(res, 400, 'bad request\n');
    const port = this.rule.redirectToPort || this.rule.port;
    const location = `https://${host}${port === 443 ? '' : `:${port}`}${url}`;
    answer(res, 308, `${location}\n`, { location });
  };

  /** Listens; a port that cannot be opened is the rule's problem (the kit claimed it first). */
  async open(): Promise<void> {
    const server = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 }, this.handle);
    server.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    server.on('clientError', (_err, socket: Socket) => socket.destroy());
    const host = listenHost(this.rule);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host, port: this.port, ...(this.rule.network === 'tcp6' ? { ipv6Only: true } : {}) }, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((err: NodeJS.ErrnoException) => {
      throw new RuleProblem(listenProblem(fmtAddr(host, this.port), this.port, err.code, err.message));
    });
    this.server = server;
    this.leave = this.challenges.answer(this.port, this.rule.name, () => {});
  }

  async close(): Promise<void> {
    this.leave();
    const server = this.server;
    this.server = null;
    if (!server) return;
    const closed = new Promise<void>((r) => server.close(() => r()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}
