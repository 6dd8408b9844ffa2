/**
 * The services modules use, asked for through the module host the way a module would, with no
 * module of the test's own: `webhooks` (the daemon's) against a local HTTP receiver, and
 * `dnsProviders` (DDNS's) against a signature-checking local Cloudflare and a callback receiver.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DDNS_PROVIDERS, renderMsg, ZWebhook, type DdnsSyncState, type Webhook } from '@lucky/contracts';
import { fakeCloudflare, fakeIpServer, receiver, waitFor, type FakeIpServer, type FakeProvider, type Receiver } from '../lib/dns/testing/fakes.js';
import { startTestDaemon, type TestDaemon } from '../test/harness.js';

const en = { headers: { 'lucky-lang': 'en_US' } };

describe('services through the module host', () => {
  let d: TestDaemon;
  let hook: Receiver;
  let cb: Receiver;
  let cf: FakeProvider;
  let ip: FakeIpServer;
  let hang: Server;
  let hangUrl: string;

  beforeAll(async () => {
    hook = await receiver();
    cb = await receiver();
    cf = await fakeCloudflare({ id: '', secret: 'cf-service-token' });
    ip = await fakeIpServer('203.0.113.70', '2001:db8::70');
    hang = createServer(() => undefined);
    await new Promise<void>((r) => hang.listen(0, '127.0.0.1', r));
    hangUrl = `http://127.0.0.1:${(hang.address() as AddressInfo).port}`;
    d = await startTestDaemon({ env: { nativeRelay: true, ddnsTestEndpoints: { cloudflare: cf.url } } });
  });
  afterAll(async () => {
    await d?.close();
    for (const s of [hook, cb, cf, ip]) await s?.close();
    hang?.closeAllConnections();
    await new Promise((r) => hang?.close(r));
  });

  const host = () => d.runtime.deps.modules;
  const webhook = (w: Partial<Webhook>): Webhook => ZWebhook.parse({ enable: true, ...w });

  describe('webhooks (the daemon)', () => {
    it('fills the values where they go, checks the answer, and says why it failed in either language', async () => {
      const wh = await host().service('webhooks');
      expect(await host().service('webhooks')).toBe(wh);
      hook.answer = { status: 200, body: '{"accepted":true}' };
      const w = webhook({
        url: `${hook.url}/w?ip=#{ip}&n=#{names}&t=#{time}`,
        method: 'PUT',
        headers: ['X-Address: #{ip}'],
        body: '{"ip":"#{ip}","lines":"#{namesLine}","note":"#{note}"}',
        successCheck: { enable: true, text: '"accepted":true' },
      });
      const ok = await wh.call(w, { ip: '192.0.2.7', names: ['a.example.com', 'b.example.com'], note: 'say "hi"' });
      expect(ok).toMatchObject({ success: true, status: 200, body: '{"accepted":true}' });
      expect(renderMsg('en_US', ok!.reason)).toBe('ok (HTTP 200)');
      expect(renderMsg('zh_CN', ok!.reason)).toBe('成功（HTTP 200）');
      const got = hook.calls.at(-1)!;
      expect(got.method).toBe('PUT');
      const q = new URL(got.url, 'http://x').searchParams;
      expect(q.get('ip')).toBe('192.0.2.7');
      expect(q.get('n')).toBe('a.example.com,b.example.com');
      expect(q.get('t')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      expect(got.headers['x-address']).toBe('192.0.2.7');
      expect(got.headers['content-type']).toBe('application/json');
      expect(JSON.parse(got.body)).toEqual({ ip: '192.0.2.7', lines: 'a.example.com\nb.example.com', note: 'say "hi"' });

      // Switched off: nothing is sent.
      const calls = hook.calls.length;
      expect(await wh.call({ ...w, enable: false }, { ip: '192.0.2.7' })).toBeNull();
      expect(hook.calls).toHaveLength(calls);
      // The test button sends even so.
      expect((await wh.test({ ...w, enable: false }, { ip: '192.0.2.8', names: [] })).success).toBe(true);
      expect(hook.calls).toHaveLength(calls + 1);

      hook.answer = { status: 200, body: 'busy' };
      const missing = await wh.call(w, { ip: '192.0.2.7' });
      expect(missing).toMatchObject({ success: false, status: 200, body: 'busy' });
      expect(renderMsg('en_US', missing!.reason)).toBe('the answer does not contain ""accepted":true"');
      expect(renderMsg('zh_CN', missing!.reason)).toBe('回答中没有“"accepted":true”');
      hook.answer = { status: 503, body: 'down' };
      expect(renderMsg('en_US', (await wh.call(w, { ip: '192.0.2.7' }))!.reason)).toBe('HTTP 503');

      const refused = await wh.call(webhook({ url: 'http://127.0.0.1:1/x?token=secret-in-query', method: 'GET' }), {});
      expect(refused).toMatchObject({ success: false, status: 0 });
      expect(renderMsg('en_US', refused!.reason)).toMatch(/^request failed: .*ECONNREFUSED/);
      expect(renderMsg('zh_CN', refused!.reason)).toMatch(/^请求失败：/);
      const t0 = Date.now();
      const slow = await wh.call(webhook({ url: `${hangUrl}/slow?token=secret-in-query`, method: 'GET' }), {}, { timeoutMs: 500 });
      expect(Date.now() - t0).toBeLessThan(3000);
      // The query (where tokens travel) is not quoted.
      expect(renderMsg('en_US', slow!.reason)).toBe(`timeout after 0.5s: ${hangUrl}/slow`);
    });

    it('builds push presets around the caller\'s message; their bodies stay JSON once filled', async () => {
      const wh = await host().service('webhooks');
      const p = wh.presets({ title: 'Lucky STUN #{address}', text: 'Port #{port}\nis "open"' });
      expect(p.bark.url).toBe('https://api.day.app/YOUR_KEY/Lucky%20STUN%20#{address}/Port%20#{port}%0Ais%20%22open%22');
      for (const name of ['serverchan', 'dingtalk', 'feishu', 'wecom', 'telegram'] as const) {
        const body = p[name].body!;
        const filled = JSON.parse(body.replace(/#\{\w+\}/g, 'x')) as unknown;
        expect(JSON.stringify(filled), name).toContain('Port x\\nis \\"open\\"');
        // Every preset passes the webhook's own checks.
        expect(ZWebhook.safeParse({ enable: true, ...p[name] }).success, name).toBe(true);
      }
      expect(p.custom).toEqual({});
    });
  });

  describe('dnsProviders (DDNS)', () => {
    it('is there while DDNS is switched off: a client sets records with one account', async () => {
      const all = (await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure')).baseconfigure.EnabledModules;
      expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all.filter((m) => m !== 'ddns') })).ret).toBe(0);
      try {
        const dns = await host().service('dnsProviders');
        const list = dns.providers();
        expect(list.map((p) => p.name)).toEqual(DDNS_PROVIDERS);
        expect(list.find((p) => p.name === 'cloudflare')).toMatchObject({ fields: [{ key: 'secret', label: 'dnsCredApiToken' }], records: ['A', 'AAAA', 'TXT'] });
        expect(list.find((p) => p.name === 'namecheap')!.records).toEqual(['A']);

        const client = dns.client('cloudflare', { secret: 'cf-service-token' }, { timeoutMs: 5000 });
        expect(await client.set({ domain: 'svc.example.com', type: 'A', value: '192.0.2.50', ttl: 120 })).toBe('created');
        expect(cf.find('svc.example.com', 'A')).toMatchObject({ value: '192.0.2.50', ttl: 120 });
        expect(await client.set({ domain: 'svc.example.com', type: 'A', value: '192.0.2.50' })).toBe('same');
        expect(await client.set({ domain: 'svc.example.com', type: 'AAAA', value: '2001:db8::50' })).toBe('created');
        expect(await client.set({ domain: 'svc.example.com', type: 'A', value: '192.0.2.51' })).toBe('updated');
        expect(cf.find('svc.example.com', 'A')!.value).toBe('192.0.2.51');
        expect(cf.rejected).toBe(0);

        // A type the provider cannot set is refused before any call; bad credentials say why.
        const requests = cf.requests;
        await expect(dns.client('namecheap', { secret: 'nc' }).set({ domain: '_acme-challenge.svc.example.com', type: 'TXT', value: 'token' })).rejects.toMatchObject({
          msg: { key: 'dnsTypeUnsupported', vars: { provider: 'namecheap', type: 'TXT' } },
        });
        expect(cf.requests).toBe(requests);
        const wrong = dns.client('cloudflare', { secret: 'not-the-token' });
        const err = (await wrong.set({ domain: 'svc.example.com', type: 'A', value: '192.0.2.52' }).catch((e: unknown) => e)) as { msg: never };
        expect(renderMsg('en_US', err.msg)).toMatch(/^Cloudflare: .*Authentication error/);
        expect(cf.rejected).toBeGreaterThan(0);
        expect(cf.find('svc.example.com', 'A')!.value).toBe('192.0.2.51');
      } finally {
        expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all })).ret).toBe(0);
      }
    });

    it('publishes an address through an existing task, which keeps it until the task stops', async () => {
      cb.answer = { status: 200, body: 'good' };
      const task = {
        name: 'published',
        provider: 'callback',
        domains: ['pub.example.net'],
        ipv4: { urls: [`${ip.url}/`] },
        callback: { url: `${cb.url}/pub?ip=#{ip}&domain=#{domain}` },
      };
      const { key } = await d.call<{ key: string }>('POST', '/api/ddns/rules', task);
      const sent = () => cb.calls.filter((c) => c.url.startsWith('/pub?')).map((c) => new URL(c.url, 'http://x').searchParams.get('ip'));
      await waitFor('first sync from the task\'s own source', () => sent().includes('203.0.113.70'));

      const dns = await host().service('dnsProviders');
      expect(dns.tasks()).toContainEqual({ key, name: 'published', enable: true, provider: 'callback', recordType: 'A', domains: ['pub.example.net'] });
      const records = await dns.publish(key, { ipv4: '198.51.100.33', ipv6: '2001:db8::33' }, 'stun');
      expect(records).toEqual([{ domain: 'pub.example.net', type: 'A', status: 'updateSucceeded', ip: '198.51.100.33', reason: { key: 'ddnsUpdated' } }]);
      expect(sent().at(-1)).toBe('198.51.100.33');

      const view = (await d.call<{ rule: { sync: DdnsSyncState } }>('GET', `/api/ddns/rules/${key}`)).rule.sync;
      expect(view.ipv4).toBe('198.51.100.33');
      const log = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ddns/rules/${key}/logs`, undefined, en)).logs.map((l) => l.log).join('\n');
      expect(log).toContain('STUN traversal published the IPv4 address 198.51.100.33');
      const zh = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ddns/rules/${key}/logs`)).logs.map((l) => l.log).join('\n');
      expect(zh).toContain('STUN内网穿透发布了 IPv4 地址 198.51.100.33');

      // A later sync still sends the published address, not the task's own source.
      const synced = await d.call<{ done: boolean }>('POST', `/api/ddns/rules/${key}/sync`);
      expect(synced).toMatchObject({ ret: 0, done: true });
      expect(sent().at(-1)).toBe('198.51.100.33');

      // Refused, changing nothing: no such task, a task switched off, DDNS switched off.
      await expect(dns.publish('nosuchtask', { ipv4: '198.51.100.34' }, 'stun')).rejects.toMatchObject({ ret: 3 });
      expect((await d.call('PUT', `/api/ddns/rules/${key}/enable`, { enable: false })).ret).toBe(0);
      await expect(dns.publish(key, { ipv4: '198.51.100.34' }, 'stun')).rejects.toMatchObject({ ret: 6, key: 'ddnsTaskDisabled' });
      expect((await d.call('PUT', `/api/ddns/rules/${key}/enable`, { enable: true })).ret).toBe(0);
      const all = (await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure')).baseconfigure.EnabledModules;
      expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all.filter((m) => m !== 'ddns') })).ret).toBe(0);
      await expect(dns.publish(key, { ipv4: '198.51.100.34' }, 'stun')).rejects.toMatchObject({ ret: 4 });
      expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all })).ret).toBe(0);
      expect(sent()).not.toContain('198.51.100.34');
      expect((await d.call('DELETE', `/api/ddns/rules/${key}`)).ret).toBe(0);
    });
  });
});
