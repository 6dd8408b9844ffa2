/** Security management over the API: 2FA, access policy, lockouts, safe entry path, tokens, sessions, audit. */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../core/totp.js';
import { startTestDaemon, TEST_PASSWORD, type TestDaemon } from '../test/harness.js';
import { createTestHost, freeLink, type TestHost } from '../test/netns.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const login = (d: TestDaemon, extra: Record<string, unknown> = {}, from?: string) =>
  d.call<{ token: string }>('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD, ...extra }, { token: null, ...(from ? { remoteAddress: from } : {}) });

describe('two-factor login', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  it('enrols with a QR code, switches on only with a valid code, and logs in with codes', async () => {
    expect((await d.call('POST', '/api/safe/twofa/enable', { code: '123456' }, EN)).msg).toBe(
      'Get a 2FA secret and scan it with your authenticator first',
    );
    const start = await d.call<{ secret: string; otpauthUrl: string; qrcode: string }>('GET', '/api/twofapassword');
    expect(start.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(start.otpauthUrl).toContain(`secret=${start.secret}`);
    expect(start.otpauthUrl).toContain('issuer=Lucky');
    expect(start.qrcode).toMatch(/^data:image\/png;base64,/);
    expect((await d.call('POST', '/api/safe/twofa/enable', { code: 'abc' })).ret).toBe(1);
    const wrong = totpCode(start.secret, Date.now() - 10 * 60_000);
    expect((await d.call('POST', '/api/safe/twofa/enable', { code: wrong }, EN)).msg).toBe('The two-factor code is wrong');
    expect((await d.call('GET', '/version', undefined, { token: null })).twoFAEnable).toBe(false);

    const on = await d.call<{ recoveryCodes: string[] }>('POST', '/api/safe/twofa/enable', { code: totpCode(start.secret) });
    expect(on.recoveryCodes).toHaveLength(8);
    expect(new Set(on.recoveryCodes).size).toBe(8);
    expect(await d.call('GET', '/2FAStatus', undefined, { token: null })).toEqual({ ret: 0, twoFAEnable: true });
    // The secret and the codes are never readable again.
    expect((await d.call('GET', '/api/twofapassword')).ret).not.toBe(0);
    const file = JSON.stringify(d.runtime.config.get());
    for (const c of on.recoveryCodes) expect(file).not.toContain(c);

    expect((await login(d)).ret).toBe(2);
    expect((await login(d, { TwoFA: '000000' })).ret).toBe(2);
    expect((await login(d, { TwoFA: totpCode(start.secret) })).ret).toBe(0);
    // A recovery code works once; a wrong password does not use it up.
    const code = on.recoveryCodes[0]!;
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: 'wrong', TwoFA: code }, { token: null })).ret).toBe(2);
    expect((await login(d, { TwoFA: code.toUpperCase() })).ret).toBe(0);
    expect((await login(d, { TwoFA: code })).ret).toBe(2);
    expect((await d.call<{ recoveryCodesLeft: number }>('GET', '/api/safe/overview')).recoveryCodesLeft).toBe(7);

    const fresh = await d.call<{ recoveryCodes: string[] }>('POST', '/api/safe/twofa/recovery', { password: TEST_PASSWORD });
    expect(fresh.recoveryCodes).toHaveLength(8);
    expect((await login(d, { TwoFA: on.recoveryCodes[1] })).ret).toBe(2);

    expect((await d.call('POST', '/api/safe/twofa/disable', { password: 'nope' }, EN)).msg).toBe('The password is wrong');
    expect((await d.call('POST', '/api/safe/twofa/disable', { password: TEST_PASSWORD })).ret).toBe(0);
    expect((await login(d)).ret).toBe(0);
  });
});

