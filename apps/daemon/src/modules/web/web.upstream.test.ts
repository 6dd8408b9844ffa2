/**
 * The proxy's HTTP/1.1 client against raw TCP backends that write exactly what a case needs, split
 * across reads where it matters: framing (length, chunked, to the close), interim answers, keep-alive
 * reuse and its limits, a kept-alive connection closed by the backend, timeouts, request bodies,
 * backpressure, the connection limit and upgrades. Every wait is bounded.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { PassThrough, type Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHead, type ResponseHead } from './web.response.js';
import { UpstreamPool, type UpstreamOptions, type UpstreamRequest } from './web.upstream.js';

describe('response head parsing', () => {
  const ok = (text: string) => parseHead(text) as ResponseHead;

  it('reads status, headers and framing', () => {
    const h = ok('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 12\r\nConnection: keep-alive');
    expect(h).toMatchObject({ status: 200, contentLength: 12, chunked: false, close: false, keepAliveMs: -1 });
    expect(h.headers).toEqual(['Content-Type', 'text/plain', 'Content-Length', '12', 'Connection', 'keep-alive']);
    expect(ok('HTTP/1.1 204 No Content').headers).toEqual([]);
    expect(ok('HTTP/1.1 200').status).toBe(200);
    expect(ok('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked').chunked).toBe(true);
    expect(ok('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip')).toMatchObject({ chunked: false, otherEncoding: true });
    expect(ok('HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\ncontent-length: 5').contentLength).toBe(5);
    expect(ok('HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Pad: \t v \t').headers).toEqual(['X-Empty', '', 'X-Pad', 'v']);
  });

  it('knows when the backend keeps the connection, and for how long', () => {
    expect(ok('HTTP/1.1 200 OK\r\nConnection: close').close).toBe(true);
    expect(ok('HTTP/1.1 200 OK\r\nConnection: Upgrade, Close').close).toBe(true);
    expect(ok('HTTP/1.0 200 OK').close).toBe(true);
    expect(ok('HTTP/1.0 200 OK\r\nConnection: Keep-Alive').close).toBe(false);
    expect(ok('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100').keepAliveMs).toBe(5000);
  });

  it('refuses what cannot be framed safely', () => {
    for (const bad of [
      'HTTP/2 200 OK',
      'HTTP/1.1 20 OK',
      'HTTP/1.1 2000 OK',
      'HTTP/1.1 abc OK',
      'ICY 200 OK',
      'HTTP/1.1 200 OK\r\nNo colon here',
      'HTTP/1.1 200 OK\r\n: empty name',
      'HTTP/1.1 200 OK\r\nBad Name: x',
      'HTTP/1.1 200 OK\r\n folded: x',
      'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6',
      'HTTP/1.1 200 OK\r\nContent-Length: -1',
      'HTTP/1.1 200 OK\r\nContent-Length: 0x10',
      'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked',
    ]) {
      expect(typeof parseHead(bad), bad).toBe('string');
    }
  });
});

interface Answer {
  status: number;
  headers: string[];
  body: string;
  error: string | null;
}

/** A raw backend: `reply` gets each connection and the request text read so far. */
async function rawBackend(onRequest: (sock: Socket, request: string, conn: number) => void): Promise<{ server: Server; port: number; conns: number }> {
  const b = { server: createServer(), port: 0, conns: 0 };
  b.server.on('connection', (sock) => {
    const conn = ++b.conns;
    let buf = '';
    sock.on('error', () => undefined);
    sock.on('data', (d) => {
      buf += d.toString('latin1');
      // One request at a time: its head, and a body by Content-Length or to "0\r\n\r\n".
      for (;;) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.slice(0, end);
        const len = /content-length: (\d+)/i.exec(head);
        let total = end + 4;
        if (len) total += Number(len[1]);
        else if (/transfer-encoding: chunked/i.test(head)) {
          const z = buf.indexOf('\r\n0\r\n\r\n', end);
          if (z < 0) return;
          total = z + 7;
        }
        if (buf.length < total) return;
        const request = buf.slice(0, total);
        buf = buf.slice(total);
        onRequest(sock, request, conn);
      }
    });
  });
  b.port = await new Promise<number>((r) => b.server.listen(0, '127.0.0.1', () => r((b.server.address() as { port: number }).port)));
  return b;
}

/** Writes the parts with a pause between them, so that they arrive as separate reads. */
async function dribble(sock: Socket, parts: string[], gapMs = 15): Promise<void> {
  for (const p of parts) {
    sock.write(p);
    await new Promise((r) => setTimeout(r, gapMs));
  }
}

const servers: Server[] = [];
const pools: UpstreamPool[] = [];
afterEach(() => {
  for (const p of pools.splice(0)) p.destroy();
  for (const s of servers.splice(0)) s.close();
});

function pool(port: number, o: Partial<UpstreamOptions> = {}): UpstreamPool {
  const p = new UpstreamPool({ tls: false, hostname: '127.0.0.1', port, rejectUnauthorized: true }, { maxConnections: 8, idleMs: 30_000, timeoutMs: 5000, connectTimeoutMs: 2000, ...o });
  pools.push(p);
  return p;
}

