/**
 * The web engine with real sockets on loopback, driven by the kit's rule runtime: every service
 * type, host matching, TLS with SNI, websockets, balancing and failover, filters, auth, CORS, trusted
 * proxies, file-server traversal, malformed requests and hot apply. Every wait is bounded; nothing
 * asserts on timing.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { hashSecrets } from '../../core/secrets.js';
import { makeCert } from '../../test/certs.js';
import { freePort } from '../../test/harness.js';
import { ENGINES, onLoopback, waitFor } from './testing/runner.js';

interface Res {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(
  port: number,
  path = '/',
  o: { host?: string; method?: string; headers?: Record<string, string>; localAddress?: string; body?: string | Buffer; agent?: Agent } = {},
): Promise<Res> {
  return new Promise((resolve, reject) => {
    const r = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: o.method ?? 'GET',
        agent: o.agent ?? false,
        headers: { host: o.host ?? 'example.com', ...o.headers },
        ...(o.localAddress ? { localAddress: o.localAddress } : {}),
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('request timed out')));
    r.on('error', reject);
    r.end(o.body);
  });
}

/** Sends raw bytes; resolves with everything the server sent before closing (bounded). */
function raw(port: number, text: string, waitMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const s = netConnect(port, '127.0.0.1');
    let out = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve(out);
    }, waitMs);
    s.on('data', (d) => {
      out += d.toString();
      // One complete answer is enough.
      const end = out.indexOf('\r\n\r\n');
      const len = /content-length: (\d+)\r\n/i.exec(out);
      if (end >= 0 && len && out.length - end - 4 >= Number(len[1])) {
        clearTimeout(t);
        s.destroy();
        resolve(out);
      }
    });
    s.on('close', () => {
      clearTimeout(t);
      resolve(out);
    });
    s.on('error', () => undefined);
    s.write(text);
  });
}

/** A backend that answers with its name and echoes what the proxy sent. */
async function backend(name: string): Promise<{ server: Server; port: number; hits: number; close(): Promise<void> }> {
  const b = { server: undefined as unknown as Server, port: 0, hits: 0, close: async () => undefined };
  b.server = createServer((req, res) => {
    b.hits++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.stringify({ name, url: req.url, method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'application/json', 'x-backend': name, 'set-cookie': ['a=1', 'b=2'] });
      res.end(body);
    });
  });
  const served = await onLoopback(b.server);
  b.port = served.port;
  b.close = served.close;
  return b;
}

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({ name: 'test', address: '127.0.0.1', ...input });
}

