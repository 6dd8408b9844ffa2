/**
 * What a web rule's listener does with each request: the host picks a site (a sub rule, or the
 * default service); its IP and user-agent filters, robots.txt, CORS preflight and basic auth run;
 * then its service answers (proxy, redirect, URL jump, files, text, close). Figures and the access
 * log are kept per listener. A fault in one request never reaches the process: it gets a 500.
 */
import { createServer as createHttpServer, STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { ServerHttp2Session } from 'node:http2';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import type { WebAccessEntry } from '@lucky/contracts';
import { PORTAL_COOKIE } from '@lucky/contracts/runtime';
import { bytesWrittenOf } from '../../core/filebody.js';
import { acceptInBursts } from '../../core/native.js';
import { wallClockAt } from '../../core/time.js';
import { clientIp, corsHeaders, corsPreflight, inAny, ipAllowed, peerIp, plainIp, takeEdgePeer, uaAllowed } from './web.access.js';
import type { ClientLimits } from './web.limits.js';
import type { Compiled, Site } from './web.compile.js';
import { ALPN_H2, bodyBytes, isH2, resetStream, serveH2, streamTunnel } from './web.h2.js';
import { hostOf, parseHost, type HostPort } from './web.match.js';
import type { ProxyContext, TunnelClient } from './web.proxy.js';
import type { AccessRing } from './web.ring.js';
import { countDuration, type Durations } from './web.figures.js';
import { webDefender } from './web.defender.js';
import { cookieValue, passOn, portalGate } from './web.portalgate.js';
import type { ForwardAuth, ForwardRequest } from './web.forwardauth.js';
import { setRequestHeaders } from './web.reqheaders.js';
import { webPortal } from './web.portal.js';
import type { PortalPass } from '../../core/services/portal.js';

export interface Stats {
  requests: number;
  /** Bytes of connections already closed (open ones are read from their sockets). */
  closedIn: number;
  closedOut: number;
  codes: Record<string, number>;
  /** Requests by time to answer (the fixed buckets of the figures). */
  durations: Durations;
}

/** One rule's listener on this thread: what it serves now, its connections, figures and access log. */
export interface Listener {
  key: string;
  compiled: Compiled;
  sockets: Set<Duplex>;
  /** Open HTTP/2 sessions (each also one of `sockets`), asked to finish when the listener retires. */
  sessions: Set<ServerHttp2Session>;
  stats: Stats;
  log: AccessRing<WebAccessEntry>;
  hosts: HostMemo;
  /**
   * Served behind the native data plane (web.edge.ts): its connections are socketpairs the edge
   * hands over, plain HTTP/1.1 whatever the rule's protocol (the edge holds the TLS), each request
   * with the client's address in `lucky-edge`. The edge keeps the figures and the access log.
   */
  edge?: boolean;
}

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

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the figures and the access log need of a request once its response is over. */
interface Hit {
  rt: Listener;
  t0: number;
  ip: string;
  site: string;
}
const HIT = Symbol('hit');
/** Bytes written on a connection up to the end of its previous response. */
const SENT = Symbol('sent');
type LoggedResponse = ServerResponse & { [HIT]?: Hit };
type CountedSocket = Duplex & { [SENT]?: number };

function responseClosed(this: LoggedResponse): void {
  const hit = this[HIT];
  if (!hit) return;
  this[HIT] = undefined;
  const { rt } = hit;
  const status = this.headersSent ? this.statusCode : 0;
  const code = String(status);
  rt.stats.codes[code] = (rt.stats.codes[code] ?? 0) + 1;
  const now = performance.now();
  const t0 = hit.t0;
  countDuration(rt.stats.durations, (now - t0) / 1000);
  if (rt.log.capacity <= 0) return;
  const req = this.req;
  const e = rt.log.evictee() ?? blankEntry();
  // When the request came, in microseconds on the clock every serving thread shares: their logs
  // are merged by time, and a client's next request never sorts before its previous one.
  e.time = wallClockAt(t0);
  e.clientIP = hit.ip;
  e.method = req.method ?? '';
  e.host = hostOf(req) ?? '';
  e.path = (req.url ?? '').slice(0, 2048);
  e.status = status;
  const body = bodyBytes(this);
  if (body !== undefined) e.bytes = body;
  else {
    // Responses on a connection follow one another: what it wrote since the last one is this one.
    const sock = req.socket as CountedSocket;
    const sent = bytesWrittenOf(sock);
    e.bytes = sent - (sock[SENT] ?? 0);
    sock[SENT] = sent;
  }
  e.ms = Math.round((now - t0) * 10) / 10;
  e.userAgent = (req.headers['user-agent'] ?? '').slice(0, 512);
  e.sub = hit.site;
  rt.log.push(e);
}

function blankEntry(): WebAccessEntry {
  return { time: 0, clientIP: '', method: '', host: '', path: '', status: 0, bytes: 0, ms: 0, userAgent: '', sub: '' };
}

/** parseHost for the Host header of the previous request again costs a comparison. */
export class HostMemo {
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

/** The HTTP or HTTPS server of a listener; `fault` hears of a request that failed unexpectedly. */
export function createListenerServer(rt: Listener, fault: (err: unknown) => void): Server {
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (rt.edge) takeEdgePeer(req);
      onRequest(rt, req, res);
    } catch (err) {
      fault(err);
      if (!res.headersSent) plain(res, 500, 'internal error\n');
      else res.destroy();
    }
  };
  let server: Server;
  const tls = rt.compiled.tls;
  if (rt.edge) {
    // The edge keeps its connections to this server for as long as it likes.
    server = createHttpServer({ ...SERVER_OPTIONS, keepAliveTimeout: 0 }, handler);
  } else if (tls) {
    const http2 = rt.compiled.rule.http2;
    const https: HttpsServer = createHttpsServer(
      {
        ...SERVER_OPTIONS,
        ...tls.options,
        ...(http2 ? { ALPNProtocols: ALPN_H2 } : {}),
        // The rule's current contexts: a saved rule's certificates apply to the next handshake.
        SNICallback: (servername, cb) => cb(null, rt.compiled.tls?.context(servername)),
      },
      handler,
    );
    if (http2) {
      const tunnel = (req: IncomingMessage, res: ServerResponse) => {
        try {
          // A plain CONNECT (a forward proxy's) is not served; RFC 8441's names a protocol.
          if (req.headers[':protocol'] === undefined) return void res.writeHead(405, { 'Content-Length': '0' }).end();
          onTunnel(rt, req, streamTunnel(req, res), EMPTY);
        } catch (err) {
          fault(err);
          res.destroy();
        }
      };
      // A file site pipes files into its answer: Node's own objects for it.
      serveH2(https, rt.sessions, handler, tunnel, (headers) => siteOf(rt, rt.hosts.parse(hostOf({ headers }))).service.type !== 'file');
    }
    server = https as unknown as Server;
    server.on('tlsClientError', (_err: Error, socket: Duplex) => socket.destroy());
  } else {
    server = createHttpServer(SERVER_OPTIONS, handler);
  }
  server.on('connection', (s: Duplex) => track(rt, s));
  if (!rt.edge) acceptInBursts(server);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable || err.code === 'ECONNRESET') return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    setTimeout(() => socket.destroy(), 1000).unref();
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    try {
      if (rt.edge) takeEdgePeer(req);
      onTunnel(rt, req, socketTunnel(socket, String(req.headers.upgrade ?? 'websocket')), head);
    } catch (err) {
      fault(err);
      socket.destroy();
    }
  });
  return server;
}

