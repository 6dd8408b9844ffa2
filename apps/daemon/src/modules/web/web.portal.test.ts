// Lucky login on a web rule, on the native edge (Node checks a session first, the edge then serves
// it) and on the Node path's serving threads: a browser without a session is sent to the
// rule's own sign-in page; the form refuses forgeries, wrong passwords and a missing second factor;
// a sign-in sets a cookie for the operator's parent domain that every name under it accepts; the app
// gets the user's name (never a client's forgery, never the session cookie); a user is kept to their
// rules; revoking, signing out and switching a user off end the session at once; wrong guesses count
// in the defender that guards the console too.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENV } from '../../core/env.js';
import { totpCode } from '../../core/totp.js';
import { freePort, startTestDaemon, TEST_PASSWORD, type TestDaemon } from '../../test/harness.js';
import { hit, type HitAnswer as Answer } from '../../test/httphit.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const TOTP = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';


/** `name=value` of a Set-Cookie line. */
const cookiePair = (line: string) => line.split(';')[0]!;
const setCookie = (a: Answer, name: string) => (a.headers['set-cookie'] ?? []).find((l) => l.startsWith(`${name}=`));

/** The sign-in form's anti-forgery value and its cookie. */
async function openForm(port: number, host: string): Promise<{ form: string; cookie: string }> {
  const page = await hit(port, { host, path: '/.lucky/login', headers: { 'accept-language': 'en' } });
  expect(page.status).toBe(200);
  const form = /name="form" value="([^"]+)"/.exec(page.body)![1]!;
  return { form, cookie: cookiePair(setCookie(page, 'lucky_portal_form')!) };
}

async function signIn(port: number, host: string, user: string, password: string, code = '', rd = '/'): Promise<Answer> {
  const { form, cookie } = await openForm(port, host);
  const body = new URLSearchParams({ form, rd, user, password, code }).toString();
  return hit(port, { host, path: '/.lucky/login', method: 'POST', body, headers: { cookie, 'accept-language': 'en', origin: `http://${host}` } });
}

async function sessionOf(port: number, host: string, user: string, password: string, code = ''): Promise<string> {
  const r = await signIn(port, host, user, password, code);
  expect(r.status, r.body).toBe(303);
  return cookiePair(setCookie(r, 'lucky_portal')!);
}

// The main thread's Node path serves the portal's pages and first checks behind the edge as well.
const SETUPS = [
  { name: 'native edge', env: { ...DEFAULT_ENV, webEngine: 'native' as const }, threads: null },
  { name: 'Node path, serving threads', env: { ...DEFAULT_ENV, webEngine: 'node' as const }, threads: 2 },
];

