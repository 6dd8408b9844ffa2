/**
 * Reverse proxy: one keep-alive pool per backend (web.upstream.ts), round robin / least connections /
 * IP hash, passive health (errors take a backend out for a while) and optional active checks,
 * retries of body-less requests on the next backend, websockets through an upgrade on a connection
 * of their own.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Transform, type Duplex, type Readable } from 'node:stream';
import type { z } from 'zod';
import type { ZProxyService } from '@lucky/contracts';
import { cacheLifetime, type ResponseCache } from './web.cache.js';
import { peerIp } from './web.access.js';
import { hostOf } from './web.match.js';
import { UpstreamPool, type Exchange, type UpstreamHandler } from './web.upstream.js';

type ProxyService = z.output<typeof ZProxyService>;

/** What happened to a backend, for the rule's log (the site names it in the reader's language). */
export type BackendEvent =
  | { kind: 'down'; url: string; seconds: number; detail: string }
  | { kind: 'check'; url: string; up: boolean };
type ErrorWithCode = Error & { code?: string };

/** Headers that belong to one hop and are never forwarded (RFC 9110 section 7.6.1). */
const HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
  'http2-settings',
]);
const FORWARDED = new Set(['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'x-real-ip']);

export interface Backend {
  url: string;
  origin: string;
  host: string;
  basePath: string;
  pool: UpstreamPool;
  active: number;
  fails: number;
  downUntil: number;
  /** Set by active checks; passive state is `downUntil`. */
  healthy: boolean;
}

/** The client side of an upgrade, in the client's protocol: an HTTP/1.1 socket or an h2 stream (RFC 8441). */
export interface TunnelClient {
  /** Bytes to and from the client once the backend switched protocols (and a refusal's body). */
  readonly stream: Duplex;
  /** The protocol asked for (`websocket`). */
  readonly protocol: string;
  /** Request headers the backend needs that the client's protocol does not carry. */
  readonly extraHeaders: string[];
  /** The backend switched protocols (its 101 and headers). */
  switched(status: number, raw: string[]): void;
  /** The backend answered without switching: its head; the body follows on `stream`, then its end. */
  answered(status: number, raw: string[]): void;
  /** An answer of our own, then the end (a filter, a login, no backend). */
  refuse(status: number, raw?: string[]): void;
  /** Ends the request without a word (the `close` service). */
  drop(): void;
}

export interface ProxyContext {
  clientIp: string;
  /** The peer is a trusted proxy: its X-Forwarded-* are extended rather than replaced. */
  peerTrusted: boolean;
  tls: boolean;
  host: string;
  /** Path and query (an absolute-form request target already reduced to this). */
  path: string;
}

/** Failures that say nothing about the answer, only that this backend could not give one. */
const RETRYABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UPSTREAM_CLOSED',
  'CONNECT_TIMEOUT',
  'POOL_CLOSED',
]);
/** Failures before anything was sent: any body-less request may go elsewhere. */
const CONNECT_FAILED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'CONNECT_TIMEOUT']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

function retryable(err: ErrorWithCode): boolean {
  return RETRYABLE.has(err.code ?? '');
}

