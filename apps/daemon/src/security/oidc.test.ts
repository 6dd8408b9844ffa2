// Single sign-on against a real OpenID provider the test starts on loopback (oidc-provider, a
// certified implementation, with its development login pages), and against a rogue one whose ID
// tokens are wrong one way each: the console lets a member of an admin group in (through a one-time
// code, never a token in a URL) and refuses anyone else; a web rule with Lucky login signs people in
// by their groups; a token with a wrong signature, issuer, audience, nonce, or an expired one is
// refused; settings naming a provider that cannot be read are not saved.
import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZOidcSettings } from '@lucky/contracts';
import { freePort, startTestDaemon, type TestDaemon } from '../test/harness.js';
import { hitUrl as hit } from '../test/httphit.js';
import { Oidc } from './oidc.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const GROUPS: Record<string, string[]> = { alice: ['admins', 'family'], bob: ['family'], eve: [] };


/**
 * A person at the provider's development pages: follows its redirects with its cookies, signs in
 * as `login` and consents, and stops at the first URL outside the provider (the callback).
 */
async function throughProvider(start: string, provider: string, login: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let step = 0; step < 20; step++) {
    if (!url.startsWith(provider)) return url;
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    let r = await hit(url, { headers: cookie ? { cookie } : {} });
    for (const line of r.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    if (r.status === 200) {
      // A form: the login, then the consent.
      const action = /action="([^"]+)"/.exec(r.body)![1]!;
      const fields = new URLSearchParams([...r.body.matchAll(/type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
      if (r.body.includes('name="login"')) {
        fields.set('login', login);
        fields.set('password', 'any');
      }
      const cookies = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      r = await hit(new URL(action, url).toString(), { method: 'POST', body: fields.toString(), headers: { cookie: cookies } });
      for (const line of r.headers['set-cookie'] ?? []) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
    }
    expect([302, 303], r.body.slice(0, 300)).toContain(r.status);
    url = new URL(r.headers.location!, url).toString();
  }
  throw new Error('the provider never sent the browser back');
}

describe('single sign-on through a real OpenID provider', () => {
  let d: TestDaemon;
  let provider: Server;
  let issuer: string;
  let consoleOrigin: string;
  let webPort: number;
  let backend: Server;

  beforeAll(async () => {
    const providerPort = await freePort();
    issuer = `http://127.0.0.1:${providerPort}`;
    const adminPort = await freePort();
    consoleOrigin = `http://127.0.0.1:${adminPort}`;
    webPort = await freePort();
    const oidc = new Provider(issuer, {
      clients: [
        {
          client_id: 'lucky',
          client_secret: 'lucky-secret',
          redirect_uris: [`${consoleOrigin}/api/oidc/callback`, `http://app.home.test:${webPort}/.lucky/sso/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, preferred_username: sub, groups: GROUPS[sub] ?? [] }) }),
      claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'groups'],
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ['test-only-cookie-key'] },
    });
    provider = oidc.listen(providerPort) as Server;
    backend = createServer((req, res) => res.end(JSON.stringify({ user: req.headers['remote-user'] ?? null })));
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    d = await startTestDaemon({ port: adminPort });
    await d.runtime.listen();
  }, 30_000);
  afterAll(async () => {
    await d?.close();
    provider?.close();
    backend?.close();
  });

  it('does not save settings whose provider cannot be read, and saves readable ones with the secret masked', async () => {
    const dead = await d.call('PUT', '/api/safe/oidc', { enable: true, issuer: `http://127.0.0.1:${await freePort()}`, clientId: 'lucky' }, EN);
    expect(dead.ret).not.toBe(0);
    expect(dead.msg).toMatch(/could not be read/);
    expect((await d.call<{ enable: boolean }>('GET', '/api/oidc', undefined, { token: null })).enable).toBe(false);
    const saved = await d.call('PUT', '/api/safe/oidc', { enable: true, issuer, clientId: 'lucky', clientSecret: 'lucky-secret', label: 'Home ID', scopes: ['openid', 'profile', 'groups'], adminGroups: ['admins'], portalGroups: [{ group: 'family', rules: [] }] }, EN);
    expect(saved.ret, saved.msg).toBe(0);
    const got = await d.call<{ oidc: { clientSecret: string } }>('GET', '/api/safe/oidc');
    expect(got.oidc.clientSecret).toBe('******');
    // Sent back as read, the secret stays.
    expect((await d.call('PUT', '/api/safe/oidc', got.oidc)).ret).toBe(0);
    expect(d.runtime.config.get().Oidc.clientSecret).toBe('lucky-secret');
    expect(await d.call('GET', '/api/oidc', undefined, { token: null })).toMatchObject({ enable: true, label: 'Home ID' });
  });

  it('lets a member of an admin group into the console with a one-time code, and refuses anyone else', async () => {
    const start = await hit(`${consoleOrigin}/api/oidc/login`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.location!);
    expect(authorize.origin).toBe(issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await throughProvider(start.headers.location!, issuer, 'alice');
    expect(callback.startsWith(`${consoleOrigin}/api/oidc/callback?`)).toBe(true);
    const back = await hit(callback);
    expect(back.status).toBe(302);
    const code = /#\/login\?sso=([\w-]+)$/.exec(back.headers.location!)![1]!;
    const traded = await d.call<{ token: string }>('POST', '/api/oidc/exchange', { code }, { token: null });
    expect(traded.ret).toBe(0);
    expect((await d.call('GET', '/api/safe/sessions', undefined, { token: traded.token })).ret).toBe(0);
    // Used once.
    expect((await d.call('POST', '/api/oidc/exchange', { code }, { ...EN, token: null })).msg).toBe('the sign-in code is wrong or expired: please sign in again');
    // A replayed callback finds no sign-in in progress.
    expect(decodeURIComponent((await hit(callback, { headers: { 'accept-language': 'en' } })).headers.location!)).toContain('the sign-in expired or was not started here');

    const bob = await hit(await throughProvider((await hit(`${consoleOrigin}/api/oidc/login`)).headers.location!, issuer, 'bob'), { headers: { 'accept-language': 'en' } });
    expect(decodeURIComponent(bob.headers.location!)).toContain('ssoError=bob is not in a group that may manage Lucky');
  });

  it('sends the provider back under the safe entry path when there is one', async () => {
    expect((await d.call('PUT', '/api/safe/safeurl', { safeURL: 's3cret' })).ret).toBe(0);
    const start = await hit(`${consoleOrigin}/s3cret/api/oidc/login`);
    expect(new URL(start.headers.location!).searchParams.get('redirect_uri')).toBe(`${consoleOrigin}/s3cret/api/oidc/callback`);
    expect((await d.call('PUT', '/s3cret/api/safe/safeurl', { safeURL: '' })).ret).toBe(0);
  });

  it('signs people in on a web rule with Lucky login by their groups', async () => {
    const made = await d.call('POST', '/api/web/rules', {
      name: 'family',
      protocol: 'http',
      address: '127.0.0.1',
      port: webPort,
      portal: { enable: true },
      defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${(backend.address() as AddressInfo).port}`] },
    });
    expect(made.ret, made.msg).toBe(0);
    const site = `http://app.home.test:${webPort}`;
    for (let i = 0; i < 200 && (await hit(`${site}/`).catch(() => ({ status: 0 }))).status !== 401; i++) await new Promise((r) => setTimeout(r, 25));
    const page = await hit(`${site}/.lucky/login?rd=%2Fphotos`, { headers: { 'accept-language': 'en' } });
    expect(page.body).toContain('Sign in with Home ID');
    const start = await hit(`${site}/.lucky/sso?rd=%2Fphotos`);
    expect(start.status).toBe(302);
    const done = await hit(await throughProvider(start.headers.location!, issuer, 'bob'));
    expect(done.status).toBe(303);
    expect(done.headers.location).toBe('/photos');
    const session = done.headers['set-cookie']!.find((l) => l.startsWith('lucky_portal='))!.split(';')[0]!;
    expect(JSON.parse((await hit(`${site}/photos`, { headers: { cookie: session } })).body)).toEqual({ user: 'bob' });
    const { list } = await d.call<{ list: { user: string }[] }>('GET', '/api/portal/sessions');
    expect(list.map((s) => s.user)).toContain('bob');

    // Eve's groups open nothing.
    const eve = await hit(await throughProvider((await hit(`${site}/.lucky/sso`)).headers.location!, issuer, 'eve'), { headers: { 'accept-language': 'en' } });
    expect(eve.status).toBe(403);
    expect(eve.body).toContain('eve may not open this site');
  });
});

/** A provider whose ID tokens are wrong in the way the test says. */
describe('ID tokens the relying party refuses', () => {
  let server: Server;
  let issuer: string;
  const keys = { good: generateKeyPairSync('rsa', { modulusLength: 2048 }), other: generateKeyPairSync('rsa', { modulusLength: 2048 }) };
  let mode = 'good';
  /** The nonce of the flow under way, read from the authorize URL. */
  let nonce = '';

  const b64 = (v: object | Buffer) => (Buffer.isBuffer(v) ? v : Buffer.from(JSON.stringify(v))).toString('base64url');
  const jwt = (payload: object, key: KeyObject) => {
    const head = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'k1' })}.${b64(payload)}`;
    return `${head}.${b64(sign('sha256', Buffer.from(head), key))}`;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0];
      const json = (v: object) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (path === '/.well-known/openid-configuration') {
        return json({ issuer, authorization_endpoint: `${issuer}/auth`, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'], id_token_signing_alg_values_supported: ['RS256'], subject_types_supported: ['public'] });
      }
      if (path === '/jwks') return json({ keys: [{ ...keys.good.publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] });
      if (path === '/token') {
        const now = Math.floor(Date.now() / 1000);
        const claims = { iss: issuer, aud: 'lucky', sub: 'mallory', preferred_username: 'mallory', groups: ['admins'], nonce, iat: now, exp: now + 300 };
        const bad: Record<string, object> = { issuer: { iss: 'http://elsewhere.test' }, audience: { aud: 'someone-else' }, expired: { iat: now - 7200, exp: now - 3600 }, nonce: { nonce: 'replayed' } };
        const key = mode === 'signature' ? keys.other.privateKey : createPrivateKey(keys.good.privateKey.export({ format: 'pem', type: 'pkcs8' }));
        return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: jwt({ ...claims, ...bad[mode] }, key) });
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => server?.close());

  const settings = () => ZOidcSettings.parse({ enable: true, issuer, clientId: 'lucky', clientSecret: 's', adminGroups: ['admins'] });
  const attempt = async (m: string) => {
    mode = m;
    const oidc = new Oidc(settings);
    const redirect = 'http://127.0.0.1:1/api/oidc/callback';
    const authorize = new URL(await oidc.start(redirect, { for: 'console' }));
    nonce = authorize.searchParams.get('nonce')!;
    return oidc.finish(new URL(`${redirect}?code=c0de&state=${authorize.searchParams.get('state')}`));
  };

  it('accepts the well-formed one', async () => {
    expect((await attempt('good')).identity).toEqual({ user: 'mallory', groups: ['admins'], issuer });
  });

  it.each(['signature', 'issuer', 'audience', 'expired', 'nonce'])('refuses a token with a wrong %s', async (m) => {
    await expect(attempt(m)).rejects.toMatchObject({ msg: { key: 'oidcRefused' } });
  });
});
