/**
 * Reverse proxy on undici pools: one keep-alive pool per backend, round robin / least connections /
 * IP hash, passive health (errors take a backend out for a while) and optional active checks,
 * retries of body-less requests on the next backend, websockets through undici's upgrade.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import type { z } from 'zod';
import type { ZProxyService } from '@lucky/contracts';
import { cacheLifetime, type ResponseCache } from './web.cache.js';

type ProxyService = z.output<typeof ZProxyService>;

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
  pool: Pool;
  active: number;
  fails: number;
  downUntil: number;
  /** Set by active checks; passive state is `downUntil`. */
  healthy: boolean;
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

function retryable(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return (
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'EHOSTUNREACH' ||
    code === 'ENETUNREACH' ||
    code === 'EPIPE' ||
    code === 'ENOTFOUND' ||
    code === 'EAI_AGAIN' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_CLOSED'
  );
}

const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

function connectFailed(err: unknown): boolean {
  const code = (err as { code?: string }).code ?? '';
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'UND_ERR_CONNECT_TIMEOUT';
}

function hashIp(ip: string): number {
  let h = 2166136261;
  for (let i = 0; i < ip.length; i++) {
    h ^= ip.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
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
    private cache: ResponseCache | null,
    private onBackendEvent: (line: string) => void = () => undefined,
  ) {
    this.backends = cfg.targets.map((t) => {
      const u = new URL(t);
      const pool = new Pool(u.origin, {
        connections: 256,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
        headersTimeout: cfg.timeoutSeconds * 1000,
        bodyTimeout: cfg.timeoutSeconds * 1000,
        connectTimeout: Math.min(10_000, cfg.timeoutSeconds * 1000),
        ...(u.protocol === 'https:' ? { connect: { rejectUnauthorized: !cfg.skipTlsVerify, servername: u.hostname.replace(/^\[|\]$/g, '') } } : {}),
      });
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

  private failed(b: Backend, err: unknown): void {
    b.fails++;
    if (b.fails >= this.cfg.maxFails && b.downUntil <= Date.now()) {
      b.downUntil = Date.now() + this.cfg.failTimeoutSeconds * 1000;
      this.onBackendEvent(`backend ${b.url} marked down for ${this.cfg.failTimeoutSeconds}s: ${(err as Error).message || String(err)}`);
    }
  }

  private succeeded(b: Backend): void {
    if (b.fails) b.fails = 0;
    if (b.downUntil) b.downUntil = 0;
  }

  private async checkAll(): Promise<void> {
    const hc = this.cfg.healthCheck;
    await Promise.all(
      this.backends.map(async (b) => {
        let healthy = false;
        try {
          const r = await b.pool.request({
            path: b.basePath + hc.path,
            method: 'GET',
            headers: { host: b.host, 'user-agent': 'lucky-health-check' },
            headersTimeout: hc.timeoutSeconds * 1000,
            bodyTimeout: hc.timeoutSeconds * 1000,
          });
          await r.body.dump();
          healthy = r.statusCode >= 200 && r.statusCode < 400;
        } catch {
          healthy = false;
        }
        if (this.closed) return;
        if (healthy !== b.healthy) this.onBackendEvent(`backend ${b.url} health check: ${healthy ? 'up' : 'down'}`);
        b.healthy = healthy;
        if (healthy) this.succeeded(b);
      }),
    );
  }

  /** Request headers for the backend, as a flat [name, value, ...] list. */
  private requestHeaders(req: IncomingMessage, b: Backend, ctx: ProxyContext, upgrade: boolean): string[] {
    const raw = req.rawHeaders;
    const out: string[] = [];
    let connectionTokens: string | undefined;
    let xff = '';
    let xfp = '';
    let xfh = '';
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      if (lower === 'connection') connectionTokens = (connectionTokens ? connectionTokens + ',' : '') + raw[i + 1]!.toLowerCase();
    }
    const dropped = connectionTokens ? new Set(connectionTokens.split(',').map((s) => s.trim())) : null;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const value = raw[i + 1]!;
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
    out.push('host', this.cfg.useRequestHost ? (req.headers.host ?? b.host) : b.host);
    if (this.cfg.forwardedHeaders) {
      const peer = req.socket.remoteAddress ?? '';
      const peerPlain = peer.startsWith('::ffff:') ? peer.slice(7) : peer;
      out.push('x-forwarded-for', xff ? `${xff}, ${peerPlain}` : peerPlain);
      out.push('x-forwarded-proto', xfp || (ctx.tls ? 'https' : 'http'));
      out.push('x-forwarded-host', xfh || req.headers.host || '');
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
  private responseHeaders(raw: Buffer[], extra: string[] | null): string[] {
    const out: string[] = [];
    const custom = this.resHeaderNames;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toString('latin1');
      const lower = name.toLowerCase();
      if (lower === 'connection' || lower === 'keep-alive' || lower === 'transfer-encoding' || lower === 'proxy-connection') continue;
      if (custom.size && custom.has(lower)) continue;
      out.push(name, raw[i + 1]!.toString('latin1'));
    }
    for (const h of this.cfg.responseHeaders) if (h.value !== '') out.push(h.name, h.value);
    if (extra) out.push(...extra);
    return out;
  }

  /** Forwards one HTTP request. `extra` are response headers to add (CORS). */
  handle(req: IncomingMessage, res: ServerResponse, ctx: ProxyContext, extra: string[] | null, cacheKey: string | null): void {
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
    this.attempt(req, res, ctx, extra, cacheKey, hasBody, null);
  }

  private attempt(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: ProxyContext,
    extra: string[] | null,
    cacheKey: string | null,
    hasBody: boolean,
    tried: Set<Backend> | null,
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
    let abort: ((err?: Error) => void) | undefined;
    let resume: (() => void) | undefined;
    let started = false;
    let done = false;
    const cache = cacheKey ? this.cache : null;
    let cacheChunks: Buffer[] | null = null;
    let cacheBytes = 0;
    let cacheLife = 0;
    let cacheHeaders: Record<string, string | string[]> | null = null;
    let status = 0;
    const onClose = () => {
      if (!done) abort?.(new Error('client closed'));
    };
    res.once('close', onClose);
    const finish = () => {
      if (done) return false;
      done = true;
      b.active--;
      res.off('close', onClose);
      return true;
    };
    const handler: Dispatcher.DispatchHandler = {
      onConnect: (a: (err?: Error) => void) => {
        abort = a;
        if (res.destroyed) a(new Error('client closed'));
      },
      onHeaders: (statusCode: number, rawHeaders: Buffer[], r: () => void) => {
        resume = r;
        if (statusCode < 200) return true; // 1xx interim answers are not passed on
        started = true;
        status = statusCode;
        this.succeeded(b);
        const headers = this.responseHeaders(rawHeaders, extra);
        if (cache && (req.method === 'GET')) {
          const obj: Record<string, string | string[]> = {};
          for (let i = 0; i < headers.length; i += 2) {
            const k = headers[i]!.toLowerCase();
            const prev = obj[k];
            obj[k] = prev === undefined ? headers[i + 1]! : ([] as string[]).concat(prev, headers[i + 1]!);
          }
          cacheLife = cacheLifetime(statusCode, obj, cache.ttlMs);
          if (cacheLife > 0) {
            cacheChunks = [];
            delete obj['access-control-allow-origin'];
            delete obj['vary'];
            delete obj['access-control-allow-credentials'];
            cacheHeaders = obj;
          }
          headers.push('x-cache', 'MISS');
        }
        if (res.destroyed) return false;
        try {
          res.writeHead(statusCode, headers);
        } catch {
          // A header Node refuses to send: the answer cannot be passed on.
          cacheChunks = null;
          res.destroy();
          return false;
        }
        return true;
      },
      onData: (chunk: Buffer) => {
        if (cacheChunks) {
          cacheBytes += chunk.length;
          if (cacheBytes > cache!.maxEntryBytes) cacheChunks = null;
          else cacheChunks.push(chunk);
        }
        const ok = res.write(chunk);
        if (!ok) res.once('drain', () => resume?.());
        return ok;
      },
      onComplete: () => {
        if (!finish()) return;
        if (cacheChunks && cacheHeaders && cacheKey) {
          cache!.set(cacheKey, { status, headers: cacheHeaders, body: Buffer.concat(cacheChunks), expires: Date.now() + cacheLife });
        }
        res.end();
      },
      onError: (err: Error) => {
        if (!finish()) return;
        const clientGone = res.destroyed || (err as { message?: string }).message === 'client closed';
        if (!started && !clientGone && retryable(err)) this.failed(b, err);
        if (!started && !clientGone) {
          // A refused connect never reached the backend: any body-less request may go elsewhere. A
          // reset after sending may have been acted on: only idempotent methods are sent again.
          const again = connectFailed(err) || IDEMPOTENT.has(req.method ?? '');
          if (!hasBody && retryable(err) && again && this.backends.length > 1) {
            const t = tried ?? new Set<Backend>();
            t.add(b);
            if (t.size < this.backends.length) return this.attempt(req, res, ctx, extra, cacheKey, hasBody, t);
          }
          const code = (err as { code?: string }).code;
          const timeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT';
          const text = timeout ? 'gateway timeout\n' : 'bad gateway\n';
          if (!res.headersSent) {
            res.writeHead(timeout ? 504 : 502, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': String(text.length) });
            res.end(text);
          } else res.destroy();
          return;
        }
        res.destroy();
      },
    } as unknown as Dispatcher.DispatchHandler;
    const opts: Dispatcher.DispatchOptions = {
      path: b.basePath + ctx.path,
      method: req.method as Dispatcher.HttpMethod,
      headers: this.requestHeaders(req, b, ctx, false),
      body: hasBody ? req : null,
    };
    try {
      b.pool.dispatch(opts, handler);
    } catch (err) {
      (handler as unknown as { onError(e: Error): void }).onError(err as Error);
    }
  }

  /** A websocket (or other) upgrade: the backend's 101 and then bytes both ways. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer, ctx: ProxyContext): void {
    const b = this.pick(ctx.clientIp, null);
    if (!b) return void socket.destroy();
    const headers = this.requestHeaders(req, b, ctx, true);
    b.active++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        b.active--;
      }
    };
    socket.on('error', () => socket.destroy());
    const handler = {
      onConnect: (abort: (e?: Error) => void) => {
        socket.once('close', () => abort(new Error('client closed')));
      },
      onUpgrade: (statusCode: number, rawHeaders: Buffer[], upstream: Duplex) => {
        this.succeeded(b);
        let head101 = `HTTP/1.1 ${statusCode} Switching Protocols\r\n`;
        for (let i = 0; i < rawHeaders.length; i += 2) head101 += `${rawHeaders[i]!.toString('latin1')}: ${rawHeaders[i + 1]!.toString('latin1')}\r\n`;
        socket.write(head101 + '\r\n');
        if (head.length) upstream.write(head);
        upstream.on('error', () => socket.destroy());
        upstream.on('close', () => {
          release();
          socket.destroy();
        });
        socket.on('close', () => upstream.destroy());
        upstream.pipe(socket);
        socket.pipe(upstream);
      },
      onHeaders: (statusCode: number, rawHeaders: Buffer[]) => {
        // The backend refused the upgrade: pass its answer on and close.
        let text = `HTTP/1.1 ${statusCode} ${statusCode === 200 ? 'OK' : 'Upgrade Refused'}\r\n`;
        for (let i = 0; i < rawHeaders.length; i += 2) {
          const n = rawHeaders[i]!.toString('latin1');
          if (/^(connection|transfer-encoding|keep-alive)$/i.test(n)) continue;
          text += `${n}: ${rawHeaders[i + 1]!.toString('latin1')}\r\n`;
        }
        socket.write(text + 'Connection: close\r\n\r\n');
        return true;
      },
      onData: (chunk: Buffer) => socket.write(chunk),
      onComplete: () => {
        release();
        socket.end();
      },
      onError: (err: Error) => {
        release();
        if (retryable(err)) this.failed(b, err);
        if (socket.writable) socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        else socket.destroy();
      },
    };
    try {
      b.pool.dispatch(
        {
          path: b.basePath + ctx.path,
          method: 'GET',
          headers,
          upgrade: String(req.headers.upgrade ?? 'websocket'),
        },
        handler as unknown as Dispatcher.DispatchHandler,
      );
    } catch (err) {
      handler.onError(err as Error);
    }
  }

  /** Stops health checks; pools finish what is in flight, then close. */
  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const b of this.backends) {
      const p = b.pool;
      void p.close().catch(() => undefined);
      setTimeout(() => void p.destroy().catch(() => undefined), 30_000).unref();
    }
  }
}
