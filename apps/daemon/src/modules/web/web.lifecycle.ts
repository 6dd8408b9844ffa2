/**
 * Web rules served on this thread (the main thread, or one serving thread): a rule's listener is
 * opened (or, in a serving thread, the socket the coordinator opened is taken), swapped in place when
 * the rule is saved with the same listener (open connections carry on, new requests see the new
 * rule), and closed gracefully. Figures and the access log are read from here.
 */
import { closeSync } from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import { createServer as createNetServer, Server as NetServer, Socket } from 'node:net';
import type { Msg, WebAccessEntry, WebFigures } from '@lucky/contracts';
import { listenProblem, RuleProblem } from '../../core/engine.js';
import { bytesWrittenOf } from '../../core/filebody.js';
import { acceptInBursts, LISTEN_BACKLOG } from '../../core/native.js';
import type { Say } from '../../core/logs.js';
import { compile, dispose, type Compiled, type WebPlan } from './web.compile.js';
import { closeSessions } from './web.h2.js';
import { createListenerServer, HostMemo, type Listener } from './web.handler.js';
import { fmtAddr } from '../../lib/ip.js';
import { listenHost } from './web.listen.js';
import type { OcspWatch } from './web.ocsp.js';
import { AccessRing } from './web.ring.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';
import { ticketKeys } from './web.tickets.js';
import { zeroDurations } from './web.figures.js';

interface Open extends Listener {
  server: Server;
  /** More listening sockets of the rule's port whose connections `server` serves (acceptAlso). */
  more: NetServer[];
  events: ServingEvents;
  /** HTTPS: OCSP answers of its certificates, and its part in the ticket key's rotation. */
  ocsp?: OcspWatch;
  tickets?: () => void;
}

/**
 * Where OCSP answers for a listener's certificates come from: the process's fetcher on the main
 * thread (web.ocsp.ts mainStapler), the coordinator's messages in a serving thread (web.worker.ts).
 */
export interface Stapler {
  watch(key: string, certs: WebPlan['certs'], note: (line: Msg) => void, previous?: OcspWatch): OcspWatch;
}

/** Node's TLS server's own events, beyond what the http typings know. */
type TlsServerOf = Server & {
  setTicketKeys(keys: Buffer): void;
  on(event: 'OCSPRequest', fn: (certificate: Buffer, issuer: Buffer | null, done: (err: Error | null, response?: Buffer) => void) => void): TlsServerOf;
};

const detailOf = (err: unknown) => String((err as Error)?.message ?? err);

export class WebListeners implements Serving {
  readonly threads = 1;
  /** The thread that made it serves (a serving thread's own copy is never asked). */
  readonly onMain = true;
  private listeners = new Map<string, Open>();
  private retiring = new Set<Promise<void>>();
  /** Listeners that stopped accepting while their connections finish (drain). */
  private draining = new Set<Open>();

  constructor(
    private o: {
      /** Program log lines (a serving thread forwards them to the coordinator). */
      say: Say;
      /** The part of each response cache's bound this thread may fill (1 / serving threads). */
      cacheShare?: number;
      /** OCSP answers for HTTPS rules; none stapled without it. */
      stapling?: Stapler;
      /** File servers send large bodies by sendfile (the main thread's, where the relay runs). */
      nativeFiles?: boolean;
    },
  ) {}

  private compile(plan: WebPlan, events: ServingEvents): Compiled {
    return compile(plan, {
      cacheShare: this.o.cacheShare ?? 1,
      nativeFiles: this.o.nativeFiles ?? false,
      note: events.note,
      ...(events.health ? { health: events.health } : {}),
      ...(events.authorized ? { authorized: events.authorized } : {}),
      ...(events.session ? { session: events.session } : {}),
    });
  }

  /**
   * Opens the rule's listener; with `fd` (a listening socket the coordinator opened, which this
   * thread then owns) it serves on that instead. Resolves with what the rule runs with but should
   * not; throws a RuleProblem when it cannot run (port in use, certificate rejected).
   */
  async open(key: string, plan: WebPlan, events: ServingEvents, fd?: number): Promise<Msg[]> {
    const old = this.listeners.get(key);
    if (old) await this.stop(key);
    let rt: Open;
    try {
      rt = this.prepare(key, plan, events, false);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      throw err;
    }
    const { rule } = plan;
    const compiled = rt.compiled;
    const host = listenHost(rule);
    const err = await listen(rt.server, host, rule.port, rule.network === 'tcp6', fd);
    if (err) {
      letGo(rt);
      dispose(compiled);
      throw new RuleProblem(listenProblem(fmtAddr(host, rule.port), rule.port, err.code, err.message));
    }
    this.serving(rt);
    return compiled.warnings;
  }