describe.each(ENGINES)('web engine (%s)', (_kind, makeEngine) => {
  const engine = makeEngine();
  let dir: string;
  let outside: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-'));
    outside = mkdtempSync(join(tmpdir(), 'lucky-web-outside-'));
    writeFileSync(join(outside, 'secret.txt'), 'TOP SECRET');
    mkdirSync(join(dir, 'www', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'www', 'hello.txt'), 'hello world, this is a file');
    writeFileSync(join(dir, 'www', 'sub', 'a.css'), 'body{}');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'www', 'link.txt'));
    symlinkSync(outside, join(dir, 'www', 'linkdir'));
    writeFileSync(join(dir, 'secret-sibling.txt'), 'SIBLING SECRET');
    writeFileSync(join(dir, 'www', '.hidden'), 'HIDDEN SECRET');
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('matches exact hosts, then wildcards, then the default; fills text variables', async () => {
    const port = await freePort();
    await engine.start(
      'm',
      rule({
        port,
        defaultService: { type: 'text', body: 'default {clientIP}' },
        subRules: [
          { name: 'exact', domains: ['a.example.com'], service: { type: 'text', body: 'exact {host} {clientIP} {method}' } },
          { name: 'wild', domains: ['*.example.com'], service: { type: 'text', body: 'wild {host}' } },
          { name: 'deeper', domains: ['*.x.example.com'], service: { type: 'text', body: 'deeper {host}', contentType: 'text/x-test' } },
        ],
      }),
    );
    expect(engine.status('m').state).toBe('running');
    expect((await get(port, '/', { host: 'a.example.com' })).body).toBe('exact a.example.com 127.0.0.1 GET');
    expect((await get(port, '/', { host: 'A.Example.COM:8080' })).body).toBe('exact a.example.com 127.0.0.1 GET');
    expect((await get(port, '/', { host: 'b.example.com' })).body).toBe('wild b.example.com');
    expect((await get(port, '/', { host: 'c.b.example.com' })).body).toBe('wild c.b.example.com');
    const deeper = await get(port, '/', { host: 'y.x.example.com' });
    expect(deeper.body).toBe('deeper y.x.example.com');
    expect(deeper.headers['content-type']).toBe('text/x-test');
    expect((await get(port, '/', { host: 'example.com' })).body).toBe('default 127.0.0.1');
    expect((await get(port, '/', { host: 'other.org' })).body).toBe('default 127.0.0.1');
    const f = await engine.figures('m');
    expect(f.requests).toBeGreaterThanOrEqual(7);
    expect(f.codes['200']).toBeGreaterThanOrEqual(7);
    expect(f.bytesOut).toBeGreaterThan(0);
    await engine.stop('m');
    expect(engine.status('m').state).toBe('stopped');
  });

  it('redirects with each code and variables; URL jump answers a page that moves on', async () => {
    const port = await freePort();
    const subRules = ([301, 302, 307, 308] as const).map((code) => ({
      domains: [`r${code}.test`],
      service: { type: 'redirect' as const, code, target: 'https://{host}:8443{path}?from={hostAndPort}&p={port}' },
    }));
    await engine.start(
      'r',
      rule({ port, subRules: [...subRules, { domains: ['jump.test'], service: { type: 'jump', target: 'https://new.test{path}' } }] }),
    );
    for (const code of [301, 302, 307, 308]) {
      const r = await get(port, '/a/b?x=1', { host: `r${code}.test:81` });
      expect(r.status).toBe(code);
      expect(r.headers.location).toBe(`https://r${code}.test:8443/a/b?x=1?from=r${code}.test:81&p=81`);
    }
    const j = await get(port, '/p?q=<x>', { host: 'jump.test' });
    expect(j.status).toBe(200);
    expect(j.headers['content-type']).toContain('text/html');
    expect(j.body).toContain('location.replace("https://new.test/p?q=\\u003cx>")');
    expect(j.body).toContain('http-equiv="refresh"');
    await engine.stop('r');
  });

  it('serves files with listing, Range, ETag and Last-Modified, and never leaves its root', async () => {
    const port = await freePort();
    await engine.start('f', rule({ port, defaultService: { type: 'file', root: join(dir, 'www'), listing: true } }));
    const r = await get(port, '/hello.txt');
    expect(r.status).toBe(200);
    expect(r.body).toBe('hello world, this is a file');
    expect(r.headers['content-type']).toContain('text/plain');
    expect(r.headers.etag).toBeTruthy();
    expect(r.headers['last-modified']).toBeTruthy();
    expect((await get(port, '/hello.txt', { headers: { 'if-none-match': r.headers.etag! } })).status).toBe(304);
    expect((await get(port, '/hello.txt', { headers: { 'if-modified-since': r.headers['last-modified']! } })).status).toBe(304);
    const part = await get(port, '/hello.txt', { headers: { range: 'bytes=0-4' } });
    expect(part.status).toBe(206);
    expect(part.body).toBe('hello');
    expect(part.headers['content-range']).toBe('bytes 0-4/27');
    expect((await get(port, '/hello.txt', { headers: { range: 'bytes=-4' } })).body).toBe('file');
    expect((await get(port, '/hello.txt', { headers: { range: 'bytes=100-' } })).status).toBe(416);
    const head = await get(port, '/hello.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    const list = await get(port, '/');
    expect(list.status).toBe(200);
    expect(list.body).toContain('hello.txt');
    expect(list.body).toContain('sub/');
    expect((await get(port, '/sub')).status).toBe(301);
    expect((await get(port, '/sub/a.css')).headers['content-type']).toContain('text/css');
    expect((await get(port, '/nope.txt')).status).toBe(404);
    expect((await get(port, '/hello.txt', { method: 'POST' })).status).toBe(405);

    // Traversal: plain, encoded, double-dot segments with encoded slashes, symlinks out of the root.
    for (const path of [
      '/../secret-sibling.txt',
      '/sub/../../secret-sibling.txt',
      '/%2e%2e/secret-sibling.txt',
      '/%2E%2E/%2e%2e/etc/passwd',
      '/..%2fsecret-sibling.txt',
      '/sub%2f..%2f..%2fsecret-sibling.txt',
      '/..%5csecret-sibling.txt',
      '/link.txt',
      '/linkdir/secret.txt',
      '/linkdir/',
      '/%00',
      '/%zz',
      '/.hidden',
    ]) {
      const text = await raw(port, `GET ${path} HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`);
      expect(text, path).toMatch(/^HTTP\/1\.1 (400|403|404) /);
      expect(text, path).not.toContain('SECRET');
    }
    await engine.stop('f');
  });

  it('closes the connection without an answer', async () => {
    const port = await freePort();
    await engine.start('c', rule({ port, defaultService: { type: 'close' } }));
    const text = await raw(port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(text).toBe('');
    await expect(get(port, '/')).rejects.toThrow();
    await engine.stop('c');
  });

  it('proxies with forwarded headers, custom headers and the backend Host when asked', async () => {
    const b = await backend('one');
    const port = await freePort();
    await engine.start(
      'p',
      rule({
        port,
        defaultService: {
          type: 'proxy',
          targets: [`http://127.0.0.1:${b.port}/base`],
          useRequestHost: false,
          requestHeaders: [{ name: 'X-Added', value: 'yes' }, { name: 'X-Remove-Me', value: '' }],
          responseHeaders: [{ name: 'X-Frame-Options', value: 'DENY' }],
        },
      }),
    );
    const r = await get(port, '/path?q=1', {
      method: 'POST',
      host: 'front.test',
      headers: { 'x-remove-me': '1', 'x-forwarded-for': '6.6.6.6', connection: 'keep-alive, x-hop', 'x-hop': 'secret' },
      body: 'payload',
    });
    expect(r.status).toBe(200);
    const echo = JSON.parse(r.body) as { url: string; method: string; body: string; headers: Record<string, string> };
    expect(echo.url).toBe('/base/path?q=1');
    expect(echo.method).toBe('POST');
    expect(echo.body).toBe('payload');
    expect(echo.headers.host).toBe(`127.0.0.1:${b.port}`);
    expect(echo.headers['x-forwarded-for']).toBe('127.0.0.1'); // an untrusted peer cannot inject one
    expect(echo.headers['x-forwarded-proto']).toBe('http');
    expect(echo.headers['x-forwarded-host']).toBe('front.test');
    expect(echo.headers['x-real-ip']).toBe('127.0.0.1');
    expect(echo.headers['x-added']).toBe('yes');
    expect(echo.headers['x-remove-me']).toBeUndefined();
    expect(echo.headers['x-hop']).toBeUndefined();
    expect(r.headers['x-frame-options']).toBe('DENY');
    expect(r.headers['set-cookie']).toEqual(['a=1', 'b=2']);

    // With the request Host (the default).
    await engine.start('p', rule({ port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${b.port}`] } }));
    const r2 = JSON.parse((await get(port, '/x', { host: 'front.test' })).body) as { headers: Record<string, string> };
    expect(r2.headers.host).toBe('front.test');
    await engine.stop('p');
    await b.close();
  });

  it('streams large bodies both ways with backpressure', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const big = randomBytes(8 * 1024 * 1024);
    const bigHash = createHash('sha256').update(big).digest('hex');
    const srv = createServer((req, res) => {
      if (req.method === 'POST') {
        const h = createHash('sha256');
        let n = 0;
        req.on('data', (c: Buffer) => {
          n += c.length;
          h.update(c);
        });
        req.on('end', () => res.end(`${n} ${h.digest('hex')}`));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(big);
    });
    const sport = await new Promise<number>((r) => srv.listen(0, '127.0.0.1', () => r((srv.address() as { port: number }).port)));
    const port = await freePort();
    await engine.start('big', rule({ port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${sport}`] } }));
    // Download, read slowly at first so that the proxy has to wait for the client.
    const down = await new Promise<string>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port, path: '/big', agent: false, headers: { host: 'x' }, timeout: 20_000 }, (res) => {
        const h = createHash('sha256');
        res.pause();
        setTimeout(() => res.resume(), 300);
        res.on('data', (c: Buffer) => h.update(c));
        res.on('end', () => resolve(h.digest('hex')));
        res.on('error', reject);
      });
      r.on('timeout', () => r.destroy(new Error('timeout')));
      r.on('error', reject);
      r.end();
    });
    expect(down).toBe(bigHash);
    const up = await get(port, '/up', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: big });
    expect(up.body).toBe(`${big.length} ${bigHash}`);
    await engine.stop('big');
    srv.close();
    srv.closeAllConnections();
  });

  it('balances round robin, keeps IP hash sticky, and fails over when a backend dies', async () => {
    const b1 = await backend('b1');
    const b2 = await backend('b2');
    const port = await freePort();
    const targets = [`http://127.0.0.1:${b1.port}`, `http://127.0.0.1:${b2.port}`];
    await engine.start('lb', rule({ port, defaultService: { type: 'proxy', targets } }));
    // One kept-alive connection: served by one thread, whose turn goes strictly round.
    const one = new Agent({ keepAlive: true, maxSockets: 1 });
    const names: string[] = [];
    for (let i = 0; i < 6; i++) names.push((await get(port, '/', { agent: one })).headers['x-backend'] as string);
    one.destroy();
    expect(names.filter((n) => n === 'b1').length).toBe(3);
    expect(names.filter((n) => n === 'b2').length).toBe(3);
    expect(names[0]).not.toBe(names[1]);
    // Many connections (spread over the threads, each with its own turn): both backends get a fair share.
    const spread: string[] = [];
    for (let i = 0; i < 40; i++) spread.push((await get(port, '/')).headers['x-backend'] as string);
    expect(spread.filter((n) => n === 'b1').length).toBeGreaterThanOrEqual(10);
    expect(spread.filter((n) => n === 'b2').length).toBeGreaterThanOrEqual(10);

    await engine.start('lb', rule({ port, defaultService: { type: 'proxy', targets, balance: 'iphash' } }));
    const sticky = new Set<string>();
    for (let i = 0; i < 4; i++) sticky.add((await get(port, '/')).headers['x-backend'] as string);
    expect(sticky.size).toBe(1);

    await engine.start('lb', rule({ port, defaultService: { type: 'proxy', targets, balance: 'leastconn' } }));
    await b1.close();
    for (let i = 0; i < 6; i++) {
      const r = await get(port, '/');
      expect(r.status).toBe(200);
      expect(r.headers['x-backend']).toBe('b2');
    }
    expect(engine.logs('lb').some((l) => l.includes('marked down'))).toBe(true);
    await b2.close();
    expect((await get(port, '/')).status).toBe(502);
    await engine.stop('lb');
  });

  it('takes a backend out on failed active health checks', async () => {
    const good = await backend('good');
    let sick = true;
    const flaky = createServer((_req, res) => {
      res.writeHead(sick ? 500 : 200, { 'x-backend': 'flaky' });
      res.end('x');
    });
    const fport = await new Promise<number>((r) => flaky.listen(0, '127.0.0.1', () => r((flaky.address() as { port: number }).port)));
    const port = await freePort();
    await engine.start(
      'hc',
      rule({
        port,
        defaultService: {
          type: 'proxy',
          targets: [`http://127.0.0.1:${fport}`, `http://127.0.0.1:${good.port}`],
          healthCheck: { enable: true, path: '/health', intervalSeconds: 1, timeoutSeconds: 2 },
        },
      }),
    );
    await waitFor(() => engine.logs('hc').some((l) => l.includes('health check: down')));
    // Each serving thread checks on its own (within moments of each other): then only `good` answers.
    await waitFor(async () => {
      for (let i = 0; i < 8; i++) if ((await get(port, '/')).headers['x-backend'] !== 'good') return false;
      return true;
    });
    sick = false;
    await waitFor(() => engine.logs('hc').some((l) => l.includes('health check: up')));
    await engine.stop('hc');
    flaky.close();
    flaky.closeAllConnections();
    await good.close();
  });

  it('proxies websockets', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws, req) => {
      ws.on('message', (m) => ws.send(`echo:${m.toString()}:${req.headers['x-real-ip']}`));
    });
    const wsPort = (wss.address() as { port: number }).port;
    const port = await freePort();
    await engine.start('ws', rule({ port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${wsPort}`] } }));
    const ws = new WebSocket(`ws://127.0.0.1:${port}/chat`, { headers: { host: 'chat.test' } });
    const answer = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no websocket answer')), 10_000);
      ws.on('open', () => ws.send('hi'));
      ws.on('message', (m) => {
        clearTimeout(t);
        resolve(m.toString());
      });
      ws.on('error', reject);
    });
    expect(answer).toBe('echo:hi:127.0.0.1');
    expect((await engine.figures('ws')).connections).toBeGreaterThanOrEqual(1);
    ws.close();
    await engine.stop('ws');
    await new Promise<void>((r) => wss.close(() => r()));
  });

  it('checks basic auth against hashed passwords', async () => {
    const port = await freePort();
    const hashed = await hashSecrets(
      ZWebRule,
      rule({
        port,
        subRules: [
          {
            domains: ['private.test'],
            service: { type: 'text', body: 'secret area' },
            basicAuth: { enable: true, users: [{ user: 'alice', password: 'wonderland' }] },
          },
        ],
      }),
      undefined,
    );
    expect(hashed.subRules[0]!.basicAuth.users[0]!.password).toMatch(/^scrypt\$/);
    await engine.start('auth', hashed);
    const none = await get(port, '/', { host: 'private.test' });
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toContain('Basic realm="Lucky"');
    const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
    expect((await get(port, '/', { host: 'private.test', headers: basic('alice', 'wrong') })).status).toBe(401);
    expect((await get(port, '/', { host: 'private.test', headers: basic('bob', 'wonderland') })).status).toBe(401);
    const ok = await get(port, '/', { host: 'private.test', headers: basic('alice', 'wonderland') });
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('secret area');
    // Cached: the second answer does not run scrypt again, and is still right.
    expect((await get(port, '/', { host: 'private.test', headers: basic('alice', 'wonderland') })).status).toBe(200);
    // The default service has no auth.
    expect((await get(port, '/', { host: 'public.test' })).status).toBe(404);
    await engine.stop('auth');
  });

  it('filters by IP (source 127.0.0.x) and by user agent, and serves robots.txt', async () => {
    const port = await freePort();
    await engine.start(
      'flt',
      rule({
        port,
        defaultService: { type: 'text', body: 'ok' },
        ipFilter: { mode: 'blacklist', list: ['127.0.0.3'] },
        robots: { enable: true, text: 'User-agent: *\nDisallow: /private\n' },
        subRules: [
          { domains: ['wl.test'], service: { type: 'text', body: 'wl' }, ipFilter: { mode: 'whitelist', list: ['127.0.0.2/32'] } },
          { domains: ['ua.test'], service: { type: 'text', body: 'ua' }, uaFilter: { mode: 'blacklist', list: ['BadBot'] } },
          { domains: ['uaw.test'], service: { type: 'text', body: 'uaw' }, uaFilter: { mode: 'whitelist', list: ['GoodClient'] } },
        ],
      }),
    );
    expect((await get(port, '/', { localAddress: '127.0.0.2' })).status).toBe(200);
    expect((await get(port, '/', { localAddress: '127.0.0.3' })).status).toBe(403);
    expect((await get(port, '/', { host: 'wl.test', localAddress: '127.0.0.2' })).body).toBe('wl');
    expect((await get(port, '/', { host: 'wl.test', localAddress: '127.0.0.4' })).status).toBe(403);
    expect((await get(port, '/', { host: 'wl.test', localAddress: '127.0.0.3' })).status).toBe(403);
    expect((await get(port, '/', { host: 'ua.test', headers: { 'user-agent': 'Mozilla/5.0 (compatible; badbot/2.1)' } })).status).toBe(403);
    expect((await get(port, '/', { host: 'ua.test', headers: { 'user-agent': 'Mozilla/5.0' } })).body).toBe('ua');
    expect((await get(port, '/', { host: 'uaw.test', headers: { 'user-agent': 'GoodClient/1' } })).body).toBe('uaw');
    expect((await get(port, '/', { host: 'uaw.test' })).status).toBe(403);
    const robots = await get(port, '/robots.txt');
    expect(robots.body).toBe('User-agent: *\nDisallow: /private\n');
    await engine.stop('flt');
  });

  it('answers CORS preflights and decorates answers', async () => {
    const b = await backend('cors');
    const port = await freePort();
    await engine.start(
      'cors',
      rule({
        port,
        defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${b.port}`] },
        cors: { enable: true, origins: ['https://app.test'], credentials: true },
      }),
    );
    const pre = await get(port, '/api', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.test', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'x-token' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.test');
    expect(pre.headers['access-control-allow-methods']).toBe('POST, GET, PUT, OPTIONS, DELETE');
    expect(pre.headers['access-control-allow-headers']).toBe('x-token');
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
    expect(b.hits).toBe(0); // answered here, not by the backend
    const bad = await get(port, '/api', { method: 'OPTIONS', headers: { origin: 'https://evil.test', 'access-control-request-method': 'GET' } });
    expect(bad.status).toBe(403);
    const real = await get(port, '/api', { headers: { origin: 'https://app.test' } });
    expect(real.status).toBe(200);
    expect(real.headers['access-control-allow-origin']).toBe('https://app.test');
    const other = await get(port, '/api', { headers: { origin: 'https://evil.test' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    await engine.stop('cors');
    await b.close();
  });

  it('believes client-IP headers only from trusted proxies', async () => {
    const b = await backend('tp');
    const port = await freePort();
    await engine.start(
      'tp',
      rule({
        port,
        trustedProxies: ['127.0.0.5', '10.0.0.0/8'],
        defaultService: { type: 'text', body: '{clientIP}' },
        subRules: [{ domains: ['p.test'], service: { type: 'proxy', targets: [`http://127.0.0.1:${b.port}`] } }],
      }),
    );
    const xff = { 'x-forwarded-for': '203.0.113.9, 10.1.2.3' };
    expect((await get(port, '/', { localAddress: '127.0.0.5', headers: xff })).body).toBe('203.0.113.9');
    expect((await get(port, '/', { localAddress: '127.0.0.6', headers: xff })).body).toBe('127.0.0.6');
    expect((await get(port, '/', { localAddress: '127.0.0.5', headers: { 'x-real-ip': '198.51.100.7' } })).body).toBe('198.51.100.7');
    // A forged leftmost entry does not win: the rightmost untrusted address does.
    expect((await get(port, '/', { localAddress: '127.0.0.5', headers: { 'x-forwarded-for': '1.1.1.1, 203.0.113.9' } })).body).toBe('203.0.113.9');
    const echo = JSON.parse((await get(port, '/', { host: 'p.test', localAddress: '127.0.0.5', headers: xff })).body) as {
      headers: Record<string, string>;
    };
    expect(echo.headers['x-forwarded-for']).toBe('203.0.113.9, 10.1.2.3, 127.0.0.5');
    expect(echo.headers['x-real-ip']).toBe('203.0.113.9');
    await engine.stop('tp');
    await b.close();
  });

  it('caches proxied GETs within bounds', async () => {
    const b = await backend('cache');
    // The echo backend sets cookies (never cached): use a plain one.
    let hits = 0;
    const plain = createServer((req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': req.url === '/nostore' ? 'no-store' : 'max-age=60' });
      res.end(`body ${req.url}`);
    });
    const pport = await new Promise<number>((r) => plain.listen(0, '127.0.0.1', () => r((plain.address() as { port: number }).port)));
    const port = await freePort();
    await engine.start('cache', rule({ port, cache: { enable: true }, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${pport}`] } }));
    // One kept-alive connection, so one thread's cache (each serving thread keeps its own).
    const one = new Agent({ keepAlive: true, maxSockets: 1 });
    const a = await get(port, '/x', { agent: one });
    const a2 = await get(port, '/x', { agent: one });
    one.destroy();
    expect(a.headers['x-cache']).toBe('MISS');
    expect(a2.headers['x-cache']).toBe('HIT');
    expect(a2.body).toBe('body /x');
    expect(hits).toBe(1);
    await get(port, '/nostore');
    await get(port, '/nostore');
    expect(hits).toBe(3);
    await get(port, '/x', { method: 'POST', body: 'x' });
    expect(hits).toBe(4);
    await engine.stop('cache');
    plain.close();
    plain.closeAllConnections();
    await b.close();
  });

  it('refuses malformed requests without hurting other clients', async () => {
    const port = await freePort();
    await engine.start('bad', rule({ port, defaultService: { type: 'text', body: 'fine' } }));
    // Slowloris: several connections that never finish their headers.
    const slow: Socket[] = [];
    for (let i = 0; i < 20; i++) {
      const s = netConnect(port, '127.0.0.1');
      s.on('error', () => undefined);
      s.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
      slow.push(s);
    }
    expect((await raw(port, 'GET / HTTP/1.1\r\nHost: bad host!\r\n\r\n')).startsWith('HTTP/1.1 400')).toBe(true);
    expect((await raw(port, 'GET / HTTP/1.1\r\nHost: a:b:c\r\n\r\n')).startsWith('HTTP/1.1 400')).toBe(true);
    expect((await raw(port, 'GET / HTTP/1.1\r\n\r\n')).startsWith('HTTP/1.1 400')).toBe(true);
    expect((await raw(port, 'NOT A REQUEST\r\n\r\n')).startsWith('HTTP/1.1 400')).toBe(true);
    const huge = `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`;
    expect((await raw(port, huge)).startsWith('HTTP/1.1 431')).toBe(true);
    // Everyone else is still served while the slow ones hang.
    for (let i = 0; i < 5; i++) expect((await get(port, '/')).body).toBe('fine');
    for (const s of slow) s.destroy();
    await engine.stop('bad');
  });

  it('reports a port in use as the rule status and keeps other rules running', async () => {
    const blocker = createServer();
    const port = await new Promise<number>((r) => blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)));
    const okPort = await freePort();
    await engine.start('ok', rule({ port: okPort, defaultService: { type: 'text', body: 'alive' } }));
    await engine.start('busy', rule({ port }));
    const st = engine.status('busy');
    expect(st.state).toBe('error');
    expect(st.message).toContain('in use');
    expect(engine.logs('busy').some((l) => l.includes('in use'))).toBe(true);
    expect((await get(okPort, '/')).body).toBe('alive');
    blocker.close();
    await engine.start('busy', rule({ port }));
    expect(engine.status('busy').state).toBe('running');
    await engine.stop('busy');
    await engine.stop('ok');
  });

  it('listens on IPv6 (tcp6) and takes an IPv6 Host', async () => {
    const port = await freePort('::1');
    await engine.start('v6', rule({ port, network: 'tcp6', address: '::1', defaultService: { type: 'text', body: '{clientIP} {host}' } }));
    expect(engine.status('v6').state).toBe('running');
    const body = await new Promise<string>((resolve, reject) => {
      const r = request({ host: '::1', port, path: '/', agent: false, headers: { host: `[::1]:${port}` }, timeout: 10_000 }, (res) => {
        let b = '';
        res.on('data', (c: Buffer) => (b += c.toString()));
        res.on('end', () => resolve(b));
      });
      r.on('timeout', () => r.destroy(new Error('timeout')));
      r.on('error', reject);
      r.end();
    });
    expect(body).toBe('::1 [::1]');
    await engine.stop('v6');
  });

  it('reports what the firewall switch did without failing the rule', async () => {
    const port = await freePort();
    await engine.start('fw', rule({ port, firewallAllow: true, defaultService: { type: 'text', body: 'up' } }));
    expect(engine.status('fw').state).toBe('running');
    // In the reader's language, for the list and the rule's log.
    expect(await engine.firewall('fw')).toBe('not opened: test');
    expect(await engine.firewall('fw', 'zh_CN')).toBe('未放行：test');
    expect(engine.logs('fw', 'zh_CN')).toContainEqual(expect.stringMatching(/ 防火墙：未放行：test$/));
    expect((await get(port, '/')).body).toBe('up');
    await engine.start('fw', rule({ port, firewallAllow: false, defaultService: { type: 'text', body: 'up' } }));
    expect(await engine.firewall('fw')).toBeNull();
    await engine.stop('fw');
  });

  it('applies new settings without dropping open connections', async () => {
    const portA = await freePort();
    const portB = await freePort();
    await engine.start('ha', rule({ port: portA, defaultService: { type: 'text', body: 'A1' } }));
    await engine.start('hb', rule({ port: portB, defaultService: { type: 'text', body: 'B1' } }));
    // One keep-alive connection to each rule.
    const open = (port: number) => {
      const s = netConnect(port, '127.0.0.1');
      s.on('error', () => undefined);
      let buf = '';
      s.on('data', (d) => (buf += d.toString()));
      return {
        s,
        async ask(): Promise<string> {
          buf = '';
          s.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
          await waitFor(() => /\r\n\r\n[\s\S]*\S$/.test(buf));
          return buf.split('\r\n\r\n')[1]!;
        },
      };
    };
    const ca = open(portA);
    const cb = open(portB);
    expect(await ca.ask()).toBe('A1');
    expect(await cb.ask()).toBe('B1');
    await engine.start('ha', rule({ port: portA, defaultService: { type: 'text', body: 'A2' } }));
    await engine.start('hb', rule({ port: portB, defaultService: { type: 'text', body: 'B2' } }));
    expect(await ca.ask()).toBe('A2'); // same connection, new settings
    expect(await cb.ask()).toBe('B2');
    // Moving rule A to another port leaves B's connection alone.
    const portA2 = await freePort();
    await engine.start('ha', rule({ port: portA2, defaultService: { type: 'text', body: 'A3' } }));
    expect((await get(portA2, '/')).body).toBe('A3');
    expect(await cb.ask()).toBe('B2');
    ca.s.destroy();
    cb.s.destroy();
    await engine.stop('ha');
    await engine.stop('hb');
  });

  it('keeps an access log of the configured size', async () => {
    const port = await freePort();
    await engine.start('al', rule({ port, accessLog: { capacity: 3 }, defaultService: { type: 'text', body: 'x' } }));
    for (let i = 0; i < 5; i++) await get(port, `/n${i}`, { headers: { 'user-agent': 'tester' } });
    await waitFor(async () => (await engine.accessLog('al', 10)).list.at(-1)?.path === '/n4');
    const l = await engine.accessLog('al', 10);
    expect(l.list.map((e) => e.path)).toEqual(['/n2', '/n3', '/n4']);
    expect(l.list[0]).toMatchObject({ status: 200, method: 'GET', clientIP: '127.0.0.1', userAgent: 'tester' });
    expect((await engine.accessLog('al', 1)).list.map((e) => e.path)).toEqual(['/n4']);
    // Two like answers on one kept-alive connection: each entry counts its own bytes only.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    for (const path of ['/k1', '/k2']) {
      await new Promise<void>((resolve, reject) => {
        const r = request({ host: '127.0.0.1', port, path, agent, headers: { host: 'x' } }, (res) => {
          sockets.add(res.socket);
          res.resume();
          res.on('end', () => resolve());
        });
        r.on('error', reject);
        r.end();
      });
    }
    agent.destroy();
    expect(sockets.size).toBe(1);
    await waitFor(async () => (await engine.accessLog('al', 10)).list.at(-1)?.path === '/k2');
    const [k1, k2] = (await engine.accessLog('al', 2)).list;
    expect(k1!.bytes).toBeGreaterThan(100);
    expect(k2!.bytes).toBe(k1!.bytes);
    await engine.start('al', rule({ port, accessLog: { capacity: 0 }, defaultService: { type: 'text', body: 'x' } }));
    await get(port, '/after');
    expect((await engine.accessLog('al', 10)).list).toEqual([]);
    await engine.stop('al');
  });
});

describe.each(ENGINES)('web engine over TLS (%s)', (_kind, makeEngine) => {
  const engine = makeEngine();
  let dir: string;
  const pem: Record<string, { cert: string; key: string }> = {};

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-tls-'));
    for (const [name, cn] of [
      ['a', 'a.test'],
      ['b', '*.b.test'],
    ] as const) {
      const c = makeCert(dir, name, [cn]);
      pem[name] = { cert: c.cert, key: c.key };
    }
    const old = makeCert(dir, 'old', ['old.test'], { expired: true });
    pem.old = { cert: old.cert, key: old.key };
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function tlsGet(port: number, servername: string, o: { maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {}): Promise<{ cn: string; body: string }> {
    return new Promise((resolve, reject) => {
      const s = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, ...(o.maxVersion ? { maxVersion: o.maxVersion } : {}) });
      const t = setTimeout(() => {
        s.destroy();
        reject(new Error('tls timeout'));
      }, 10_000);
      let body = '';
      s.on('secureConnect', () => s.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`));
      s.on('data', (d) => (body += d.toString()));
      s.on('end', () => {
        clearTimeout(t);
        const cert = s.getPeerCertificate();
        resolve({ cn: String(cert.subject?.CN ?? ''), body: body.split('\r\n\r\n')[1] ?? '' });
      });
      s.on('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
  }

  it('picks the certificate by SNI, exact then wildcard, and serves sub rules', async () => {
    const port = await freePort();
    await engine.start(
      'tls',
      rule({
        port,
        protocol: 'https',
        certs: [
          { source: 'pem', ...pem.a! },
          { source: 'file', cert: join(dir, 'b.crt'), key: join(dir, 'b.key') },
        ],
        defaultService: { type: 'text', body: 'default {scheme}' },
        subRules: [{ domains: ['x.b.test'], service: { type: 'text', body: 'sub b' } }],
      }),
    );
    expect(engine.status('tls').state).toBe('running');
    const a = await tlsGet(port, 'a.test');
    expect(a.cn).toBe('a.test');
    expect(a.body).toBe('default https');
    const b = await tlsGet(port, 'x.b.test');
    expect(b.cn).toBe('*.b.test');
    expect(b.body).toBe('sub b');
    // Unknown names get the first certificate.
    expect((await tlsGet(port, 'other.test')).cn).toBe('a.test');
  });

  it('proxies to an https backend, verifying its certificate unless told to skip', async () => {
    const { createServer: createHttpsServer } = await import('node:https');
    const backendTls = createHttpsServer({ ...pem.a! }, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`tls backend ${req.headers['x-forwarded-proto']}`);
    });
    const bport = await new Promise<number>((r) => backendTls.listen(0, '127.0.0.1', () => r((backendTls.address() as { port: number }).port)));
    const port = await freePort();
    const svc = { type: 'proxy' as const, targets: [`https://127.0.0.1:${bport}`] };
    await engine.start('tlsb', rule({ port, defaultService: svc }));
    expect((await get(port, '/')).status).toBe(502); // self-signed: refused
    await engine.start('tlsb', rule({ port, defaultService: { ...svc, skipTlsVerify: true } }));
    const ok = await get(port, '/');
    expect(ok.status).toBe(200);
    expect(ok.body).toBe('tls backend http');
    await engine.stop('tlsb');
    backendTls.close();
    backendTls.closeAllConnections();
  });

  it('swaps certificates in place when a rule is saved', async () => {
    const port = await freePort();
    await engine.start('swap', rule({ port, protocol: 'https', certs: [{ source: 'pem', ...pem.a! }] }));
    expect((await tlsGet(port, 'x.b.test')).cn).toBe('a.test');
    await engine.start('swap', rule({ port, protocol: 'https', certs: [{ source: 'pem', ...pem.b! }, { source: 'pem', ...pem.a! }] }));
    expect((await tlsGet(port, 'x.b.test')).cn).toBe('*.b.test');
    expect((await tlsGet(port, 'a.test')).cn).toBe('a.test');
    expect((await tlsGet(port, 'unknown.test')).cn).toBe('*.b.test'); // the new first certificate
    await engine.stop('swap');
  });

  it('enforces the minimum TLS version', async () => {
    const port = await freePort();
    await engine.start('tls13', rule({ port, protocol: 'https', minTls: '1.3', certs: [{ source: 'pem', ...pem.a! }] }));
    expect((await tlsGet(port, 'a.test', { maxVersion: 'TLSv1.3' })).cn).toBe('a.test');
    await expect(tlsGet(port, 'a.test', { maxVersion: 'TLSv1.2' })).rejects.toThrow();
  });

  it('reports a bad certificate as the rule status, in the reader\'s language, and never listens', async () => {
    const ports = [await freePort(), await freePort(), await freePort()];
    await engine.start('badcert', rule({ port: ports[0]!, protocol: 'https', certs: [{ source: 'pem', cert: pem.a!.cert, key: pem.b!.key }] }));
    expect(engine.status('badcert')).toMatchObject({ state: 'error', message: 'certificate 1: the private key does not belong to the certificate' });
    expect(engine.status('badcert', 'zh_CN').message).toBe('证书 1：私钥与证书不匹配');
    await engine.start('nocert', rule({ port: ports[1]!, protocol: 'https' }));
    expect(engine.status('nocert')).toMatchObject({ state: 'error', message: 'https needs at least one certificate' });
    await engine.start('missing', rule({ port: ports[2]!, protocol: 'https', certs: [{ source: 'file', cert: '/nonexistent.crt', key: '/nonexistent.key' }] }));
    expect(engine.status('missing').state).toBe('error');
    expect(engine.status('missing').message).toMatch(/^certificate 1 cannot be read: .*ENOENT/);
    for (const port of ports) await expect(get(port, '/')).rejects.toThrow();
    for (const key of ['badcert', 'nocert', 'missing']) await engine.stop(key);
  });

  it('serves with an expired certificate and says so in the status', async () => {
    const port = await freePort();
    await engine.start('expired', rule({ port, protocol: 'https', certs: [{ source: 'pem', ...pem.old! }] }));
    expect(engine.status('expired')).toMatchObject({ state: 'error', message: 'certificate 1 (old.test) expired on 2020-02-01' });
    expect(engine.status('expired', 'zh_CN').message).toBe('证书 1（old.test）已于 2020-02-01 过期');
    expect((await tlsGet(port, 'old.test')).cn).toBe('old.test');
    await engine.stop('expired');
  });
});

