// A web rule's basic auth and the daemon's defender of every login, on each engine (the native edge,
// the Node path on the main thread, the Node path on serving threads): wrong guesses against the
// rule lock the address, which is then refused by the rule (429 with Retry-After) and by the
// console's login alike; failures at the console lock it out of the rule too; a lift lets it in
// again; the right password is never counted.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENV } from '../../core/env.js';
import { freePort, startTestDaemon, TEST_PASSWORD, type TestDaemon } from '../../test/harness.js';
import { ALL, makeStorage, setStorageUsers } from '../../test/storages.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

function get(port: number, auth?: string, path = '/'): Promise<{ status: number; retryAfter: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, headers: auth ? { authorization: auth } : {} }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A plain-HTTP rule on loopback that asks for alice's basic auth and answers "inside". */
const guardedRule = (port: number) => ({
  name: 'guarded',
  protocol: 'http',
  address: '127.0.0.1',
  port,
  basicAuth: { enable: true, users: [{ user: 'alice', password: 'wonderland' }] },
  defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'inside\n' },
});

const SETUPS = [
  { name: 'native edge', env: { ...DEFAULT_ENV, webEngine: 'native' as const }, threads: null },
  { name: 'Node path, main thread', env: { ...DEFAULT_ENV, webEngine: 'node' as const }, threads: null },
  { name: 'Node path, serving threads', env: { ...DEFAULT_ENV, webEngine: 'node' as const }, threads: 2 },
];

describe.each(SETUPS)('basic auth and the defender ($name)', ({ env, threads }) => {
  let d: TestDaemon;
  let port: number;
  /**
   * The answer once it is 429: serving threads hear of a lock from the coordinator at once, but not
   * in the same tick as the failure that made it (a guess already known wrong is not counted again).
   */
  const lockedOut = async (auth: string) => {
    let r = await get(port, auth);
    for (let i = 0; i < 50 && r.status !== 429; i++) {
      await new Promise((res) => setTimeout(res, 20));
      r = await get(port, auth);
    }
    expect(r.status).toBe(429);
    return r;
  };
  const consoleLogin = (password: string) => d.call<{ ret: number; msg: string }>('POST', '/api/login', { Account: 'admin', Password: password }, { ...EN, token: null });

  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: {}, env });
    expect((await d.call('PUT', '/api/safe/loginprotection', { freeFailures: 3, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 1000 })).ret).toBe(0);
    if (threads) expect((await d.call('PUT', '/api/web/configure', { servingThreads: threads, mainThreadOnly: false })).ret).toBe(0);
    port = await freePort();
    const made = await d.call('POST', '/api/web/rules', guardedRule(port), EN);
    expect(made.ret, made.msg).toBe(0);
  }, 30_000);
  afterAll(async () => {
    await d?.close();
  });

  it('wrong guesses lock the address out of the rule and the console; a lift lets it in again', async () => {
    // The right password, and a request without credentials, count for nothing.
    expect((await get(port, basic('alice', 'wonderland'))).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get(port)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await get(port, basic('alice', `guess-${i}`))).status).toBe(401);
    const locked = await lockedOut(basic('alice', 'guess-x'));
    expect(Number(locked.retryAfter)).toBeGreaterThan(200);
    expect(locked.body).toBe('too many failed logins\n');
    // Refused everywhere: the console's login from the same address.
    expect((await consoleLogin(TEST_PASSWORD)).msg).toMatch(/Too many failed/);
    expect((await d.call<{ list: { address: string }[] }>('GET', '/api/safe/lockouts')).list.map((l) => l.address)).toEqual(['127.0.0.1']);
    expect((await d.call('DELETE', '/api/safe/lockouts/127.0.0.1')).ret).toBe(0);
    expect((await get(port, basic('alice', 'guess-y'))).status).toBe(401);
    expect((await get(port, basic('alice', 'wonderland'))).status).toBe(200);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
  });

  it("failures at the console's login lock the address out of the rule too", async () => {
    for (let i = 0; i < 3; i++) await consoleLogin('wrong');
    expect((await lockedOut(basic('alice', 'guess-z'))).status).toBe(429);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
    expect((await get(port, basic('alice', 'wonderland'))).status).toBe(200);
  });
});

describe('one defender for every surface: guesses over WebDAV lock the address out of a web rule and the console', () => {
  let d: TestDaemon;
  afterAll(async () => {
    await d?.close();
  });

  it('a WebDAV wrong-password loop, then the web rule answers 429 and the console refuses the login', async () => {
    d = await startTestDaemon({ loginGuard: {} });
    expect((await d.call('PUT', '/api/safe/loginprotection', { freeFailures: 3, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 1000 })).ret).toBe(0);
    const storage = await makeStorage(d);
    await setStorageUsers(d, [{ account: 'bob', password: 'builder', permissions: { [storage]: ALL } }]);
    const dav = { port: await freePort() };
    const made = await d.call<{ key: string }>('POST', '/api/webdav/rules', { name: 'dav', address: '127.0.0.1', port: dav.port, mounts: [{ name: '', storage }] }, EN);
    expect(made.ret, JSON.stringify(made)).toBe(0);
    // Running once it answers (a 401 without credentials).
    for (let i = 0; i < 200 && (await get(dav.port).catch(() => ({ status: 0 }))).status !== 401; i++) await new Promise((r) => setTimeout(r, 25));
    const webPort = await freePort();
    expect((await d.call('POST', '/api/web/rules', guardedRule(webPort))).ret).toBe(0);
    expect((await get(dav.port, basic('bob', 'builder'))).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(dav.port, basic('bob', `guess-${i}`))).status).toBe(401);
    // Locked now: WebDAV refuses even the right password, the web rule says 429 before it checks
    // one, the console refuses.
    expect((await get(dav.port, basic('bob', 'builder'))).status).toBe(401);
    expect((await get(webPort, basic('alice', 'wonderland'))).status).toBe(429);
    const login = await d.call<{ msg: string }>('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { ...EN, token: null });
    expect(login.msg).toMatch(/Too many failed/);
  }, 30_000);
});