describe('admin access policy', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });
  const status = (from: string) => d.call('GET', '/api/status', undefined, { remoteAddress: from });

  it('blacklist, whitelist, whitelist-only, extra local networks and expiry', async () => {
    expect((await status('203.0.113.9')).ret).toBe(2);
    const put = (access: object) => d.call('PUT', '/api/safe/access', access, EN);
    expect((await put({ whitelist: [{ cidr: '203.0.113.0/24' }], blacklist: [{ cidr: '192.168.5.5' }] })).ret).toBe(0);
    expect((await status('203.0.113.9')).ret).toBe(0);
    expect((await status('192.168.5.5')).ret).toBe(2);
    expect((await status('192.168.5.6')).ret).toBe(0);
    expect((await status('127.0.0.1')).ret).toBe(0);

    expect((await put({ whitelist: [{ cidr: '203.0.113.0/24', expires: Date.now() - 1000 }] })).ret).toBe(0);
    expect((await status('203.0.113.9')).ret).toBe(2);

    expect((await put({ localNetworks: ['198.51.100.0/24'] })).ret).toBe(0);
    expect((await status('198.51.100.77')).ret).toBe(0);

    expect((await put({ whitelistOnly: true, whitelist: [{ cidr: '10.1.0.0/16' }] })).ret).toBe(0);
    expect((await status('10.2.0.1')).ret).toBe(2);
    expect((await status('10.1.2.3')).ret).toBe(0);
    expect((await status('::1')).ret).toBe(0);
    expect((await put({})).ret).toBe(0);
  });

  it('refuses a policy that would shut out the caller, and bad ranges, changing nothing', async () => {
    const before = JSON.stringify(d.runtime.config.get().Access);
    const r = await d.call('PUT', '/api/safe/access', { blacklist: [{ cidr: '192.168.0.0/16' }] }, { remoteAddress: '192.168.1.2', ...EN });
    expect(r).toEqual({ ret: 2, msg: 'This would shut out your own address 192.168.1.2; not saved' });
    expect((await d.call('PUT', '/api/safe/access', { whitelist: [{ cidr: '10.0.0.0/33' }] })).ret).toBe(1);
    expect((await d.call('PUT', '/api/safe/access', { localNetworks: ['nope'] })).ret).toBe(1);
    expect(JSON.stringify(d.runtime.config.get().Access)).toBe(before);
  });
});

describe('admin access from real source addresses (network namespace)', () => {
  let d: TestDaemon;
  let host: TestHost;
  let port: number;
  // A /30 of 198.51.100.0/24 stands for "the internet" (a documentation range on a link only this
  // test has); a /24 of 10.77.0.0/16 for a LAN (free ones: another run of this file may be under way).
  const net = freeLink('198.51.100');
  const lan = freeLink('10.77');
  beforeAll(async () => {
    d = await startTestDaemon({ host: '0.0.0.0' });
    await d.runtime.listen();
    port = d.runtime.port();
    host = createTestHost('acc', [`${net.host}/${net.bits}`, `${lan.host}/${lan.bits}`], [`${net.inside}/${net.bits}`, `${lan.inside}/${lan.bits}`]);
  });
  afterAll(async () => {
    host?.remove();
    await d.close();
  });

  it('refuses the outside address, lets the LAN address through, and follows the whitelist', async () => {
    const outside = await host.get(`http://${net.host}:${port}/api/status`, net.inside, { 'lucky-lang': 'en_US' });
    expect(outside).toMatch(/^200 /);
    expect(JSON.parse(outside.slice(4))).toMatchObject({ ret: 2, msg: expect.stringContaining(`${net.inside} is not a local address`) });
    expect(await host.get(`http://${net.host}:${port}/`, net.inside)).toMatch(/^403 /);
    const lan1 = await host.get(`http://${lan.host}:${port}/api/status`, lan.inside);
    expect(JSON.parse(lan1.slice(4)).ret).toBe(-1); // past the address check, asking for a session
    const withToken = await host.get(`http://${lan.host}:${port}/api/status`, lan.inside, { 'lucky-admin-token': d.token });
    expect(JSON.parse(withToken.slice(4)).ret).toBe(0);

    expect((await d.call('PUT', '/api/safe/access', { whitelist: [{ cidr: net.inside }], blacklist: [{ cidr: lan.inside }] })).ret).toBe(0);
    expect(JSON.parse((await host.get(`http://${net.host}:${port}/api/status`, net.inside, { 'lucky-admin-token': d.token })).slice(4)).ret).toBe(0);
    expect(JSON.parse((await host.get(`http://${lan.host}:${port}/api/status`, lan.inside, { 'lucky-admin-token': d.token })).slice(4)).ret).toBe(2);
  });
});

