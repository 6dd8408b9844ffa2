/** The sync engine on its own: statuses, timing rules, concurrency; plus domain and address parsing. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderMsgs, ZDdnsConfigure, ZDdnsTask, type DdnsConfigure, type DdnsTask, type Msg } from '@lucky/contracts';
import type { RuleContext, RuleHandle } from '../../core/engine.js';
import { openDb, migrate, type Db } from '../../core/db.js';
import { createProgramLog, sayer } from '../../core/logs.js';
import { RuleLog } from '../../core/rulelog.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseDomain } from '../../lib/dns/domain.js';
import { fakeCloudflare, fakeIpServer, receiver, waitFor, type FakeIpServer, type Receiver } from '../../lib/dns/testing/fakes.js';
import { normalizeIp } from '../../lib/dns/wire.js';
import { Webhooks } from '../../test/services.js';
import { DdnsEngine } from './ddns.engine.js';
import { DdnsHistory, ddnsMigrations } from './ddns.history.js';
import { extractIp } from './ddns.ipsource.js';
import { idleFigures, type DdnsFigures } from './ddns.view.js';

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
  const webhooks = new Webhooks();
  const logs = new RuleLog();
  const reported = new Map<string, Msg[] | null>();
  const say = sayer(createProgramLog({ level: 2, capacity: 100 }).logger);

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
    await webhooks.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  type Handle = RuleHandle<DdnsTask, DdnsFigures>;
  /** An engine, and how the rule runtime would start one of its tasks (a context of the task's own). */
  function engine(settings: Record<string, unknown> = {}, minRerunMs?: number, endpoints?: Record<string, string>) {
    const configure = ZDdnsConfigure.parse({ interval: 3600, ...settings });
    const e = new DdnsEngine({
      ...(endpoints ? { endpoints } : {}),
      history: new DdnsHistory(db),
      webhooks,
      settings: configure,
      say,
      ...(minRerunMs !== undefined ? { minRerunMs } : {}),
    });
    engines.push(e);
    const context = (key: string): RuleContext<DdnsConfigure> => ({
      key,
      name: key,
      note: (line) => logs.add(key, line),
      logLines: (lines) => logs.resize(key, lines),
      report: (parts) => reported.set(key, parts),
      claim: () => () => undefined,
      settings: () => configure,
      log: say,
    });
    return Object.assign(e, { run: (key: string, t: DdnsTask): Promise<Handle> => e.start(t, context(key)) });
  }
  const state = (h: Handle) => h.figures!() as DdnsFigures;
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
    const h = await e.run('t1', task('t1'));
    await waitFor('first sync', () => state(h).status === 'updateSucceeded');
    expect(calls('t1')).toBe(1);
    await e.tick();
    expect(state(h).status).toBe('ipUnchanged');
    expect(calls('t1')).toBe(1);
    ip.ipv4 = '203.0.113.2';
    await e.tick();
    expect(state(h).status).toBe('updateSucceeded');
    expect(calls('t1')).toBe(2);
    // Back to an address the callback already had: still written (the address changed since).
    await e.tick();
    expect(state(h).status).toBe('ipUnchanged');
    // Manual sync is forced: written even though nothing changed.
    const s = await e.syncNow('t1');
    expect(s?.done).toBe(true);
    expect(s?.figures.status).toBe('updateSucceeded');
    expect(calls('t1')).toBe(3);
    // The log keeps keys and values: each reader gets it in their language.
    const en = logs.since('t1', 0, 'en_US').map((l) => l.log).join('\n');
    const zh = logs.since('t1', 0, 'zh_CN').map((l) => l.log).join('\n');
    expect(en).toContain('IPv4 address is 203.0.113.2 (was 203.0.113.1)');
    expect(en).toContain('updated A t1.example.com → 203.0.113.2');
    expect(zh).toContain('IPv4 地址为 203.0.113.2（原为 203.0.113.1）');
    expect(zh).toContain('已更新 A t1.example.com → 203.0.113.2');
    expect(reported.get('t1')).toBeNull();
    ip.ipv4 = '203.0.113.1';
  });

  it('a write-only provider is not called again for the address it already has ("IP same as record")', async () => {
    const e = engine({}, 0);
    const t = task('t5');
    const h = await e.run('t5', t);
    await waitFor('first sync', () => state(h).status === 'updateSucceeded');
    // Edited (e.g. renamed): applied in place, statuses start again, but what was written is remembered.
    expect(await h.update!({ ...t, name: 'renamed' })).toBe(true);
    await waitFor('second run', () => state(h).status === 'ipSameAsRecord');
    expect(calls('t5')).toBe(1);
  });

  it('a task that ran in the last 15 s is not run again by the timer', async () => {
    const e = engine();
    const h = await e.run('t2', task('t2'));
    await waitFor('first sync', () => state(h).status === 'updateSucceeded');
    const hits = ip.hits;
    await e.tick();
    await e.tick();
    expect(ip.hits).toBe(hits);
    expect(state(h).status).toBe('updateSucceeded');
  });

  it('waits for the first-check delay, then runs; "waiting for sync" until then', async () => {
    const e = engine({ firstDelay: 1 });
    const h = await e.run('t3', task('t3'));
    expect(state(h).status).toBe('waitingForSync');
    expect(calls('t3')).toBe(0);
    await waitFor('delayed first sync', () => state(h).status === 'updateSucceeded', 10_000);
    expect(calls('t3')).toBe(1);
  });

  it('a hanging provider never delays the others; it fails at the task timeout', async () => {
    const e = engine({ concurrency: 2 }, 0);
    const t0 = Date.now();
    const slow = await e.run('slow', task('slow', `${hangUrl}/x?ip=#{ip}`, { httpTimeout: 6 } as Partial<DdnsTask>));
    const fast: Handle[] = [];
    for (let i = 0; i < 6; i++) fast.push(await e.run(`fast${i}`, task(`fast${i}`)));
    await waitFor('fast ones', () => fast.every((h) => state(h).status === 'updateSucceeded'), 10_000);
    // All done while the slow one still waits for its answer: it held one slot and nobody else.
    expect(Date.now() - t0).toBeLessThan(6000);
    expect(state(slow).status).toBe('waitingForSync');
    await waitFor('slow one fails', () => state(slow).status === 'updateFailed', 10_000);
    expect(state(slow).records[0]!.reason).toMatchObject({ key: 'httpTimeout', vars: { seconds: 6 } });
    // The rule's status names the record and why, in the reader's language.
    const problem = reported.get('slow')!;
    expect(problem).toHaveLength(1);
    expect(renderMsgs('en_US', problem)).toMatch(/^update of A slow\.example\.com failed: timeout after 6s: http:\/\/127\.0\.0\.1:\d+\/x$/);
    expect(renderMsgs('zh_CN', problem)).toMatch(/^A slow\.example\.com 更新失败：6 秒后超时/);
    // Manual sync of the hanging one answers after its wait with done: false (the console times out at 5 s).
    const t1 = Date.now();
    const r = await e.syncNow('slow', 300);
    expect(r!.done).toBe(false);
    expect(Date.now() - t1).toBeLessThan(2000);
  });

  it('stopped: "sync stopped" when disabled, "sync paused" when enabled but the engine is not running it', async () => {
    const e = engine();
    const t = task('t4');
    expect(idleFigures({ ...t, enable: false }).status).toBe('syncStopped');
    expect(idleFigures(t).status).toBe('syncPaused');
    const h = await e.run('t4', t);
    await waitFor('sync', () => state(h).status === 'updateSucceeded');
    await h.stop();
    // The engine no longer runs it: nothing to sync, and the list shows it from the stored task.
    expect(await e.syncNow('t4')).toBeNull();
    const hits = ip.hits;
    await e.tick();
    expect(ip.hits).toBe(hits);
  });
  it('uses the global webhook when the task has none, and not on "unchanged"', async () => {
    const hook = await receiver();
    try {
      const e = engine({ webhook: { enable: true, url: `${hook.url}/g?ip=#{ipAddr}&ok=#{successDomains}`, method: 'GET' } }, 0);
      const h = await e.run('g1', task('g1'));
      await waitFor('global webhook', () => hook.calls.length === 1);
      expect(hook.calls[0]!.url).toBe(`/g?ip=${encodeURIComponent(ip.ipv4)}&ok=g1.example.com`);
      await e.tick();
      expect(state(h).status).toBe('ipUnchanged');
      expect(hook.calls).toHaveLength(1);
      await waitFor('webhook line', () => logs.since('g1', 0, 'en_US').some((l) => l.log.endsWith('webhook called: ok (HTTP 200)')));
    } finally {
      await hook.close();
    }
  });
  it('history: lines stored as text before migration 2 are shown as they were, in every language', () => {
    const old = openDb(mkdtempSync(join(dir, 'old-')));
    try {
      migrate(old, 'ddns', ddnsMigrations.slice(0, 1));
      old.prepare("INSERT INTO ddns_history (task, at, kind, status, message) VALUES ('t', 1, 'sync', 'updateFailed', 'Cloudflare: 9109 Invalid access token')").run();
      old.prepare("INSERT INTO ddns_history (task, at, kind, status, message) VALUES ('t', 2, 'ip', '', '')").run();
      expect(migrate(old, 'ddns', ddnsMigrations).length).toBe(1);
      const h = new DdnsHistory(old);
      for (const lang of ['zh_CN', 'en_US'] as const) expect(h.list('t', 10, lang).map((e) => e.message)).toEqual(['', 'Cloudflare: 9109 Invalid access token']);
    } finally {
      old.close();
    }
  });

  it('history: migrations apply once; entries newest first; pruned to the newest N per task', () => {
    expect(migrate(db, 'ddns', ddnsMigrations)).toEqual([]);
    const h = new DdnsHistory(db, 5);
    for (let i = 0; i < 60; i++) h.add('hx', { kind: 'sync', recordType: 'A', domain: 'a.example.com', ip: `192.0.2.${i}`, status: 'updateSucceeded', message: { key: 'ddnsUpdated' } });
    h.add('hy', { kind: 'ip', recordType: 'A', domain: '', ip: '192.0.2.1', status: '', message: null });
    h.prune('hx');
    const list = h.list('hx', 100, 'en_US');
    expect(list).toHaveLength(5);
    expect(list[0]).toMatchObject({ ip: '192.0.2.59', message: 'updated' });
    expect(h.list('hx', 1, 'zh_CN')[0]!.message).toBe('已更新');
    h.drop('hx');
    expect(h.list('hx', 10, 'en_US')).toHaveLength(0);
    expect(h.list('hy', 10, 'en_US')).toEqual([expect.objectContaining({ message: '' })]);
  });
  it('an edit during a run waits for it: a slow provider never gets the same record created twice', async () => {
    const cf = await fakeCloudflare({ id: '', secret: 'tok-123' });
    try {
      cf.delayMs = 150;
      const e = engine({}, 0, { cloudflare: cf.url });
      const t = ZDdnsTask.parse({ name: 'cf', provider: 'cloudflare', credentials: { secret: 'tok-123' }, domains: ['race.example.com'], ipv4: { urls: [`${ip.url}/`] } });
      const h = await e.run('cf', t);
      await new Promise((r) => setTimeout(r, 50));
      expect(await h.update!({ ...t, name: 'cf edited' })).toBe(true);
      await waitFor('synced', () => ['updateSucceeded', 'providerRecordSame'].includes(state(h).status));
      await new Promise((r) => setTimeout(r, 400));
      expect([...cf.records.values()].filter((r) => r.name === 'race.example.com')).toHaveLength(1);
    } finally {
      await cf.close();
    }
  });
});
