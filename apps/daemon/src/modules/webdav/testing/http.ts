/** One raw HTTP request, its path sent exactly as given (no URL normalisation on the way). */
import { request } from 'node:http';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function dav(port: number, method: string, path: string, o: { auth?: [string, string]; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.auth) headers.authorization = `Basic ${Buffer.from(`${o.auth[0]}:${o.auth[1]}`).toString('base64')}`;
    if (o.body !== undefined) headers['content-length'] = String(Buffer.byteLength(o.body));
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end(o.body);
  });
}
