/**
 * One port, one owner. Serving threads open a rule's port with SO_REUSEPORT, so the kernel would let
 * two web rules share it and split its connections; the port registry refuses the second rule when
 * it is saved, and at start (rules that conflict already in lucky.db) the first keeps the port and
 * the second shows who owns it. Real daemons, real sockets, a real lucky.db; on the main thread and
 * on two serving threads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebConfigure, ZWebRule, type WebRuleView } from '@lucky/contracts';
import { openDb } from '../../core/db.js';
import { RuleStore, SettingsStore } from '../../core/rulestore.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const ZH = { headers: { 'lucky-lang': 'zh_CN' } };

function get(port: number, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = request({ host, port, path: '/', agent: false, headers: { host: 'x.test' }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end();
  });
}

async function waitFor(cond: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}

const text = (name: string, address: string, port: number, extra: object = {}) => ({
  name,
  address,
  port,
  defaultService: { type: 'text', body: name },
  ...extra,
});

const ENGINES = [
  ['main thread', { servingThreads: 1, mainThreadOnly: true }],
  ['serving threads', { servingThreads: 2, mainThreadOnly: false }],
] as const;

describe.each(ENGINES)('saving web rules on a taken port (%s)', (_kind, threads) => {
  let d: TestDaemon;
  const list = async () => (await d.call<{ list: WebRuleView[] }>('GET', '/api/web/rules', undefined, EN)).list;

  beforeAll(async () => {
    d = await startTestDaemon();
    expect((await d.call('PUT', '/api/web/configure', { accessLogShow: 50, ...threads })).ret).toBe(0);
  });
  afterAll(() => d.close());

  it('refuses a second rule on the same address and port, naming the first and its module; nothing is saved', async () => {
    const port = await freePort();
    const first = await d.call<{ key: string }>('POST', '/api/web/rules', text('first', '127.0.0.1', port));
    expect(first.ret).toBe(0);
    const before = await list();
    const en = await d.call('POST', '/api/web/rules', text('second', '127.0.0.1', port), EN);
    expect(en).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the web services rule "first"` });
    const zh = await d.call('POST', '/api/web/rules', text('second', '127.0.0.1', port), ZH);
    expect(zh).toMatchObject({ ret: 6, msg: `未保存：tcp 127.0.0.1:${port} 已被Web服务规则“first”占用` });
    expect(await list()).toEqual(before);
    for (let i = 0; i < 10; i++) expect(await get(port)).toBe('first');

    // Switched off it claims nothing and may be saved; switching it on is refused the same way.
    const off = await d.call<{ key: string }>('POST', '/api/web/rules', text('second', '127.0.0.1', port, { enable: false }));
    expect(off.ret).toBe(0);
    expect(await d.call('PUT', `/api/web/rules/${off.key}/enable`, { enable: true }, EN)).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the web services rule "first"` });
    const edited = { ...text('second', '127.0.0.1', port), defaultService: { type: 'text', body: 'edited' } };
    expect((await d.call('PUT', `/api/web/rules/${off.key}`, edited)).ret).toBe(6);
    expect((await list()).find((r) => r.key === off.key)).toMatchObject({ enable: false, defaultService: { body: 'second' }, status: { state: 'disabled' } });
    // The first rule saved again on its own port is its own owner.
    expect((await d.call('PUT', `/api/web/rules/${first.key}`, text('first', '127.0.0.1', port))).ret).toBe(0);

    // Once the first moves away, the port is free for the second.
    const other = await freePort();
    expect((await d.call('PUT', `/api/web/rules/${first.key}`, text('first', '127.0.0.1', other))).ret).toBe(0);
    expect((await d.call('PUT', `/api/web/rules/${off.key}/enable`, { enable: true })).ret).toBe(0);
    expect(await get(port)).toBe('second');
    expect(await get(other)).toBe('first');
    for (const k of [first.key, off.key]) expect((await d.call('DELETE', `/api/web/rules/${k}`)).ret).toBe(0);
  });

  it('refuses every address (0.0.0.0) where one address holds the port, and the reverse', async () => {
    const port = await freePort();
    const one = await d.call<{ key: string }>('POST', '/api/web/rules', text('one address', '127.0.0.1', port));
    expect(one.ret).toBe(0);
    for (const address of ['', '0.0.0.0']) {
      expect(await d.call('POST', '/api/web/rules', text('every address', address, port), EN)).toMatchObject({
        ret: 6,
        msg: `Not saved: tcp 0.0.0.0:${port} is taken by the web services rule "one address"`,
      });
    }
    const wide = await freePort('0.0.0.0');
    const all = await d.call<{ key: string }>('POST', '/api/web/rules', text('every address', '', wide));
    expect(all.ret).toBe(0);
    expect(await d.call('POST', '/api/web/rules', text('one address', '127.0.0.1', wide), EN)).toMatchObject({
      ret: 6,
      msg: `Not saved: tcp 127.0.0.1:${wide} is taken by the web services rule "every address"`,
    });
    // IPv6 only (tcp6 on ::) leaves IPv4 to others.
    const v6 = await d.call<{ key: string }>('POST', '/api/web/rules', text('v6', '', wide, { network: 'tcp6' }));
    expect(v6.ret).toBe(0);
    expect(await get(wide)).toBe('every address');
    expect((await list()).filter((r) => r.name !== 'second').map((r) => r.name)).toEqual(['one address', 'every address', 'v6']);
    for (const k of [one.key, all.key, v6.key]) expect((await d.call('DELETE', `/api/web/rules/${k}`)).ret).toBe(0);
  });

  it("refuses a rule on the admin console's own port", async () => {
    const port = d.runtime.config.get().AdminWebListenPort;
    expect(await d.call('POST', '/api/web/rules', text('console', '127.0.0.1', port), EN)).toMatchObject({
      ret: 6,
      msg: `Not saved: tcp 127.0.0.1:${port} is the admin console's port`,
    });
    expect(await d.call('POST', '/api/web/rules', text('console', '', port), ZH)).toMatchObject({ ret: 6, msg: `未保存：tcp 0.0.0.0:${port} 是后台管理界面的端口` });
    expect(await list()).toEqual([]);
  });
});

describe.each(ENGINES)('conflicting web rules found at start (%s)', (_kind, threads) => {
  let dir: string;
  let d: TestDaemon;
  let port: number;
  const keys: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-ports-'));
    // A daemon made lucky.db; then, as a restore might, two enabled rules on one port are written into it.
    await (await startTestDaemon({ dataDir: dir })).close();
    port = await freePort();
    const db = openDb(dir);
    const store = new RuleStore(db, 'web', ZWebRule, pino({ level: 'silent' }));
    keys.push(store.create(text('first', '127.0.0.1', port)), store.create(text('second', '127.0.0.1', port)));
    new SettingsStore(db, 'web', ZWebConfigure).set(threads);
    db.close();
    d = await startTestDaemon({ dataDir: dir });
  });
  afterAll(async () => {
    await d.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the first serves every request; the second shows who owns the port and never listens', async () => {
    for (let i = 0; i < 20; i++) expect(await get(port)).toBe('first');
    const rules = async (o = EN) => (await d.call<{ list: WebRuleView[] }>('GET', '/api/web/rules', undefined, o)).list;
    const [first, second] = await rules();
    expect(first).toMatchObject({ name: 'first', status: { state: 'running' } });
    expect(first!.figures.requests).toBe(20);
    expect(second).toMatchObject({ name: 'second', status: { state: 'error', message: `tcp 127.0.0.1:${port} is taken by the web services rule "first"` } });
    expect(second!.figures.requests).toBe(0);
    expect((await rules(ZH))[1]!.status.message).toBe(`tcp 127.0.0.1:${port} 已被Web服务规则“first”占用`);
    const log = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/web/rules/${keys[1]}/logs`, undefined, EN)).logs.map((l) => l.log);
    expect(log.some((l) => l.endsWith(`could not start: tcp 127.0.0.1:${port} is taken by the web services rule "first"`))).toBe(true);
    expect(log.some((l) => l.includes('listening'))).toBe(false);
    expect(d.runtime.ports.list().filter((c) => c.endpoint.port === port).map((c) => c.owner.name)).toEqual(['first']);
  });

  it('the second takes the port when its retry finds it free', async () => {
    expect((await d.call('DELETE', `/api/web/rules/${keys[0]}`)).ret).toBe(0);
    await waitFor(async () => (await get(port).catch(() => '')) === 'second');
    for (let i = 0; i < 10; i++) expect(await get(port)).toBe('second');
  });
});
