/**
 * The poller on its own, against small fake devices: never more polls at once than allowed, and a
 * device that hangs holds one slot for its timeout and nothing else.
 */
import type { Msg, WanjiConfigure } from '@lucky/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleContext } from '../../core/engine.js';
import { HttpClients } from '../../lib/http/clients.js';
import { fakeDevice, type FakeDevice } from './testing/fakedevice.js';
import { Poller } from './wanji.poller.js';

const TOKEN = `lk_${'p'.repeat(43)}`;
const open: FakeDevice[] = [];
let clients: HttpClients | undefined;
let poller: Poller | undefined;

afterEach(async () => {
  poller?.close();
  await clients?.close();
  await Promise.all(open.splice(0).map((d) => d.close()));
});

function context(key: string, notes: Msg[]): RuleContext<WanjiConfigure> {
  return {
    key,
    name: key,
    note: (m) => notes.push(m),
    logLines: () => undefined,
    report: () => undefined,
    claim: () => () => undefined,
    settings: () => ({ interval: 3600, timeout: 1, concurrency: 1, expiryDays: 14 }),
    log: {} as never,
  };
}

const device = (url: string, token = TOKEN) => ({ name: url, enable: true, url, token, pin: '', ca: '', group: '', tags: [], note: '' });

async function fleet(n: number, o: Partial<Parameters<typeof fakeDevice>[0]> = {}): Promise<FakeDevice[]> {
  const list = await Promise.all(Array.from({ length: n }, () => fakeDevice({ token: TOKEN, ...o })));
  open.push(...list);
  return list;
}

describe('the poller', () => {
  it('polls every device, never more at once than the concurrency', async () => {
    const devices = await fleet(24, { delayMs: 40 });
    clients = new HttpClients();
    poller = new Poller(clients, () => ({ interval: 3600, timeout: 5, concurrency: 4, expiryDays: 14 }));
    const notes: Msg[] = [];
    devices.forEach((d, i) => poller!.add(`d${i}`, device(d.url), context(`d${i}`, notes)));
    await poller.pollNow();
    expect(poller.peak).toBe(4);
    expect(poller.polls).toBe(24);
    for (let i = 0; i < 24; i++) expect(poller.figures(`d${i}`)).toMatchObject({ online: 'online', rules: { wol: { total: 3, enabled: 3, errors: 0 } } });
    expect(notes.filter((n) => n.key === 'wanjiCameOnline')).toHaveLength(24);
    // Polled once more each, not more: the next round is an interval away.
    await poller.pollNow(['d0']);
    expect(poller.polls).toBe(25);
  });

  it('lets the others through while a device hangs until its timeout', async () => {
    const [hang] = await fleet(1, { hang: true });
    const quick = await fleet(10);
    clients = new HttpClients();
    poller = new Poller(clients, () => ({ interval: 3600, timeout: 1, concurrency: 2, expiryDays: 14 }));
    poller.add('hang', device(hang!.url), context('hang', []));
    quick.forEach((d, i) => poller!.add(`q${i}`, device(d.url), context(`q${i}`, [])));
    const t0 = Date.now();
    await poller.pollNow(quick.map((_, i) => `q${i}`));
    // All ten answered through the one slot the hanging device left, before its timeout.
    expect(Date.now() - t0).toBeLessThan(900);
    expect(poller.figures('hang')!.online).toBe('unknown');
    await poller.pollNow(['hang']);
    expect(Date.now() - t0).toBeLessThan(1800);
    expect(poller.figures('hang')).toMatchObject({ online: 'offline', error: { key: 'wanjiUnreachable' } });
  });

  it('says why a device is offline: a refused token, an answer that is not Lucky\'s', async () => {
    const [d] = await fleet(1);
    clients = new HttpClients();
    poller = new Poller(clients, () => ({ interval: 3600, timeout: 2, concurrency: 2, expiryDays: 14 }));
    poller.add('wrong', device(d!.url, `lk_${'w'.repeat(43)}`), context('wrong', []));
    poller.add('notlucky', device(`${d!.url}/nothing-here`), context('notlucky', []));
    await poller.pollNow();
    expect(poller.figures('wrong')!.error).toEqual({ key: 'wanjiTokenRefused' });
    expect(poller.figures('notlucky')!.error).toMatchObject({ key: 'wanjiRemoteSaid' });
  });
});