  /** The rule compiled and its server made, not listening yet (`edge`: behind the native data plane). */
  private prepare(key: string, plan: WebPlan, events: ServingEvents, edge: boolean): Open {
    const compiled = this.compile(plan, events);
    const rt: Open = {
      key,
      compiled,
      sockets: new Set(),
      sessions: new Set(),
      stats: { requests: 0, closedIn: 0, closedOut: 0, codes: {}, durations: zeroDurations() },
      // Behind the edge, the edge keeps the access log.
      log: new AccessRing<WebAccessEntry>(edge ? 0 : plan.rule.accessLog.capacity),
      hosts: new HostMemo(),
      server: undefined as unknown as Server,
      more: [],
      events,
      ...(edge ? { edge: true } : {}),
    };
    rt.server = createListenerServer(rt, (err) => this.o.say.error({ key: 'webRequestFailed', vars: { detail: detailOf(err) } }, { rule: key }));
    if (compiled.tls && !edge) {
      const server = rt.server as TlsServerOf;
      // The process's ticket key (shared by every thread, rotated), not one of this server's own.
      server.setTicketKeys(ticketKeys.current());
      rt.tickets = ticketKeys.subscribe((k) => server.setTicketKeys(k));
      rt.ocsp = this.o.stapling?.watch(key, plan.certs, events.note);
      // Answered from what was fetched already: the handshake never waits on a responder.
      server.on('OCSPRequest', (certificate, _issuer, done) => done(null, rt.ocsp?.forCertificate(certificate)));
    }
    return rt;
  }

  private serving(rt: Open): void {
    rt.server.on('error', (e) => this.o.say.warn({ key: 'webListenerError', vars: { detail: detailOf(e) } }, { rule: rt.key }));
    this.listeners.set(rt.key, rt);
  }

  /**
   * The rule's Node server behind the native data plane: it listens nowhere; the edge hands it
   * connections (adopt). Throws a RuleProblem when the rule cannot run (certificate rejected).
   */
  async openBehindEdge(key: string, plan: WebPlan, events: ServingEvents): Promise<Msg[]> {
    if (this.listeners.has(key)) await this.stop(key);
    const rt = this.prepare(key, plan, events, true);
    this.serving(rt);
    return rt.compiled.warnings;
  }

  /** A connection from the edge (one end of a socketpair) for the rule's Node server. */
  adopt(key: string, fd: number): void {
    const rt = this.listeners.get(key);
    if (!rt?.edge) return closeSync(fd);
    let socket: Socket;
    try {
      socket = new Socket({ fd, readable: true, writable: true });
    } catch {
      return closeSync(fd);
    }
    rt.server.emit('connection', socket);
  }

  /** The compiled rule a listener serves now (its proxies' health, for the edge). */
  compiled(key: string): Compiled | undefined {
    return this.listeners.get(key)?.compiled;
  }

  /** The rule saved with the same listener: what it serves is swapped; a bad version leaves the old one serving. */
  async apply(key: string, plan: WebPlan): Promise<Msg[]> {
    const rt = this.listeners.get(key);
    if (!rt) throw new Error(`web rule ${key} is not listening here`);
    const compiled = this.compile(plan, rt.events);
    const prev = rt.compiled;
    // The addresses followed and their open connections stay while the limits stay as they were.
    if (JSON.stringify(prev.rule.limits) === JSON.stringify(plan.rule.limits)) compiled.limits = prev.limits;
    rt.compiled = compiled;
    if (!rt.edge) rt.log.resize(plan.rule.accessLog.capacity);
    if (compiled.tls && !rt.edge) {
      (rt.server as unknown as { setSecureContext(o: object): void }).setSecureContext(compiled.tls.options);
      // A new context is made with a random ticket key of its own: the shared one again.
      (rt.server as TlsServerOf).setTicketKeys(ticketKeys.current());
      // The new watch first: a certificate both versions have keeps its answer.
      const before = rt.ocsp;
      rt.ocsp = this.o.stapling?.watch(key, plan.certs, rt.events.note, before);
      before?.close();
    }
    // Requests already on their way finish with what they started with.
    setTimeout(() => dispose(prev), 30_000).unref();
    return compiled.warnings;
  }

  has(key: string): boolean {
    return this.listeners.has(key);
  }

  /**
   * One more listening socket (`fd`, owned from here on) whose connections the rule's server
   * serves: taking back serving from threads, this thread polls each socket they polled, so that
   * none of them is closed while the kernel may still queue connections on it (SO_REUSEPORT).
   */
  async acceptAlso(key: string, fd: number): Promise<void> {
    const rt = this.listeners.get(key);
    if (!rt) {
      closeSync(fd);
      throw new Error(`web rule ${key} is not listening here`);
    }
    // Its connections reach the rule's server as if that had accepted them (TLS included).
    const more = createNetServer({ allowHalfOpen: (rt.server as { allowHalfOpen?: boolean }).allowHalfOpen === true, noDelay: true });
    more.on('connection', (socket) => rt.server.emit('connection', socket));
    acceptInBursts(more);
    const err = await listen(more, '', 0, false, fd);
    if (err) {
      more.close();
      const r = rt.compiled.rule;
      throw new RuleProblem(listenProblem(fmtAddr(listenHost(r), r.port), r.port, err.code, err.message));
    }
    more.on('error', (e) => this.o.say.warn({ key: 'webListenerError', vars: { detail: detailOf(e) } }, { rule: key }));
    rt.more.push(more);
  }

