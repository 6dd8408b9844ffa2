/**
 * Every HTTP provider's full path through the daemon's API, against local servers that implement
 * the provider's API and check its signatures or keys like the real service.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK, type DdnsSyncState } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import {
  fakeAliDns,
  fakeBaidu,
  fakeCloudflare,
  fakeDesec,
  fakeDigitalocean,
  fakeDnspod,
  fakeDuckdns,
  fakeDynv6,
  fakeGodaddy,
  fakeHuawei,
  fakeIpServer,
  fakeNamecheap,
  fakeNamesilo,
  fakeNoip,
  fakeVercel,
  fakePorkbun,
  waitFor,
  type FakeCreds,
  type FakeIpServer,
  type FakeProvider,
} from '../../lib/dns/testing/fakes.js';

interface Case {
  provider: string;
  start: (c: FakeCreds) => Promise<FakeProvider>;
  creds: FakeCreds;
  domain: string;
  /** The fake's name for the record. */
  name?: string;
  failText: RegExp;
  /** Providers without IPv6 get A records only. */
  ipv4Only?: boolean;
  /** Write-only providers write on a forced sync. */
  writeOnly?: boolean;
  /** What a forced sync of unchanged addresses says, when not the usual (dyndns2's `nochg` is the provider saying equal). */
  forced?: DdnsSyncStatus;
}

const CASES: Case[] = [
  { provider: 'cloudflare', start: fakeCloudflare, creds: { id: '', secret: 'cf-token-123456' }, domain: 'home.example.com', failText: /Authentication error/ },
  { provider: 'alidns', start: fakeAliDns, creds: { id: 'LTAI5tTestKeyId', secret: 'ali-secret-abcdef' }, domain: 'home.example.com', failText: /SignatureDoesNotMatch/ },
  { provider: 'dnspod', start: fakeDnspod, creds: { id: 'AKIDtestSecretId', secret: 'tc3-secret-key-xyz' }, domain: 'nas:example.com', name: 'nas.example.com', failText: /AuthFailure\.SignatureFailure/ },
  { provider: 'huaweicloud', start: fakeHuawei, creds: { id: 'HWAKTEST0001', secret: 'hw-sk-secret-0001' }, domain: 'home.example.com', failText: /verify aksk signature fail/ },
  { provider: 'baiducloud', start: fakeBaidu, creds: { id: 'bce-ak-test', secret: 'bce-sk-secret' }, domain: 'home.example.com', failText: /SignatureDoesNotMatch/ },
  { provider: 'porkbun', start: fakePorkbun, creds: { id: 'pk1_test', secret: 'sk1_secret_test' }, domain: 'home.example.com', failText: /Invalid API key/ },
  { provider: 'godaddy', start: fakeGodaddy, creds: { id: 'gd-key', secret: 'gd-secret-value' }, domain: 'home.example.com', failText: /HTTP 401/ },
  { provider: 'desec', start: fakeDesec, creds: { id: '', secret: 'desec-token-value' }, domain: 'home.example.com', failText: /HTTP 401/ },
  { provider: 'duckdns', start: fakeDuckdns, creds: { id: '', secret: 'duck-token-value' }, domain: 'myhome.duckdns.org', failText: /KO/ },
  { provider: 'namesilo', start: fakeNamesilo, creds: { id: '', secret: 'namesilo-key' }, domain: 'home.example.com', failText: /Invalid API Key/ },
  { provider: 'vercel', start: fakeVercel, creds: { id: 'team_abc', secret: 'vercel-token' }, domain: 'home.example.com', failText: /HTTP 403/ },
  { provider: 'namecheap', start: fakeNamecheap, creds: { id: '', secret: 'nc-ddns-password' }, domain: 'home.example.com', failText: /Passwords do not match/, ipv4Only: true, writeOnly: true },
  { provider: 'dynv6', start: fakeDynv6, creds: { id: '', secret: 'dynv6-token-value' }, domain: 'myhome.dynv6.net', failText: /HTTP 401/ },
  { provider: 'digitalocean', start: fakeDigitalocean, creds: { id: '', secret: 'dop_v1_token' }, domain: 'home.example.com', failText: /HTTP 401/ },
  { provider: 'noip', start: fakeNoip, creds: { id: 'noip-user', secret: 'noip-pass' }, domain: 'home.example.com', failText: /badauth/, writeOnly: true, forced: 'providerRecordSame' },
];

