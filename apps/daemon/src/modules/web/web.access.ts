/** Who is asking and may they: client IP through trusted proxies, IP and user-agent filters, basic auth, CORS. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { ZWebBasicAuth, ZWebCors, ZWebIpFilter, ZWebUaFilter } from '@lucky/contracts';
import { inCidr, ipBytes, parseCidr, type Cidr } from '../../core/cidr.js';
import { verifyPassword } from '../../core/password.js';

type IpFilter = z.output<typeof ZWebIpFilter>;
type UaFilter = z.output<typeof ZWebUaFilter>;
type BasicAuth = z.output<typeof ZWebBasicAuth>;
type Cors = z.output<typeof ZWebCors>;

/** `::ffff:1.2.3.4` → `1.2.3.4`; the form used in logs, filters and headers. */
export function plainIp(ip: string | undefined): string {
  if (!ip) return '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/** The client's address of a request the native data plane passed on (its `lucky-edge` header). */
const EDGE_PEER = Symbol('edgePeer');
type EdgeRequest = Pick<IncomingMessage, 'socket'> & { [EDGE_PEER]?: string };

/**
 * Takes the `lucky-edge: <address> <port> <scheme>` header off a request that came through the
 * native data plane (web.edge.ts): only the edge can reach these servers (a socketpair each), and it
 * drops any such header a client sent.
 */
export function takeEdgePeer(req: IncomingMessage): void {
  const meta = req.headers['lucky-edge'];
  if (typeof meta !== 'string') return;
  (req as EdgeRequest)[EDGE_PEER] = meta.slice(0, meta.indexOf(' ') >>> 0);
  delete req.headers['lucky-edge'];
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 10 && raw[i]!.toLowerCase() === 'lucky-edge') {
      raw.splice(i, 2);
      break;
    }
  }
}

/** The address the request's connection comes from (through the edge: the client's). */
export function peerIp(req: Pick<IncomingMessage, 'socket'>): string {
  return (req as EdgeRequest)[EDGE_PEER] ?? plainIp(req.socket.remoteAddress);
}

export function compileCidrs(list: readonly string[]): Cidr[] {
  return list.map((c) => parseCidr(c)).filter((c): c is Cidr => c !== null);
}

export function inAny(ip: string, list: readonly Cidr[]): boolean {
  if (list.length === 0) return false;
  const b = ipBytes(ip);
  return b !== null && list.some((c) => inCidr(b, c));
}

/**
 * The real client address. The peer is believed only when it is a trusted proxy; then the first
 * configured header that has a value decides. X-Forwarded-For is read right to left, skipping
 * trusted proxies, so a client cannot forge its address by prepending entries.
 */
export function clientIp(req: IncomingMessage, trusted: readonly Cidr[], headers: readonly string[]): string {
  const peer = peerIp(req);
  if (trusted.length === 0 || !inAny(peer, trusted)) return peer;
  for (const name of headers) {
    const raw = req.headers[name];
    const value = Array.isArray(raw) ? raw.join(',') : raw;
    if (!value) continue;
    const parts = value.split(',').map((s) => plainIp(s.trim()));
    for (let i = parts.length - 1; i >= 0; i--) {
      const p = parts[i]!;
      if (ipBytes(p) === null) break;
      if (i === 0 || !inAny(p, trusted)) return p;
    }
  }
  return peer;
}

export interface CompiledIpFilter {
  whitelist: boolean;
  list: Cidr[];
}
export function compileIpFilter(f: IpFilter): CompiledIpFilter | null {
  if (f.mode === 'off') return null;
  return { whitelist: f.mode === 'whitelist', list: compileCidrs(f.list) };
}
export function ipAllowed(ip: string, f: CompiledIpFilter): boolean {
  return inAny(ip, f.list) === f.whitelist;
}

export interface CompiledUaFilter {
  whitelist: boolean;
  list: string[];
}
export function compileUaFilter(f: UaFilter): CompiledUaFilter | null {
  if (f.mode === 'off') return null;
  return { whitelist: f.mode === 'whitelist', list: f.list.map((s) => s.toLowerCase()) };
}
export function uaAllowed(ua: string | undefined, f: CompiledUaFilter): boolean {
  const u = (ua ?? '').toLowerCase();
  const hit = u !== '' && f.list.some((s) => u.includes(s));
  return hit === f.whitelist;
}

/**
 * Basic auth against stored scrypt hashes. scrypt is slow on purpose, so a verified (or refused)
 * header is remembered for a short while, and checks of the same header run once at a time. One
 * client address has at most two checks running (as the defender bounds every login,
 * core/loginguard.ts): a flood of new guesses from one address is refused unchecked instead of
 * filling the thread pool, and another client's login is checked at once meanwhile.
 */
