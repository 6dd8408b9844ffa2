/** Route tests for every core call of spec section 7, through the real app on a real data dir. */
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, coreRoutes } from '@lucky/contracts';
import { MODULE_TABLE } from '../modules/index.js';
import { freePort, startTestDaemon, TEST_PASSWORD, type TestDaemon } from '../test/harness.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

function httpGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

describe('core API', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  it('serves the public calls without a token', async () => {
    expect(await d.call('GET', '/version', undefined, { token: null })).toMatchObject({ ret: 0, twoFAEnable: false, version: expect.any(String) });
    expect(await d.call('GET', '/2FAStatus', undefined, { token: null })).toEqual({ ret: 0, twoFAEnable: false });
    expect(await d.call('GET', '/frontendcontroll', undefined, { token: null })).toEqual({ ret: 0, FrontendDisableAutoExpandLeftMenu: false });
  });

  it('answers ret -1 on every other route without a valid token', async () => {
    for (const table of Object.values(API)) {
      for (const def of Object.values(table)) {
        if (def.public) continue;
        const url = def.path.replace(/:(\w+)/g, 'abc');
        for (const token of [null, 'not-a-token', 'x'.repeat(500)]) {
          const r = await d.call(def.method, url, def.body ? {} : undefined, { token });
          expect(r.ret, `${def.method} ${url} with ${String(token).slice(0, 10)}`).toBe(-1);
        }
      }
    }
    expect((await d.call('GET', '/api/nothing-here', undefined, { token: null })).ret).toBe(-1);
    expect((await d.call('GET', '/api/nothing-here')).ret).toBe(3);
  });

  it('login: empty fields, wrong password, then a session that logout revokes', async () => {
    expect(await d.call('POST', '/api/login', { Account: '', Password: 'x' }, { token: null })).toEqual({ ret: 1, msg: '账号或密码不能为空' });
    expect(await d.call('POST', '/api/login', { Account: 'admin', Password: '' }, { token: null, ...EN })).toEqual({
      ret: 1,
      msg: 'Account or password cannot be empty',
    });
    expect(await d.call('POST', '/api/login', { Account: 'admin', Password: 'wrong' }, { token: null, ...EN })).toEqual({ ret: 2, msg: 'Login failed' });
    expect(await d.call('POST', '/api/login', { Account: 'nobody', Password: TEST_PASSWORD }, { token: null })).toEqual({ ret: 2, msg: '登录失败' });
    expect((await d.call('POST', '/api/login', { Account: 'admin' }, { token: null })).ret).toBe(1);
    expect((await d.call('POST', '/api/login', 'not json', { token: null })).ret).toBe(1);

    const login = await d.call<{ token: string }>('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { token: null });
    expect(login.ret).toBe(0);
    expect(login.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await d.call('GET', '/api/status', undefined, { token: login.token })).ret).toBe(0);
    expect((await d.call('PUT', '/api/logout', undefined, { token: login.token })).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, { token: login.token })).ret).toBe(-1);
    // The token is stored hashed only.
    const rows = d.runtime.db.prepare('SELECT token_hash FROM sessions').all() as { token_hash: string }[];
    expect(rows.every((r) => r.token_hash.length === 64 && r.token_hash !== d.token)).toBe(true);
  });

  it('status, gc, info and the OpenAPI document', async () => {
    const s = await d.call<{ data: { process: { memory: { rss: number } }; system: { cpus: number } } }>('GET', '/api/status');
    expect(s.data.process.memory.rss).toBeGreaterThan(1e6);
    expect(s.data.system.cpus).toBeGreaterThan(0);
    const gc = await d.call<{ before: { heapUsed: number }; after: { heapUsed: number } }>('GET', '/api/execgc');
    expect(gc.ret).toBe(0);
    expect(gc.after.heapUsed).toBeGreaterThan(0);
    const info = await d.call<{ info: { dataDir: string; pid: number } }>('GET', '/api/info');
    expect(info.info).toMatchObject({ dataDir: d.dataDir, pid: process.pid });
    const res = await d.runtime.app.inject({ method: 'GET', url: '/api/openapi.json', headers: { 'lucky-admin-token': d.token } });
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/baseconfigure'].put).toBeDefined();
  });

  it('logs: incremental by `pre`, with the process start time', async () => {
    const first = await d.call<{ starttime: number; logs: { timestamp: number; log: string }[] }>('GET', '/api/logs?pre=0');
    expect(first.starttime).toBe(d.runtime.programLog.starttime);
    expect(first.logs.length).toBeGreaterThan(0);
    const last = first.logs[first.logs.length - 1]!.timestamp;
    d.runtime.programLog.logger.warn('a line for the test');
    const next = await d.call<{ logs: { log: string }[] }>('GET', `/api/logs?pre=${last}`);
    expect(next.logs.map((l) => l.log).join('\n')).toContain('a line for the test');
    expect(next.logs.length).toBeLessThan(first.logs.length + 5);
    expect((await d.call('GET', '/api/logs?pre=abc')).ret).toBe(1);
    expect((await d.call('GET', '/api/logs?pre=-5')).ret).toBe(1);
  });

  it('logs: lines the daemon keeps as messages read in the reader\'s language', async () => {
    const read = async (lang: string) =>
      (await d.call<{ logs: { log: string }[] }>('GET', '/api/logs?pre=0', undefined, { headers: { 'lucky-lang': lang } })).logs.map((l) => l.log).join('\n');
    // The test's own login and the modules that started with the daemon.
    expect(await read('zh_CN')).toMatch(/INFO \[http\] admin 已登录 ip=127\.0\.0\.1/);
    expect(await read('zh_CN')).toMatch(/INFO 模块 网络唤醒 已启动（0 条规则）/);
    expect(await read('en_US')).toMatch(/INFO \[http\] admin logged in ip=127\.0\.0\.1/);
    expect(await read('en_US')).toMatch(/module wake-on-LAN started \(0 rules\)/);
  });

  it('base settings: no secrets out, validated in, nothing changed on rejection', async () => {
    const got = await d.call<{ baseconfigure: Record<string, unknown> }>('GET', '/api/baseconfigure');
    expect(got.baseconfigure).not.toHaveProperty('AdminPasswordHash');
    expect(got.baseconfigure).not.toHaveProperty('TwoFASecret');
    expect(JSON.stringify(got)).not.toContain('scrypt');
    const file = d.runtime.config.file;
    const before = readFileSync(file, 'utf8');
    const bad: unknown[] = [
      { LogLevel: 1 },
      { LogLevel: 7 },
      { LogLevel: '4' },
      { LogMaxSize: 99 },
      { AdminWebListenPort: 0 },
      { AdminWebListenPort: 65536 },
      { AdminWebListenHost: 'not-an-ip' },
      { AdminAccount: '' },
      { AdminAccount: '   ' },
      { EnabledModules: ['nope'] },
      { FrontendDisableAutoExpandLeftMenu: 'yes' },
      { SessionIdleHours: 0 },
      { LogLvl: 5 },
      [],
      'text',
      null,
      42,
    ];
    for (const body of bad) {
      const r = await d.call('PUT', '/api/baseconfigure', JSON.stringify(body), EN);
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg, JSON.stringify(body)).toMatch(/^Invalid/);
    }
    const named = await d.call('PUT', '/api/baseconfigure', { LogLevel: 9 }, EN);
    expect(named.msg).toContain('LogLevel');
    expect((await d.call('PUT', '/api/baseconfigure', '{"LogLevel": 5', EN)).msg).toBe('The request body is not valid JSON');
    expect((await d.call('PUT', '/api/baseconfigure', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }), EN)).msg).toBe(
      'The request body is too large',
    );
    expect(readFileSync(file, 'utf8')).toBe(before);

    const ok = await d.call<{ baseconfigure: { LogLevel: number } }>('PUT', '/api/baseconfigure', { LogLevel: 5, LogMaxSize: 500 });
    expect(ok.baseconfigure.LogLevel).toBe(5);
    expect(JSON.parse(readFileSync(file, 'utf8')).LogLevel).toBe(5);
    // Applied at once: debug lines now reach the program log.
    d.runtime.programLog.logger.debug('debug line visible now');
    expect(d.runtime.programLog.read(0, 'en_US').some((e) => e.log.includes('debug line visible now'))).toBe(true);
    expect((await d.call('PUT', '/api/baseconfigure', { LogLevel: 4 })).ret).toBe(0);
  });

  it('frontend flag follows the setting', async () => {
    expect((await d.call('PUT', '/api/baseconfigure', { FrontendDisableAutoExpandLeftMenu: true })).ret).toBe(0);
    expect(await d.call('GET', '/frontendcontroll', undefined, { token: null })).toEqual({ ret: 0, FrontendDisableAutoExpandLeftMenu: true });
    expect((await d.call('PUT', '/api/baseconfigure', { FrontendDisableAutoExpandLeftMenu: false })).ret).toBe(0);
  });

  it('modules list answers the enabled modules by menu key, and the account', async () => {
    const r = await d.call<{ Modules: string[]; u: string }>('GET', '/api/modules/list');
    expect(r.Modules).toEqual(expect.arrayContaining(['ddns', 'reverseproxy', 'portforward', 'stun', 'wol', 'cron']));
    expect(r.u).toBe('admin');
  });

  it('network interfaces and address rules', async () => {
    const r = await d.call<{ interfaces: { name: string; ipv4: { address: string }[] }[] }>('GET', '/api/netinterfaces');
    const lo = r.interfaces.find((i) => i.ipv4.some((a) => a.address === '127.0.0.1'));
    expect(lo).toBeDefined();
    const t = await d.call<{ ip: string; matches: string[] }>('GET', `/api/ipregtest?iptype=IPv4&netinterface=${lo!.name}&ipreg=${encodeURIComponent('^127\\.')}`);
    expect(t).toMatchObject({ ret: 0, ip: '127.0.0.1' });
    expect((await d.call('GET', `/api/ipregtest?iptype=IPv4&netinterface=${lo!.name}&ipreg=@1`)).ip).toBe('127.0.0.1');
    expect((await d.call('GET', `/api/ipregtest?iptype=IPv4&netinterface=${lo!.name}&ipreg=(`)).ret).toBe(1);
    expect((await d.call('GET', '/api/ipregtest?iptype=IPv4&netinterface=nope0')).ret).toBe(3);
    expect((await d.call('GET', '/api/ipregtest?iptype=IPv5&netinterface=lo')).ret).toBe(1);
    expect((await d.call('GET', '/api/ipregtest?iptype=IPv4')).ret).toBe(1);
  });

  it('v2l and paths of no module say plainly that they are not there', async () => {
    expect(await d.call('POST', '/api/v2l', {}, EN)).toEqual({ ret: 5, msg: 'v2l is not supported: it has no purpose in this program' });
    // Every module of the spec is built now; a module missing from the table is modulehost.test's.
    expect(await d.call('GET', '/api/nosuchmodule/rules', undefined, EN)).toEqual({ ret: 3, msg: 'No such API' });
  });

  it('restart answers first, then restarts', async () => {
    let restarted = 0;
    const original = d.runtime.deps.restart;
    d.runtime.deps.restart = () => restarted++;
    try {
      const r = await d.call('GET', '/api/reboot_program', undefined, EN);
      expect(r).toEqual({ ret: 0, msg: 'Restarting' });
      for (let i = 0; i < 50 && restarted === 0; i++) await new Promise((res) => setTimeout(res, 10));
      expect(restarted).toBe(1);
    } finally {
      d.runtime.deps.restart = original;
    }
  });

  it('survives malformed bodies on every route that takes one', async () => {
    const garbage = ['null', '[]', '"x"', '123', 'true', '{"a":{"b":{"c":[1,2,{"d":null}]}}}', '{"__proto__":{"admin":true}}', '{"x":', '\u0000'];
    for (const table of Object.values(API)) {
      for (const def of Object.values(table)) {
        if (!def.body || def.raw || def.public) continue;
        const url = def.path.replace(/:(\w+)/g, 'zzz');
        for (const body of garbage) {
          const r = await d.call(def.method, url, body);
          let parsed: unknown;
          try {
            parsed = JSON.parse(body);
          } catch {
            parsed = Symbol('invalid');
          }
          // Whatever the schema refuses must come back as ret 1 with a message; what it accepts
          // (an empty settings object, say) may succeed or fail for another reason, never crash.
          if (def.module && !MODULE_TABLE.some((m) => m.key === def.module)) {
            expect([1, 5], `${def.method} ${url}: module without a backend yet`).toContain(r.ret);
          } else if (typeof parsed === 'symbol' || !def.body.safeParse(parsed).success) {
            expect(r.ret, `${def.method} ${url} ${body}`).toBe(1);
            expect(typeof r.msg).toBe('string');
          } else {
            expect(typeof r.ret).toBe('number');
          }
        }
      }
    }
    expect((await d.call('GET', '/api/status')).ret).toBe(0);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

describe('admin access from outside the local network', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  it('is refused by default with a clear message, API and static files alike', async () => {
    const r = await d.call('GET', '/api/status', undefined, { remoteAddress: '203.0.113.7', ...EN });
    expect(r.ret).toBe(2);
    expect(r.msg).toContain('203.0.113.7');
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { token: null, remoteAddress: '2001:db8::1' })).ret).toBe(2);
    const page = await d.runtime.app.inject({ method: 'GET', url: '/', remoteAddress: '203.0.113.7' });
    expect(page.statusCode).toBe(403);
    for (const local of ['192.168.1.20', '10.9.8.7', 'fd00::5', '::ffff:127.0.0.1']) {
      expect((await d.call('GET', '/api/status', undefined, { remoteAddress: local })).ret, local).toBe(0);
    }
  });

  it('is allowed once the WAN switch is on, and refused again when it is off', async () => {
    expect((await d.call('PUT', '/api/baseconfigure', { AllowInternetAccess: true })).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, { remoteAddress: '203.0.113.7' })).ret).toBe(0);
    // Not from outside, though: that would shut the caller out.
    const self = await d.call('PUT', '/api/baseconfigure', { AllowInternetAccess: false }, { remoteAddress: '203.0.113.7', ...EN });
    expect(self).toEqual({ ret: 2, msg: 'This would shut out your own address 203.0.113.7; not saved' });
    expect((await d.call('PUT', '/api/baseconfigure', { AllowInternetAccess: false })).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, { remoteAddress: '203.0.113.7' })).ret).toBe(2);
  });
});