describe('web engine serving threads', () => {
  const engine = ENGINES.find(([kind]) => kind === 'node, serving threads')![1]();
  afterAll(() => engine.close());

  it('carries on when a serving thread dies', async () => {
    const port = await freePort();
    await engine.start('die', rule({ port, defaultService: { type: 'text', body: 'alive' } }));
    const serving = (engine.engine as unknown as { serving: { pool: Array<{ worker: { terminate(): Promise<number> }; exited: boolean }> } }).serving;
    const threads = serving.pool;
    const first = threads[0]!;
    await first.worker.terminate();
    // The other thread serves meanwhile; then a new one takes the dead one's place with the rule.
    for (let i = 0; i < 10; i++) expect((await get(port, '/')).body).toBe('alive');
    await waitFor(() => threads[0] !== first && !threads[0]!.exited);
    await waitFor(async () => (await engine.figures('die')).requests >= 10);
    for (let i = 0; i < 20; i++) expect((await get(port, '/')).body).toBe('alive');
    expect(engine.status('die').state).toBe('running');
    // Saved again: every thread, the new one too, serves the new settings.
    await engine.start('die', rule({ port, defaultService: { type: 'text', body: 'saved' } }));
    for (let i = 0; i < 20; i++) expect((await get(port, '/')).body).toBe('saved');
    await engine.stop('die');
    await expect(get(port, '/')).rejects.toThrow();
  });
});