/** A connection past the rule's limit for its address: its requests get 429. */
const OVER = Symbol('overLimit');
type LimitedSocket = Duplex & { [OVER]?: boolean };

function track(rt: Listener, s: Duplex): void {
  rt.sockets.add(s);
  // Behind the edge every connection is the edge's own: it counts the clients' itself.
  const limits = rt.edge ? null : rt.compiled.limits;
  if (limits) {
    const ip = plainIp((s as unknown as { remoteAddress?: string }).remoteAddress);
    if (!limits.opened(ip)) (s as LimitedSocket)[OVER] = true;
    s.once('close', () => limits.closed(ip));
  }
  s.once('close', () => {
    rt.sockets.delete(s);
    rt.stats.closedIn += (s as unknown as { bytesRead?: number }).bytesRead ?? 0;
    rt.stats.closedOut += bytesWrittenOf(s);
  });
}

/** A request's path and query from an origin-form or absolute-form target; null when unusable. */
function target(req: IncomingMessage): string | null {
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

function denied(site: Site, ip: string, ua: string | undefined): boolean {
  for (const f of site.ipFilters) if (!ipAllowed(ip, f)) return true;
  for (const f of site.uaFilters) if (!uaAllowed(ua, f)) return true;
  return false;
}

const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

/** The site a host names (the default service for an unknown or malformed one). */
function siteOf(rt: Listener, hp: HostPort | null): Site {
  const c = rt.compiled;
  return hp ? (c.sites.match(hp.host) ?? c.fallback) : c.fallback;
}

function onRequest(rt: Listener, req: IncomingMessage, res: ServerResponse): void {
  const c = rt.compiled;
  rt.stats.requests++;
  const hp = rt.hosts.parse(hostOf(req));
  const site = siteOf(rt, hp);
  const peer = peerIp(req);
  const peerTrusted = c.trusted.length > 0 && inAny(peer, c.trusted);
  const ip = peerTrusted ? clientIp(req, c.trusted, c.ipHeaders) : peer;
  // One shared listener and a plain record rather than a closure per request.
  (res as LoggedResponse)[HIT] = { rt, t0: performance.now(), ip, site: site.name };
  res.on('close', responseClosed);
  const path = target(req);
  if (!hp || path === null) return plain(res, 400, 'bad request\n');
  if (c.limits && limited(rt, c.limits, req, res, ip)) return;
  // ACME HTTP-01 while an order needs it: the CA's check passes no filter, login or service.
  if (c.challenges.size > 0 && path.startsWith(CHALLENGE_PREFIX)) {
    const answer = c.challenges.get(path.slice(CHALLENGE_PREFIX.length).split('?')[0]!);
    if (answer !== undefined) return plain(res, 200, answer, 'application/octet-stream');
  }
  if (denied(site, ip, req.headers['user-agent'])) return plain(res, 403, 'forbidden\n');
  if (site.robots !== null && (path === '/robots.txt' || path.startsWith('/robots.txt?'))) {
    return plain(res, 200, site.robots);
  }
  if (site.cors && corsPreflight(site.cors, req, res)) return;
  if (!site.portal && !site.auth && !site.forwardAuth) return serve(rt, site, req, res, hp, path, ip, peerTrusted);
  const serveIt = () => serve(rt, site, req, res, hp, path, ip, peerTrusted);
  const fa = site.forwardAuth;
  const go = fa ? () => forwardThen(fa, req, res, { clientIp: ip, tls: rt.compiled.tls !== null, host: hostOf(req) ?? hp.host, path }, serveIt) : serveIt;
  if (site.portal) {
    const secure = rt.compiled.rule.protocol === 'https' || (peerTrusted && String(req.headers['x-forwarded-proto'] ?? '').startsWith('https'));
    const g = { rule: rt.key, req, res, site: site.portal, ip, host: hp.host, path, secure };
    return portalGate(g, go, site.auth ? { challenge: site.auth.challenge, check: () => basicAuth(site, req, res, ip, go) } : null);
  }
  if (site.auth) return basicAuth(site, req, res, ip, go);
  go();
}

/** The site's authorizer first: its 2xx lets the request through with the headers it names, any other answer is the client's. */
function forwardThen(fa: ForwardAuth, req: IncomingMessage, res: ServerResponse, r: ForwardRequest, go: () => void): void {
  fa.check(req, r).then((v) => {
    if (res.destroyed) return;
    if (v.pass) {
      setRequestHeaders(req, fa.copied, v.headers);
      return go();
    }
    if (res.headersSent) return void res.destroy();
    const headers: string[] = [...v.headers, 'Content-Length', String(v.body.length)];
    res.writeHead(v.status, headers);
    res.end(v.body);
  });
}

/** Basic auth, then `go`: an address the defender locked is not asked again; a new wrong guess counts. */
function basicAuth(site: Site, req: IncomingMessage, res: ServerResponse, ip: string, go: () => void): void {
  const wait = webDefender.lockedFor(ip);
  if (wait > 0) return tooManyLogins(res, wait);
  const ok = site.auth!.check(req.headers.authorization, ip);
  if (ok === true) return go();
  if (ok === false) return unauthorized(site, res);
  ok.then(
    (yes) => {
      if (yes) return go();
      // A new guess, checked and wrong (one already known wrong, or no credentials, is not counted).
      webDefender.failed(ip);
      unauthorized(site, res);
    },
    () => unauthorized(site, res),
  );
}

/** The rule's limits for this client (the edge applied its share already): true when answered here. */
function limited(rt: Listener, limits: ClientLimits, req: IncomingMessage, res: ServerResponse, ip: string): boolean {
  if (!rt.edge) {
    // A TLS connection's socket wraps the one counted (its `_parent`).
    const sock = req.socket as LimitedSocket & { _parent?: LimitedSocket };
    if (sock[OVER] || sock._parent?.[OVER]) {
      res.setHeader('Retry-After', '1');
      res.setHeader('Connection', 'close');
      plain(res, 429, 'too many connections\n');
      return true;
    }
    const wait = limits.take(ip);
    if (wait > 0) {
      res.setHeader('Retry-After', String(wait));
      plain(res, 429, 'too many requests\n');
      return true;
    }
  }
  const length = Number(req.headers['content-length'] ?? 0);
  if (limits.maxBody > 0 && length > limits.maxBody) {
    // Its body is not read: the connection ends with the answer.
    res.setHeader('Connection', 'close');
    plain(res, 413, 'payload too large\n');
    return true;
  }
  return false;
}

function tooManyLogins(res: ServerResponse, seconds: number): void {
  if (res.destroyed) return;
  res.setHeader('Retry-After', String(seconds));
  plain(res, 429, 'too many failed logins\n');
}

function unauthorized(site: Site, res: ServerResponse): void {
  if (res.destroyed) return;
  res.setHeader('WWW-Authenticate', site.auth!.challenge);
  plain(res, 401, 'unauthorized\n');
}

function plain(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  if (res.headersSent) return void res.destroy();
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

function varsOf(rt: Listener, req: IncomingMessage, hp: HostPort, path: string, ip: string): Record<string, string> {
  const host = hp.host.includes(':') ? `[${hp.host}]` : hp.host;
  const port = hp.port || String(rt.compiled.rule.port);
  return {
    host,
    port,
    hostAndPort: hostOf(req) ?? `${host}:${port}`,
    path,
    scheme: rt.compiled.tls ? 'https' : 'http',
    clientIP: ip,
    remoteAddr: peerIp(req),
    method: req.method ?? '',
    userAgent: req.headers['user-agent'] ?? '',
    time: new Date().toISOString(),
  };
}

function fill(template: string, vars: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, name: string) => vars[name] ?? m);
}

