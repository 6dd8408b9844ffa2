/**
 * Three real daemons on loopback, each with its own data directory and port: one manages the other
 * two over their API with their API tokens. The fleet view, a rule pushed to both and switched on
 * one, actions, the audit log, backups, a read-only token, certificate pins, a daemon stopped, a
 * device that hangs, and the token kept out of every answer, log line and backup without secrets.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { fakeDevice, type FakeDevice } from './testing/fakedevice.js';
import { tlsFront, type TlsFront } from './testing/tlsfront.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

interface DeviceRow {
  key: string;
  name: string;
  enable: boolean;
  token: string;
  status: { state: string; message: string };
  state: {
    online: string;
    error: string;
    version: string;
    scope: string | null;
    lastPoll: number | null;
    latency: number | null;
    modules: string[];
    rules: Record<string, { total: number; enabled: number; errors: number }>;
    ruleErrors: number;
    history: { cpu: number[] };
  };
}

let m: TestDaemon;
let a: TestDaemon;
let b: TestDaemon;
let restartsOfB = 0;
const tokens = { a: '', aRead: '', b: '' };
const keys = { a: '', b: '', aRead: '' };
/** Every answer of the managing daemon, to look for tokens in. */
const answers: string[] = [];

async function call<T = Record<string, unknown>>(method: string, url: string, body?: unknown) {
  const r = await m.call<T>(method, url, body, EN);
  answers.push(JSON.stringify(r));
  return r;
}

const urlOf = (d: TestDaemon) => `http://127.0.0.1:${d.runtime.port()}`;

async function listening(opts: Parameters<typeof startTestDaemon>[0] = {}): Promise<TestDaemon> {
  const d = await startTestDaemon(opts);
  await d.runtime.listen();
  return d;
}

async function token(d: TestDaemon, name: string, scope: 'read' | 'full'): Promise<string> {
  const r = await d.call<{ token: string }>('POST', '/api/safe/tokens', { name, scope });
  expect(r.ret).toBe(0);
  return r.token;
}

async function devices(): Promise<DeviceRow[]> {
  return (await call<{ list: DeviceRow[] }>('GET', '/api/wanji/rules')).list;
}

const byName = async (name: string) => (await devices()).find((d) => d.name === name)!;

async function refresh(wait = 10) {
  return call<{ done: boolean; devices: number; online: number; ms: number }>('POST', `/api/wanji/refresh?wait=${wait}`);
}

beforeAll(async () => {
  [m, a, b] = await Promise.all([listening(), listening(), listening({ restart: () => restartsOfB++ })]);
  tokens.a = await token(a, 'fleet', 'full');
  tokens.aRead = await token(a, 'monitor', 'read');
  tokens.b = await token(b, 'fleet', 'full');
  // Short polls, so that "within one poll" is seconds.
  expect((await m.call('PUT', '/api/wanji/configure', { interval: 5, timeout: 2, concurrency: 16, expiryDays: 14 })).ret).toBe(0);
});

afterAll(async () => {
  await Promise.all([m?.close(), a?.close(), b?.close()]);
});

