/**
 * HTTP/2 on HTTPS web rules, with real clients: curl --http2 and nghttp through a TLS rule to a
 * proxied backend, a file server and a redirect; HTTP/1.1 on the same port; websockets over h2
 * (RFC 8441) to a real websocket server; and the floods h2 allows (rapid reset, CONTINUATION) and a
 * client that stops reading, against the rule's bounds. On the main thread and on serving threads.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect as h2connect, constants, type ClientHttp2Session } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { hashSecrets } from '../../core/secrets.js';
import { makeCert } from '../../test/certs.js';
import { freePort } from '../../test/harness.js';
import { ENGINES, onLoopback, waitFor } from './testing/runner.js';

const run = promisify(execFile);

/** curl's answer: status line protocol, status, headers and body (bounded by --max-time). */
async function curl(args: string[]): Promise<{ version: string; status: number; headers: string; body: string }> {
  const { stdout } = await run('curl', ['-sk', '--max-time', '10', '-D', '-', ...args], { maxBuffer: 64 * 1024 * 1024 });
  const split = stdout.indexOf('\r\n\r\n');
  const head = stdout.slice(0, split);
  const m = /^HTTP\/(\S+) (\d+)/.exec(head) ?? ['', '', '0'];
  return { version: m[1]!, status: Number(m[2]), headers: head.toLowerCase(), body: stdout.slice(split + 4) };
}

/** A backend that echoes what it was sent, as JSON; `/big` answers `bigBytes` with backpressure. */
async function echoBackend(): Promise<{ server: Server; port: number; written: number; close(): Promise<void> }> {
  const b = { server: undefined as unknown as Server, port: 0, written: 0, close: async () => undefined };
  b.server = createServer((req, res) => {
    if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(64 * 1024 * 1024) });
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (b.written < 64 * 1024 * 1024) {
          b.written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      return pump();
    }
    if (req.url === '/events') {
      // An event stream: one event now, the next only much later.
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'upgrade', upgrade: 'h2c' });
      res.write('data: first\n\n');
      const t = setTimeout(() => res.end('data: last\n\n'), 3000);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (req.url === '/notmod') {
      res.writeHead(304, { etag: '"v1"' });
      return res.end();
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['a=1', 'b=2'] });
      res.end(JSON.stringify({ url: req.url, method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
    });
  });
  const served = await onLoopback(b.server);
  b.port = served.port;
  b.close = served.close;
  return b;
}

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({ name: 'h2', address: '127.0.0.1', protocol: 'https', ...input });
}

/** An h2 session to the rule, certificate unchecked (the test's own). */
function session(port: number, servername = 'a.test'): Promise<ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const s = h2connect(`https://127.0.0.1:${port}`, { rejectUnauthorized: false, servername });
    const t = setTimeout(() => reject(new Error('no h2 session')), 10_000);
    s.once('remoteSettings', () => {
      clearTimeout(t);
      resolve(s);
    });
    s.once('error', reject);
  });
}

function h2get(s: ClientHttp2Session, path: string, authority = 'a.test'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = s.request({ ':path': path, ':authority': authority });
    let status = 0;
    const chunks: Buffer[] = [];
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString() }));
    req.on('error', reject);
    req.setTimeout(10_000, () => req.close(constants.NGHTTP2_CANCEL));
  });
}

/** A websocket frame from the client: masked, as RFC 6455 requires. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

/** HTTP/2 frame header (RFC 9113 section 4.1). */
function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(stream, 5);
  return Buffer.concat([h, payload]);
}