function serve(rt: Listener, site: Site, req: IncomingMessage, res: ServerResponse, hp: HostPort, path: string, ip: string, peerTrusted: boolean): void {
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
        site.proxy!.cache && req.method === 'GET' && !req.headers.range && (site.auth || !req.headers.authorization) && !req.headers.cookie && !site.portal?.userHeader
          ? `${hp.host}\n${path}\n${req.headers['accept-encoding'] ?? ''}`
          : null;
      const ctx: ProxyContext = { clientIp: ip, peerTrusted, tls: rt.compiled.tls !== null, host: hp.host, path };
      return site.proxy!.handle(req, res, ctx, extra, cacheKey, rt.compiled.limits?.maxBody ?? 0);
    }
    case 'redirect': {
      if (site.cors) corsHeaders(site.cors, req, res);
      const location = fill(s.target, varsOf(rt, req, hp, path, ip));
      res.writeHead(s.code, { Location: location, 'Content-Length': '0' });
      return void res.end();
    }
    case 'jump': {
      const url = fill(s.target, varsOf(rt, req, hp, path, ip));
      const js = JSON.stringify(url).replace(/</g, '\\u003c');
      const html = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escapeHtml(url)}"><script>location.replace(${js})</script></head><body><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></body></html>\n`;
      if (site.cors) corsHeaders(site.cors, req, res);
      res.setHeader('Cache-Control', 'no-store');
      return plain(res, 200, html, 'text/html; charset=utf-8');
    }
    case 'file': {
      if (site.cors) corsHeaders(site.cors, req, res);
      const q = path.indexOf('?');
      site.files!.serve(req, res, q >= 0 ? path.slice(0, q) : path).catch(() => plain(res, 500, 'internal error\n'));
      return;
    }
    case 'text': {
      if (site.cors) corsHeaders(site.cors, req, res);
      const body = s.body.includes('{') ? fill(s.body, varsOf(rt, req, hp, path, ip)) : s.body;
      return plain(res, s.status, body, s.contentType);
    }
    case 'close':
      if (isH2(req)) resetStream(res);
      else req.socket.destroy();
      return;
  }
}

