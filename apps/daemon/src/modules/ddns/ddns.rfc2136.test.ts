/** RFC 2136 + TSIG against a real BIND 9; `dig` checks what it serves; the resolver check uses it too. */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DdnsSyncState } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { fakeIpServer, waitFor, type FakeIpServer } from '../../lib/dns/testing/fakes.js';
import { buildUpdate, exchange, parseMessage, queryAddresses, queryTexts, signTsig, TYPE } from '../../lib/dns/wire.js';

function dig(b: Bind, name: string, type: 'A' | 'AAAA'): string[] {
  const out = execFileSync('/usr/bin/dig', ['+short', '+time=2', '+tries=2', '-p', String(b.port), '@127.0.0.1', name, type], { encoding: 'utf8', timeout: 10_000 });
  return out.split('\n').map((s) => s.trim()).filter(Boolean);
}

describe('RFC 2136 dynamic update with TSIG against BIND 9', () => {
  let bind: Bind;
  let d: TestDaemon;
  let ip: FakeIpServer;

  beforeAll(async () => {
    bind = await startBind();
    ip = await fakeIpServer('203.0.113.5', '2001:db8::5');
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d?.close();
    await ip?.close();
    await bind?.stop();
  });

  const server = () => ({ host: '127.0.0.1', port: bind.port });
  const task = () => ({
    name: 'bind',
    provider: 'rfc2136',
    recordType: 'both',
    credentials: { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` },
    domains: ['home.example.test', 'deep.lan:example.test'],
    ipv4: { urls: [`${ip.url}/`] },
    ipv6: { urls: [`${ip.url}/v6`] },
    resolverCheck: { enable: true, servers: [`127.0.0.1:${bind.port}`] },
    ttl: 120,
  });
  const sync = async (key: string) => (await d.call<{ rule: { sync: DdnsSyncState } }>('GET', `/api/ddns/rules/${key}`)).rule.sync;

  it('signs an UPDATE that BIND accepts, and one with a wrong key that it refuses', async () => {
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    const msg = buildUpdate({ zone: 'example.test', name: 'raw.example.test', type: TYPE.A, ttl: 60, ips: ['192.0.2.55'] });
    const ok = parseMessage(await exchange(server(), signTsig(msg, key).signed, 4000));
    expect(ok.rcode).toBe(0);
    expect(await queryAddresses(server(), 'raw.example.test', 'A', 4000)).toEqual(['192.0.2.55']);
    const bad = parseMessage(await exchange(server(), signTsig(msg, { ...key, secret: Buffer.alloc(32, 1).toString('base64') }).signed, 4000));
    expect(bad.rcode).toBe(9); // NOTAUTH
  });

  it('TXT through the service client: created, same, rewritten, and removing our value leaves another text of the name', async () => {
    const dns = await d.runtime.deps.modules.service('dnsProviders');
    const client = dns.client('rfc2136', { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` });
    const rec = { domain: '_acme-challenge.txt.example.test', type: 'TXT' as const };
    const texts = async () => (await queryTexts(server(), rec.domain, 4000)).sort();
    expect(await client.set({ ...rec, value: 'token-one' })).toBe('created');
    expect(await client.set({ ...rec, value: 'token-one' })).toBe('same');
    expect(await client.set({ ...rec, value: 'token-two' })).toBe('updated');
    expect(await texts()).toEqual(['token-two']);
    // Somebody else's text at the name: ours is found among them, and only ours goes.
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    // Both texts, as another client adding its own would leave them.
    const both = buildUpdate({ zone: 'example.test', name: rec.domain, type: TYPE.TXT, ttl: 60, ips: [], texts: ['token-two', 'other'] });
    expect(parseMessage(await exchange(server(), signTsig(both, key).signed, 4000)).rcode).toBe(0);
    expect(await client.set({ ...rec, value: 'token-two' })).toBe('same');
    expect(await client.remove({ ...rec, value: 'token-two' })).toBe(true);
    expect(await texts()).toEqual(['other']);
    expect(await client.remove(rec)).toBe(true);
    expect(await texts()).toEqual([]);
  });

  it('a task creates A and AAAA records, updates them, and the resolver check sees them', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/ddns/rules', task());
    expect(created.ret, created.msg).toBe(0);
    const key = created.key;
    await waitFor('records created', () => (dig(bind, 'home.example.test', 'A')[0] === '203.0.113.5' ? true : undefined));
    await waitFor('status', async () => ((await sync(key)).status === 'updateSucceeded' ? true : undefined));
    expect(dig(bind, 'home.example.test', 'AAAA')).toEqual(['2001:db8::5']);
    expect(dig(bind, 'deep.lan.example.test', 'A')).toEqual(['203.0.113.5']);
    expect(dig(bind, 'deep.lan.example.test', 'AAAA')).toEqual(['2001:db8::5']);
    const ttl = execFileSync('/usr/bin/dig', ['+noall', '+answer', '-p', String(bind.port), '@127.0.0.1', 'home.example.test', 'A'], { encoding: 'utf8', timeout: 10_000 });
    expect(ttl).toMatch(/home\.example\.test\.\s+120\s+IN\s+A\s+203\.0\.113\.5/);

    // New addresses: saving applies at once; BIND serves the new records (replaced, not added).
    ip.ipv4 = '198.51.100.77';
    ip.ipv6 = '2001:db8:1::77';
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, task())).ret).toBe(0);
    await waitFor('records updated', () => (dig(bind, 'home.example.test', 'AAAA')[0] === '2001:db8:1::77' ? true : undefined));
    await waitFor('status', async () => ((await sync(key)).status === 'updateSucceeded' ? true : undefined));
    expect(dig(bind, 'home.example.test', 'A')).toEqual(['198.51.100.77']);
    expect(dig(bind, 'deep.lan.example.test', 'A')).toEqual(['198.51.100.77']);

    // Saved again unchanged: the resolver check finds the DNS answer equal and nothing is sent.
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, task())).ret).toBe(0);
    const same = await waitFor('dns record same', async () => {
      const s = await sync(key);
      return s.records.every((r) => r.status === 'dnsRecordSame') ? s : undefined;
    });
    expect(same.status).toBe('dnsRecordSame');

    // Manual sync is forced: it reads the record from the server and finds it equal.
    const forced = await d.call<{ sync: DdnsSyncState }>('POST', `/api/ddns/rules/${key}/sync`);
    expect(forced.sync.records.map((r) => r.status)).toEqual(['providerRecordSame', 'providerRecordSame', 'providerRecordSame', 'providerRecordSame']);

    // A wrong TSIG secret: update failed, BIND's refusal in the message, the secret nowhere.
    ip.ipv4 = '198.51.100.78';
    const wrong = Buffer.alloc(32, 7).toString('base64');
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, { ...task(), credentials: { ...task().credentials, secret: wrong } })).ret).toBe(0);
    const failed = await waitFor('failure', async () => {
      const s = await sync(key);
      return s.status === 'updateFailed' ? s : undefined;
    });
    expect(failed.records.find((r) => r.type === 'A')!.message).toMatch(/NOTAUTH|BADSIG/);
    expect(dig(bind, 'home.example.test', 'A')).toEqual(['198.51.100.77']);
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ddns/rules/${key}/logs`);
    expect(JSON.stringify(logs)).not.toContain(wrong);
    expect(JSON.stringify(logs)).not.toContain(bind.secret);
  });
});