export class BasicAuthGate {
  private users = new Map<string, string>();
  private known = new Map<string, { ok: boolean; until: number }>();
  private pending = new Map<string, Promise<boolean>>();
  /** Checks running, by client address. */
  private running = new Map<string, number>();
  readonly challenge: string;
  static readonly PER_ADDRESS = 2;
  /** All addresses together: a spray from many addresses still leaves the pool to file I/O. */
  static readonly MAX_PENDING = 64;

  constructor(
    cfg: BasicAuth,
    private okMs = 5 * 60_000,
    private badMs = 5_000,
    /** Hears each header that verified, and for how long it stands (the native data plane then checks it itself). */
    private onVerified: ((header: string, ms: number) => void) | null = null,
  ) {
    for (const u of cfg.users) if (u.password) this.users.set(u.user, u.password);
    this.challenge = `Basic realm="${cfg.realm}", charset="UTF-8"`;
  }

  /** true/false when known at once, a promise otherwise; `ip` is the client's address. */
  check(header: string | undefined, ip = ''): boolean | Promise<boolean> {
    if (!header || !/^basic /i.test(header) || header.length > 4096) return false;
    const now = Date.now();
    const k = this.known.get(header);
    if (k && k.until > now) {
      if (k.ok) this.onVerified?.(header, k.until - now);
      return k.ok;
    }
    const p = this.pending.get(header);
    if (p) return p;
    // scrypt runs on libuv's small thread pool (shared with file I/O): guesses past the bounds are
    // refused at once instead of queueing there.
    const mine = this.running.get(ip) ?? 0;
    if (mine >= BasicAuthGate.PER_ADDRESS || this.pending.size >= BasicAuthGate.MAX_PENDING) return false;
    this.running.set(ip, mine + 1);
    const run = this.verify(header).then((ok) => {
      this.pending.delete(header);
      const left = (this.running.get(ip) ?? 1) - 1;
      if (left > 0) this.running.set(ip, left);
      else this.running.delete(ip);
      if (this.known.size > 4096) this.known.clear();
      this.known.set(header, { ok, until: Date.now() + (ok ? this.okMs : this.badMs) });
      if (ok) this.onVerified?.(header, this.okMs);
      return ok;
    });
    this.pending.set(header, run);
    return run;
  }

  private async verify(header: string): Promise<boolean> {
    const text = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
    const colon = text.indexOf(':');
    if (colon < 0) return false;
    const hash = this.users.get(text.slice(0, colon));
    if (!hash) return false;
    try {
      return await verifyPassword(text.slice(colon + 1), hash);
    } catch {
      return false;
    }
  }
}

export interface CompiledCors {
  any: boolean;
  origins: Set<string>;
  methods: string;
  headers: string;
  credentials: boolean;
  maxAge: string;
}
export function compileCors(c: Cors): CompiledCors | null {
  if (!c.enable) return null;
  return {
    any: c.origins.includes('*'),
    origins: new Set(c.origins.map((o) => o.toLowerCase().replace(/\/$/, ''))),
    methods: c.methods.join(', '),
    headers: c.headers.join(', '),
    credentials: c.credentials,
    maxAge: String(c.maxAgeSeconds),
  };
}

function originAllowed(c: CompiledCors, origin: string): boolean {
  return c.any || c.origins.has(origin.toLowerCase());
}

/** Adds the CORS answer headers to an actual (non-preflight) response. */
export function corsHeaders(c: CompiledCors, req: IncomingMessage, res: ServerResponse): void {
  const origin = req.headers.origin;
  if (!origin || !originAllowed(c, origin)) return;
  res.setHeader('Access-Control-Allow-Origin', c.any && !c.credentials ? '*' : origin);
  if (!(c.any && !c.credentials)) res.setHeader('Vary', 'Origin');
  if (c.credentials) res.setHeader('Access-Control-Allow-Credentials', 'true');
}

/** Answers a preflight request; returns false when the request is not one. */
export function corsPreflight(c: CompiledCors, req: IncomingMessage, res: ServerResponse): boolean {
  const origin = req.headers.origin;
  const wanted = req.headers['access-control-request-method'];
  if (req.method !== 'OPTIONS' || !origin || !wanted) return false;
  if (!originAllowed(c, origin)) {
    res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end('origin not allowed');
    return true;
  }
  const headers: Record<string, string> = {
    'Access-Control-Allow-Origin': c.any && !c.credentials ? '*' : origin,
    'Access-Control-Allow-Methods': c.methods,
    'Access-Control-Max-Age': c.maxAge,
    'Content-Length': '0',
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  };
  const reqHeaders = req.headers['access-control-request-headers'];
  if (c.headers) headers['Access-Control-Allow-Headers'] = c.headers;
  else if (reqHeaders) headers['Access-Control-Allow-Headers'] = reqHeaders;
  if (c.credentials) headers['Access-Control-Allow-Credentials'] = 'true';
  res.writeHead(204, headers);
  res.end();
  return true;
}