const EMPTY = Buffer.alloc(0);

/** The client side of an HTTP/1.1 upgrade: its socket, answered in HTTP/1.1's own words. */
function socketTunnel(socket: Duplex, protocol: string): TunnelClient {
  const head = (status: number, reason: string, raw: string[], skip: RegExp | null) => {
    let text = `HTTP/1.1 ${status} ${reason}\r\n`;
    for (let i = 0; i < raw.length; i += 2) if (!skip?.test(raw[i]!)) text += `${raw[i]!}: ${raw[i + 1]!}\r\n`;
    return text;
  };
  return {
    stream: socket,
    protocol,
    extraHeaders: [],
    switched: (status, raw) => void socket.write(head(status, 'Switching Protocols', raw, null) + '\r\n'),
    answered: (status, raw) => void socket.write(head(status, STATUS_CODES[status] ?? 'Upgrade Refused', raw, /^(connection|transfer-encoding|keep-alive)$/i) + 'Connection: close\r\n\r\n'),
    refuse: (status, raw = []) => {
      if (socket.writable) socket.end(head(status, STATUS_CODES[status] ?? '', raw, null) + 'Content-Length: 0\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    },
    drop: () => socket.destroy(),
  };
}

/** An upgrade (HTTP/1.1) or an extended CONNECT (h2): the site's filters and login, then its proxy's tunnel. */
function onTunnel(rt: Listener, req: IncomingMessage, client: TunnelClient, head: Buffer): void {
  const c = rt.compiled;
  rt.stats.requests++;
  client.stream.on('error', () => client.stream.destroy());
  const refuse = (status: number, extra: string[] = []) => {
    rt.stats.codes[status] = (rt.stats.codes[status] ?? 0) + 1;
    client.refuse(status, extra);
  };
  const hp = parseHost(hostOf(req));
  const path = target(req);
  if (!hp || path === null) return refuse(400);
  const site = siteOf(rt, hp);
  const peer = peerIp(req);
  const peerTrusted = c.trusted.length > 0 && inAny(peer, c.trusted);
  const ip = peerTrusted ? clientIp(req, c.trusted, c.ipHeaders) : peer;
  if (denied(site, ip, req.headers['user-agent'])) return refuse(403);
  if (site.service.type === 'close') return client.drop();
  if (site.service.type !== 'proxy' || !site.service.websocket) return refuse(400);
  const upgrade = () => {
    rt.stats.codes['101'] = (rt.stats.codes['101'] ?? 0) + 1;
    // The client socket is already tracked (retiring the listener cuts it); the backend side closes with it.
    site.proxy!.upgrade(req, client, head, { clientIp: ip, peerTrusted, tls: c.tls !== null, host: hp.host, path });
  };
  const fa = site.forwardAuth;
  const go = fa
    ? () =>
        void fa.check(req, { clientIp: ip, tls: c.tls !== null, host: hostOf(req) ?? hp.host, path }).then((v) => {
          if (!v.pass) return refuse(v.status, v.headers);
          setRequestHeaders(req, fa.copied, v.headers);
          upgrade();
        })
    : upgrade;
  if (site.portal && (!site.auth || req.headers.authorization === undefined)) {
    // A tunnel is opened by a page already signed in: its session passes it, nothing else does.
    const portal = site.portal;
    const token = cookieValue(req.headers.cookie, PORTAL_COOKIE);
    const decide = (pass: PortalPass | null) => {
      if (!pass || (pass.rules !== null && !pass.rules.includes(rt.key))) return refuse(pass ? 403 : 401);
      passOn(req, portal.userHeader, pass.user);
      go();
    };
    const pass = token ? webPortal.pass(token) : null;
    if (pass instanceof Promise) pass.then(decide, () => refuse(401));
    else decide(pass);
    return;
  }
  if (!site.auth) return go();
  if (site.portal) passOn(req, site.portal.userHeader, null);
  const wait = webDefender.lockedFor(ip);
  if (wait > 0) return refuse(429, ['Retry-After', String(wait)]);
  const ok = site.auth.check(req.headers.authorization, ip);
  const challenge = ['WWW-Authenticate', site.auth.challenge];
  if (ok === true) return go();
  if (ok === false) return refuse(401, challenge);
  ok.then(
    (yes) => {
      if (yes) return go();
      webDefender.failed(ip);
      refuse(401, challenge);
    },
    () => refuse(401, challenge),
  );
}