describe('adding devices', () => {
  it('refuses a bad URL, a token of the wrong format, an unreachable host and a token the device refuses, saving nothing', async () => {
    const base = { name: 'x', url: urlOf(a), token: tokens.a };
    const bad = await call('POST', '/api/wanji/rules', { ...base, url: 'ftp://127.0.0.1/' });
    expect(bad).toMatchObject({ ret: 1, msg: expect.stringContaining('url') });
    expect(bad.msg).toContain('http(s)://host');
    expect((await call('POST', '/api/wanji/rules', { ...base, url: 'http://user:pw@127.0.0.1:1/' })).ret).toBe(1);
    const fmt = await call('POST', '/api/wanji/rules', { ...base, token: 'lk_short' });
    expect(fmt).toMatchObject({ ret: 1, msg: expect.stringContaining('token') });
    expect(fmt.msg).toContain('API token of that device');
    const closed = await freePort();
    const unreachable = await call('POST', '/api/wanji/rules', { ...base, url: `http://127.0.0.1:${closed}` });
    expect(unreachable.ret).toBe(6);
    expect(unreachable.msg).toMatch(new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${closed}: request failed: .*ECONNREFUSED`));
    const refused = await call('POST', '/api/wanji/rules', { ...base, token: `lk_${'x'.repeat(43)}` });
    expect(refused).toEqual({ ret: 2, msg: 'the device does not accept this API token (revoked, or not one of this device)' });
    const pinOnHttp = await call('POST', '/api/wanji/rules', { ...base, pin: 'AB'.repeat(32) });
    expect(pinOnHttp).toMatchObject({ ret: 1, msg: expect.stringContaining('only for https URLs') });
    expect(await devices()).toEqual([]);
  });

  it('tests a device as the form has it: reachable, its version, what its token may do', async () => {
    const r = await call<{ version: string; scope: string; hostname: string; msg: string }>('POST', '/api/wanji/test', { device: { name: 'A', url: urlOf(a), token: tokens.aRead } });
    expect(r).toMatchObject({ ret: 0, version: a.runtime.deps.version, scope: 'read' });
    expect(r.msg).toMatch(/^Connected: .+, version .+, token scope: read only, \d+ ms$/);
  });

  it('adds both devices; the fleet view shows both online with version, modules and rule counts', async () => {
    expect((await a.call('POST', '/api/wol/rules', { name: 'printer', macs: ['02:00:00:00:00:aa'], broadcast: '127.0.0.1' })).ret).toBe(0);
    const ra = await call<{ key: string }>('POST', '/api/wanji/rules', { name: 'A', url: `${urlOf(a)}/`, token: tokens.a, group: 'home', tags: ['router'] });
    expect(ra.ret).toBe(0);
    const rb = await call<{ key: string }>('POST', '/api/wanji/rules', { name: 'B', url: urlOf(b), token: tokens.b, group: 'office' });
    expect(rb.ret).toBe(0);
    keys.a = ra.key;
    keys.b = rb.key;
    const r = await refresh();
    expect(r).toMatchObject({ done: true, devices: 2, online: 2 });
    const list = await devices();
    expect(list.map((d) => d.name).sort()).toEqual(['A', 'B']);
    for (const d of list) {
      expect(d.token).toBe('******');
      expect(d.status.state).toBe('running');
      expect(d.state).toMatchObject({ online: 'online', error: '', version: a.runtime.deps.version, scope: 'full' });
      expect(d.state.modules).toEqual(expect.arrayContaining(['wol', 'ddns', 'wanji']));
      expect(d.state.history.cpu.length).toBeGreaterThanOrEqual(1);
    }
    expect(list.find((d) => d.name === 'A')!.state.rules.wol).toEqual({ total: 1, enabled: 1, errors: 0 });
    expect(list.find((d) => d.name === 'B')!.state.rules.wol).toEqual({ total: 0, enabled: 0, errors: 0 });
    // The saved token stands behind the mask: a test of the saved device needs no token typed again.
    const t = await call<{ scope: string }>('POST', '/api/wanji/test', { key: keys.a, device: { name: 'A', url: urlOf(a), token: '******' } });
    expect(t).toMatchObject({ ret: 0, scope: 'full' });
    // An edit that keeps the mask keeps the token.
    expect((await call('PUT', `/api/wanji/rules/${keys.a}`, { name: 'A', url: urlOf(a), token: '******', group: 'home', tags: ['router'], note: 'edited' })).ret).toBe(0);
    expect((await refresh()).online).toBe(2);
  });

  it('never sends a saved token to a new address: the mask stands for it only while the address, pin and CA stay', async () => {
    const elsewhere = await fakeDevice({ token: `lk_${'e'.repeat(43)}` });
    try {
      const moved = await call('PUT', `/api/wanji/rules/${keys.a}`, { name: 'A', url: elsewhere.url, token: '******' });
      expect(moved).toMatchObject({ ret: 1, msg: expect.stringContaining('token') });
      const tested = await call('POST', '/api/wanji/test', { key: keys.a, device: { name: 'A', url: elsewhere.url, token: '******' } });
      expect(tested).toMatchObject({ ret: 1, msg: expect.stringContaining('token') });
      expect(elsewhere.authorizations).toEqual(new Set());
      expect((await byName('A')).url).toBe(urlOf(a));
    } finally {
      await elsewhere.close();
    }
  });
});

describe('fleet actions', () => {
  const nas = { name: 'NAS', macs: ['02:00:00:00:00:01'], broadcast: '127.0.0.1', secureOn: '01:02:03:04:05:06' };

  it('pushes a rule to both devices: it appears in each one\'s own API; pushed again, it replaces the one of the same name', async () => {
    const r = await call<{ results: { device: string; ok: boolean; msg: string; remoteKey: string }[] }>('POST', '/api/wanji/push', { module: 'wol', rule: nas, devices: [keys.a, keys.b] });
    expect(r.ret).toBe(0);
    expect(r.results.map((x) => [x.device, x.ok, x.msg])).toEqual([
      [keys.a, true, 'created'],
      [keys.b, true, 'created'],
    ]);
    for (const [d, x] of [[a, r.results[0]!], [b, r.results[1]!]] as const) {
      const own = await d.call<{ list: { key: string; name: string; enable: boolean; repeat: number }[] }>('GET', '/api/wol/rules');
      expect(own.list.find((w) => w.name === 'NAS')).toMatchObject({ key: x.remoteKey, enable: true, repeat: 3 });
    }
    const again = await call<{ results: { ok: boolean; msg: string; remoteKey: string }[] }>('POST', '/api/wanji/push', { module: 'wol', rule: { ...nas, repeat: 5 }, devices: [keys.a, keys.b] });
    expect(again.results.map((x) => [x.ok, x.msg])).toEqual([
      [true, 'replaced the rule of the same name'],
      [true, 'replaced the rule of the same name'],
    ]);
    const own = await b.call<{ list: { name: string; repeat: number }[] }>('GET', '/api/wol/rules');
    expect(own.list.filter((w) => w.name === 'NAS')).toEqual([expect.objectContaining({ repeat: 5 })]);
    // A rule the module refuses is refused here once, for every device.
    const bad = await call('POST', '/api/wanji/push', { module: 'wol', rule: { name: 'bad', macs: ['nope'] }, devices: [keys.a] });
    expect(bad).toMatchObject({ ret: 1, msg: expect.stringContaining('macs') });
    expect((await call('POST', '/api/wanji/push', { module: 'wol', rule: nas, devices: [] })).ret).toBe(1);
  });

  it('switches a rule on one device: its own API, the drill-down and the comparison show it', async () => {
    const remoteKey = (await a.call<{ list: { key: string; name: string }[] }>('GET', '/api/wol/rules')).list.find((w) => w.name === 'NAS')!.key;
    const r = await call('POST', `/api/wanji/rules/${keys.a}/action`, { action: 'switch', module: 'wol', rule: remoteKey, enable: false });
    expect(r).toEqual({ ret: 0, msg: `wake-on-LAN rule "${remoteKey}" switched off` });
    const own = await a.call<{ rule: { enable: boolean; status: { state: string } } }>('GET', `/api/wol/rules/${remoteKey}`);
    expect(own.rule).toMatchObject({ enable: false, status: { state: 'disabled' } });

    const drill = await call<{ list: { key: string; name: string; enable: boolean; status: { state: string }; rule: Record<string, unknown> }[] }>('GET', `/api/wanji/rules/${keys.a}/remote?module=wol`);
    expect(drill.list.find((x) => x.name === 'NAS')).toMatchObject({ key: remoteKey, enable: false, status: { state: 'disabled' }, rule: { name: 'NAS', secureOn: '******', repeat: 5 } });
    expect(drill.list.find((x) => x.name === 'NAS')!.rule).not.toHaveProperty('status');

    const cmp = await call<{ rows: { name: string; state: string; fields: string[] }[] }>('GET', `/api/wanji/compare?module=wol&a=${keys.a}&b=${keys.b}`);
    expect(cmp.rows.map((x) => [x.name, x.state, x.fields])).toEqual([
      ['NAS', 'different', ['enable']],
      ['printer', 'onlyA', []],
    ]);
    expect((await call('GET', `/api/wanji/compare?module=wol&a=${keys.a}&b=${keys.a}`)).ret).toBe(1);

    // The fleet view follows: A has one of its two rules switched off.
    await expect.poll(async () => (await byName('A')).state.rules.wol, { timeout: 8000 }).toEqual({ total: 2, enabled: 1, errors: 0 });
  });

  it('wakes a WOL device of a device, and restarts a device', async () => {
    const remoteKey = (await b.call<{ list: { key: string; name: string }[] }>('GET', '/api/wol/rules')).list.find((w) => w.name === 'NAS')!.key;
    const wake = await call('POST', `/api/wanji/rules/${keys.b}/action`, { action: 'wake', rule: remoteKey });
    expect(wake).toEqual({ ret: 0, msg: 'Sent 5 packet(s)' });
    const restart = await call('POST', `/api/wanji/rules/${keys.b}/action`, { action: 'restart' });
    expect(restart).toEqual({ ret: 0, msg: 'Restarting' });
    await expect.poll(() => restartsOfB).toBe(1);
    // A rule that is not there: the device's own answer.
    const missing = await call('POST', `/api/wanji/rules/${keys.b}/action`, { action: 'wake', rule: 'nope' });
    expect(missing).toEqual({ ret: 3, msg: 'the device answered: No such rule' });
  });

  it('checks versions across the fleet: a device behind the newest is said to be', async () => {
    const old = await fakeDevice({ token: `lk_${'o'.repeat(43)}`, version: '0.0.1' });
    try {
      const r = await call<{ key: string }>('POST', '/api/wanji/rules', { name: 'old', url: old.url, token: `lk_${'o'.repeat(43)}` });
      expect(r.ret).toBe(0);
      const v = await call<{ newest: string; own: string; results: { name: string; ok: boolean; version: string; behind: boolean; msg: string }[] }>('POST', '/api/wanji/versions', { devices: [] });
      expect(v.own).toBe(m.runtime.deps.version);
      expect(v.newest).toBe(m.runtime.deps.version);
      expect(v.results.map((x) => [x.name, x.ok, x.behind])).toEqual([
        ['A', true, false],
        ['B', true, false],
        ['old', true, true],
      ]);
      expect(v.results[2]!.msg).toBe(`runs 0.0.1; ${m.runtime.deps.version} is newer`);
      expect((await call('DELETE', `/api/wanji/rules/${r.key}`)).ret).toBe(0);
    } finally {
      await old.close();
    }
  });

  it("downloads a device's backup, without its secrets", async () => {
    const res = await m.runtime.app.inject({ method: 'GET', url: `/api/wanji/backup?device=${keys.a}`, headers: { 'lucky-admin-token': m.token } });
    expect(res.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="${keys.a}-lucky-backup-[\\w.-]+\\.json"$`));
    const backup = res.json() as { secrets: boolean; modules: { wol: { rules: { data: { name: string; secureOn: string } }[] } } };
    expect(backup.secrets).toBe(false);
    expect(backup.modules.wol.rules.find((r) => r.data.name === 'NAS')!.data.secureOn).toBe('******');
    expect(res.body).not.toContain('01:02:03:04:05:06');
    answers.push(res.body);
  });
});

