/**
 * Web rules served on this thread (the main thread, or one serving thread): a rule's listener is
 * opened (or, in a serving thread, the socket the coordinator opened is taken), swapped in place when
 * the rule is saved with the same listener (open connections carry on, new requests see the new
 * rule), and closed gracefully. Figures and the access log are read from here.
 */
import { closeSync } from 'node:fs';
import type { Server, ServerResponse } from 'node:http';
import type { Msg, WebAccessEntry, WebFigures } from '@lucky/contracts';
import { listenProblem, RuleProblem } from '../../core/engine.js';
import { bytesWrittenOf } from '../../core/filebody.js';
import { LISTEN_BACKLOG } from '../../core/native.js';
import type { Say } from '../../core/logs.js';
import { compile, dispose, type Compiled, type WebPlan } from './web.compile.js';
import { closeSessions } from './web.h2.js';
import { createListenerServer, HostMemo, type Listener } from './web.handler.js';
import { fmtAddr } from '../../lib/ip.js';
import { listenHost } from './web.listen.js';
import { AccessRing } from './web.ring.js';
import type { AccessLogPage, Serving, ServingEvents } from './web.serving.js';

interface Open extends Listener {
  server: Server;
  events: ServingEvents;
}

const detailOf = (err: unknown) => String((err as Error)?.message ?? err);

export class WebListeners implements Serving {
  readonly threads = 1;
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
      /** File servers send large bodies by sendfile (the main thread's, where the relay runs). */
      nativeFiles?: boolean;
    },
  ) {}

  private compile(plan: WebPlan, events: ServingEvents): Compiled {
    return compile(plan, { cacheShare: this.o.cacheShare ?? 1, nativeFiles: this.o.nativeFiles ?? false, note: events.note });
  }

  /**
   * Opens the rule's listener; with `fd` (a listening socket the coordinator opened, which this
   * thread then owns) it serves on that instead. Resolves with what the rule runs with but should
   * not; throws a RuleProblem when it cannot run (port in use, certificate rejected).
   */
  async open(key: string, plan: WebPlan, events: ServingEvents, fd?: number): Promise<Msg[]> {
    const old = this.listeners.get(key);
    if (old) await this.stop(key);
    let compiled: Compiled;
    try {
      compiled = this.compile(plan, events);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      throw err;
    }
    const rule = plan.rule;
    const rt: Open = {
      key,
      compiled,
      sockets: new Set(),
      sessions: new Set(),
      stats: { requests: 0, closedIn: 0, closedOut: 0, codes: {} },
      log: new AccessRing<WebAccessEntry>(rule.accessLog.capacity),
      hosts: new HostMemo(),
      server: undefined as unknown as Server,
      events,
    };
    rt.server = createListenerServer(rt, (err) => this.o.say.error({ key: 'webRequestFailed', vars: { detail: detailOf(err) } }, { rule: key }));
    const host = listenHost(rule);
    const err = await listen(rt.server, host, rule.port, rule.network === 'tcp6', fd);
    if (err) {
      dispose(compiled);
      throw new RuleProblem(listenProblem(fmtAddr(host, rule.port), rule.port, err.code, err.message));
    }
    rt.server.on('error', (e) => this.o.say.warn({ key: 'webListenerError', vars: { detail: detailOf(e) } }, { rule: key }));
    this.listeners.set(key, rt);
    return compiled.warnings;
  }

  /** The rule saved with the same listener: what it serves is swapped; a bad version leaves the old one serving. */
  async apply(key: string, plan: WebPlan): Promise<Msg[]> {
    const rt = this.listeners.get(key);
    if (!rt) throw new Error(`web rule ${key} is not listening here`);
    const compiled = this.compile(plan, rt.events);
    const prev = rt.compiled;
    rt.compiled = compiled;
    rt.log.resize(plan.rule.accessLog.capacity);
    if (compiled.tls) (rt.server as unknown as { setSecureContext(o: object): void }).setSecureContext(compiled.tls.options);
    // Requests already on their way finish with what they started with.
    setTimeout(() => dispose(prev), 30_000).unref();
    return compiled.warnings;
  }

  has(key: string): boolean {
    return this.listeners.has(key);
  }

  async stop(key: string): Promise<void> {
    const rt = this.listeners.get(key);
    if (!rt) return;
    this.listeners.delete(key);
    await this.retire(rt, 1000);
  }

  /** Stops accepting, lets requests in flight finish for `graceMs`, then cuts what is left. */
  private retire(rt: Open, graceMs: number): Promise<void> {
    const server = rt.server;
    const closed = new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
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
   * Stops accepting while its connections finish: each closes after its next answer, and what is
   * left after `graceMs` is cut. `figures` reads the rule's counters meanwhile; `done` gives the
   * last ones. Used when the rule moves to serving threads that already listen on its port.
   */
  drain(key: string, graceMs: number): { figures(): WebFigures; done: Promise<WebFigures> } {
    const rt = this.listeners.get(key);
    if (!rt) return { figures: () => zeroFigures(), done: Promise.resolve(zeroFigures()) };
    this.listeners.delete(key);
    this.draining.add(rt);
    rt.server.prependListener('request', (_req, res: ServerResponse) => {
      res.shouldKeepAlive = false;
    });
    rt.server.close();
    rt.server.closeIdleConnections();
    closeSessions(rt.sessions);
    const done = (async () => {
      const end = Date.now() + graceMs;
      while (rt.sockets.size > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 200).unref());
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

export const zeroFigures = (): WebFigures => ({ requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} });

function figuresOf(rt: Listener): WebFigures {
  let bytesIn = rt.stats.closedIn;
  let bytesOut = rt.stats.closedOut;
  for (const s of rt.sockets) {
    bytesIn += (s as unknown as { bytesRead?: number }).bytesRead ?? 0;
    bytesOut += bytesWrittenOf(s);
  }
  return { requests: rt.stats.requests, bytesIn, bytesOut, connections: rt.sockets.size, codes: { ...rt.stats.codes } };
}

function listen(server: Server, host: string, port: number, ipv6Only: boolean, fd?: number): Promise<NodeJS.ErrnoException | null> {
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
