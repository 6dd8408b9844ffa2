/**
 * Forward auth, as Traefik, Caddy and nginx's auth_request do it for Authelia, Authentik and
 * oauth2-proxy: before a request of the site is served, the authorizer gets a GET with the client's
 * headers (no body) and where the request was going (X-Forwarded-Method/-Proto/-Host/-Uri/-For, and
 * X-Original-URL/-Method for nginx-style endpoints). A 2xx lets the request through, with the
 * headers the rule names copied from that answer; any other answer (a 302 to the login page, a 401
 * with its challenge, a 403) goes back to the client as it is. An authorizer that cannot be asked
 * lets nothing through (503).
 */
import type { IncomingMessage } from 'node:http';
import type { WebSubRule } from '@lucky/contracts';
import { UpstreamPool } from './web.upstream.js';

type Config = WebSubRule['forwardAuth'];

/** Not passed to the authorizer: hop-by-hop, and what only a body would need. */
const NOT_SENT = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect', 'http2-settings']);
/** Not passed back from a refusal: hop-by-hop (the length is that of the body we send). */
const NOT_RETURNED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']);
const ANSWER_MAX = 64 * 1024;

export type ForwardVerdict =
  /** May pass: the headers to set on the upstream request, as [name, value, ...]. */
  | { pass: true; headers: string[] }
  | { pass: false; status: number; headers: string[]; body: Buffer };

export interface ForwardRequest {
  clientIp: string;
  tls: boolean;
  /** The Host the client asked for (with its port, as sent). */
  host: string;
  /** Path and query. */
  path: string;
}

const UNAVAILABLE: ForwardVerdict = { pass: false, status: 503, headers: ['Content-Type', 'text/plain; charset=utf-8'], body: Buffer.from('authorizer unavailable\n') };

export class ForwardAuth {
  /** The authorizer's kept-alive connections: the proxy's own client (web.upstream.ts). */
  private readonly pool: UpstreamPool;
  private readonly path: string;
  private readonly host: string;
  /** The copied headers, lower-cased: dropped from every client request of the site first. */
  readonly copied: string[];

  constructor(
    private readonly cfg: Config,
    /** The authorizer could not be asked (for the rule's log). */
    private readonly onFailure: (url: string, detail: string) => void,
  ) {
    const u = new URL(cfg.url);
    const tls = u.protocol === 'https:';
    const timeoutMs = cfg.timeoutSeconds * 1000;
    this.pool = new UpstreamPool(
      { tls, hostname: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || (tls ? 443 : 80), rejectUnauthorized: !cfg.skipTlsVerify },
      { maxConnections: 256, idleMs: 30_000, timeoutMs, connectTimeoutMs: Math.min(10_000, timeoutMs) },
    );
    this.path = u.pathname + u.search;
    this.host = u.host;
    this.copied = cfg.copyHeaders.map((h) => h.toLowerCase());
  }

  check(req: IncomingMessage, r: ForwardRequest): Promise<ForwardVerdict> {
    const headers: string[] = [];
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      // h2's pseudo-headers are not headers; X-Forwarded-* and X-Original-* are ours to say.
      if (name.charCodeAt(0) === 58 || NOT_SENT.has(lower) || lower.startsWith('x-forwarded-') || lower.startsWith('x-original-')) continue;
      headers.push(name, raw[i + 1]!);
    }
    const proto = r.tls ? 'https' : 'http';
    const method = req.method ?? 'GET';
    headers.push(
      'host', this.host,
      'x-forwarded-method', method,
      'x-forwarded-proto', proto,
      'x-forwarded-host', r.host,
      'x-forwarded-uri', r.path,
      'x-forwarded-for', r.clientIp,
      'x-real-ip', r.clientIp,
      'x-original-url', `${proto}://${r.host}${r.path}`,
      'x-original-method', method,
    );
    return new Promise((resolve) => {
      let status = 0;
      let head: string[] = [];
      const chunks: Buffer[] = [];
      let size = 0;
      const passes = () => status >= 200 && status < 300;
      this.pool.request(
        { method: 'GET', path: this.path, headers },
        {
          onHead: (s, h) => {
            status = s;
            head = h;
            return true;
          },
          onData: (chunk) => {
            // A 2xx's body means nothing; a refusal's goes to the client, within bounds.
            if (!passes() && size < ANSWER_MAX) chunks.push(chunk.subarray(0, ANSWER_MAX - size));
            size += chunk.length;
            return true;
          },
          onEnd: () => {
            const out: string[] = [];
            for (let i = 0; i < head.length; i += 2) {
              const lower = head[i]!.toLowerCase();
              if (passes() ? this.copied.includes(lower) : !NOT_RETURNED.has(lower)) out.push(head[i]!, head[i + 1]!);
            }
            resolve(passes() ? { pass: true, headers: out } : { pass: false, status, headers: out, body: Buffer.concat(chunks) });
          },
          onError: (err) => {
            this.onFailure(this.cfg.url, err.message);
            resolve(UNAVAILABLE);
          },
        },
      );
    });
  }

  close(): void {
    this.pool.close();
  }
}