function hashIp(ip: string): number {
  let h = 2166136261;
  for (let i = 0; i < ip.length; i++) {
    h ^= ip.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}

/** Answers up to this size leave with their head as one string. */
const SMALL_ANSWER = 16 * 1024;

/** The call a response belongs to, so that one shared 'close' listener can reach it. */
const CALL = Symbol('proxyCall');
type TrackedResponse = ServerResponse & { [CALL]?: ProxyCall | null };

function clientClosed(this: TrackedResponse): void {
  this[CALL]?.clientGone();
}

/** One attempt at one backend: the handler of its exchange, passing the answer on to the client. */
class ProxyCall implements UpstreamHandler {
  ex: Exchange | null = null;
  private started = false;
  private finished = false;
  private status = 0;
  private cacheChunks: Buffer[] | null = null;
  private cacheBytes = 0;
  private cacheLife = 0;
  private cacheHeaders: Record<string, string | string[]> | null = null;
  private held: Buffer | null = null;
  private writing = false;
  /** The answer says its length: more bytes are certain to follow a first short chunk. */
  private sized = false;

  constructor(
    private proxy: ReverseProxy,
    private b: Backend,
    private req: IncomingMessage,
    private res: TrackedResponse,
    private ctx: ProxyContext,
    private extra: string[] | null,
    private cacheKey: string | null,
    private hasBody: boolean,
    private tried: Set<Backend> | null,
  ) {}

  private finish(): boolean {
    if (this.finished) return false;
    this.finished = true;
    this.b.active--;
    if (this.res[CALL] === this) this.res[CALL] = null;
    return true;
  }

  clientGone(): void {
    if (this.finish()) this.ex?.abort();
  }

  onHead(status: number, raw: string[]): boolean {
    const { res, proxy } = this;
    this.started = true;
    this.status = status;
    proxy.succeeded(this.b);
    const headers = proxy.responseHeaders(raw, this.extra);
    let stream = false;
    for (let i = 0; i < raw.length; i += 2) {
      const n = raw[i]!.length;
      if (n === 14 && raw[i]!.toLowerCase() === 'content-length') this.sized = true;
      else if (n === 12 && raw[i]!.toLowerCase() === 'content-type') stream = raw[i + 1]!.startsWith('text/event-stream');
    }
    const cache = this.cacheKey ? proxy.cache : null;
    if (cache && this.req.method === 'GET') {
      const obj: Record<string, string | string[]> = {};
      for (let i = 0; i < headers.length; i += 2) {
        const k = headers[i]!.toLowerCase();
        const prev = obj[k];
        obj[k] = prev === undefined ? headers[i + 1]! : ([] as string[]).concat(prev, headers[i + 1]!);
      }
      this.cacheLife = cacheLifetime(status, obj, cache.ttlMs);
      if (this.cacheLife > 0) {
        this.cacheChunks = [];
        delete obj['access-control-allow-origin'];
        delete obj['vary'];
        delete obj['access-control-allow-credentials'];
        this.cacheHeaders = obj;
      }
      headers.push('x-cache', 'MISS');
    }
    if (res.destroyed) {
      this.finish();
      return false;
    }
    try {
      res.writeHead(status, headers);
      // An event stream's client learns it is open from the head, before any event.
      if (stream) res.flushHeaders();
    } catch {
      // A header Node refuses to send: the answer cannot be passed on.
      this.cacheChunks = null;
      this.finish();
      res.destroy();
      return false;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.cacheChunks) {
      this.cacheBytes += chunk.length;
      if (this.cacheBytes > this.proxy.cache!.maxEntryBytes) this.cacheChunks = null;
      else this.cacheChunks.push(chunk);
    }
    // The first chunk of an answer of known length waits for the next one or for the end: a small
    // answer then leaves with its head in one res.end(). A stream's chunks (events, logs) go at once.
    const held = this.held;
    if (held === null && !this.writing && this.sized) {
      this.held = chunk;
      return true;
    }
    this.writing = true;
    if (held) {
      this.held = null;
      this.res.write(held);
    }
    const ok = this.res.write(chunk);
    if (!ok) this.res.once('drain', () => this.ex?.resume());
    return ok;
  }

  onEnd(): void {
    if (!this.finish()) return;
    const cache = this.proxy.cache;
    if (this.cacheChunks && this.cacheHeaders && this.cacheKey && cache) {
      cache.set(this.cacheKey, { status: this.status, headers: this.cacheHeaders, body: Buffer.concat(this.cacheChunks), expires: Date.now() + this.cacheLife });
    }
    const held = this.held;
    this.held = null;
    // As a latin1 string (the same bytes), a small answer joins its head in one write; a Buffer
    // would go out beside it through writev's heavier path.
    if (held) this.res.end(held.length <= SMALL_ANSWER ? held.toString('latin1') : held, 'latin1');
    else this.res.end();
  }

  onError(err: ErrorWithCode): void {
    if (!this.finish()) return;
    const { res, req, b } = this;
    const clientGone = res.destroyed || err.code === 'ABORTED';
    if (this.started || clientGone) return void res.destroy();
    if (retryable(err)) this.proxy.failed(b, err);
    // A refused connect never reached the backend: any body-less request may go elsewhere. A reset
    // after sending may have been acted on: only idempotent methods are sent again.
    const again = CONNECT_FAILED.has(err.code ?? '') || IDEMPOTENT.has(req.method ?? '');
    if (!this.hasBody && retryable(err) && again && this.proxy.backends.length > 1) {
      const t = this.tried ?? new Set<Backend>();
      t.add(b);
      if (t.size < this.proxy.backends.length) return this.proxy.attempt(req, res, this.ctx, this.extra, this.cacheKey, this.hasBody, t);
    }
    const timeout = err.code === 'HEADERS_TIMEOUT' || err.code === 'CONNECT_TIMEOUT';
    const text = timeout ? 'gateway timeout\n' : 'bad gateway\n';
    if (!res.headersSent) {
      res.writeHead(timeout ? 504 : 502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(text.length) });
      res.end(text);
    } else res.destroy();
  }
}