  async stop(key: string): Promise<void> {
    const rt = this.listeners.get(key);
    if (!rt) return;
    this.listeners.delete(key);
    await this.retire(rt, 1000);
  }

  /** Stops accepting, lets requests in flight finish for `graceMs`, then cuts what is left. */
  private retire(rt: Open, graceMs: number): Promise<void> {
    letGo(rt);
    const server = rt.server;
    // A drained server is closed again: HTTP's close also ends its timeout checks, and 'close'
    // still comes once its connections are gone.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const more of rt.more) more.close();
    server.closeIdleConnections();
    closeSessions(rt.sessions);
    const all = new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        server.closeAllConnections();
        for (const s of rt.sockets) s.destroy();
        resolve();
      }, graceMs);
      t.unref();
      if (rt.sockets.size === 0) {
        clearTimeout(t);
        resolve();
      }
    });
    const done = Promise.all([closed.catch(() => undefined), all]).then(() => dispose(rt.compiled));
    this.retiring.add(done);
    void done.finally(() => this.retiring.delete(done));
    return done;
  }

  /**
   * Stops accepting while its connections finish, and what is left after `graceMs` is cut.
   * `figures` reads the rule's counters meanwhile; `done` gives the last ones. Used when the rule
   * moves to another thread that already polls its listening sockets: they stay open (the other
   * thread holds them too), so nothing waiting in their queues is lost.
   *
   * A kept-alive connection is never closed while it could be carrying a request: a client may
   * send its next one at any moment, and a connection closed with a request unread is reset (the
   * request fails). So each connection closes after an answer that says `Connection: close` (the
   * request in flight, or the next one), or when it has stayed idle for the keep-alive timeout,
   * as any kept-alive connection does; HTTP/2 sessions get a GOAWAY, which tells the client which
   * streams were served.
   */
  drain(key: string, graceMs: number): { figures(): WebFigures; done: Promise<WebFigures> } {
    const rt = this.listeners.get(key);
    if (!rt) return { figures: () => zeroFigures(), done: Promise.resolve(zeroFigures()) };
    this.listeners.delete(key);
    this.draining.add(rt);
    rt.server.prependListener('request', (_req, res: ServerResponse) => {
      res.shouldKeepAlive = false;
    });
    // net's close, not HTTP's: since Node 19 that one also closes every idle kept-alive connection
    // at once, which reset requests already on their way (wrk -c1000 saw ~300 fail per move).
    NetServer.prototype.close.call(rt.server);
    for (const more of rt.more) more.close();
    const done = (async () => {
      const end = Date.now() + graceMs;
      while (rt.sockets.size > 0 && Date.now() < end) {
        // A TLS handshake finished since may have opened one more session.
        closeSessions(rt.sessions);
        await new Promise((r) => setTimeout(r, 200).unref());
      }
      const last = figuresOf(rt);
      this.draining.delete(rt);
      await this.retire(rt, 0);
      return last;
    })();
    return { figures: () => figuresOf(rt), done };
  }

  figures(key: string): WebFigures {
    const rt = this.listeners.get(key);
    return rt ? figuresOf(rt) : zeroFigures();
  }

  accessLog(key: string, limit: number): AccessLogPage {
    const rt = this.listeners.get(key);
    if (!rt) return { list: [], total: 0 };
    // Copies: the ring refills its entries in place.
    return { list: rt.log.latest(limit).map((e) => ({ ...e })), total: rt.log.size };
  }

  connections(): number {
    let n = 0;
    for (const rt of this.listeners.values()) n += rt.sockets.size;
    return n;
  }

  async close(): Promise<void> {
    // Connections still finishing after a drain end now.
    for (const rt of this.draining) for (const sock of rt.sockets) sock.destroy();
    await Promise.all([...this.listeners.keys()].map((k) => this.stop(k)));
    await Promise.all([...this.retiring]);
  }
}

/** Stops what a listener's TLS keeps going (OCSP fetches, its ticket key's updates). */
function letGo(rt: Open): void {
  rt.ocsp?.close();
  rt.ocsp = undefined;
  rt.tickets?.();
  rt.tickets = undefined;
}

export const zeroFigures = (): WebFigures => ({ requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} });

function figuresOf(rt: Listener): WebFigures {
  let bytesIn = rt.stats.closedIn;
  let bytesOut = rt.stats.closedOut;
  for (const s of rt.sockets) {
    bytesIn += (s as unknown as { bytesRead?: number }).bytesRead ?? 0;
    bytesOut += bytesWrittenOf(s);
  }
  const d = rt.stats.durations;
  return { requests: rt.stats.requests, bytesIn, bytesOut, connections: rt.sockets.size, codes: { ...rt.stats.codes }, duration: { counts: [...d.counts], seconds: d.seconds } };
}

function listen(server: NetServer, host: string, port: number, ipv6Only: boolean, fd?: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      resolve(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve(null);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    try {
      if (fd !== undefined) server.listen({ fd }, LISTEN_BACKLOG);
      else server.listen({ host, port, exclusive: true, ipv6Only, backlog: LISTEN_BACKLOG });
    } catch (err) {
      onError(err as NodeJS.ErrnoException);
    }
  });
}
