/**
 * TXT records (ACME DNS-01) through every provider that has them: the `dnsProviders` service's
 * client of the running daemon, against the local servers that check signatures and keys like the
 * real services and keep TXT the way each API does (records, RRsets, quoted text).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DDNS_PROVIDER_INFO, DDNS_PROVIDERS } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import {
  fakeAliDns,
  fakeBaidu,
  fakeCloudflare,
  fakeDesec,
  fakeDnspod,
  fakeDuckdns,
  fakeGodaddy,
  fakeHuawei,
  fakeNamesilo,
  fakePorkbun,
  fakeVercel,
  type FakeCreds,
  type FakeProvider,
} from '../../lib/dns/testing/fakes.js';

interface Case {
  provider: (typeof DDNS_PROVIDERS)[number];
  start: (c: FakeCreds) => Promise<FakeProvider>;
  creds: FakeCreds;
  /** The record line as ACME writes it. */
  domain: string;
  /** The fake's name for the record (default: the line). */
  name?: string;
  /** One TXT per domain (DuckDNS): nothing to tell apart, remove clears it. */
  single?: boolean;
}

const CASES: Case[] = [
  { provider: 'cloudflare', start: fakeCloudflare, creds: { id: '', secret: 'cf-token-123456' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'alidns', start: fakeAliDns, creds: { id: 'LTAI5tTestKeyId', secret: 'ali-secret-abcdef' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'dnspod', start: fakeDnspod, creds: { id: 'AKIDtestSecretId', secret: 'tc3-secret-key-xyz' }, domain: '_acme-challenge.nas:example.com', name: '_acme-challenge.nas.example.com' },
  { provider: 'huaweicloud', start: fakeHuawei, creds: { id: 'HWAKTEST0001', secret: 'hw-sk-secret-0001' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'baiducloud', start: fakeBaidu, creds: { id: 'bce-ak-test', secret: 'bce-sk-secret' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'porkbun', start: fakePorkbun, creds: { id: 'pk1_test', secret: 'sk1_secret_test' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'godaddy', start: fakeGodaddy, creds: { id: 'gd-key', secret: 'gd-secret-value' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'namesilo', start: fakeNamesilo, creds: { id: '', secret: 'namesilo-key' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'desec', start: fakeDesec, creds: { id: '', secret: 'desec-token-value' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'vercel', start: fakeVercel, creds: { id: 'team_abc', secret: 'vercel-token' }, domain: '_acme-challenge.home.example.com' },
  { provider: 'duckdns', start: fakeDuckdns, creds: { id: '', secret: 'duck-token-value' }, domain: '_acme-challenge.myhome.duckdns.org', name: 'myhome.duckdns.org', single: true },
];

describe('TXT records through the providers that have them', () => {
  let d: TestDaemon;
  const fakes = new Map<string, FakeProvider>();

  beforeAll(async () => {
    for (const c of CASES) fakes.set(c.provider, await c.start(c.creds));
    d = await startTestDaemon({ env: { nativeRelay: true, ddnsTestEndpoints: Object.fromEntries([...fakes].map(([k, f]) => [k, f.url])) } });
  });
  afterAll(async () => {
    await d?.close();
    for (const f of fakes.values()) await f.close();
  });

  const service = () => d.runtime.deps.modules.service('dnsProviders');

  it('every provider marked for TXT is tested here, and only those list TXT', async () => {
    const taught = DDNS_PROVIDERS.filter((p) => DDNS_PROVIDER_INFO[p].txt);
    expect(taught.filter((p) => p !== 'rfc2136').sort()).toEqual(CASES.map((c) => c.provider).sort());
    for (const p of (await service()).providers()) expect(p.records.includes('TXT'), p.name).toBe(taught.includes(p.name));
  });

  for (const c of CASES) {
    it(`${c.provider}: creates, leaves an equal value alone, rewrites, removes only its own value, then every TXT of the name`, async () => {
      const fake = fakes.get(c.provider)!;
      const name = c.name ?? c.domain;
      const client = (await service()).client(c.provider, c.creds, { timeoutMs: 5000 });
      const rec = { domain: c.domain, type: 'TXT' as const };
      const texts = () => fake.all(name, 'TXT').map((r) => r.value).sort();
      // A neighbour the TXT calls must never touch.
      const neighbour = fake.add('www.example.com', 'A', '192.0.2.7', 3600);

      // DuckDNS answers UPDATED for a new value too: it cannot say whether there was one.
      expect(await client.set({ ...rec, value: 'first_token-A1' })).toBe(c.single ? 'updated' : 'created');
      expect(texts()).toEqual(['first_token-A1']);
      expect(await client.set({ ...rec, value: 'first_token-A1' })).toBe('same');
      const id = fake.find(name, 'TXT')!.id;
      expect(await client.set({ ...rec, value: 'second_token-B2' })).toBe('updated');
      expect(texts()).toEqual(['second_token-B2']);
      expect(fake.find(name, 'TXT')!.id).toBe(id);

      if (c.single) {
        // One TXT per domain: removing clears it, whatever it holds.
        expect(await client.remove({ ...rec, value: 'second_token-B2' })).toBe(true);
        expect(texts()).toEqual([]);
      } else {
        // Another client's record at the same name (quotes and all): ours is still found equal,
        // and removing ours leaves it.
        const other = 'v=other "client" \\ value';
        fake.add(name, 'TXT', other, 3600);
        expect(await client.set({ ...rec, value: 'second_token-B2' })).toBe('same');
        expect(await client.remove({ ...rec, value: 'second_token-B2' })).toBe(true);
        expect(texts()).toEqual([other]);
        // A value that is not there removes nothing.
        expect(await client.remove({ ...rec, value: 'never-written' })).toBe(true);
        expect(texts()).toEqual([other]);
        // Without a value every TXT of the name goes.
        expect(await client.remove(rec)).toBe(true);
        expect(texts()).toEqual([]);
      }
      expect(fake.records.get(neighbour.id)).toEqual(neighbour);
      expect(fake.rejected, fake.lastReject).toBe(0);
    });
  }
});
