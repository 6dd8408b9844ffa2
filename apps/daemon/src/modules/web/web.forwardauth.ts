/**
 * Forward auth, as Traefik, Caddy and nginx's auth_request do it for Authelia, Authentik and
 * oauth2-proxy: before a request of the site is served, the authorizer gets a GET with the client's
 * headers (no body) and where the request was going (X-Forwarded-Method/-Proto/-Host/-Uri/-For, and
 * X-Original-URL/-Method for nginx-style endpoints). A 2xx lets the request through, with the
 * headers the rule names copied from that answer; any other answer (a 302 to the login page, a 401
 * with its challenge, a 403) goes back to the client as it is. An authorizer that cannot be asked
 * lets nothing through (503).
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { WebSubRule } from '@lucky/contracts';

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
  private readonly url: URL;
  private readonly agent: HttpAgent;
  /** The copied headers, lower-cased: dropped from every client request of the site first. */
  readonly copied: string[];

  constructor(
    private readonly cfg: Config,
    /** The authorizer could not be asked (for the rule's log). */
    private readonly onFailure: (url: string, detail: string) => void,
  ) {
    this.url = new URL(cfg.url);
    const opts = { keepAlive: true, maxFreeSockets: 16, timeout: 15_000 };
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ ...opts, rejectUnauthorized: !cfg.skipTlsVerify }) : new HttpAgent(opts);
    this.copied = cfg.copyHeaders.map((h) => h.toLowerCase());
  }

  check(req: IncomingMessage, r: ForwardRequest): Promise<ForwardVerdict> {
    const headers: Record<string, string | string[]> = {};
    const raw = req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const lower = name.toLowerCase();
      // h2's pseudo-headers are not headers; X-Forwarded-* and X-Original-* are ours to say.
      if (name.charCodeAt(0) === 58 || NOT_SENT.has(lower) || lower.startsWith('x-forwarded-') || lower.startsWith('x-original-')) continue;
      const had = headers[lower];
      headers[lower] = had === undefined ? raw[i + 1]! : lower === 'cookie' ? `${String(had)}; ${raw[i + 1]!}` : [...(Array.isArray(had) ? had : [had]), raw[i + 1]!];
    }
    const proto = r.tls ? 'https' : 'http';
    const method = req.method ?? 'GET';
    Object.assign(headers, {
      'x-forwarded-method': method,
      'x-forwarded-proto': proto,
      'x-forwarded-host': r.host,
      'x-forwarded-uri': r.path,
      'x-forwarded-for': r.clientIp,
      'x-real-ip': r.clientIp,
      'x-original-url': `${proto}://${r.host}${r.path}`,
      'x-original-method': method,
    });
    return new Promise((resolve) => {
      const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
      const ask = send(this.url, { method: 'GET', headers, agent: this.agent, timeout: this.cfg.timeoutSeconds * 1000 }, (res) => {
        const status = res.statusCode ?? 502;
        if (status >= 200 && status < 300) {
          res.resume();
          const out: string[] = [];
          const back = res.rawHeaders;
          for (let i = 0; i < back.length; i += 2) if (this.copied.includes(back[i]!.toLowerCase())) out.push(back[i]!, back[i + 1]!);
          return resolve({ pass: true, headers: out });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          if (size >= ANSWER_MAX) return;
          chunks.push(c.subarray(0, ANSWER_MAX - size));
          size += c.length;
        });
        res.on('end', () => {
          const out: string[] = [];
          const back = res.rawHeaders;
          for (let i = 0; i < back.length; i += 2) if (!NOT_RETURNED.has(back[i]!.toLowerCase())) out.push(back[i]!, back[i + 1]!);
          resolve({ pass: false, status, headers: out, body: Buffer.concat(chunks) });
        });
        res.on('error', () => resolve(UNAVAILABLE));
      });
      ask.on('timeout', () => ask.destroy(new Error(`no answer in ${this.cfg.timeoutSeconds} s`)));
      ask.on('error', (err) => {
        this.onFailure(this.cfg.url, err.message);
        resolve(UNAVAILABLE);
      });
      ask.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
