// Forward auth against an authorizer the test starts (speaking what Authelia, Authentik and
// oauth2-proxy speak), on the native edge (which passes such sites to Node) and on the Node path:
// the authorizer hears where each request was going and with which credentials; its 2xx lets the
// request through with the headers it names (a client's forgeries of them dropped), its 302 and 401
// reach the client as they are, and an authorizer that cannot be asked lets nothing through.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENV } from '../../core/env.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { hit as hitAny, type Hit } from '../../test/httphit.js';

/** Every request of this file asks for the same site. */
const hit = (port: number, o: Hit) => hitAny(port, { host: 'app.home.test', ...o });


const listen = async (s: Server) => {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
};

const SETUPS = [
  { name: 'native edge', env: { ...DEFAULT_ENV, webEngine: 'native' as const } },
  { name: 'Node path', env: { ...DEFAULT_ENV, webEngine: 'node' as const } },
];

describe.each(SETUPS)('forward auth ($name)', ({ env }) => {
  let d: TestDaemon;
  let port: number;
  let authorizer: Server;
  let backend: Server;
  /** What the authorizer was asked, newest last. */
  const asked: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    // The authorizer: a session cookie `sso=alice` passes; a browser without one is sent to the
    // login page; anything else is challenged.
    authorizer = createServer((req, res) => {
      asked.push(req.headers);
      if (req.headers.cookie?.includes('sso=alice')) {
        res.writeHead(200, { 'Remote-User': 'alice', 'Remote-Groups': 'admins,family', 'X-Not-Copied': 'no' });
        return void res.end();
      }
      if (String(req.headers.accept ?? '').includes('text/html')) {
        const back = `${String(req.headers['x-forwarded-proto'])}://${String(req.headers['x-forwarded-host'])}${String(req.headers['x-forwarded-uri'])}`;
        res.writeHead(302, { Location: `https://auth.home.test/?rd=${encodeURIComponent(back)}`, 'Set-Cookie': 'flow=started; Path=/' });
        return void res.end();
      }
      res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="sso"', 'Content-Type': 'text/plain' });
      res.end('sign in first\n');
    });
    backend = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => res.end(JSON.stringify({ user: req.headers['remote-user'] ?? null, groups: req.headers['remote-groups'] ?? null, notCopied: req.headers['x-not-copied'] ?? null, body })));
    });
    const [authPort, backendPort] = [await listen(authorizer), await listen(backend)];
    d = await startTestDaemon({ env });
    port = await freePort();
    const made = await d.call('POST', '/api/web/rules', {
      name: 'sso',
      protocol: 'http',
      address: '127.0.0.1',
      port,
      forwardAuth: { enable: true, url: `http://127.0.0.1:${authPort}/api/authz/forward-auth` },
      defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backendPort}`] },
    });
    expect(made.ret, made.msg).toBe(0);
    for (let i = 0; i < 200 && (await hit(port, {}).catch(() => ({ status: 0 }))).status !== 401; i++) await new Promise((r) => setTimeout(r, 25));
  }, 30_000);
  afterAll(async () => {
    await d?.close();
    authorizer?.close();
    backend?.close();
  });

  it('refuses to save forward auth without an authorizer', async () => {
    const r = await d.call('POST', '/api/web/rules', { name: 'x', protocol: 'http', address: '127.0.0.1', port: await freePort(), forwardAuth: { enable: true }, defaultService: { type: 'close' } }, { headers: { 'lucky-lang': 'en_US' } });
    expect(r.msg).toBe('forward auth needs the address of the authorizer');
  });

  it('passes a signed-in request with the headers the authorizer named, and tells the authorizer where it was going', async () => {
    const r = await hit(port, { path: '/photos?album=2', method: 'POST', body: 'hello', headers: { cookie: 'sso=alice', 'remote-user': 'mallory', 'x-forwarded-uri': '/forged', 'content-length': '5' } });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toEqual({ user: 'alice', groups: 'admins,family', notCopied: null, body: 'hello' });
    expect(asked.at(-1)).toMatchObject({
      'x-forwarded-method': 'POST',
      'x-forwarded-proto': 'http',
      'x-forwarded-host': 'app.home.test',
      'x-forwarded-uri': '/photos?album=2',
      'x-forwarded-for': '127.0.0.1',
      'x-original-url': 'http://app.home.test/photos?album=2',
      'x-original-method': 'POST',
      cookie: 'sso=alice',
    });
    // No body is sent to the authorizer.
    expect(asked.at(-1)!['content-length']).toBeUndefined();
  });

  it('gives the client the authorizer’s redirect and challenge as they are', async () => {
    const browser = await hit(port, { path: '/photos', headers: { accept: 'text/html' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe(`https://auth.home.test/?rd=${encodeURIComponent('http://app.home.test/photos')}`);
    expect(browser.headers['set-cookie']).toEqual(['flow=started; Path=/']);
    const script = await hit(port, { path: '/api' });
    expect(script.status).toBe(401);
    expect(script.headers['www-authenticate']).toBe('Bearer realm="sso"');
    expect(script.body).toBe('sign in first\n');
  });

  it('lets nothing through while the authorizer cannot be asked', async () => {
    await new Promise<void>((r) => authorizer.close(() => r()));
    authorizer.closeAllConnections();
    const r = await hit(port, { path: '/', headers: { cookie: 'sso=alice' } });
    expect(r.status).toBe(503);
    expect(r.body).toBe('authorizer unavailable\n');
  });
});
