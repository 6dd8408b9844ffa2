/**
 * One plain HTTP/1.1 request to a loopback port on a connection of its own, answered whole: what the
 * web tests ask a rule with (a Host of their choosing, a source address of loopback's, a form or a
 * chunked body). Redirects are not followed: the tests look at them.
 */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface HitAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Hit {
  host?: string;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  /** Sent with its length, as a form unless `headers` says otherwise; chunked when `chunked`. */
  body?: string;
  chunked?: boolean;
  /** The source address (127.0.0.2: another client of loopback). */
  from?: string;
}

export function hit(port: number, o: Hit = {}): Promise<HitAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...(o.host ? { host: o.host } : {}) };
    if (o.body !== undefined) {
      if (o.chunked) headers['transfer-encoding'] = 'chunked';
      else headers['content-length'] = String(Buffer.byteLength(o.body));
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    Object.assign(headers, o.headers);
    const req = request({ host: '127.0.0.1', port, path: o.path ?? '/', method: o.method ?? 'GET', agent: false, headers, ...(o.from ? { localAddress: o.from } : {}) }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** The same for a whole URL on loopback (its host, with its port, is the Host header). */
export function hitUrl(url: string, o: Omit<Hit, 'host' | 'path'> = {}): Promise<HitAnswer> {
  const u = new URL(url);
  return hit(Number(u.port), { ...o, host: u.host, path: u.pathname + u.search });
}
