/**
 * The web services engine: one HTTP or HTTPS listener per rule. A request's host picks a site (a
 * sub rule, or the rule's default service); the site's filters, auth, CORS and robots.txt run, then
 * its service answers. Saving a rule swaps its compiled sites in place when the listener itself did
 * not change, so open connections (of this rule and of every other) carry on.
 */
import { closeSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext, type SecureVersion } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { z } from 'zod';
import type { RuleStatus, WebAccessEntry, WebFigures, WebRule, WebService, WebSubRule, ZWebBasicAuth } from '@lucky/contracts';
import { KeyedQueue, listenProblem, RuleProblem, statusOf, statusText, type EngineStatus, type RuleEngine, type RuleLogs, type StatusPart } from '../../core/engine.js';
import type { Logger } from '../../core/logs.js';
import { formatTime, wallClockAt } from '../../core/time.js';
import type { Cidr } from '../../core/cidr.js';
import {
  BasicAuthGate,
  clientIp,
  compileCidrs,
  compileCors,
  compileIpFilter,
  compileUaFilter,
  corsHeaders,
  corsPreflight,
  inAny,
  ipAllowed,
  plainIp,
  uaAllowed,
  type CompiledCors,
  type CompiledIpFilter,
  type CompiledUaFilter,
} from './web.access.js';
import { ResponseCache } from './web.cache.js';
import { FileServer } from './web.files.js';
import { applyFirewall, firewallPart, type Firewall } from './web.firewall.js';
import { DomainMatcher, parseHost, type HostPort } from './web.match.js';
import { ReverseProxy, type ProxyContext } from './web.proxy.js';
import { AccessRing } from './web.ring.js';

type Access = Pick<WebSubRule, 'basicAuth' | 'ipFilter' | 'uaFilter' | 'cache' | 'cors' | 'robots'>;

interface Site {
  name: string;
  service: WebService;
  proxy: ReverseProxy | null;
  files: FileServer | null;
  ipFilters: CompiledIpFilter[];
  uaFilters: CompiledUaFilter[];
  auth: BasicAuthGate | null;
  cors: CompiledCors | null;
  robots: string | null;
}

interface Compiled {
  rule: WebRule;
  sites: DomainMatcher<Site>;
  fallback: Site;
  all: Site[];
  trusted: Cidr[];
  ipHeaders: string[];
  tls: boolean;
  certs: DomainMatcher<SecureContext>;
  defaultCert: { cert: string; key: string } | null;
  warnings: StatusPart[];
}

interface Stats {
  requests: number;
  closedIn: number;
  closedOut: number;
  codes: Record<string, number>;
}

interface Runtime {
  key: string;
  listenId: string;
  server: Server;
  compiled: Compiled;
  sockets: Set<Duplex>;
  stats: Stats;
  log: AccessRing<WebAccessEntry>;
  address: string;
  hosts: HostMemo;
}

const TLS_VERSIONS: Record<WebRule['minTls'], SecureVersion> = { '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' };

const SERVER_OPTIONS: ServerOptions = {
  // Bounded heads: a huge header block gets 431 and a slow one is cut by headersTimeout.
  maxHeaderSize: 16 * 1024,
  headersTimeout: 20_000,
  requestTimeout: 300_000,
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 2_000,
  requireHostHeader: true,
  noDelay: true,
};

/** What identifies a listener: a rule saved with the same one keeps its socket. */
export function listenIdOf(r: WebRule): string {
  return `${r.network}|${r.address}|${r.port}|${r.protocol}`;
}