export class ReverseProxy {
  readonly backends: Backend[];
  private rr = 0;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private lowerReqHeaders: Array<[string, string]>;
  private resHeaderNames: Set<string>;

  constructor(
    readonly cfg: ProxyService,
    readonly cache: ResponseCache | null,
    private onBackendEvent: (e: BackendEvent) => void = () => undefined,
  ) {
    const timeoutMs = cfg.timeoutSeconds * 1000;
    this.backends = cfg.targets.map((t) => {
      const u = new URL(t);
      const tls = u.protocol === 'https:';
      const pool = new UpstreamPool(
        { tls, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (tls ? 443 : 80), rejectUnauthorized: !cfg.skipTlsVerify },
        { maxConnections: 256, idleMs: 30_000, timeoutMs, connectTimeoutMs: Math.min(10_000, timeoutMs) },
      );
      return {
        url: t,
        origin: u.origin,
        host: u.host,
        basePath: u.pathname === '/' ? '' : u.pathname.replace(/\/$/, ''),
        pool,
        active: 0,
        fails: 0,
        downUntil: 0,
        healthy: true,
      };
    });
    this.lowerReqHeaders = cfg.requestHeaders.map((h) => [h.name.toLowerCase(), h.value]);
    this.resHeaderNames = new Set(cfg.responseHeaders.map((h) => h.name.toLowerCase()));
    if (cfg.healthCheck.enable) {
      this.timer = setInterval(() => void this.checkAll(), cfg.healthCheck.intervalSeconds * 1000);
      this.timer.unref();
      void this.checkAll();
    }
  }

  private usable(b: Backend, now: number): boolean {
    return b.healthy && b.downUntil <= now;
  }

  /** The next backend, never one of `tried`; when every backend is out, the one out the longest is tried. */
  pick(clientIp: string, tried: Set<Backend> | null): Backend | undefined {
    const list = this.backends;
    const now = Date.now();
    const n = list.length;
    if (n === 1) {
      const b = list[0]!;
      return tried?.has(b) ? undefined : b;
    }
    const ok = (b: Backend) => this.usable(b, now) && !tried?.has(b);
    const mode = this.cfg.balance;
    if (mode === 'leastconn') {
      let best: Backend | undefined;
      for (let i = 0; i < n; i++) {
        const b = list[(this.rr + i) % n]!;
        if (ok(b) && (!best || b.active < best.active)) best = b;
      }
      this.rr = (this.rr + 1) % n;
      if (best) return best;
    } else {
      const start = mode === 'iphash' ? hashIp(clientIp) % n : this.rr++ % n;
      for (let i = 0; i < n; i++) {
        const b = list[(start + i) % n]!;
        if (ok(b)) return b;
      }
    }
    // Nothing healthy: rather try something than fail without trying.
    let fallback: Backend | undefined;
    for (const b of list) if (!tried?.has(b) && (!fallback || b.downUntil < fallback.downUntil)) fallback = b;
    return fallback;
  }

  failed(b: Backend, err: unknown): void {
    b.fails++;
    if (b.fails >= this.cfg.maxFails && b.downUntil <= Date.now()) {
      b.downUntil = Date.now() + this.cfg.failTimeoutSeconds * 1000;
      this.onBackendEvent({ kind: 'down', url: b.url, seconds: this.cfg.failTimeoutSeconds, detail: (err as Error).message || String(err) });
    }
  }

  succeeded(b: Backend): void {
    if (b.fails) b.fails = 0;
    if (b.downUntil) b.downUntil = 0;
  }

  private async checkAll(): Promise<void> {
    await Promise.all(
      this.backends.map(async (b) => {
        const healthy = await this.probe(b);
        if (this.closed) return;
        if (healthy !== b.healthy) this.onBackendEvent({ kind: 'check', url: b.url, up: healthy });
        b.healthy = healthy;
        if (healthy) this.succeeded(b);
      }),
    );
  }