describe.each(SETUPS)('Lucky login on a web rule ($name)', ({ env, threads }) => {
  let d: TestDaemon;
  let port: number;
  let ruleKey: string;
  let backend: Server;
  const users = new Map<string, string>();
  const app = (cookie: string, host = 'a.home.test', headers: Record<string, string> = {}) => hit(port, { host, path: '/app?x=1', headers: { cookie, accept: 'text/html', ...headers } });

  beforeAll(async () => {
    // The app behind the rule says what it was sent.
    backend = createServer((req, res) => res.end(JSON.stringify({ user: req.headers['remote-user'] ?? null, cookie: req.headers.cookie ?? null })));
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    d = await startTestDaemon({ loginGuard: {}, env });
    expect((await d.call('PUT', '/api/safe/loginprotection', { freeFailures: 3, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 1000 })).ret).toBe(0);
    if (threads) expect((await d.call('PUT', '/api/web/configure', { servingThreads: threads, mainThreadOnly: false })).ret).toBe(0);
    expect((await d.call('PUT', '/api/portal/configure', { cookieDomain: 'home.test', idleMinutes: 60, absoluteHours: 24 })).ret).toBe(0);
    port = await freePort();
    const made = await d.call<{ key: string }>(
      'POST',
      '/api/web/rules',
      {
        name: 'protected',
        protocol: 'http',
        address: '127.0.0.1',
        port,
        portal: { enable: true, userHeader: 'Remote-User' },
        defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${(backend.address() as AddressInfo).port}`] },
      },
      EN,
    );
    expect(made.ret, made.msg).toBe(0);
    ruleKey = made.key;
    for (const u of [
      { name: 'alice', password: 'wonderland' },
      { name: 'bob', password: 'builder', totp: TOTP, rules: [ruleKey] },
      { name: 'carol', password: 'singer', rules: ['elsewhere'] },
    ]) {
      const r = await d.call<{ key: string }>('POST', '/api/portal/rules', u, EN);
      expect(r.ret, r.msg).toBe(0);
      users.set(u.name, r.key);
    }
    // Serving once the rule answers.
    for (let i = 0; i < 200 && (await hit(port, { host: 'a.home.test' }).catch(() => ({ status: 0 }))).status !== 401; i++) await new Promise((r) => setTimeout(r, 25));
  }, 30_000);
  afterAll(async () => {
    await d?.close();
    backend?.close();
  });

  it('sends a browser to the sign-in page, answers a script 401, and serves the page in the reader’s language', async () => {
    const browser = await hit(port, { host: 'a.home.test', path: '/app?x=1', headers: { accept: 'text/html' } });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe('/.lucky/login?rd=%2Fapp%3Fx%3D1');
    expect((await hit(port, { host: 'a.home.test', path: '/api' })).status).toBe(401);
    const en = await hit(port, { host: 'a.home.test', path: '/.lucky/login', headers: { 'accept-language': 'en-US,en;q=0.9' } });
    expect(en.body).toContain('Sign in');
    expect(en.body).not.toMatch(/<script|src=/);
    expect(en.headers['content-security-policy']).toContain("default-src 'none'");
    expect(setCookie(en, 'lucky_portal_form')).toMatch(/HttpOnly; SameSite=Strict/);
    const zh = await hit(port, { host: 'a.home.test', path: '/.lucky/login' });
    expect(zh.body).toContain('用户名');
  });

  it('refuses a forged form, a wrong password and a missing second factor, and lets the right one in with a cookie for the parent domain', async () => {
    // No anti-forgery value, then one that does not match its cookie, then another site's page.
    const bare = new URLSearchParams({ user: 'alice', password: 'wonderland' }).toString();
    expect((await hit(port, { host: 'a.home.test', path: '/.lucky/login', method: 'POST', body: bare })).status).toBe(403);
    const { form, cookie } = await openForm(port, 'a.home.test');
    const forged = new URLSearchParams({ form: `${form}x`, user: 'alice', password: 'wonderland' }).toString();
    expect((await hit(port, { host: 'a.home.test', path: '/.lucky/login', method: 'POST', body: forged, headers: { cookie } })).status).toBe(403);
    const crossSite = new URLSearchParams({ form, user: 'alice', password: 'wonderland' }).toString();
    expect((await hit(port, { host: 'a.home.test', path: '/.lucky/login', method: 'POST', body: crossSite, headers: { cookie, origin: 'http://evil.test' } })).status).toBe(403);

    const wrong = await signIn(port, 'a.home.test', 'alice', 'looking-glass');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('wrong user name, password or code');
    expect(setCookie(wrong, 'lucky_portal')).toBeUndefined();
    expect((await signIn(port, 'a.home.test', 'bob', 'builder')).status).toBe(401);

    const ok = await signIn(port, 'a.home.test', 'alice', 'wonderland', '', '/app?x=1');
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe('/app?x=1');
    const line = setCookie(ok, 'lucky_portal')!;
    expect(line).toMatch(/; Domain=home\.test; Max-Age=86400; HttpOnly; SameSite=Lax$/);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);

    // The second factor: bob's code from his app.
    const bob = await signIn(port, 'a.home.test', 'bob', 'builder', totpCode(TOTP));
    expect(bob.status).toBe(303);
    // Somewhere outside the parent domain the cookie is the host's own.
    const elsewhere = await signIn(port, 'other.test', 'alice', 'wonderland');
    expect(setCookie(elsewhere, 'lucky_portal')).not.toContain('Domain=');
    // Never anywhere but a path of this site.
    expect((await signIn(port, 'a.home.test', 'alice', 'wonderland', '', '//evil.test/x')).headers.location).toBe('/');
  });

  it('passes the user to the app, drops a forged user header and the session cookie, on every name under the parent domain', async () => {
    const session = await sessionOf(port, 'a.home.test', 'alice', 'wonderland');
    for (const host of ['a.home.test', 'b.home.test']) {
      const r = await app(`theme=dark; ${session}`, host, { 'Remote-User': 'mallory' });
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toEqual({ user: 'alice', cookie: 'theme=dark' });
    }
    if (env.webEngine === 'native') {
      // Once Node has checked the session, the edge serves its requests itself, with the same result.
      const r = await app(`theme=dark; ${session}`, 'a.home.test', { 'Remote-User': 'mallory' });
      expect(JSON.parse(r.body)).toEqual({ user: 'alice', cookie: 'theme=dark' });
      const figures = await d.call<{ rule: { figures: { engine?: { native: number } } } }>('GET', `/api/web/rules/${ruleKey}`);
      expect(figures.rule.figures.engine!.native).toBeGreaterThan(0);
    }
    // Already signed in: the sign-in page says as whom.
    expect((await hit(port, { host: 'a.home.test', path: '/.lucky/login', headers: { cookie: session, 'accept-language': 'en' } })).body).toContain('signed in as alice');
  });

  it('keeps a user to their rules', async () => {
    const carol = await signIn(port, 'a.home.test', 'carol', 'singer');
    expect(carol.status).toBe(403);
    expect(carol.body).toContain('carol may not open this site');
    expect(setCookie(carol, 'lucky_portal')).toBeUndefined();
    const bob = await sessionOf(port, 'a.home.test', 'bob', 'builder', totpCode(TOTP));
    expect(JSON.parse((await app(bob)).body).user).toBe('bob');
  });

  it('ends a session when revoked, signed out, or its user is switched off', async () => {
    // Revoked in the console.
    const first = await sessionOf(port, 'a.home.test', 'alice', 'wonderland');
    expect((await app(first)).status).toBe(200);
    const { list } = await d.call<{ list: { id: string; user: string; address: string; created: number }[] }>('GET', '/api/portal/sessions');
    const newest = list.find((s) => s.user === 'alice')!;
    expect(newest.address).toBe('127.0.0.1');
    expect((await d.call('DELETE', `/api/portal/sessions/${newest.id}`, undefined, EN)).msg).toBe('the session was ended');
    expect((await app(first)).status).toBe(302);

    // Signed out with the page's button (a link alone signs nobody out).
    const second = await sessionOf(port, 'a.home.test', 'alice', 'wonderland');
    const page = await hit(port, { host: 'a.home.test', path: '/.lucky/logout', headers: { cookie: second } });
    const form = /name="form" value="([^"]+)"/.exec(page.body)![1]!;
    const formCookie = cookiePair(setCookie(page, 'lucky_portal_form')!);
    expect((await app(second)).status).toBe(200);
    const out = await hit(port, { host: 'a.home.test', path: '/.lucky/logout', method: 'POST', body: `form=${form}`, headers: { cookie: `${second}; ${formCookie}` } });
    expect(out.status).toBe(200);
    expect(setCookie(out, 'lucky_portal')).toMatch(/^lucky_portal=; Path=\/; Domain=home\.test; Max-Age=0/);
    expect((await app(second)).status).toBe(302);

    // Switched off.
    const third = await sessionOf(port, 'a.home.test', 'alice', 'wonderland');
    expect((await app(third)).status).toBe(200);
    expect((await d.call('PUT', `/api/portal/rules/${users.get('alice')}/enable`, { enable: false })).ret).toBe(0);
    expect((await app(third)).status).toBe(302);
    expect((await d.call('PUT', `/api/portal/rules/${users.get('alice')}/enable`, { enable: true })).ret).toBe(0);
  });

  it('counts wrong guesses in the defender: the address is refused by the form and by the console', async () => {
    for (let i = 0; i < 2; i++) expect((await signIn(port, 'a.home.test', 'alice', `guess-${i}`)).status).toBe(401);
    // The third failure locks the address, and the form says so at once.
    expect((await signIn(port, 'a.home.test', 'alice', 'guess-2')).status).toBe(429);
    const locked = await signIn(port, 'a.home.test', 'alice', 'wonderland');
    expect(locked.status).toBe(429);
    expect(locked.body).toContain('too many failed sign-ins');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(200);
    const consoleLogin = await d.call<{ msg: string }>('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { ...EN, token: null });
    expect(consoleLogin.msg).toMatch(/Too many failed/);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
    expect((await signIn(port, 'a.home.test', 'alice', 'wonderland')).status).toBe(303);
  });
});