export function fmtAddr(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

function errText(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.message ? String(e.message) : String(err);
}

function merge(rule: Access, sub: Access | null): Access {
  if (!sub) return rule;
  return {
    basicAuth: sub.basicAuth.enable ? sub.basicAuth : rule.basicAuth,
    ipFilter: sub.ipFilter,
    uaFilter: sub.uaFilter,
    cache: sub.cache.enable ? sub.cache : rule.cache,
    cors: sub.cors.enable ? sub.cors : rule.cors,
    robots: sub.robots.enable ? sub.robots : rule.robots,
  };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the figures and the access log need of a request once its response is over. */
interface Hit {
  rt: Runtime;
  t0: number;
  ip: string;
  site: string;
}
const HIT = Symbol('hit');
/** Bytes written on a connection up to the end of its previous response. */
const SENT = Symbol('sent');
type LoggedResponse = ServerResponse & { [HIT]?: Hit };
type CountedSocket = Duplex & { bytesWritten?: number; [SENT]?: number };

function responseClosed(this: LoggedResponse): void {
  const hit = this[HIT];
  if (!hit) return;
  this[HIT] = undefined;
  const { rt } = hit;
  const status = this.headersSent ? this.statusCode : 0;
  const code = String(status);
  rt.stats.codes[code] = (rt.stats.codes[code] ?? 0) + 1;
  if (rt.log.capacity <= 0) return;
  const req = this.req;
  // Responses on a connection follow one another: what it wrote since the last one is this one.
  const sock = req.socket as CountedSocket;
  const sent = sock.bytesWritten ?? 0;
  const e = rt.log.evictee() ?? blankEntry();
  // When the request came, in microseconds on the clock every serving thread shares: their logs
  // are merged by time, and a client's next request never sorts before its previous one.
  const now = performance.now();
  const t0 = hit.t0 || now; // 0: the log was off when the request came
  e.time = wallClockAt(t0);
  e.clientIP = hit.ip;
  e.method = req.method ?? '';
  e.host = req.headers.host ?? '';
  e.path = (req.url ?? '').slice(0, 2048);
  e.status = status;
  e.bytes = sent - (sock[SENT] ?? 0);
  e.ms = Math.round((now - t0) * 10) / 10;
  e.userAgent = (req.headers['user-agent'] ?? '').slice(0, 512);
  e.sub = hit.site;
  sock[SENT] = sent;
  rt.log.push(e);
}

function blankEntry(): WebAccessEntry {
  return { time: 0, clientIP: '', method: '', host: '', path: '', status: 0, bytes: 0, ms: 0, userAgent: '', sub: '' };
}

/** parseHost for the Host header of the previous request again costs a comparison. */
class HostMemo {
  private raw: string | undefined = undefined;
  private parsed: HostPort | null = null;

  parse(value: string | undefined): HostPort | null {
    if (value !== this.raw || value === undefined) {
      this.raw = value;
      this.parsed = parseHost(value) ?? (value === undefined ? { host: '', port: '' } : null);
    }
    return this.parsed;
  }
}

export interface WebEngineOptions {
  log: Logger;
  logs: RuleLogs;
  /** Absent in a serving thread: the coordinator opens the firewall. */
  firewall?: Firewall;
  /**
   * This engine serves in one of several threads (web.threads.ts): the coordinator opens the
   * listeners, the firewall and writes the start/stop lines; this one only serves and reports.
   */
  servingThread?: boolean;
  /** The part of each response cache's byte bound this engine may fill (1 / serving threads). */
  cacheShare?: number;
}

export class WebEngine implements RuleEngine<WebRule> {
  private runtimes = new Map<string, Runtime>();
  private states = new Map<string, { status: EngineStatus; firewall: StatusPart | null; warnings: StatusPart[] }>();
  /** Starts and stops of one rule run one after another. */
  private queue = new KeyedQueue();
  private retiring = new Set<Promise<void>>();

  constructor(private opts: WebEngineOptions) {}

  private note(key: string, line: string): void {
    this.opts.logs.add(key, `${formatTime(Date.now())} ${line}`);
  }

  /** Start/stop lines: written once by whoever owns the listener. */
  private lifecycle(key: string, line: string, level?: 'info' | 'warn', fields?: object, logLine?: string): void {
    if (this.opts.servingThread) return;
    this.note(key, line);
    if (level) this.opts.log[level]({ key, ...fields }, logLine ?? line);
  }

  private serial(key: string, fn: () => Promise<void>): Promise<void> {
    return this.queue.run(key, fn);
  }


  // ---------------------------------------------------------------- compile

  private compileSite(name: string, service: WebService, rule: WebRule, sub: WebSubRule | null, warnings: StatusPart[], key: string): Site {
    const access = merge(rule, sub);
    const ipFilters: CompiledIpFilter[] = [];
    const uaFilters: CompiledUaFilter[] = [];
    for (const f of sub ? [rule.ipFilter, sub.ipFilter] : [rule.ipFilter]) {
      const c = compileIpFilter(f);
      if (c) ipFilters.push(c);
    }
    for (const f of sub ? [rule.uaFilter, sub.uaFilter] : [rule.uaFilter]) {
      const c = compileUaFilter(f);
      if (c) uaFilters.push(c);
    }
    let proxy: ReverseProxy | null = null;
    let files: FileServer | null = null;
    if (service.type === 'proxy') {
      const cache = access.cache.enable
        ? new ResponseCache(Math.floor(access.cache.maxBytes * (this.opts.cacheShare ?? 1)), access.cache.maxEntryBytes, access.cache.ttlSeconds * 1000)
        : null;
      proxy = new ReverseProxy(service, cache, (line) => {
        this.note(key, `${name || 'default'}: ${line}`);
        this.opts.log.warn({ key, site: name || 'default' }, line);
      });
    } else if (service.type === 'file') {
      try {
        if (!statSync(service.root).isDirectory()) warnings.push({ key: 'statusRootNotDir', vars: { site: name || 'default', path: service.root } });
      } catch {
        warnings.push({ key: 'statusRootMissing', vars: { site: name || 'default', path: service.root } });
      }
      files = new FileServer(service);
    }
    return {
      name,
      service,
      proxy,
      files,
      ipFilters,
      uaFilters,
      auth: access.basicAuth.enable ? new BasicAuthGate(access.basicAuth as z.output<typeof ZWebBasicAuth>) : null,
      cors: compileCors(access.cors),
      robots: access.robots.enable ? access.robots.text : null,
    };
  }

  /** Throws for what makes the rule unable to run (bad certificate). */
  private compile(key: string, rule: WebRule): Compiled {
    const warnings: StatusPart[] = [];
    const certs = new DomainMatcher<SecureContext>();
    let defaultCert: Compiled['defaultCert'] = null;
    const tls = rule.protocol === 'https';
    if (tls) {
      if (rule.certs.length === 0) throw new RuleProblem({ key: 'statusCertNeeded' });
      rule.certs.forEach((c, i) => {
        let cert: string;
        let pkey: string;
        try {
          cert = c.source === 'file' ? readFileSync(c.cert, 'utf8') : c.cert;
          pkey = c.source === 'file' ? readFileSync(c.key, 'utf8') : c.key;
        } catch (err) {
          throw new RuleProblem({ key: 'statusCertUnreadable', vars: { n: i + 1, detail: errText(err) } });
        }
        let ctx: SecureContext;
        let names = c.domains;
        try {
          ctx = createSecureContext({ cert, key: pkey, minVersion: TLS_VERSIONS[rule.minTls] });
          if (names.length === 0) {
            const x = new X509Certificate(cert);
            names = (x.subjectAltName ?? '')
              .split(',')
              .map((s) => s.trim())
              .filter((s) => s.startsWith('DNS:'))
              .map((s) => s.slice(4).toLowerCase());
            const cn = /CN=([^\n,]+)/.exec(x.subject)?.[1];
            if (names.length === 0 && cn) names = [cn.toLowerCase()];
          }
        } catch (err) {
          throw new RuleProblem({ key: 'statusTlsRejected', vars: { detail: `#${i + 1}: ${errText(err)}` } });
        }
        for (const n of names) certs.add(n, ctx);
        if (!defaultCert) defaultCert = { cert, key: pkey };
      });
    }
    const sites = new DomainMatcher<Site>();
    const all: Site[] = [];
    const fallback = this.compileSite('', rule.defaultService, rule, null, warnings, key);
    all.push(fallback);
    rule.subRules.forEach((sub, i) => {
      if (!sub.enable) return;
      const site = this.compileSite(sub.name || `#${i + 1}`, sub.service, rule, sub, warnings, key);
      all.push(site);
      for (const d of sub.domains) sites.add(d, site);
    });
    return {
      rule,
      sites,
      fallback,
      all,
      trusted: compileCidrs(rule.trustedProxies),
      ipHeaders: rule.clientIpHeaders.map((h) => h.toLowerCase()),
      tls,
      certs,
      defaultCert,
      warnings,
    };
  }

  private dispose(c: Compiled): void {
    for (const s of c.all) s.proxy?.close();
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Starts or re-applies the rule. With `fd` (an already listening socket, which this engine then
   * owns) the rule serves on it rather than opening its own listener.
   */
  start(key: string, rule: WebRule, fd?: number): Promise<void> {
    return this.serial(key, () => this.doStart(key, rule, fd));
  }

  stop(key: string): Promise<void> {
    return this.serial(key, async () => {
      const rt = this.runtimes.get(key);
      this.runtimes.delete(key);
      this.states.delete(key);
      await this.opts.firewall?.close(key);
      if (rt) {
        this.lifecycle(key, `stopped listening on ${rt.address}`);
        await this.retire(rt, 1000);
      }
    });
  }

  private setState(key: string, state: RuleStatus['state'], parts: StatusPart[], firewall: StatusPart | null, warnings: StatusPart[] = []): void {
    this.states.set(key, { status: statusOf(state, Date.now(), parts), firewall, warnings });
  }

  private async doStart(key: string, rule: WebRule, fd?: number): Promise<void> {
    const old = this.runtimes.get(key);
    let compiled: Compiled;
    try {
      compiled = this.compile(key, rule);
    } catch (err) {
      if (fd !== undefined) closeSync(fd);
      const part: StatusPart = err instanceof RuleProblem ? err.part : { key: 'statusApplyFailed', vars: { detail: errText(err) } };
      const msg = statusText([part], 'en_US');
      this.lifecycle(key, `cannot start: ${msg}`, 'warn', { name: rule.name }, `web rule cannot start: ${msg}`);
      if (old) {
        this.runtimes.delete(key);
        await this.retire(old, 2000);
      }
      await this.opts.firewall?.close(key);
      this.setState(key, 'error', [part], null);
      return;
    }
    const warn = statusText(compiled.warnings, 'en_US');
    const listenId = listenIdOf(rule);

    if (old && old.listenId === listenId && old.server.listening && fd === undefined) {
      // Same listener: swap what it serves. Connections stay open; new requests see the new rules.
      const prev = old.compiled;
      old.compiled = compiled;
      old.log.resize(rule.accessLog.capacity);
      if (compiled.tls && compiled.defaultCert) {
        (old.server as unknown as { setSecureContext(o: object): void }).setSecureContext({
          ...compiled.defaultCert,
          minVersion: TLS_VERSIONS[rule.minTls],
        });
      }
      setTimeout(() => this.dispose(prev), 30_000).unref();
      this.lifecycle(key, `applied new settings on ${old.address}${warn ? ` (${warn})` : ''}`);
      const fw = this.opts.firewall ? await applyFirewall(this.opts.firewall, key, rule) : null;
      this.setState(key, 'running', runningParts(old.address, compiled.warnings, fw), fw, compiled.warnings);
      return;
    }

    const rt: Runtime = {
      key,
      listenId,
      server: undefined as unknown as Server,
      compiled,
      sockets: new Set(),
      stats: old && old.listenId === listenId ? old.stats : { requests: 0, closedIn: 0, closedOut: 0, codes: {} },
      log: old ? old.log : new AccessRing<WebAccessEntry>(rule.accessLog.capacity),
      address: '',
      hosts: new HostMemo(),
    };
    rt.log.resize(rule.accessLog.capacity);
    rt.server = this.makeServer(rt);
    const host = rule.address || (rule.network === 'tcp6' ? '::' : '0.0.0.0');
    let listenErr: NodeJS.ErrnoException | null = await this.listen(rt.server, host, rule, fd);
    if (listenErr?.code === 'EADDRINUSE' && old && fd === undefined) {
      // Most likely our own old listener holds the port: let it go (gracefully) and try again.
      this.runtimes.delete(key);
      await this.retire(old, 5000, true);
      listenErr = await this.listen(rt.server, host, rule);
    }
    if (listenErr) {
      this.dispose(compiled);
      const part = listenProblem(fmtAddr(host, rule.port), rule.port, listenErr.code, listenErr.message);
      const msg = statusText([part], 'en_US');
      this.lifecycle(key, msg, 'warn', { name: rule.name, code: listenErr.code }, `web rule cannot listen: ${msg}`);
      if (old && this.runtimes.get(key) === old) {
        this.runtimes.delete(key);
        void this.retire(old, 5000);
      }
      await this.opts.firewall?.close(key);
      this.setState(key, 'error', [part], null);
      return;
    }
    const a = rt.server.address();
    rt.address = a && typeof a === 'object' ? fmtAddr(a.address, a.port) : fmtAddr(host, rule.port);
    this.runtimes.set(key, rt);
    if (old && old !== rt && old.server.listening) void this.retire(old, 5000);
    this.lifecycle(key, `listening on ${rule.protocol}://${rt.address}${warn ? ` (${warn})` : ''}`, 'info', { name: rule.name }, `web rule listening on ${rule.protocol}://${rt.address}`);
    const fw = this.opts.firewall ? await applyFirewall(this.opts.firewall, key, rule) : null;
    if (fw) this.lifecycle(key, statusText([firewallPart(fw)], 'en_US'));
    this.setState(key, 'running', runningParts(rt.address, compiled.warnings, fw), fw, compiled.warnings);
  }

  private listen(server: Server, host: string, rule: WebRule, fd?: number): Promise<NodeJS.ErrnoException | null> {
    return new Promise((resolve) => {
      const onError = (err: NodeJS.ErrnoException) => {
        server.off('listening', onListening);
        resolve(err);
      };
      const onListening = () => {
        server.off('error', onError);
        server.on('error', (err) => this.opts.log.warn({ err }, 'web listener error'));
        resolve(null);
      };
      server.once('error', onError);
      server.once('listening', onListening);
      try {
        if (fd !== undefined) server.listen({ fd });
        else server.listen({ host, port: rule.port, exclusive: true, ipv6Only: rule.network === 'tcp6' });
      } catch (err) {
        onError(err as NodeJS.ErrnoException);
      }
    });
  }

  /** Stops accepting, lets requests in flight finish for `graceMs`, then cuts what is left. */
  private retire(rt: Runtime, graceMs: number, awaitClose = false): Promise<void> {
    const server = rt.server;
    const closed = new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
    server.closeIdleConnections();
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
    const done = Promise.all([closed.catch(() => undefined), all]).then(() => this.dispose(rt.compiled));
    this.retiring.add(done);
    void done.finally(() => this.retiring.delete(done));
    // The port is free as soon as the listening socket is closed.
    return awaitClose ? listeningClosed(server) : done;
  }

  status(key: string): EngineStatus {
    return this.states.get(key)?.status ?? { state: 'stopped', message: '', since: Date.now() };
  }

  /** What the firewall switch did (null: off). */
  firewallNote(key: string): StatusPart | null {
    return this.states.get(key)?.firewall ?? null;
  }

  /** What a running rule warns of (a file root that is missing…). */
  warnings(key: string): StatusPart[] {
    return this.states.get(key)?.warnings ?? [];
  }

  figures(key: string): WebFigures {
    const rt = this.runtimes.get(key);
    if (!rt) return { requests: 0, bytesIn: 0, bytesOut: 0, connections: 0, codes: {} };
    let bytesIn = rt.stats.closedIn;
    let bytesOut = rt.stats.closedOut;
    for (const s of rt.sockets) {
      const n = s as unknown as { bytesRead?: number; bytesWritten?: number };
      bytesIn += n.bytesRead ?? 0;
      bytesOut += n.bytesWritten ?? 0;
    }
    return { requests: rt.stats.requests, bytesIn, bytesOut, connections: rt.sockets.size, codes: { ...rt.stats.codes } };
  }

  accessLog(key: string, limit: number): { list: WebAccessEntry[]; total: number } {
    const rt = this.runtimes.get(key);
    if (!rt) return { list: [], total: 0 };
    // Copies: the ring refills its entries in place.
    return { list: rt.log.latest(limit).map((e) => ({ ...e })), total: rt.log.size };
  }

  connections(): number {
    let n = 0;
    for (const rt of this.runtimes.values()) n += rt.sockets.size;
    return n;
  }

  async close(): Promise<void> {
    const keys = [...this.runtimes.keys()];
    await Promise.all(keys.map((k) => this.stop(k)));
    await Promise.all([...this.retiring]);
  }

  // ---------------------------------------------------------------- serving

  private makeServer(rt: Runtime): Server {
    // A fault in one request must never reach the process: answer 500 (or cut it) and log.
    const handler = (req: IncomingMessage, res: ServerResponse) => {
      try {
        this.onRequest(rt, req, res);
      } catch (err) {
        this.opts.log.error({ err, key: rt.key }, 'web request failed');
        if (!res.headersSent) this.plain(res, 500, 'internal error\n');
        else res.destroy();
      }
    };
    let server: Server;
    if (rt.compiled.tls) {
      const minVersion = TLS_VERSIONS[rt.compiled.rule.minTls];
      server = createHttpsServer(
        {
          ...SERVER_OPTIONS,
          ...rt.compiled.defaultCert!,
          minVersion,
          SNICallback: (servername, cb) => {
            const c = rt.compiled;
            cb(null, c.certs.match(servername.toLowerCase()) ?? undefined);
          },
        },
        handler,
      ) as unknown as Server;
      server.on('tlsClientError', (_err: Error, socket: Duplex) => socket.destroy());
    } else {
      server = createHttpServer(SERVER_OPTIONS, handler);
    }
    server.on('connection', (s: Duplex) => this.track(rt, s));
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
      if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
      const status =
        err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
      socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      setTimeout(() => socket.destroy(), 1000).unref();
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      try {
        this.onUpgrade(rt, req, socket, head);
      } catch (err) {
        this.opts.log.error({ err, key: rt.key }, 'web upgrade failed');
        socket.destroy();
      }
    });
    return server;
  }

  private track(rt: Runtime, s: Duplex): void {
    rt.sockets.add(s);
    s.once('close', () => {
      rt.sockets.delete(s);
      const n = s as unknown as { bytesRead?: number; bytesWritten?: number };
      rt.stats.closedIn += n.bytesRead ?? 0;
      rt.stats.closedOut += n.bytesWritten ?? 0;
    });
  }

  /** A request's path and query from an origin-form or absolute-form target; null when unusable. */
  private target(req: IncomingMessage): string | null {
    const u = req.url ?? '';
    if (u.startsWith('/')) return u;
    if (/^https?:\/\//i.test(u)) {
      try {
        const p = new URL(u);
        return p.pathname + p.search;
      } catch {
        return null;
      }
    }
    return null;
  }

  private denied(site: Site, ip: string, ua: string | undefined): boolean {
    for (const f of site.ipFilters) if (!ipAllowed(ip, f)) return true;
    for (const f of site.uaFilters) if (!uaAllowed(ua, f)) return true;
    return false;
  }

  private onRequest(rt: Runtime, req: IncomingMessage, res: ServerResponse): void {
    const c = rt.compiled;
    rt.stats.requests++;
    const hp = rt.hosts.parse(req.headers.host);
    const site = hp ? (c.sites.match(hp.host) ?? c.fallback) : c.fallback;
    const peer = plainIp(req.socket.remoteAddress);
    const peerTrusted = c.trusted.length > 0 && inAny(peer, c.trusted);
    const ip = peerTrusted ? clientIp(req, c.trusted, c.ipHeaders) : peer;
    // One shared listener and a plain record rather than a closure per request.
    (res as LoggedResponse)[HIT] = { rt, t0: rt.log.capacity > 0 ? performance.now() : 0, ip, site: site.name };
    res.on('close', responseClosed);
    const path = this.target(req);
    if (!hp || path === null) return this.plain(res, 400, 'bad request\n');
    if (this.denied(site, ip, req.headers['user-agent'])) return this.plain(res, 403, 'forbidden\n');
    if (site.robots !== null && (path === '/robots.txt' || path.startsWith('/robots.txt?'))) {
      return this.plain(res, 200, site.robots);
    }
    if (site.cors && corsPreflight(site.cors, req, res)) return;
    if (site.auth) {
      const ok = site.auth.check(req.headers.authorization);
      if (ok === false) return this.unauthorized(site, res);
      if (ok !== true) {
        ok.then(
          (yes) => (yes ? this.serve(rt, site, req, res, hp, path, ip, peerTrusted) : this.unauthorized(site, res)),
          () => this.unauthorized(site, res),
        );
        return;
      }
    }
    this.serve(rt, site, req, res, hp, path, ip, peerTrusted);
  }

  private unauthorized(site: Site, res: ServerResponse): void {
    if (res.destroyed) return;
    res.setHeader('WWW-Authenticate', site.auth!.challenge);
    this.plain(res, 401, 'unauthorized\n');
  }

  private plain(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
    if (res.headersSent) return void res.destroy();
    res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
    res.end(text);
  }

  private vars(rt: Runtime, req: IncomingMessage, hp: HostPort, path: string, ip: string): Record<string, string> {
    const host = hp.host.includes(':') ? `[${hp.host}]` : hp.host;
    const port = hp.port || String(rt.compiled.rule.port);
    return {
      host,
      port,
      hostAndPort: req.headers.host ?? `${host}:${port}`,
      path,
      scheme: rt.compiled.tls ? 'https' : 'http',
      clientIP: ip,
      remoteAddr: plainIp(req.socket.remoteAddress),
      method: req.method ?? '',
      userAgent: req.headers['user-agent'] ?? '',
      time: new Date().toISOString(),
    };
  }

  private fill(template: string, vars: Record<string, string>): string {
    return template.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
  }

  private serve(rt: Runtime, site: Site, req: IncomingMessage, res: ServerResponse, hp: HostPort, path: string, ip: string, peerTrusted: boolean): void {
    if (res.destroyed) return;
    const s = site.service;
    switch (s.type) {
      case 'proxy': {
        let extra: string[] | null = null;
        const origin = req.headers.origin;
        if (site.cors && origin) {
          corsHeaders(site.cors, req, res);
          const h = res.getHeaders();
          res.removeHeader('Access-Control-Allow-Origin');
          res.removeHeader('Vary');
          res.removeHeader('Access-Control-Allow-Credentials');
          extra = [];
          for (const [k, v] of Object.entries(h)) if (v !== undefined) extra.push(k, String(v));
        }
        const cacheKey =
          site.proxy!.cache &&
          req.method === 'GET' && !req.headers.range && (site.auth || !req.headers.authorization) && !req.headers.cookie
            ? `${hp.host}\n${path}\n${req.headers['accept-encoding'] ?? ''}`
            : null;
        const ctx: ProxyContext = { clientIp: ip, peerTrusted, tls: rt.compiled.tls, host: hp.host, path };
        return site.proxy!.handle(req, res, ctx, extra, cacheKey);
      }
      case 'redirect': {
        if (site.cors) corsHeaders(site.cors, req, res);
        const location = this.fill(s.target, this.vars(rt, req, hp, path, ip));
        res.writeHead(s.code, { Location: location, 'Content-Length': '0' });
        return void res.end();
      }
      case 'jump': {
        const url = this.fill(s.target, this.vars(rt, req, hp, path, ip));
        const js = JSON.stringify(url).replace(/</g, '\\u003c');
        const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escapeHtml(url)}"><script>location.replace(${js})</script></head><body><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></body></html>\n`;
        if (site.cors) corsHeaders(site.cors, req, res);
        res.setHeader('Cache-Control', 'no-store');
        return this.plain(res, 200, html, 'text/html; charset=utf-8');
      }
      case 'file': {
        if (site.cors) corsHeaders(site.cors, req, res);
        const q = path.indexOf('?');
        site.files!.serve(req, res, q >= 0 ? path.slice(0, q) : path).catch(() => this.plain(res, 500, 'internal error\n'));
        return;
      }
      case 'text': {
        if (site.cors) corsHeaders(site.cors, req, res);
        const body = s.body.includes('{') ? this.fill(s.body, this.vars(rt, req, hp, path, ip)) : s.body;
        return this.plain(res, s.status, body, s.contentType);
      }
      case 'close':
        req.socket.destroy();
        return;
    }
  }

  private onUpgrade(rt: Runtime, req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const c = rt.compiled;
    rt.stats.requests++;
    socket.on('error', () => socket.destroy());
    const refuse = (status: string, extra = '') => {
      rt.stats.codes[status.slice(0, 3)] = (rt.stats.codes[status.slice(0, 3)] ?? 0) + 1;
      if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n${extra}\r\n`);
      else socket.destroy();
    };
    const hp = parseHost(req.headers.host);
    const path = this.target(req);
    if (!hp || path === null) return refuse('400 Bad Request');
    const site = c.sites.match(hp.host) ?? c.fallback;
    const peer = plainIp(req.socket.remoteAddress);
    const peerTrusted = c.trusted.length > 0 && inAny(peer, c.trusted);
    const ip = peerTrusted ? clientIp(req, c.trusted, c.ipHeaders) : peer;
    if (this.denied(site, ip, req.headers['user-agent'])) return refuse('403 Forbidden');
    if (site.service.type === 'close') return void socket.destroy();
    if (site.service.type !== 'proxy' || !site.service.websocket) return refuse('400 Bad Request');
    const go = () => {
      rt.stats.codes['101'] = (rt.stats.codes['101'] ?? 0) + 1;
      // The client socket is already tracked (retire() cuts it); the backend side closes with it.
      site.proxy!.upgrade(req, socket, head, { clientIp: ip, peerTrusted, tls: c.tls, host: hp.host, path });
    };
    if (!site.auth) return go();
    const ok = site.auth.check(req.headers.authorization);
    const challenge = `WWW-Authenticate: ${site.auth.challenge}\r\n`;
    if (ok === true) return go();
    if (ok === false) return refuse('401 Unauthorized', challenge);
    ok.then((yes) => (yes ? go() : refuse('401 Unauthorized', challenge)), () => refuse('401 Unauthorized', challenge));
  }
}

/** A running rule's status: where it listens, what it warns of, what the firewall switch did. */
export function runningParts(address: string, warnings: StatusPart[], fw: StatusPart | null): StatusPart[] {
  const parts: StatusPart[] = [{ key: 'statusListening', vars: { address } }, ...warnings];
  if (fw) parts.push(firewallPart(fw));
  return parts;
}

function listeningClosed(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.once('close', () => resolve());
    // 'close' waits for connections; the listening socket itself is gone once listening is false.
    const t = setInterval(() => {
      if (!server.listening) {
        clearInterval(t);
        resolve();
      }
    }, 20);
    t.unref();
  });
}
