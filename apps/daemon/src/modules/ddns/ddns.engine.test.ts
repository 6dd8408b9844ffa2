/** The sync engine on its own: statuses, timing rules, concurrency; plus domain and address parsing. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ZDdnsConfigure, ZDdnsTask, type DdnsConfigure, type DdnsTask } from '@lucky/contracts';
import { RuleLogs } from '../../core/engine.js';
import { openDb, migrate, type Db } from '../../core/db.js';
import { createProgramLog } from '../../core/logs.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DdnsEngine } from './ddns.engine.js';
import { DdnsHistory, ddnsMigrations } from './ddns.history.js';
import { normalizeIp } from './dnswire.js';
import { parseDomain } from './domain.js';
import { extractIp } from './ipsource.js';
import { fakeCloudflare, fakeIpServer, receiver, waitFor, type FakeIpServer, type Receiver } from './testing/fakes.js';

describe('domain lines', () => {
  it('splits, converts IDN to punycode and reads parameters', () => {
    expect(parseDomain('www.example.com')).toMatchObject({ full: 'www.example.com', sub: 'www', root: 'example.com', params: {} });
    expect(parseDomain('example.com')).toMatchObject({ sub: '@', root: 'example.com' });
    expect(parseDomain('a.b.example.com.cn')).toMatchObject({ sub: 'a.b', root: 'example.com.cn' });
    expect(parseDomain('home.lab:corp.example.org')).toMatchObject({ full: 'home.lab.corp.example.org', sub: 'home.lab', root: 'corp.example.org' });
    expect(parseDomain(':example.org')).toMatchObject({ full: 'example.org', sub: '@' });
    expect(parseDomain('例子.中国')).toMatchObject({ full: 'xn--fsqu00a.xn--fiqs8s', root: 'xn--fsqu00a.xn--fiqs8s', sub: '@' });
    expect(parseDomain('www.例子.com?proxied=true&Line=telecom')).toMatchObject({
      full: 'www.xn--fsqu00a.com',
      params: { proxied: 'true', Line: 'telecom' },
    });
    expect(parseDomain('*.example.com').full).toBe('*.example.com');
    expect(() => parseDomain('localhost')).toThrow(/invalid domain/);
  });

  it('pulls addresses out of text and normalises IPv6', () => {
    expect(extractIp('ipv4', 'IP: 1.2.3.999 then 203.0.113.4 ok')).toBe('203.0.113.4');
    expect(extractIp('ipv6', 'addr=2001:DB8:0:0::1 ')).toBe('2001:DB8:0:0::1');
    expect(extractIp('ipv4', '{"ip":"10.0.0.1","public":"198.51.100.3"}', '"public":"([^"]+)"')).toBe('198.51.100.3');
    expect(extractIp('ipv4', 'nothing here')).toBeNull();
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toBe('2001:db8::1');
    expect(normalizeIp('2001:db8:0:1:0:0:0:0')).toBe('2001:db8:0:1::');
  });
});

describe('sync engine', () => {
  let ip: FakeIpServer;
  let cb: Receiver;
  let hang: Server;
  let hangUrl: string;
  let dir: string;
  let db: Db;
  const engines: DdnsEngine[] = [];

  beforeAll(async () => {
    ip = await fakeIpServer('203.0.113.1', '2001:db8::1');
    cb = await receiver();
    // Accepts and never answers: a provider that hangs.
    hang = createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'lucky-ddns-engine-'));
    db = openDb(dir);
    migrate(db, 'ddns', ddnsMigrations);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  afterAll(async () => {
    hang.closeAllConnections();
    await new Promise((r) => hang.close(r));
    await ip.close();
    await cb.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function engine(settings: Partial<DdnsConfigure> = {}, minRerunMs?: number, endpoints?: Record<string, string>): DdnsEngine {
    const e = new DdnsEngine({
      ...(endpoints ? { endpoints } : {}),
      log: createProgramLog({ level: 2, capacity: 100 }).logger,
      logs: new RuleLogs(),
      history: new DdnsHistory(db),
      ...(minRerunMs !== undefined ? { minRerunMs } : {}),
    });
    e.configure(ZDdnsConfigure.parse({ interval: 3600, ...settings }));
    engines.push(e);
    return e;
  }
  const task = (name: string, url = `${cb.url}/${name}?ip=#{ip}`, extra: Partial<DdnsTask> = {}): DdnsTask =>
    ZDdnsTask.parse({
      name,
      provider: 'callback',
      domains: [`${name}.example.com`],
      ipv4: { urls: [`${ip.url}/`] },
      callback: { url, method: 'GET' },
      httpTimeout: 3,
      ...extra,
    });
  const calls = (name: string) => cb.calls.filter((c) => c.url.startsWith(`/${name}?`)).length;

  it('unchanged address: "public IP unchanged" without provider calls; a change syncs again', async () => {
    const e = engine({}, 0);
    await e.start('t1', task('t1'));
    e.begin();
    await waitFor('first sync', () => e.syncState('t1', task('t1')).status === 'updateSucceeded');
    expect(calls('t1')).toBe(1);
    await e.tick();
    expect(e.syncState('t1', task('t1')).status).toBe('ipUnchanged');
    expect(calls('t1')).toBe(1);
    ip.ipv4 = '203.0.113.2';
    await e.tick();
    expect(e.syncState('t1', task('t1')).status).toBe('updateSucceeded');
    expect(calls('t1')).toBe(2);
    // Back to an address the callback already had: still written (the address changed since).
    await e.tick();
    expect(e.syncState('t1', task('t1')).status).toBe('ipUnchanged');
    // Manual sync is forced: written even though nothing changed.
    const s = await e.syncNow('t1');
    expect(s?.done).toBe(true);
    expect(s?.sync.status).toBe('updateSucceeded');
    expect(calls('t1')).toBe(3);
    ip.ipv4 = '203.0.113.1';
  });

  it('a write-only provider is not called again for the address it already has ("IP same as record")', async () => {
    const e = engine({}, 0);
    const t = task('t5');
    await e.start('t5', t);
    e.begin();
    await waitFor('first sync', () => e.syncState('t5', t).status === 'updateSucceeded');
    // Edited (e.g. renamed): a new runtime, but what was written is remembered.
    await e.start('t5', { ...t, name: 'renamed' });
    await waitFor('second run', () => e.syncState('t5', t).status === 'ipSameAsRecord');
    expect(calls('t5')).toBe(1);
  });

  it('a task that ran in the last 15 s is not run again by the timer', async () => {
    const e = engine();
    e.begin();
    await e.start('t2', task('t2'));
    await waitFor('first sync', () => e.syncState('t2', task('t2')).status === 'updateSucceeded');
    const hits = ip.hits;
    await e.tick();
    await e.tick();
    expect(ip.hits).toBe(hits);
    expect(e.syncState('t2', task('t2')).status).toBe('updateSucceeded');
  });

  it('waits for the first-check delay, then runs; "waiting for sync" until then', async () => {
    const e = engine({ firstDelay: 1 });
    e.begin();
    await e.start('t3', task('t3'));
    expect(e.syncState('t3', task('t3')).status).toBe('waitingForSync');
    expect(calls('t3')).toBe(0);
    await waitFor('delayed first sync', () => e.syncState('t3', task('t3')).status === 'updateSucceeded', 10_000);
    expect(calls('t3')).toBe(1);
  });

  it('a hanging provider never delays the others; it fails at the task timeout', async () => {
    const e = engine({ concurrency: 2 }, 0);
    const slow = task('slow', `${hangUrl}/x?ip=#{ip}`, { httpTimeout: 6 } as Partial<DdnsTask>);
    await e.start('slow', slow);
    for (let i = 0; i < 6; i++) await e.start(`fast${i}`, task(`fast${i}`));
    const t0 = Date.now();
    e.begin();
    await waitFor('fast ones', () => [0, 1, 2, 3, 4, 5].every((i) => e.syncState(`fast${i}`, task(`fast${i}`)).status === 'updateSucceeded'), 10_000);
    // All done while the slow one still waits for its answer: it held one slot and nobody else.
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(e.syncState('slow', slow).status).toBe('waitingForSync');
    await waitFor('slow one fails', () => e.syncState('slow', slow).status === 'updateFailed', 10_000);
    expect(e.syncState('slow', slow).records[0]!.message).toMatch(/timeout after 6s/);
    // Manual sync of the hanging one answers after its wait with done: false (the console times out at 5 s).
    const t1 = Date.now();
    const r = await e.syncNow('slow', 300);
    expect(r!.done).toBe(false);
    expect(Date.now() - t1).toBeLessThan(2000);
  });

  it('stopped: "sync stopped" when disabled, "sync paused" when enabled but the engine is not running it', async () => {
    const e = engine();
    const t = task('t4');
    expect(e.syncState('t4', { ...t, enable: false }).status).toBe('syncStopped');
    expect(e.syncState('t4', t).status).toBe('syncPaused');
    e.begin();
    await e.start('t4', t);
    await waitFor('sync', () => e.syncState('t4', t).status === 'updateSucceeded');
    await e.stop('t4');
    expect(e.syncState('t4', t).status).toBe('syncPaused');
    expect(e.status('t4').state).toBe('stopped');
  });
  it('uses the global webhook when the task has none, and not on "unchanged"', async () => {
    const hook = await receiver();
    try {
      const e = engine({ webhook: { enable: true, url: `${hook.url}/g?ip=#{ipAddr}&ok=#{successDomains}`, method: 'GET' } }, 0);
      const t = task('g1');
      await e.start('g1', t);
      e.begin();
      await waitFor('global webhook', () => hook.calls.length === 1);
      expect(hook.calls[0]!.url).toBe(`/g?ip=${encodeURIComponent(ip.ipv4)}&ok=g1.example.com`);
      await e.tick();
      expect(e.syncState('g1', t).status).toBe('ipUnchanged');
      expect(hook.calls).toHaveLength(1);
    } finally {
      await hook.close();
    }
  });
  it('history: migration 1 applies once; entries newest first; pruned to the newest N per task', () => {
    expect(migrate(db, 'ddns', ddnsMigrations)).toEqual([]);
    const h = new DdnsHistory(db, 5);
    for (let i = 0; i < 60; i++) h.add('hx', { kind: 'sync', recordType: 'A', domain: 'a.example.com', ip: `192.0.2.${i}`, status: 'updateSucceeded', message: '' });
    h.add('hy', { kind: 'ip', recordType: 'A', domain: '', ip: '192.0.2.1', status: '', message: '' });
    h.prune('hx');
    const list = h.list('hx', 100);
    expect(list).toHaveLength(5);
    expect(list[0]!.ip).toBe('192.0.2.59');
    h.drop('hx');
    expect(h.list('hx', 10)).toHaveLength(0);
    expect(h.list('hy', 10)).toHaveLength(1);
  });
  it('an edit during a run waits for it: a slow provider never gets the same record created twice', async () => {
    const cf = await fakeCloudflare({ id: '', secret: 'tok-123' });
    try {
      cf.delayMs = 150;
      const e = engine({}, 0, { cloudflare: cf.url });
      e.begin();
      const t = ZDdnsTask.parse({ name: 'cf', provider: 'cloudflare', credentials: { secret: 'tok-123' }, domains: ['race.example.com'], ipv4: { urls: [`${ip.url}/`] } });
      await e.start('cf', t);
      await new Promise((r) => setTimeout(r, 50));
      await e.start('cf', { ...t, name: 'cf edited' });
      await waitFor('synced', () => ['updateSucceeded', 'providerRecordSame'].includes(e.syncState('cf', t).status));
      await new Promise((r) => setTimeout(r, 400));
      expect([...cf.records.values()].filter((r) => r.name === 'race.example.com')).toHaveLength(1);
    } finally {
      await cf.close();
    }
  });
});