  /** One health check: a 2xx or 3xx answer within the check's timeout. */
  private probe(b: Backend): Promise<boolean> {
    const hc = this.cfg.healthCheck;
    return new Promise((resolve) => {
      let status = 0;
      let ex: Exchange | null = null;
      const timer = setTimeout(() => {
        ex?.abort();
        resolve(false);
      }, hc.timeoutSeconds * 1000);
      const done = (ok: boolean) => {
        clearTimeout(timer);
        resolve(ok);
      };
      ex = b.pool.request(
        { method: 'GET', path: b.basePath + hc.path, headers: ['host', b.host, 'user-agent', 'lucky-health-check'] },
        {
          onHead: (s) => ((status = s), true),
          onData: () => true,
          onEnd: () => done(status >= 200 && status < 400),
          onError: () => done(false),
        },
      );
    });
  }

  /** Request headers for the backend, as a flat [name, value, ...] list. */
  private requestHeaders(req: IncomingMessage, b: Backend, ctx: ProxyContext): string[] {
    const raw = req.rawHeaders;
    const out: string[] = [];
    let connectionTokens: string | undefined;
    let xff = '';
    let xfp = '';
    let xfh = '';
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      if (name.length === 10 && name.toLowerCase() === 'connection') {
        connectionTokens = (connectionTokens ? connectionTokens + ',' : '') + raw[i + 1]!.toLowerCase();
      }
    }
    const dropped = connectionTokens ? new Set(connectionTokens.split(',').map((s) => s.trim())) : null;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const value = raw[i + 1]!;
      // h2's pseudo-headers (:method, :path, :authority...) are not headers of the backend's request.
      if (name.charCodeAt(0) === 58) continue;
      const lower = name.toLowerCase();
      if (HOP.has(lower) || dropped?.has(lower)) continue;
      if (this.cfg.forwardedHeaders && FORWARDED.has(lower)) {
        if (ctx.peerTrusted) {
          if (lower === 'x-forwarded-for') xff = xff ? `${xff}, ${value}` : value;
          else if (lower === 'x-forwarded-proto') xfp = value;
          else if (lower === 'x-forwarded-host') xfh = value;
        }
        continue;
      }
      out.push(name, value);
    }
    const host = hostOf(req);
    out.push('host', this.cfg.useRequestHost ? (host ?? b.host) : b.host);
    if (this.cfg.forwardedHeaders) {
      const peerPlain = peerIp(req);
      out.push('x-forwarded-for', xff ? `${xff}, ${peerPlain}` : peerPlain);
      out.push('x-forwarded-proto', xfp || (ctx.tls ? 'https' : 'http'));
      out.push('x-forwarded-host', xfh || host || '');
      out.push('x-real-ip', ctx.clientIp);
    }
    for (const [name, value] of this.lowerReqHeaders) {
      for (let i = 0; i < out.length; i += 2) {
        if (out[i]!.toLowerCase() === name) {
          out.splice(i, 2);
          i -= 2;
        }
      }
      if (value !== '') out.push(name, value);
    }
    return out;
  }

  /** Response headers for the client, hop-by-hop ones removed and the configured ones applied. */
  responseHeaders(raw: string[], extra: string[] | null): string[] {
    const out: string[] = [];
    const custom = this.resHeaderNames;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      // Only names of these lengths can be hop-by-hop: most headers skip the lower-casing. An
      // Upgrade offer (Apache's h2c) means nothing past this hop, and h2 refuses it.
      const n = name.length;
      if (n === 7 || n === 10 || n === 16 || n === 17) {
        const lower = name.toLowerCase();
        if (lower === 'connection' || lower === 'keep-alive' || lower === 'transfer-encoding' || lower === 'proxy-connection' || lower === 'upgrade') continue;
      }
      if (custom.size && custom.has(name.toLowerCase())) continue;
      out.push(name, raw[i + 1]!);
    }
    for (const h of this.cfg.responseHeaders) if (h.value !== '') out.push(h.name, h.value);
    if (extra) out.push(...extra);
    return out;
  }

  /**
   * Forwards one HTTP request. `extra` are response headers to add (CORS). `maxBody`, when given, is
   * the rule's body limit for a body of no announced length (chunked): past it the client gets 413.
   */
  handle(req: IncomingMessage, res: ServerResponse, ctx: ProxyContext, extra: string[] | null, cacheKey: string | null, maxBody = 0): void {
    if (cacheKey && this.cache) {
      const hit = this.cache.get(cacheKey);
      if (hit) {
        const headers: Record<string, string | string[]> = { ...hit.headers, 'x-cache': 'HIT' };
        if (extra) for (let i = 0; i < extra.length; i += 2) headers[extra[i]!] = extra[i + 1]!;
        res.writeHead(hit.status, headers);
        res.end(req.method === 'HEAD' ? undefined : hit.body);
        return;
      }
    }
    const hasBody = req.headers['content-length'] !== undefined ? req.headers['content-length'] !== '0' : req.headers['transfer-encoding'] !== undefined;
    const body = hasBody && maxBody > 0 && req.headers['content-length'] === undefined ? cappedBody(req, res, maxBody) : req;
    this.attempt(req, res, ctx, extra, cacheKey, hasBody, null, body);
  }

  /** Sends the request to the next backend (`tried` are those that failed it already). */
  attempt(
    req: IncomingMessage,
    res: TrackedResponse,
    ctx: ProxyContext,
    extra: string[] | null,
    cacheKey: string | null,
    hasBody: boolean,
    tried: Set<Backend> | null,
    body: Readable = req,
  ): void {
    const b = this.pick(ctx.clientIp, tried);
    if (!b) {
      if (!res.headersSent) {
        res.writeHead(502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '12' });
        res.end('bad gateway\n');
      } else res.destroy();
      return;
    }
    b.active++;
    const call = new ProxyCall(this, b, req, res, ctx, extra, cacheKey, hasBody, tried);
    // One listener per response, whichever attempt is current.
    if (res[CALL] === undefined) res.on('close', clientClosed);
    res[CALL] = call;
    const ex = b.pool.request({ method: req.method ?? 'GET', path: b.basePath + ctx.path, headers: this.requestHeaders(req, b, ctx), body: hasBody ? body : null }, call);
    call.ex = ex;
    if (res.destroyed) call.clientGone();
  }

  /** A websocket (or other) upgrade: the backend's 101 and then bytes both ways. */
  upgrade(req: IncomingMessage, client: TunnelClient, head: Buffer, ctx: ProxyContext): void {
    const out = client.stream;
    const b = this.pick(ctx.clientIp, null);
    if (!b) return client.refuse(502);
    const headers = this.requestHeaders(req, b, ctx);
    headers.push(...client.extraHeaders);
    b.active++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        b.active--;
      }
    };
    out.on('error', () => out.destroy());
    const idleMs = this.cfg.websocketIdleSeconds * 1000;
    const handler: UpstreamHandler = {
      onUpgrade: (statusCode, rawHeaders, upstream, rest) => {
        this.succeeded(b);
        client.switched(statusCode, rawHeaders);
        if (rest.length) out.write(rest);
        if (head.length) upstream.write(head);
        // Every byte either way crosses the backend socket: its inactivity is the tunnel's.
        if (idleMs > 0) (upstream as Socket).setTimeout(idleMs, () => upstream.destroy());
        upstream.on('error', () => out.destroy());
        upstream.on('close', () => {
          release();
          out.destroy();
        });
        out.on('close', () => upstream.destroy());
        upstream.pipe(out);
        out.pipe(upstream);
      },
      onHead: (statusCode, rawHeaders) => {
        // The backend refused the upgrade: pass its answer on and close.
        client.answered(statusCode, rawHeaders);
        return true;
      },
      onData: (chunk) => out.write(chunk),
      onEnd: () => {
        release();
        out.end();
      },
      onError: (err: ErrorWithCode) => {
        release();
        if (retryable(err)) this.failed(b, err);
        client.refuse(502);
      },
    };
    const ex = b.pool.request({ method: 'GET', path: b.basePath + ctx.path, headers, upgrade: client.protocol || 'websocket' }, handler);
    // Before the 101 the client leaving ends the attempt; after it, the two sides close each other.
    out.once('close', () => ex.abort());
  }

  /** Stops health checks; pools finish what is in flight, then close. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const b of this.backends) {
      const p = b.pool;
      p.close();
      setTimeout(() => p.destroy(), 30_000).unref();
    }
  }
}

/**
 * A chunked body counted on its way to the backend: past `max` bytes the client gets 413 (its
 * connection closes) and the body breaks off, which ends the exchange with the backend.
 */
function cappedBody(req: IncomingMessage, res: ServerResponse, max: number): Readable {
  let seen = 0;
  const out = new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      if (seen <= max) return done(null, chunk);
      if (!res.headersSent) {
        res.writeHead(413, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': '18', Connection: 'close' });
        res.end('payload too large\n');
      }
      done(new Error('request body too large'));
      req.destroy();
    },
  });
  // The exchange asks whether the client's body arrived whole.
  Object.defineProperty(out, 'complete', { get: () => req.complete && seen <= max });
  req.pipe(out);
  return out;
}