describe('login protection', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: {} });
    expect((await d.call('PUT', '/api/safe/loginprotection', { freeFailures: 2, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 100 })).ret).toBe(0);
  });
  afterAll(async () => {
    await d.close();
  });

  it('shows the locks and clears them', async () => {
    for (let i = 0; i < 2; i++) await d.call('POST', '/api/login', { Account: 'admin', Password: 'x' }, { token: null, remoteAddress: '10.0.0.5' });
    expect((await login(d, {}, '10.0.0.5')).ret).toBe(2);
    const locks = await d.call<{ list: { address: string; failures: number; lockedUntil: number }[] }>('GET', '/api/safe/lockouts');
    expect(locks.list).toEqual([expect.objectContaining({ address: '10.0.0.5', failures: 2 })]);
    expect(locks.list[0]!.lockedUntil).toBeGreaterThan(Date.now() + 200_000);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
    expect((await d.call<{ list: unknown[] }>('GET', '/api/safe/lockouts')).list).toEqual([]);
    expect((await login(d, {}, '10.0.0.5')).ret).toBe(0);
  });

  const wrong = (from: string) => d.call('POST', '/api/login', { Account: 'admin', Password: 'x' }, { ...EN, token: null, remoteAddress: from });
  const lockList = async () => (await d.call<{ list: { address: string }[] }>('GET', '/api/safe/lockouts')).list.map((l) => l.address).sort();

  it('lifts one address and leaves the others locked; the audit log has the lock and the lift', async () => {
    for (const ip of ['10.0.0.6', '10.0.0.7']) for (let i = 0; i < 2; i++) await wrong(ip);
    expect(await lockList()).toEqual(['10.0.0.6', '10.0.0.7']);
    expect((await d.call('DELETE', '/api/safe/lockouts/10.0.0.6')).ret).toBe(0);
    expect(await lockList()).toEqual(['10.0.0.7']);
    expect((await login(d, {}, '10.0.0.6')).ret).toBe(0);
    expect((await login(d, {}, '10.0.0.7')).ret).toBe(2);
    expect(await d.call('DELETE', '/api/safe/lockouts/10.0.0.99', undefined, EN)).toMatchObject({ ret: 3, msg: '10.0.0.99 is not locked' });
    const audit = (await d.call<{ list: { actor: string; action: string; address: string; target: string }[] }>('GET', '/api/safe/audit?limit=50')).list;
    expect(audit.find((e) => e.actor === 'defender' && e.address === '10.0.0.7')).toMatchObject({ action: 'login locked', target: '300 s after 2 failures' });
    expect(audit.filter((e) => e.action === 'DELETE /api/safe/lockouts/:address').map((e) => e.target)).toEqual(['10.0.0.99', '10.0.0.6']);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
  });

  it('never locks an address of the allow list; the others still are', async () => {
    const lp = { freeFailures: 2, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 100 };
    expect((await d.call('PUT', '/api/safe/loginprotection', { ...lp, allowList: ['10.0.9.0/24', '::1'] })).ret).toBe(0);
    const bad = await d.call('PUT', '/api/safe/loginprotection', { ...lp, allowList: ['10.0.9.0/33'] }, EN);
    expect(bad.ret).toBe(1);
    try {
      for (let i = 0; i < 6; i++) expect((await wrong('10.0.9.8')).msg).not.toMatch(/Too many/);
      expect((await login(d, {}, '10.0.9.8')).ret).toBe(0);
      for (let i = 0; i < 2; i++) await wrong('10.0.8.8');
      expect((await login(d, {}, '10.0.8.8')).ret).toBe(2);
      expect(await lockList()).toEqual(['10.0.8.8']);
    } finally {
      expect((await d.call('PUT', '/api/safe/loginprotection', lp)).ret).toBe(0);
      await d.call('DELETE', '/api/safe/lockouts');
    }
  });

  it('validates its settings', async () => {
    expect((await d.call('PUT', '/api/safe/loginprotection', { freeFailures: 0 })).ret).toBe(1);
    expect((await d.call<{ loginProtection: { freeFailures: number } }>('GET', '/api/safe/loginprotection')).loginProtection.freeFailures).toBe(2);
  });
});