function fetchVia(p: UpstreamPool, r: Partial<UpstreamRequest> = {}, onChunk?: (c: Buffer) => boolean): Promise<Answer> {
  return new Promise((resolve) => {
    const a: Answer = { status: 0, headers: [], body: '', error: null };
    const t = setTimeout(() => resolve({ ...a, error: 'test timeout' }), 8000);
    p.request(
      { method: 'GET', path: '/', headers: ['host', 'backend'], ...r },
      {
        onHead: (status, headers) => {
          a.status = status;
          a.headers = headers;
          return true;
        },
        onData: (c) => {
          a.body += c.toString('latin1');
          return onChunk ? onChunk(c) : true;
        },
        onEnd: () => {
          clearTimeout(t);
          resolve(a);
        },
        onError: (err) => {
          clearTimeout(t);
          resolve({ ...a, error: err.code ?? err.message });
        },
      },
    );
  });
}

describe('upstream pool', () => {
  it('reads heads and bodies split anywhere: length, chunked with extensions and trailers, to the close', async () => {
    const b = await rawBackend((sock, req) => {
      if (req.startsWith('GET /len ')) void dribble(sock, ['HTTP/1.1 200 OK\r\nContent-Le', 'ngth: 11\r\n\r', '\nhello', ' world']);
      if (req.startsWith('GET /chunked ')) {
        void dribble(sock, ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhel', 'lo\r', '\n', '6\r\n wor', 'ld\r\n0\r\nX-Trailer: t\r\n', '\r\n']);
      }
      if (req.startsWith('GET /close ')) void dribble(sock, ['HTTP/1.1 200 OK\r\n\r\nuntil ', 'the close']).then(() => sock.end());
      if (req.startsWith('GET /interim ')) void dribble(sock, ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok']);
    });
    servers.push(b.server);
    const p = pool(b.port);
    expect(await fetchVia(p, { path: '/len' })).toMatchObject({ status: 200, body: 'hello world', error: null });
    expect(await fetchVia(p, { path: '/chunked' })).toMatchObject({ status: 200, body: 'hello world', error: null });
    expect(await fetchVia(p, { path: '/interim' })).toMatchObject({ status: 200, body: 'ok', headers: ['Content-Length', '2'] });
    expect(await fetchVia(p, { path: '/close' })).toMatchObject({ status: 200, body: 'until the close', error: null });
  });

  it('keeps connections alive, except after close, extra bytes, or a body that ran to the close', async () => {
    const b = await rawBackend((sock, req) => {
      const path = req.split(' ')[1];
      if (path === '/close') sock.write('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx');
      else if (path === '/extra') sock.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxJUNK');
      else if (path === '/head') sock.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n');
      else if (path === '/nocontent') sock.write('HTTP/1.1 204 No Content\r\n\r\n');
      else sock.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nk');
    });
    servers.push(b.server);
    const p = pool(b.port);
    for (let i = 0; i < 3; i++) expect((await fetchVia(p)).body).toBe('k');
    expect(b.conns).toBe(1);
    // No body for HEAD or 204, whatever the head says; the connection stays usable.
    expect(await fetchVia(p, { method: 'HEAD', path: '/head' })).toMatchObject({ status: 200, body: '', error: null });
    expect(await fetchVia(p, { path: '/nocontent' })).toMatchObject({ status: 204, body: '', error: null });
    expect(b.conns).toBe(1);
    await fetchVia(p, { path: '/close' });
    await fetchVia(p);
    expect(b.conns).toBe(2);
    expect((await fetchVia(p, { path: '/extra' })).body).toBe('x');
    await fetchVia(p);
    expect(b.conns).toBe(3);
  });

  it('sends a request again on a new connection when the kept-alive one turns out closed', async () => {
    const served = new Map<number, number>();
    const b = await rawBackend((sock, _req, conn) => {
      const n = (served.get(conn) ?? 0) + 1;
      served.set(conn, n);
      // Each connection's second request crosses the backend's close: no answer, just the end.
      if (n === 2) return void sock.end();
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok');
    });
    servers.push(b.server);
    const p = pool(b.port);
    expect((await fetchVia(p)).body).toBe('ok');
    expect(await fetchVia(p)).toMatchObject({ body: 'ok', error: null });
    expect(b.conns).toBe(2);
    // Not a request that may have been acted on: one with a body (it cannot be read again either),
    // or a non-idempotent one.
    const body = new PassThrough();
    const a = fetchVia(p, { method: 'PUT', headers: ['host', 'b', 'content-length', '1'], body });
    body.end('x');
    expect((await a).error).toBe('UPSTREAM_CLOSED');
    expect((await fetchVia(p)).body).toBe('ok');
    expect((await fetchVia(p, { method: 'POST' })).error).toBe('UPSTREAM_CLOSED');
  });

  it('retires idle connections after the time the backend announced, less a margin', async () => {
    const b = await rawBackend((sock) => sock.write('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=2\r\nContent-Length: 1\r\n\r\nk'));
    servers.push(b.server);
    const p = pool(b.port, { timeoutMs: 400 });
    await fetchVia(p);
    // timeout=2 less the 2 s margin: not kept at all.
    await new Promise((r) => setTimeout(r, 20));
    expect(p.connections).toBe(0);
  });

  it('fails a silent backend with a headers timeout, and a stalled body with a body timeout', async () => {
    const b = await rawBackend((sock, req) => {
      if (req.startsWith('GET /stall ')) sock.write('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc');
    });
    servers.push(b.server);
    const p = pool(b.port, { timeoutMs: 300 });
    const t0 = Date.now();
    expect((await fetchVia(p)).error).toBe('HEADERS_TIMEOUT');
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(await fetchVia(p, { path: '/stall' })).toMatchObject({ status: 200, body: 'abc', error: 'BODY_TIMEOUT' });
  });

  it('refuses a malformed answer and reports a refused connection by its code', async () => {
    const b = await rawBackend((sock) => sock.write('HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n'));
    servers.push(b.server);
    expect((await fetchVia(pool(b.port))).error).toBe('BAD_RESPONSE');
    const closed = await rawBackend(() => undefined);
    closed.server.close();
    await new Promise((r) => setTimeout(r, 20));
    expect((await fetchVia(pool(closed.port))).error).toBe('ECONNREFUSED');
  });

  it('streams request bodies by their length, or chunked when they have none', async () => {
    const seen: string[] = [];
    const b = await rawBackend((sock, req) => {
      seen.push(req);
      sock.write('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n');
    });
    servers.push(b.server);
    const p = pool(b.port);
    const fixed = new PassThrough();
    const a = fetchVia(p, { method: 'PUT', path: '/f', headers: ['host', 'b', 'content-length', '10'], body: fixed });
    fixed.write('01234');
    setTimeout(() => fixed.end('56789'), 20);
    expect((await a).error).toBeNull();
    expect(seen[0]).toMatch(/\r\n\r\n0123456789$/);
    const open = new PassThrough();
    const c = fetchVia(p, { method: 'POST', path: '/c', headers: ['host', 'b'], body: open });
    open.write('abc');
    setTimeout(() => open.end('defgh'), 20);
    expect((await c).error).toBeNull();
    expect(seen[1]).toMatch(/transfer-encoding: chunked\r\n\r\n3\r\nabc\r\n5\r\ndefgh\r\n0\r\n\r\n$/);
    // A body-less POST still tells strict backends its length.
    await fetchVia(p, { method: 'POST', path: '/empty' });
    expect(seen[2]).toMatch(/content-length: 0\r\n\r\n$/);
  });

  it('holds reading while the handler is paused, and queues beyond the connection limit', async () => {
    const big = 'x'.repeat(300_000);
    const b = await rawBackend((sock) => sock.write(`HTTP/1.1 200 OK\r\nContent-Length: ${big.length}\r\n\r\n${big}`));
    servers.push(b.server);
    const p = pool(b.port, { maxConnections: 1 });
    let pauses = 0;
    let ex: { resume(): void } | null = null;
    const got = new Promise<Answer>((resolve) => {
      const a: Answer = { status: 0, headers: [], body: '', error: null };
      ex = p.request(
        { method: 'GET', path: '/', headers: ['host', 'b'] },
        {
          onHead: (s) => ((a.status = s), true),
          onData: (c) => {
            // Paused after every chunk, the last one too: the connection must read again for the next request.
            a.body += c.toString('latin1');
            pauses++;
            setTimeout(() => ex!.resume(), 5);
            return false;
          },
          onEnd: () => resolve(a),
          onError: (e) => resolve({ ...a, error: e.message }),
        },
      );
    });
    const second = fetchVia(p);
    expect((await got).body.length).toBe(big.length);
    expect(pauses).toBeGreaterThan(1);
    expect((await second).body.length).toBe(big.length);
    expect(b.conns).toBe(1);
  });

  it('hands over the socket on a 101, with what followed the head', async () => {
    const b = await rawBackend((sock, req) => {
      expect(req).toMatch(/connection: upgrade\r\nupgrade: websocket\r\n/);
      sock.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\nfirst');
      sock.on('data', (d) => sock.write(`echo:${d.toString()}`));
    });
    servers.push(b.server);
    const p = pool(b.port);
    const up = await new Promise<{ status: number; socket: Duplex; rest: string }>((resolve, reject) => {
      p.request(
        { method: 'GET', path: '/ws', headers: ['host', 'b'], upgrade: 'websocket' },
        {
          onHead: () => true,
          onData: () => true,
          onEnd: () => reject(new Error('no upgrade')),
          onError: reject,
          onUpgrade: (status, _h, socket, rest) => resolve({ status, socket, rest: rest.toString() }),
        },
      );
    });
    expect(up).toMatchObject({ status: 101, rest: 'first' });
    up.socket.write('hi');
    const echo = await new Promise<string>((r) => up.socket.once('data', (d: Buffer) => r(d.toString())));
    expect(echo).toBe('echo:hi');
    up.socket.destroy();
  });
});
