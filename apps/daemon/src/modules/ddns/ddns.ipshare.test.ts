/**
 * One lookup per IP source and cycle: 200 tasks on local HTTP IP sources that count their hits,
 * through the first sync, a forced sync of all and periodic checks; a failing source backs off.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderMsg, ZDdnsConfigure, ZDdnsTask, type DdnsConfigure, type DdnsTask } from '@lucky/contracts';
import type { RuleContext, RuleHandle } from '../../core/engine.js';
import { migrate, openDb, type Db } from '../../core/db.js';
import { createProgramLog, sayer } from '../../core/logs.js';
import { fakeIpServer, receiver, waitFor, type FakeIpServer, type Receiver } from '../../lib/dns/testing/fakes.js';
import { Webhooks } from '../../test/services.js';
import { DdnsEngine } from './ddns.engine.js';
import { DdnsHistory, ddnsMigrations } from './ddns.history.js';
import type { DdnsFigures } from './ddns.view.js';

type Handle = RuleHandle<DdnsTask, DdnsFigures>;
const TASKS = 200;

describe('IP sources shared by the tasks using them', () => {
  let ip: FakeIpServer;
  let cb: Receiver;
  let dir: string;
  let db: Db;
  const engines: DdnsEngine[] = [];
  const webhooks = new Webhooks();
  const say = sayer(createProgramLog({ level: 2, capacity: 100 }).logger);

  beforeAll(async () => {
    ip = await fakeIpServer('203.0.113.1', '2001:db8::1');
    cb = await receiver();
    dir = mkdtempSync(join(tmpdir(), 'lucky-ddns-ipshare-'));
    db = openDb(dir);
    migrate(db, 'ddns', ddnsMigrations);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
  });
  afterAll(async () => {
    await ip.close();
    await cb.close();
    await webhooks.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An engine on a clock the test can move, and its tasks started as the rule runtime starts them. */
  function engine(o: { retryBaseMs?: number } = {}) {
    const clock = { offset: 0 };
    const configure = ZDdnsConfigure.parse({ interval: 3600 });
    const e = new DdnsEngine({ history: new DdnsHistory(db), webhooks, settings: configure, say, minRerunMs: 0, now: () => Date.now() + clock.offset, ipShare: o });
    engines.push(e);
    const context = (key: string): RuleContext<DdnsConfigure> => ({
      key,
      name: key,
      note: () => undefined,
      logLines: () => undefined,
      report: () => undefined,
      claim: () => () => undefined,
      settings: () => configure,
      log: say,
    });
    const start = async (n: number, source: (i: number) => Record<string, unknown>) => {
      const handles = new Map<string, Handle>();
      for (let i = 0; i < n; i++) {
        const t = ZDdnsTask.parse({ name: `t${i}`, provider: 'callback', domains: [`t${i}.example.com`], ipv4: source(i), callback: { url: `${cb.url}/t${i}?ip=#{ip}` }, httpTimeout: 5 });
        handles.set(`t${i}`, await e.start(t, context(`t${i}`)));
      }
      return handles;
    };
    return { e, clock, start };
  }
  const figures = (hs: Map<string, Handle>) => [...hs.values()].map((h) => h.figures!() as DdnsFigures);
  const all = (hs: Map<string, Handle>, status: string, ipv4?: string) => figures(hs).every((f) => f.status === status && (ipv4 === undefined || f.ipv4 === ipv4));

  it('200 tasks: one fetch per source for the first sync, a forced sync of all, and each periodic check', async () => {
    const { e, clock, start } = engine();
    const hits0 = ip.hits;
    // Two sources (the same server, two URLs), 100 tasks each.
    const hs = await start(TASKS, (i) => ({ urls: [i % 2 ? `${ip.url}/` : `${ip.url}/?second`] }));
    await waitFor('first sync', () => all(hs, 'updateSucceeded', '203.0.113.1'), 30_000);
    expect(ip.hits - hits0).toBe(2);
    expect(cb.calls.length).toBeGreaterThanOrEqual(TASKS);

    // "Sync now" of every task at once: forced, every callback called again, each source asked once
    // (the first sync's answers made older than the 2 s a "sync now" may reuse, however fast it ran).
    clock.offset += 2001;
    const calls = cb.calls.length;
    const synced = await Promise.all([...hs.keys()].map((k) => e.syncNow(k)));
    expect(synced.every((r) => r?.done && r.figures.status === 'updateSucceeded')).toBe(true);
    expect(ip.hits - hits0).toBe(4);
    expect(cb.calls.length - calls).toBe(TASKS);

    // Periodic checks: each asks afresh (a changed address is seen at once), once per source.
    ip.ipv4 = '203.0.113.2';
    await e.tick();
    expect(ip.hits - hits0).toBe(6);
    expect(all(hs, 'updateSucceeded', '203.0.113.2')).toBe(true);
    await e.tick();
    expect(ip.hits - hits0).toBe(8);
    expect(all(hs, 'ipUnchanged', '203.0.113.2')).toBe(true);

    // "Sync now" of one task after the others finished: an answer of the last 2 s serves it, an older one does not.
    await e.syncNow('t1');
    expect(ip.hits - hits0).toBe(8);
    clock.offset += 2001;
    await e.syncNow('t1');
    expect(ip.hits - hits0).toBe(9);
    ip.ipv4 = '203.0.113.1';
  });

  it('a failing source is asked once per cycle, then not again until its backoff (doubling) has passed', async () => {
    let hits = 0;
    let healthy = false;
    const src: Server = createServer((_req, res) => {
      hits++;
      res.writeHead(healthy ? 200 : 503, { 'content-type': 'text/plain' });
      res.end(healthy ? 'ip 198.51.100.9' : 'busy');
    });
    await new Promise<void>((r) => src.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(src.address() as AddressInfo).port}/`;
    try {
      const { e, clock, start } = engine({ retryBaseMs: 10_000 });
      const hs = await start(50, () => ({ urls: [url] }));
      await waitFor('first sync fails', () => all(hs, 'updateFailed'));
      expect(hits).toBe(1);
      const reason = (hs: Map<string, Handle>) => renderMsg('en_US', figures(hs)[49]!.records[0]!.reason!);
      expect(reason(hs)).toMatch(/HTTP 503/);

      // Within the backoff: every task gets the failure, the source is not asked.
      await e.tick();
      await Promise.all([...hs.keys()].map((k) => e.syncNow(k)));
      expect(hits).toBe(1);
      expect(reason(hs)).toMatch(/HTTP 503.*; the address source is tried again in 10 s$/);
      clock.offset += 10_000;
      await e.tick();
      expect(hits).toBe(2);
      // Failed twice: 20 s now.
      clock.offset += 10_000;
      await e.tick();
      expect(hits).toBe(2);
      expect(reason(hs)).toMatch(/tried again in 10 s$/);
      clock.offset += 10_000;
      healthy = true;
      await e.tick();
      expect(hits).toBe(3);
      expect(all(hs, 'updateSucceeded', '198.51.100.9')).toBe(true);
      // Answering again: back to one fetch per cycle.
      await e.tick();
      expect(hits).toBe(4);
    } finally {
      await new Promise((r) => src.close(r));
    }
  });
});