describe('safe entry path', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });
  const raw = (url: string, token = true) =>
    d.runtime.app.inject({ method: 'GET', url, headers: token ? { 'lucky-admin-token': d.token } : {} });

  it('hides the console and the API behind the prefix', async () => {
    expect((await d.call('PUT', '/api/safe/safeurl', { safeURL: 'bad/path' })).ret).toBe(1);
    expect((await d.call('PUT', '/api/safe/safeurl', { safeURL: 'k7-secret' })).ret).toBe(0);
    for (const url of ['/api/status', '/version', '/', '/api/login', '/k7-secre/api/status', '/K7-secret/api/status']) {
      const r = await raw(url);
      expect(r.statusCode, url).toBe(404);
      expect(r.body, url).toBe('404 page not found');
    }
    expect((await raw('/k7-secret/api/status')).json().ret).toBe(0);
    expect((await raw('/k7-secret/version', false)).json().ret).toBe(0);
    const redirect = await raw('/k7-secret', false);
    expect(redirect.statusCode).toBe(302);
    expect(redirect.headers.location).toBe('/k7-secret/');
    const off = await d.runtime.app.inject({
      method: 'PUT',
      url: '/k7-secret/api/safe/safeurl',
      headers: { 'lucky-admin-token': d.token, 'content-type': 'application/json' },
      payload: { safeURL: '' },
    });
    expect(off.json().ret).toBe(0);
    expect((await raw('/api/status')).json().ret).toBe(0);
  });
});