describe('a read-scope token', () => {
  it('cannot change anything there, and the answer says so', async () => {
    const r = await call<{ key: string }>('POST', '/api/wanji/rules', { name: 'A (read)', url: urlOf(a), token: tokens.aRead });
    expect(r.ret).toBe(0);
    keys.aRead = r.key;
    await refresh();
    expect((await byName('A (read)')).state).toMatchObject({ online: 'online', scope: 'read' });
    const before = await a.call<{ list: { key: string; name: string; enable: boolean }[] }>('GET', '/api/wol/rules');
    const printer = before.list.find((w) => w.name === 'printer')!;
    const refused = 'the device answered: This API token may not do that';
    expect(await call('POST', `/api/wanji/rules/${keys.aRead}/action`, { action: 'switch', module: 'wol', rule: printer.key, enable: false })).toEqual({ ret: 2, msg: refused });
    expect(await call('POST', `/api/wanji/rules/${keys.aRead}/action`, { action: 'restart' })).toEqual({ ret: 2, msg: refused });
    expect(await call('POST', `/api/wanji/rules/${keys.aRead}/action`, { action: 'wake', rule: printer.key })).toEqual({ ret: 2, msg: refused });
    const push = await call<{ results: { ok: boolean; msg: string }[] }>('POST', '/api/wanji/push', { module: 'wol', rule: { name: 'sneaky', macs: ['02:00:00:00:00:02'] }, devices: [keys.aRead] });
    expect(push.results).toEqual([expect.objectContaining({ ok: false, msg: refused })]);
    expect((await call('GET', `/api/wanji/backup?device=${keys.aRead}`)).ret).toBe(2);
    // Nothing changed there.
    expect(await a.call('GET', '/api/wol/rules')).toEqual(before);
  });
});