describe.each(ENGINES)('web rules over HTTP/2 (%s)', (_kind, makeEngine) => {
  const engine = makeEngine();
  let dir: string;
  let cert: { cert: string; key: string };
  let backend: Awaited<ReturnType<typeof echoBackend>>;
  let wss: WebSocketServer;
  let wsPort: number;
  let port: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-h2-'));
    const c = makeCert(dir, 'a', ['a.test', '*.a.test']);
    cert = { cert: c.cert, key: c.key };
    mkdirSync(join(dir, 'www'));
    writeFileSync(join(dir, 'www', 'hello.txt'), 'hello over h2, from a file');
    backend = await echoBackend();
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws, req) => ws.on('message', (m) => ws.send(`echo:${m.toString()}:${req.url}`)));
    wsPort = (wss.address() as { port: number }).port;
    port = await freePort();
    await engine.start(
      'h2',
      rule({
        port,
        certs: [{ source: 'pem', ...cert }],
        defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backend.port}`], useRequestHost: true },
        subRules: [
          { domains: ['files.a.test'], service: { type: 'file', root: join(dir, 'www') } },
          { domains: ['old.a.test'], service: { type: 'redirect', code: 308, target: 'https://new.a.test{path}' } },
          { domains: ['ws.a.test'], service: { type: 'proxy', targets: [`http://127.0.0.1:${wsPort}`] } },
          { domains: ['drop.a.test'], service: { type: 'close' } },
        ],
      }),
    );
    expect(engine.status('h2').state).toBe('running');
  });
  afterAll(async () => {
    await engine.close();
    await backend.close();
    await new Promise<void>((r) => wss.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (host: string, path = '/') => [`https://${host}:${port}${path}`, '--resolve', `${host}:${port}:127.0.0.1`];

  it('proxies over h2 to an HTTP/1.1 backend with the same headers HTTP/1.1 gets', async () => {
    const r = await curl(['--http2', '-H', 'x-custom: 1', ...url('a.test', '/p?q=1')]);
    expect(r.version).toBe('2');
    expect(r.status).toBe(200);
    // Two cookies stay two headers; nothing connection-specific reaches an h2 answer.
    expect(r.headers.match(/set-cookie/g)).toHaveLength(2);
    const seen = JSON.parse(r.body) as { url: string; headers: Record<string, string> };
    expect(seen.url).toBe('/p?q=1');
    expect(seen.headers.host).toBe(`a.test:${port}`);
    expect(seen.headers['x-forwarded-proto']).toBe('https');
    expect(seen.headers['x-forwarded-host']).toBe(`a.test:${port}`);
    expect(seen.headers['x-custom']).toBe('1');
    expect(Object.keys(seen.headers).some((k) => k.startsWith(':'))).toBe(false);
    // The same port still speaks HTTP/1.1 to a client that asks for it.
    const h1 = await curl(['--http1.1', ...url('a.test', '/p')]);
    expect(h1.version).toBe('1.1');
    expect(JSON.parse(h1.body).url).toBe('/p');
  });

  it('posts a body through h2', async () => {
    const body = 'x'.repeat(200_000);
    writeFileSync(join(dir, 'body.txt'), body);
    const r = await curl(['--http2', '-X', 'POST', '--data-binary', `@${join(dir, 'body.txt')}`, ...url('a.test', '/upload')]);
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body).body).toBe(body);
  });

  it('serves files (with Range) and redirects over h2', async () => {
    const f = await curl(['--http2', ...url('files.a.test', '/hello.txt')]);
    expect(f.version).toBe('2');
    expect(f.body).toBe('hello over h2, from a file');
    const part = await curl(['--http2', '-r', '6-7', ...url('files.a.test', '/hello.txt')]);
    expect(part.status).toBe(206);
    expect(part.body).toBe('ov');
    const r = await curl(['--http2', ...url('old.a.test', '/x?y=1')]);
    expect(r.status).toBe(308);
    expect(r.headers).toContain('location: https://new.a.test/x?y=1');
  });

  it('answers nghttp with many streams on one connection, and offers the bounds it keeps', async () => {
    const { stdout } = await run('nghttp', ['-nv', '-m', '20', '-H', ':authority: a.test', `https://127.0.0.1:${port}/many`], { maxBuffer: 16 * 1024 * 1024, timeout: 20_000 });
    expect(stdout).toMatch(/SETTINGS_MAX_CONCURRENT_STREAMS\(0x03\):128/);
    expect((stdout.match(/recv \(stream_id=\d+\) :status: 200/g) ?? []).length).toBe(20);
    // One connection for the twenty.
    expect((stdout.match(/Connected/g) ?? []).length).toBe(1);
  });

  it('logs h2 requests with their own body sizes', async () => {
    const s = await session(port);
    try {
      await Promise.all([h2get(s, '/log-a'), h2get(s, '/log-bb')]);
    } finally {
      s.close();
    }
    let log = await engine.accessLog('h2', 100);
    await waitFor(async () => (log = await engine.accessLog('h2', 100)).list.some((e) => e.path === '/log-bb'));
    const a = log.list.find((e) => e.path === '/log-a')!;
    const bb = log.list.find((e) => e.path === '/log-bb')!;
    expect(a.status).toBe(200);
    // Each is its own JSON echo, not the connection's total.
    expect(bb.bytes - a.bytes).toBe(1);
  });

  it('streams an event stream as it comes, over h2 and HTTP/1.1', async () => {
    for (const proto of ['--http2', '--http1.1']) {
      // Within 2 s (the second event comes at 3 s) the first event and the head are through.
      const r = await run('curl', ['-skN', '--max-time', '2', proto, ...url('a.test', '/events')]).catch((e: { stdout: string }) => e);
      expect(r.stdout).toBe('data: first\n\n');
    }
  });

  it('carries a websocket over h2 (RFC 8441) to an HTTP/1.1 websocket server', async () => {
    const s = await session(port, 'ws.a.test');
    try {
      expect(s.remoteSettings.enableConnectProtocol).toBe(true);
      const stream = s.request({ ':method': 'CONNECT', ':protocol': 'websocket', ':path': '/chat?room=1', ':scheme': 'https', ':authority': 'ws.a.test', 'sec-websocket-version': '13' });
      const status = await new Promise<number>((resolve, reject) => {
        stream.once('response', (h) => resolve(Number(h[':status'])));
        stream.once('error', reject);
      });
      expect(status).toBe(200);
      const got = new Promise<string>((resolve) => {
        let buf = Buffer.alloc(0);
        stream.on('data', (d: Buffer) => {
          buf = Buffer.concat([buf, d]);
          // An unmasked text frame of under 126 bytes from the server.
          if (buf.length >= 2 && buf.length >= 2 + (buf[1]! & 0x7f)) resolve(buf.subarray(2, 2 + (buf[1]! & 0x7f)).toString());
        });
      });
      stream.write(clientFrame('hi'));
      expect(await got).toBe('echo:hi:/chat?room=1');
      stream.close();
    } finally {
      s.close();
    }
  });

  it('resets only the stream of a closed site; the connection serves on', async () => {
    const s = await session(port);
    try {
      const dropped = await h2get(s, '/', 'drop.a.test').then(
        () => 'answered',
        (e: { code?: string }) => e.code ?? 'error',
      );
      expect(dropped).toBe('ERR_HTTP2_STREAM_ERROR');
      expect((await h2get(s, '/after')).status).toBe(200);
    } finally {
      s.close();
    }
  });

  it('ends a rapid-reset session with GOAWAY while other clients are served', async () => {
    const before = (await engine.figures('h2')).requests;
    const attacker = await session(port);
    const goaway = new Promise<number>((resolve) => attacker.once('goaway', (code) => resolve(code)));
    const closed = new Promise<number>((resolve) => attacker.once('close', () => resolve(0)));
    attacker.on('error', () => undefined);
    let sent = 0;
    // Open and cancel at once, as fast as the client can (bounded: 20 000 streams); the client only
    // learns of the GOAWAY once it reads, so it sends them all.
    const flood = (async () => {
      for (; sent < 20_000 && !attacker.closed && !attacker.destroyed; sent++) {
        try {
          const r = attacker.request({ ':path': `/rr${sent}`, ':authority': 'a.test' });
          r.on('error', () => undefined);
          r.close(constants.NGHTTP2_CANCEL);
        } catch {
          break;
        }
        if (sent % 200 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
    // Meanwhile another client gets its answers.
    const other = await session(port);
    const answers: number[] = [];
    for (let i = 0; i < 20; i++) answers.push((await h2get(other, `/other${i}`)).status);
    other.close();
    await flood;
    // The GOAWAY's code, 0 when the session closed without one read, -1 when it went on.
    const code = await Promise.race([goaway, closed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
    const reached = (await engine.figures('h2')).requests - before;
    // nghttp2's limit: a burst of 1 000 resets, then 33 a second; past it the session ends with an error.
    // The edge closes with a lingering close, so its GOAWAY is read; Node's own h2 server closes at once,
    // and on a loaded machine the reset of the flood's unread frames can discard its GOAWAY first.
    expect(code, `${sent} streams sent, ${reached} reached the rule`).toBeGreaterThan(_kind === 'native' ? 0 : -1);
    expect(reached).toBeLessThan(2_500);
    expect(answers).toEqual(answers.map(() => 200));
    attacker.destroy();
  });

  it('ends a CONTINUATION flood with GOAWAY and stays up', async () => {
    const sock = tlsConnect({ host: '127.0.0.1', port, servername: 'a.test', ALPNProtocols: ['h2'], rejectUnauthorized: false });
    await new Promise<void>((r, j) => {
      sock.once('secureConnect', () => r());
      sock.once('error', j);
    });
    expect(sock.alpnProtocol).toBe('h2');
    let got = Buffer.alloc(0);
    sock.on('data', (d: Buffer) => (got = Buffer.concat([got, d])));
    // The server may close while frames of ours are still unread on its side: its kernel then
    // resets the connection, and a reset can discard the GOAWAY before this socket reads it.
    let reset = false;
    sock.on('error', (err: NodeJS.ErrnoException) => (reset ||= err.code === 'ECONNRESET' || err.code === 'EPIPE'));
    let ended = false;
    sock.on('end', () => (ended = true));
    const closed = new Promise<void>((r) => sock.once('close', () => r()));
    sock.write(Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'));
    sock.write(frame(0x4, 0, 0, Buffer.alloc(0)));
    // HEADERS without END_HEADERS (:method GET, :path /, :scheme https as indexed fields), then
    // CONTINUATION frames that never end the block.
    sock.write(frame(0x1, 0x1, 1, Buffer.from([0x82, 0x84, 0x87])));
    const field = Buffer.concat([Buffer.from([0x00, 0x01]), Buffer.from('x'), Buffer.from([0x0a]), Buffer.from('yyyyyyyyyy')]);
    let frames = 0;
    for (; frames < 50_000 && !sock.destroyed && sock.writable; frames++) {
      if (!sock.write(frame(0x9, 0, 1, field))) await new Promise((r) => setTimeout(r, 5));
      if (frames % 1000 === 0) await new Promise((r) => setImmediate(r));
    }
    await Promise.race([closed, new Promise((r) => setTimeout(r, 10_000))]);
    expect(sock.destroyed || !sock.writable).toBe(true);
    // A GOAWAY (type 7) came before the end.
    let at = 0;
    let goaway = false;
    while (at + 9 <= got.length) {
      const len = got.readUIntBE(at, 3);
      if (got[at + 3] === 0x7) goaway = true;
      at += 9 + len;
    }
    // The session was ended by the server (GOAWAY read, or the reset that follows it), long
    // before the 50 000 frames. Node's own h2 server, under load, now and then ends such a session
    // with its connection's close and no GOAWAY; the edge always sends one.
    expect(goaway || reset || (_kind !== 'native' && ended)).toBe(true);
    expect(frames).toBeLessThan(50_000);
    sock.destroy();
    const r = await curl(['--http2', ...url('a.test', '/still')]);
    expect(r.status).toBe(200);
  });

  it('holds a client that stops reading to its flow-control window, not the whole answer', async () => {
    backend.written = 0;
    const s = await session(port);
    try {
      const req = s.request({ ':path': '/big', ':authority': 'a.test' });
      req.on('error', () => undefined);
      await new Promise<void>((r) => req.once('response', () => r()));
      req.pause();
      // The backend writes what the proxy takes; with the client not reading, that stops far short of 64 MiB.
      await new Promise((r) => setTimeout(r, 1500));
      const first = backend.written;
      await new Promise((r) => setTimeout(r, 1000));
      expect(backend.written).toBe(first);
      expect(first).toBeLessThan(16 * 1024 * 1024);
      req.close(constants.NGHTTP2_CANCEL);
    } finally {
      s.close();
    }
  });

  it('answers HEAD, a 304, a login and a CORS preflight over h2 as over HTTP/1.1', async () => {
    const p = await freePort();
    await engine.start(
      'h2-front',
      await hashSecrets(
        ZWebRule,
        rule({
          port: p,
          certs: [{ source: 'pem', ...cert }],
          defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backend.port}`] },
          cors: { enable: true, origins: ['https://app.test'], credentials: false },
          subRules: [
            {
              domains: ['private.a.test'],
              service: { type: 'text', body: 'hello {clientIP}' },
              basicAuth: { enable: true, users: [{ user: 'alice', password: 'wonderland' }] },
            },
          ],
        }),
        undefined,
      ),
    );
    const at = (host: string, path = '/') => [`https://${host}:${p}${path}`, '--resolve', `${host}:${p}:127.0.0.1`];
    try {
      for (const proto of ['--http2', '--http1.1']) {
        const want = proto === '--http2' ? '2' : '1.1';
        // HEAD: the backend's head, no body (an h2 stream ends with its HEADERS).
        const head = await curl([proto, '-I', ...at('a.test', '/head')]);
        expect([head.version, head.status, head.body.trim()]).toEqual([want, 200, '']);
        expect(head.headers).toContain('content-type: application/json');
        const notModified = await curl([proto, ...at('a.test', '/notmod')]);
        expect([notModified.status, notModified.body]).toEqual([304, '']);
        expect(notModified.headers).toContain('etag: "v1"');
        const login = await curl([proto, ...at('private.a.test')]);
        expect(login.status).toBe(401);
        expect(login.headers).toContain('www-authenticate: basic realm="lucky"');
        const in_ = await curl([proto, '-u', 'alice:wonderland', ...at('private.a.test')]);
        expect([in_.status, in_.body]).toEqual([200, 'hello 127.0.0.1']);
        const pre = await curl([proto, '-X', 'OPTIONS', '-H', 'origin: https://app.test', '-H', 'access-control-request-method: PUT', ...at('a.test', '/api')]);
        expect(pre.status).toBe(204);
        expect(pre.headers).toContain('access-control-allow-origin: https://app.test');
        const real = await curl([proto, '-H', 'origin: https://app.test', ...at('a.test', '/api')]);
        expect(real.status).toBe(200);
        expect(real.headers).toContain('access-control-allow-origin: https://app.test');
        expect(JSON.parse(real.body).url).toBe('/api');
      }
      // Each answered request is in the access log with its status.
      let log = await engine.accessLog('h2-front', 100);
      await waitFor(async () => (log = await engine.accessLog('h2-front', 100)).list.filter((e) => e.path === '/notmod').length === 2);
      expect(log.list.filter((e) => e.status === 401)).toHaveLength(2);
      expect(log.list.find((e) => e.path === '/head')!.bytes).toBe(0);
    } finally {
      await engine.stop('h2-front');
    }
  });

  it('offers only HTTP/1.1 when the rule turns HTTP/2 off', async () => {
    const p = await freePort();
    await engine.start('h1only', rule({ port: p, http2: false, certs: [{ source: 'pem', ...cert }], defaultService: { type: 'text', body: 'h1' } }));
    const r = await curl(['--http2', `https://a.test:${p}/`, '--resolve', `a.test:${p}:127.0.0.1`]);
    expect(r.version).toBe('1.1');
    expect(r.body).toBe('h1');
    await engine.stop('h1only');
  });
});