describe('API tokens and sessions', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: { freeFailures: 3, globalFailuresPerMinute: 1000 } });
  });
  afterAll(async () => {
    await d.close();
  });
  const bearer = (t: string, from = '192.168.3.3') => ({ token: null, headers: { authorization: `Bearer ${t}`, 'lucky-lang': 'en_US' }, remoteAddress: from });

  it('read tokens read, full tokens change rules, neither manages security; revoked tokens stop', async () => {
    const read = await d.call<{ token: string; info: { id: string; scope: string } }>('POST', '/api/safe/tokens', { name: 'monitor', scope: 'read' });
    const full = await d.call<{ token: string; info: { id: string } }>('POST', '/api/safe/tokens', { name: 'script', scope: 'full' });
    expect(read.token).toMatch(/^lk_/);
    const listed = await d.call<{ list: { name: string; prefix: string }[] }>('GET', '/api/safe/tokens');
    expect(JSON.stringify(listed)).not.toContain(read.token);
    expect(listed.list.map((t) => t.name)).toEqual(['monitor', 'script']);

    expect((await d.call('GET', '/api/status', undefined, bearer(read.token))).ret).toBe(0);
    expect((await d.call('POST', '/api/wol/rules', { name: 'x', macs: ['00:11:22:33:44:55'] }, bearer(read.token))).msg).toBe(
      'This API token may not do that',
    );
    expect((await d.call('POST', '/api/wol/rules', { name: 'x', macs: ['00:11:22:33:44:55'] }, bearer(full.token))).ret).toBe(0);
    for (const t of [read.token, full.token]) {
      expect((await d.call('GET', '/api/safe/tokens', undefined, bearer(t))).ret).toBe(2);
      expect((await d.call('PUT', '/api/baseconfigure', { LogLevel: 5 }, bearer(t))).ret).toBe(2);
      expect((await d.call('GET', '/api/configure?secrets=1', undefined, bearer(t))).ret).toBe(2);
    }
    // A backup without secrets hands out none: a full token may download it (the multi-device admin does), a read token not.
    expect((await d.call('GET', '/api/configure', undefined, bearer(read.token))).ret).toBe(2);
    const backup = await d.call<{ modules: Record<string, unknown>; secrets: boolean }>('GET', '/api/configure?secrets=0', undefined, bearer(full.token));
    expect(backup.ret).toBeUndefined();
    expect(backup.modules).toHaveProperty('wol');
    // GET routes that change something are writes for a read token.
    let restarted = 0;
    const original = d.runtime.deps.restart;
    d.runtime.deps.restart = () => restarted++;
    try {
      expect(await d.call('GET', '/api/reboot_program', undefined, bearer(read.token))).toEqual({ ret: 2, msg: 'This API token may not do that' });
      expect((await d.call('GET', '/api/execgc', undefined, bearer(read.token))).ret).toBe(2);
      await new Promise((r) => setTimeout(r, 50));
      expect(restarted).toBe(0);
    } finally {
      d.runtime.deps.restart = original;
    }
    // Who a token is: its name and scope.
    expect(await d.call('GET', '/api/whoami', undefined, bearer(read.token))).toEqual({ ret: 0, account: 'admin', via: 'token', name: 'monitor', scope: 'read' });
    expect(await d.call('GET', '/api/whoami')).toEqual({ ret: 0, account: 'admin', via: 'session', name: '', scope: 'full' });
    expect((await d.call('DELETE', `/api/safe/tokens/${read.info.id}`)).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, bearer(read.token))).ret).toBe(-1);
    expect((await d.call('DELETE', `/api/safe/tokens/${read.info.id}`)).ret).toBe(3);
  });

  it('counts bad tokens like failed logins', async () => {
    for (let i = 0; i < 3; i++) expect((await d.call('GET', '/api/status', undefined, bearer(`lk_wrong${i}`, '192.168.4.4'))).ret).toBe(-1);
    const locked = await d.call('GET', '/api/status', undefined, bearer('lk_wrong', '192.168.4.4'));
    expect(locked.ret).toBe(2);
    expect(locked.msg).toMatch(/Too many failed/);
    expect((await d.call('DELETE', '/api/safe/lockouts')).ret).toBe(0);
  });

  it('lists sessions and ends one, or all others', async () => {
    const a = await login(d);
    const b = await login(d);
    const list = await d.call<{ list: { id: string; current: boolean }[] }>('GET', '/api/safe/sessions');
    expect(list.list.filter((s) => s.current)).toHaveLength(1);
    expect(list.list.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(list)).not.toContain(a.token);
    const mine = await d.call<{ list: { id: string; current: boolean }[] }>('GET', '/api/safe/sessions', undefined, { token: a.token });
    const aId = mine.list.find((s) => s.current)!.id;
    expect((await d.call('DELETE', `/api/safe/sessions/${aId}`)).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, { token: a.token })).ret).toBe(-1);
    const r = await d.call<{ revoked: number }>('DELETE', '/api/safe/sessions');
    expect(r.revoked).toBeGreaterThanOrEqual(1);
    expect((await d.call('GET', '/api/status', undefined, { token: b.token })).ret).toBe(-1);
    expect((await d.call('GET', '/api/status')).ret).toBe(0);
  });

  it('keeps an audit log of changes, logins and token use', async () => {
    await d.call('PUT', '/api/baseconfigure', { LogLevel: 5 });
    await d.call('POST', '/api/login', { Account: 'intruder', Password: 'x' }, { token: null, remoteAddress: '10.9.9.9' });
    const audit = await d.call<{ list: { actor: string; action: string; result: number; address: string; id: number }[] }>('GET', '/api/safe/audit?limit=50');
    const actions = audit.list.map((e) => `${e.actor} ${e.action} ${e.result}`);
    expect(actions).toContain('admin PUT /api/baseconfigure 0');
    expect(actions).toContain('intruder POST /api/login 2');
    expect(actions).toContain('token:script POST /api/wol/rules 0');
    expect(actions).toContain('admin DELETE /api/safe/tokens/:id 3');
    expect(audit.list[0]!.id).toBeGreaterThan(audit.list[1]!.id);
    const older = await d.call<{ list: { id: string }[] }>('GET', `/api/safe/audit?before=${audit.list[0]!.id}&limit=1`);
    expect(older.list).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(TEST_PASSWORD);
  });
});

describe('login locks outlive a restart', () => {
  it('an address locked before the daemon restarts is still locked after', async () => {
    const first = await startTestDaemon({ loginGuard: {}, keepDir: true });
    const dataDir = first.dataDir;
    try {
      expect((await first.call('PUT', '/api/safe/loginprotection', { freeFailures: 1, baseLockSeconds: 300, maxLockSeconds: 600, globalFailuresPerMinute: 100 })).ret).toBe(0);
      await first.call('POST', '/api/login', { Account: 'admin', Password: 'x' }, { token: null, remoteAddress: '10.0.0.42' });
      expect((await login(first, {}, '10.0.0.42')).ret).toBe(2);
      await first.close();
      const second = await startTestDaemon({ loginGuard: {}, dataDir });
      try {
        expect((await login(second, {}, '10.0.0.42')).ret).toBe(2);
        expect((await second.call<{ list: { address: string }[] }>('GET', '/api/safe/lockouts')).list.map((l) => l.address)).toEqual(['10.0.0.42']);
        expect((await login(second, {}, '10.0.0.43')).ret).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
