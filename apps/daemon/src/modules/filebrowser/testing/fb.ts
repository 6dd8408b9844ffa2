/**
 * Test helpers of the file browser: a real daemon listening on a real socket (storages come from
 * test/storages.ts), raw HTTP requests (streamed bodies, aborted requests, Range), chunked uploads and
 * downloads hashed as they stream. Never compiled into the build.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { TOKEN_HEADER, type FbUpload } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../../test/harness.js';

export async function startFb(opts: Parameters<typeof startTestDaemon>[0] = {}): Promise<TestDaemon & { port: number }> {
  const d = await startTestDaemon(opts);
  await d.runtime.listen();
  return Object.assign(d, { port: d.runtime.port() });
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T & { ret: number; msg?: string };
}

export interface RawOptions {
  headers?: Record<string, string>;
  body?: Buffer | string | Readable;
  /** No session token (public routes). */
  anonymous?: boolean;
  /** Hash the body as it comes instead of keeping it (large downloads). */
  hash?: boolean;
}

/** One HTTP request on a real socket; the body is kept, or only hashed (`hash`: sha256 in `text`). */
export function raw(d: TestDaemon & { port: number }, method: string, path: string, o: RawOptions = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'lucky-lang': 'en_US', ...o.headers };
    if (!o.anonymous) headers[TOKEN_HEADER] = d.token;
    if (typeof o.body === 'string' || Buffer.isBuffer(o.body)) headers['content-length'] = String(Buffer.byteLength(o.body));
    const req = request({ host: '127.0.0.1', port: d.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      const h = createHash('sha256');
      let n = 0;
      res.on('data', (c: Buffer) => {
        n += c.length;
        if (o.hash) h.update(c);
        else chunks.push(c);
      });
      res.on('end', () => {
        const body = o.hash ? Buffer.alloc(0) : Buffer.concat(chunks);
        const text = o.hash ? h.digest('hex') : body.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text, json: () => JSON.parse(text), ...(o.hash ? { size: n } : {}) } as Raw);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (o.body instanceof Readable) o.body.pipe(req);
    else req.end(o.body);
  });
}

export async function api<T = Record<string, unknown>>(d: TestDaemon & { port: number }, method: string, path: string, body?: unknown): Promise<T & { ret: number; msg?: string }> {
  const r = await raw(d, method, path, body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (r.status !== 200) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.text}`);
  return r.json<T>();
}

export const q = (o: Record<string, string | number>) => new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();

/** A deterministic pseudo-random stream of `size` bytes (incompressible, same bytes for the same seed). */
export function pseudoRandom(size: number, seed = 1, from = 0): Readable {
  const block = Buffer.alloc(1 << 20);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < block.length; i += 4) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    block.writeUInt32LE(x >>> 0, i);
  }
  let pos = from;
  const end = size;
  return new Readable({
    read() {
      if (pos >= end) return this.push(null);
      const off = pos % block.length;
      const n = Math.min(block.length - off, end - pos);
      this.push(Buffer.from(block.subarray(off, off + n)));
      pos += n;
    },
  });
}

export async function sha256Of(s: Readable): Promise<string> {
  const h = createHash('sha256');
  for await (const c of s) h.update(c as Buffer);
  return h.digest('hex');
}

/** Upload through the API in chunks; answers the upload as it ended. */
export async function uploadChunked(d: TestDaemon & { port: number }, storage: string, path: string, size: number, source: (from: number, to: number) => Readable, chunk = 8 << 20): Promise<FbUpload> {
  const c = await api<{ upload: FbUpload }>(d, 'POST', '/api/filebrowser/uploads', { storage, path, size });
  if (c.ret !== 0) throw new Error(`upload create: ${c.msg}`);
  let u = c.upload;
  while (u.offset < size) {
    const to = Math.min(size, u.offset + chunk);
    const r = await raw(d, 'PATCH', `/api/filebrowser/uploads/${u.id}?offset=${u.offset}`, { body: source(u.offset, to), headers: { 'content-type': 'application/octet-stream', 'content-length': String(to - u.offset) } });
    const j = r.json<{ upload: FbUpload }>();
    if (j.ret !== 0) throw new Error(`chunk at ${u.offset}: ${j.msg}`);
    u = j.upload;
  }
  const done = await api(d, 'POST', `/api/filebrowser/uploads/${u.id}/complete`);
  if (done.ret !== 0) throw new Error(`complete: ${done.msg}`);
  return u;
}