describe('login lockout', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: { freeFailures: 2, baseLockSeconds: 60, globalFailuresPerMinute: 10000 } });
  });
  afterAll(async () => {
    await d.close();
  });

  it('locks an address after repeated failures, even for the right password, and logs no password', async () => {
    const from = { token: null, remoteAddress: '192.168.9.9', ...EN };
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: 'bad-guess-1' }, from)).msg).toBe('Login failed');
    const locked = await d.call('POST', '/api/login', { Account: 'admin', Password: 'bad-guess-2' }, from);
    expect(locked.ret).toBe(2);
    expect(locked.msg).toMatch(/Too many failed logins, try again in \d+ s/);
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, from)).ret).toBe(2);
    // Another address is not affected.
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { token: null, remoteAddress: '192.168.9.10' })).ret).toBe(0);
    const log = d.runtime.programLog.read(0, 'en_US').map((e) => e.log).join('\n');
    expect(log).toContain('login failed');
    expect(log).not.toContain('bad-guess');
  });
});

describe('credentials and listener changes', () => {
  let d: TestDaemon;
  beforeAll(async () => {
    d = await startTestDaemon();
    await d.runtime.listen();
  });
  afterAll(async () => {
    await d.close();
  });

  it('moves the admin listener to a new port without a restart', async () => {
    const oldPort = d.runtime.port();
    expect((await httpGet(oldPort, '/version')).status).toBe(200);
    const newPort = await freePort();
    const r = await d.call<{ baseconfigure: { AdminWebListenPort: number } }>('PUT', '/api/baseconfigure', { AdminWebListenPort: newPort });
    expect(r.ret).toBe(0);
    expect(r.baseconfigure.AdminWebListenPort).toBe(newPort);
    expect(JSON.parse((await httpGet(newPort, '/version')).body).ret).toBe(0);
    await expect(httpGet(oldPort, '/version')).rejects.toThrow();
  });

  it('refuses a port in use and changes nothing', async () => {
    const blocker = createServer();
    const busy = await freePort();
    await new Promise<void>((r) => blocker.listen(busy, '127.0.0.1', r));
    try {
      const port = d.runtime.port();
      const before = readFileSync(d.runtime.config.file, 'utf8');
      const r = await d.call('PUT', '/api/baseconfigure', { AdminWebListenPort: busy }, EN);
      expect(r).toEqual({ ret: 6, msg: `Port ${busy} is already in use` });
      expect(readFileSync(d.runtime.config.file, 'utf8')).toBe(before);
      expect((await httpGet(port, '/version')).status).toBe(200);
    } finally {
      blocker.close();
    }
  });

  it('a password change ends other sessions and keeps this one', async () => {
    const other = await d.call<{ token: string }>('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { token: null });
    expect((await d.call('PUT', '/api/baseconfigure', { AdminPassword: 'new-password-2' })).ret).toBe(0);
    expect((await d.call('GET', '/api/status')).ret).toBe(0);
    expect((await d.call('GET', '/api/status', undefined, { token: other.token })).ret).toBe(-1);
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: TEST_PASSWORD }, { token: null })).ret).toBe(2);
    expect((await d.call('POST', '/api/login', { Account: 'admin', Password: 'new-password-2' }, { token: null })).ret).toBe(0);
    expect(readFileSync(d.runtime.config.file, 'utf8')).not.toContain('new-password-2');
  });

  it('renaming the account keeps this session under the new name', async () => {
    expect((await d.call('PUT', '/api/baseconfigure', { AdminAccount: 'owner' })).ret).toBe(0);
    expect((await d.call<{ u: string }>('GET', '/api/modules/list')).u).toBe('owner');
    expect((await d.call('POST', '/api/login', { Account: 'owner', Password: 'new-password-2' }, { token: null })).ret).toBe(0);
  });

  it('2FA: login needs a valid code once a secret is set', async () => {
    const { totpCode } = await import('../core/totp.js');
    const secret = 'JBSWY3DPEHPK3PXP';
    d.runtime.config.update({ TwoFASecret: secret });
    expect(await d.call('GET', '/version', undefined, { token: null })).toMatchObject({ twoFAEnable: true });
    const creds = { Account: 'owner', Password: 'new-password-2' };
    expect((await d.call('POST', '/api/login', creds, { token: null })).ret).toBe(2);
    expect((await d.call('POST', '/api/login', { ...creds, TwoFA: '000000' }, { token: null })).ret).toBe(2);
    expect((await d.call('POST', '/api/login', { ...creds, TwoFA: totpCode(secret) }, { token: null })).ret).toBe(0);
    d.runtime.config.update({ TwoFASecret: '' });
  });
});