describe('HTTP providers against signature-checking local servers', () => {
  let d: TestDaemon;
  let ip: FakeIpServer;
  const fakes = new Map<string, FakeProvider>();
  let n = 10;

  beforeAll(async () => {
    ip = await fakeIpServer('203.0.113.10', '2001:db8::10');
    for (const c of CASES) fakes.set(c.provider, await c.start(c.creds));
    d = await startTestDaemon({ env: { nativeRelay: true, ddnsTestEndpoints: Object.fromEntries([...fakes].map(([k, f]) => [k, f.url])) } });
  });
  afterAll(async () => {
    await d?.close();
    await ip?.close();
    for (const f of fakes.values()) await f.close();
  });

  const stateOf = async (key: string) => (await d.call<{ rule: { sync: DdnsSyncState; credentials: { secret: string } } }>('GET', `/api/ddns/rules/${key}`)).rule;

  for (const c of CASES) {
    it(`${c.provider}: creates, updates, leaves equal records alone, reports bad credentials`, async () => {
      const fake = fakes.get(c.provider)!;
      const name = c.name ?? c.domain;
      n++;
      ip.ipv4 = `203.0.113.${n}`;
      ip.ipv6 = `2001:db8::${n}`;
      const task = {
        name: `${c.provider} task`,
        provider: c.provider,
        recordType: c.ipv4Only ? 'A' : 'both',
        credentials: { id: c.creds.id, secret: c.creds.secret },
        domains: c.domain,
        ipv4: { type: 'url', urls: [`${ip.url}/`] },
        ipv6: { type: 'url', urls: `${ip.url}/v6` },
        httpTimeout: 5,
      };
      const created = await d.call<{ key: string }>('POST', '/api/ddns/rules', task);
      expect(created.ret, created.msg).toBe(0);
      const key = created.key;

      // Created at once (no restart), both families.
      await waitFor('records created', () => fake.find(name, 'A')?.value === ip.ipv4 && (c.ipv4Only || fake.find(name, 'AAAA')?.value === ip.ipv6));
      let s = await waitFor('status', async () => {
        const r = await stateOf(key);
        return r.sync.status === 'updateSucceeded' ? r : undefined;
      });
      expect(s.sync.ipv4).toBe(ip.ipv4);
      expect(s.sync.ipv6).toBe(c.ipv4Only ? '' : ip.ipv6);
      expect(s.credentials.secret).toBe(SECRET_MASK);
      const list = await d.call('GET', '/api/ddns/rules');
      expect(JSON.stringify(list)).not.toContain(c.creds.secret);
      const firstId = fake.find(name, 'A')!.id;
      expect(fake.rejected).toBe(0);

      // The address changes; saving with the mask keeps the stored secret and applies at once.
      ip.ipv4 = `198.51.100.${n}`;
      const saved = await d.call('PUT', `/api/ddns/rules/${key}`, { ...task, credentials: { id: c.creds.id, secret: SECRET_MASK } });
      expect(saved.ret, saved.msg).toBe(0);
      await waitFor('record updated', () => fake.find(name, 'A')?.value === ip.ipv4);
      expect(fake.find(name, 'A')!.id).toBe(firstId);
      expect([...fake.records.values()].filter((r) => r.name === name)).toHaveLength(c.ipv4Only ? 1 : 2);
      expect(fake.rejected).toBe(0);

      // A forced manual sync finds the provider's records equal and writes nothing.
      const before = fake.records.get(firstId)!;
      const synced = await d.call<{ sync: DdnsSyncState }>('POST', `/api/ddns/rules/${key}/sync`);
      expect(synced.ret, synced.msg).toBe(0);
      const want = c.forced ?? (c.writeOnly ? 'updateSucceeded' : 'providerRecordSame');
      expect(synced.sync.records.map((r) => r.status)).toEqual(c.ipv4Only ? [want] : [want, want]);
      expect(fake.records.get(firstId)).toEqual(before);

      // Wrong credentials: update failed with the provider's reason, the secret never shown.
      ip.ipv4 = `192.0.2.${n}`;
      const bad = await d.call('PUT', `/api/ddns/rules/${key}`, { ...task, credentials: { id: c.creds.id, secret: 'wrong-secret-value' } });
      expect(bad.ret).toBe(0);
      s = await waitFor('failure', async () => {
        const r = await stateOf(key);
        return r.sync.status === 'updateFailed' ? r : undefined;
      });
      expect(s.sync.records[0]!.message).toMatch(c.failText);
      expect(fake.rejected).toBeGreaterThan(0);
      const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ddns/rules/${key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } });
      const text = logs.logs.map((l) => l.log).join('\n');
      expect(text).toMatch(/created A|updated A/);
      expect(text).toMatch(new RegExp(`update of A ${name.replace(/\./g, '\\.')} failed: `));
      const zh = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ddns/rules/${key}/logs`)).logs.map((l) => l.log).join('\n');
      expect(zh).toMatch(/已创建 A|已更新 A/);
      expect(zh).not.toContain('wrong-secret-value');
      expect(text).not.toContain('wrong-secret-value');
      expect(text).not.toContain(c.creds.secret);
      const hist = await d.call<{ history: Array<{ kind: string; status: string }> }>('GET', `/api/ddns/rules/${key}/history`);
      expect(hist.history.some((h) => h.kind === 'sync' && h.status === 'updateSucceeded')).toBe(true);
      expect(hist.history.some((h) => h.kind === 'ip')).toBe(true);
      expect(JSON.stringify(hist)).not.toContain('wrong-secret-value');

      expect((await d.call('DELETE', `/api/ddns/rules/${key}`)).ret).toBe(0);
    });
  }
});