describe('the audit log', () => {
  it('has every remote action with the device, the action and its result', async () => {
    const audit = await call<{ list: { actor: string; action: string; target: string; result: number }[] }>('GET', '/api/safe/audit?limit=200');
    const lines = audit.list.filter((e) => e.action.startsWith('wanji ')).map((e) => `${e.actor} | ${e.action} | ${e.target} | ${e.result}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        `admin | wanji push wol "NAS" | A [${keys.a}] | 0`,
        `admin | wanji push wol "NAS" | B [${keys.b}] | 0`,
        expect.stringMatching(new RegExp(`^admin \\| wanji switch wol/\\w+ off \\| A \\[${keys.a}\\] \\| 0$`)),
        expect.stringMatching(/^admin \| wanji wake wol\/\w+ \| B \[\w+\] \| 0$/),
        `admin | wanji wake wol/nope | B [${keys.b}] | 3`,
        `admin | wanji restart | B [${keys.b}] | 0`,
        `admin | wanji backup | A [${keys.a}] | 0`,
        `admin | wanji restart | A (read) [${keys.aRead}] | 2`,
        `admin | wanji push wol "sneaky" | A (read) [${keys.aRead}] | 2`,
      ]),
    );
    // And the device's own log says what was done there.
    const logs = await call<{ logs: { log: string }[] }>('GET', `/api/wanji/rules/${keys.b}/logs`);
    const said = logs.logs.map((l) => l.log.replace(/^\S+ \S+ /, ''));
    expect(said).toEqual(expect.arrayContaining(['restart: Restarting', 'push wake-on-LAN rule "NAS": created', 'wake device nope failed: the device answered: No such rule']));
  });
});

describe('certificates', () => {
  let front: TlsFront;
  beforeAll(async () => {
    front = await tlsFront(a.runtime.port());
  });
  afterAll(async () => {
    await front.close();
  });

  it('a wrong pin is refused; the right pin, or the certificate as CA, is trusted', async () => {
    const url = `https://127.0.0.1:${front.port}`;
    const base = { name: 'A over TLS', url, token: tokens.a };
    const wrong = await call('POST', '/api/wanji/rules', { ...base, pin: 'AB'.repeat(32) });
    expect(wrong.ret).toBe(6);
    expect(wrong.msg).toBe(`cannot reach ${url}: the certificate does not match the pinned fingerprint (it is ${front.fingerprint})`);
    // Self-signed, neither pinned nor trusted: refused by the usual checks.
    const untrusted = await call('POST', '/api/wanji/rules', base);
    expect(untrusted.ret).toBe(6);
    expect(untrusted.msg).toMatch(/self.signed/i);
    const bogusCa = await call('POST', '/api/wanji/rules', { ...base, ca: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n' });
    expect(bogusCa).toMatchObject({ ret: 1, msg: expect.stringMatching(/^the CA certificate is not valid/) });
    expect((await devices()).filter((d) => d.name.startsWith('A over TLS'))).toEqual([]);

    const pinned = await call<{ key: string }>('POST', '/api/wanji/rules', { ...base, pin: front.fingerprint.replace(/:/g, '').toLowerCase() });
    expect(pinned.ret).toBe(0);
    const withCa = await call<{ key: string }>('POST', '/api/wanji/rules', { ...base, name: 'A over TLS (CA)', ca: front.cert });
    expect(withCa.ret).toBe(0);
    // Polled again until both are online: on a loaded machine one poll may outlast the 2 s timeout.
    const onlineBoth = async () => {
      await refresh();
      const l = await devices();
      return [pinned.key, withCa.key].map((k) => l.find((d) => d.key === k)!.state.online);
    };
    await expect.poll(onlineBoth, { timeout: 20_000, interval: 100 }).toEqual(['online', 'online']);
    const p = (await devices()).find((d) => d.key === pinned.key) as DeviceRow & { pin: string };
    expect(p.pin).toBe(front.fingerprint);
    // The pin is checked on every connection, polls too: another certificate at the same address is refused.
    const port = front.port;
    await front.close();
    front = await tlsFront(a.runtime.port(), undefined, port);
    // The connections the old front closed are seen closed by the client before the next poll.
    await new Promise((r) => setTimeout(r, 300));
    const pinnedState = async () => {
      await refresh();
      return (await devices()).find((d) => d.key === pinned.key)!.state;
    };
    await expect
      .poll(pinnedState, { timeout: 20_000, interval: 100 })
      .toMatchObject({ online: 'offline', error: expect.stringContaining('does not match the pinned fingerprint') });
    for (const k of [pinned.key, withCa.key]) expect((await call('DELETE', `/api/wanji/rules/${k}`)).ret).toBe(0);
  });
});

describe('devices that stop or hang', () => {
  let hang: FakeDevice;
  let silent: Server;
  const held = new Set<Socket>();
  afterAll(async () => {
    await hang?.close();
    for (const s of held) s.destroy();
    await new Promise<void>((r) => (silent ? silent.close(() => r()) : r()));
  });

  it('a device that hangs is offline after its timeout and never delays the others or the page', async () => {
    const t = `lk_${'h'.repeat(43)}`;
    hang = await fakeDevice({ token: t, hang: true });
    // Switched off, it is saved without being asked; switched on, the poller takes it.
    const r = await call<{ key: string }>('POST', '/api/wanji/rules', { name: 'hangs', enable: false, url: hang.url, token: t });
    expect(r.ret).toBe(0);
    expect((await call('PUT', `/api/wanji/rules/${r.key}/enable`, { enable: true })).ret).toBe(0);
    const t0 = Date.now();
    const polled = await refresh(10);
    expect(polled.done).toBe(true);
    // The whole round ends with the hanging device's 2 s timeout, not later.
    expect(Date.now() - t0).toBeLessThan(4000);
    const list = await devices();
    expect(list.find((d) => d.name === 'hangs')!.state).toMatchObject({ online: 'offline', error: expect.stringContaining('timeout after 2s') });
    expect(list.find((d) => d.name === 'A')!.state.online).toBe('online');
    // While it hangs again, the list answers at once and the others are polled.
    const during = refresh(0);
    const t1 = Date.now();
    await devices();
    expect(Date.now() - t1).toBeLessThan(500);
    await during;
    expect((await call('DELETE', `/api/wanji/rules/${r.key}`)).ret).toBe(0);
  });

  it('a stopped daemon is shown offline within one poll; the page and the other device are unaffected', async () => {
    await refresh();
    expect((await byName('B')).state.online).toBe('online');
    await b.close();
    const t0 = Date.now();
    // No refresh asked: the background poll (every 5 s) finds it.
    await expect.poll(async () => (await byName('B')).state.online, { timeout: 9000, interval: 250 }).toBe('offline');
    expect(Date.now() - t0).toBeLessThan(8000);
    const list = await devices();
    const gone = list.find((d) => d.name === 'B')!;
    expect(gone.state.error).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+: request failed: .*ECONNREFUSED/);
    expect(gone.status).toMatchObject({ state: 'error', message: expect.stringMatching(/^offline: cannot reach/) });
    expect(gone.state.version).toBe(a.runtime.deps.version);
    const other = list.find((d) => d.name === 'A')!;
    expect(other.state.online).toBe('online');
    expect(Date.now() - other.state.lastPoll!).toBeLessThan(8000);
    const logs = await call<{ logs: { log: string }[] }>('GET', `/api/wanji/rules/${keys.b}/logs`);
    expect(logs.logs.at(-1)!.log).toMatch(/^\S+ \S+ device offline: cannot reach/);
    // Actions on it say why they cannot be done.
    const act = await call('POST', `/api/wanji/rules/${keys.b}/action`, { action: 'restart' });
    expect(act).toMatchObject({ ret: 6, msg: expect.stringMatching(/^cannot reach/) });
  });

  it('a device that takes connections and says nothing ends at the timeout of an action too', async () => {
    silent = createServer((s) => held.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const t = `lk_${'s'.repeat(43)}`;
    const t0 = Date.now();
    const r = await call('POST', '/api/wanji/rules', { name: 'silent', url: `http://127.0.0.1:${port}`, token: t });
    expect(r.ret).toBe(6);
    expect(r.msg).toContain('timeout after 2s');
    expect(Date.now() - t0).toBeLessThan(4000);
  });
});

describe('secrets', () => {
  it('the API tokens never appear in any answer, log line or backup without secrets', async () => {
    const all = Object.values(tokens);
    const logs = await call<{ logs: { log: string }[] }>('GET', '/api/logs');
    answers.push(JSON.stringify(logs));
    for (const key of [keys.a, keys.b, keys.aRead]) answers.push(JSON.stringify(await call('GET', `/api/wanji/rules/${key}/logs`)));
    answers.push(JSON.stringify(await call('GET', '/api/wanji/configure')));
    const without = await m.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=0', headers: { 'lucky-admin-token': m.token } });
    expect(without.json().modules.wanji.rules.length).toBe(3);
    answers.push(without.body);
    // The program log as it is written, every level.
    const text = answers.join('\n');
    for (const t of all) expect(text).not.toContain(t);
    for (const t of all) expect(text).not.toContain(t.slice(3, 20));
    // With secrets asked for, they are there (the backup restores them).
    const withSecrets = await m.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=1', headers: { 'lucky-admin-token': m.token } });
    expect(withSecrets.body).toContain(tokens.a);
  });
});
