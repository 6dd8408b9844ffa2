/** Callback provider, webhooks, IP source tests, validation and masking through the daemon's API. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DDNS_PROVIDERS, SECRET_MASK, type DdnsProviderListing, type DdnsSyncState } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { fakeIpServer, receiver, waitFor, type FakeIpServer, type Receiver } from '../../lib/dns/testing/fakes.js';

const en = { headers: { 'lucky-lang': 'en_US' } };

describe('ddns over the API', () => {
  let d: TestDaemon;
  let ip: FakeIpServer;
  let cb: Receiver;
  let hook: Receiver;
  let dir: string;

  beforeAll(async () => {
    ip = await fakeIpServer('203.0.113.9', '2001:db8::9');
    cb = await receiver();
    hook = await receiver();
    dir = mkdtempSync(join(tmpdir(), 'lucky-ddns-'));
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d?.close();
    await ip?.close();
    await cb?.close();
    await hook?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const callbackTask = () => ({
    name: 'callback',
    provider: 'callback',
    recordType: 'both',
    domains: 'a.example.net\nb.example.net',
    ipv4: { urls: [`${ip.url}/`] },
    ipv6: { urls: [`${ip.url}/v6`] },
    ttl: 300,
    callback: {
      url: `${cb.url}/update?ip=#{ip}&domain=#{domain}&type=#{recordType}&ttl=#{ttl}`,
      method: 'POST',
      headers: ['X-Record: #{recordType}'],
      body: '{"ip":"#{ip}","domain":"#{domain}"}',
      successCheck: { enable: true, text: 'good' },
    },
    webhook: {
      enable: true,
      url: `${hook.url}/hook?ip=#{ipAddr}`,
      method: 'PUT',
      headers: ['Authorization: Bearer hook-token'],
      body: '{"ip":"#{ipAddr}","ok":"#{successDomains}","okLines":"#{successDomainsLine}","failed":"#{failedDomains}","failedLines":"#{failedDomainsLine}","time":"#{time}"}',
      onFailure: true,
      successCheck: { enable: true, text: 'received' },
    },
  });

  it('callback: substituted variables, success-string check, webhook with every variable', async () => {
    cb.answer = { status: 200, body: 'all good' };
    hook.answer = { status: 200, body: 'received' };
    const created = await d.call<{ key: string }>('POST', '/api/ddns/rules', callbackTask());
    expect(created.ret, created.msg).toBe(0);
    await waitFor('4 callbacks and a webhook', () => cb.calls.length >= 4 && hook.calls.length >= 1);
    const byDomain = cb.calls.map((c) => new URL(c.url, 'http://x').searchParams).map((q) => `${q.get('type')} ${q.get('domain')} ${q.get('ip')} ${q.get('ttl')}`);
    expect(byDomain.sort()).toEqual([
      'A a.example.net 203.0.113.9 300',
      'A b.example.net 203.0.113.9 300',
      'AAAA a.example.net 2001:db8::9 300',
      'AAAA b.example.net 2001:db8::9 300',
    ]);
    const aaaa = cb.calls.find((c) => c.headers['x-record'] === 'AAAA')!;
    expect(aaaa.method).toBe('POST');
    expect(JSON.parse(aaaa.body)).toMatchObject({ ip: '2001:db8::9' });
    expect(aaaa.headers['content-type']).toBe('application/json');

    const h = hook.calls[0]!;
    expect(h.method).toBe('PUT');
    expect(h.headers.authorization).toBe('Bearer hook-token');
    expect(new URL(h.url, 'http://x').searchParams.get('ip')).toBe('203.0.113.9,2001:db8::9');
    const body = JSON.parse(h.body) as Record<string, string>;
    expect(body.ip).toBe('203.0.113.9,2001:db8::9');
    expect(body.ok!.split(',').sort()).toEqual(['a.example.net', 'a.example.net', 'b.example.net', 'b.example.net']);
    expect(body.okLines!.split('\n')).toHaveLength(4);
    expect(body.failed).toBe('');
    expect(body.time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

    const s = await waitFor('status', async () => {
      const r = (await d.call<{ rule: { sync: DdnsSyncState } }>('GET', `/api/ddns/rules/${created.key}`)).rule.sync;
      return r.status === 'updateSucceeded' ? r : undefined;
    });
    expect(s.records).toHaveLength(4);
    // The webhook's line is written when its answer is in, which may come after the sync's status.
    const hist = await waitFor('webhook history', async () => {
      const r = await d.call<{ history: Array<{ kind: string; status: string }> }>('GET', `/api/ddns/rules/${created.key}/history`);
      return r.history.some((x) => x.kind === 'webhook') ? r : undefined;
    });
    expect(hist.history.find((x) => x.kind === 'webhook')).toMatchObject({ status: 'ok', message: '成功（HTTP 200）' });
    const histEn = await d.call<{ history: Array<{ kind: string; status: string; message: string }> }>('GET', `/api/ddns/rules/${created.key}/history`, undefined, en);
    expect(histEn.history.find((x) => x.kind === 'sync')).toMatchObject({ status: 'updateSucceeded', message: 'updated' });
    expect(histEn.history.find((x) => x.kind === 'webhook')).toMatchObject({ message: 'ok (HTTP 200)' });

    // The callback's answer lacks the success string: update failed, and the webhook reports failures.
    cb.answer = { status: 200, body: 'denied' };
    ip.ipv4 = '203.0.113.99';
    const hooks = hook.calls.length;
    expect((await d.call('PUT', `/api/ddns/rules/${created.key}`, callbackTask())).ret).toBe(0);
    const failed = await waitFor('failure', async () => {
      const r = (await d.call<{ rule: { sync: DdnsSyncState; status: { state: string; message: string } } }>('GET', `/api/ddns/rules/${created.key}`, undefined, en)).rule;
      return r.sync.status === 'updateFailed' && r.sync.message !== '' ? r : undefined;
    });
    expect(failed.status.state).toBe('error');
    expect(failed.sync.records[0]!.message).toBe('callback: the answer does not contain "good": denied');
    // The AAAA address did not change and this provider cannot read back: only the A records were sent.
    expect(failed.sync.records.map((r) => r.status)).toEqual(['updateFailed', 'updateFailed', 'ipSameAsRecord', 'ipSameAsRecord']);
    expect(failed.status.message).toBe('update of A a.example.net failed: callback: the answer does not contain "good": denied; 1 more problem(s)');
    expect(failed.sync.message).toBe('2 failed');
    // The same state in Chinese, the default language.
    const zh = (await d.call<{ rule: { sync: DdnsSyncState; status: { message: string } } }>('GET', `/api/ddns/rules/${created.key}`)).rule;
    expect(zh.sync.records[0]!.message).toBe('回调：回答中没有“good”：denied');
    expect(zh.sync.message).toBe('2 条记录更新失败');
    expect(zh.status.message).toBe('A a.example.net 更新失败：回调：回答中没有“good”：denied；另有 1 项问题');
    await waitFor('failure webhook', () => hook.calls.length > hooks);
    const fb = JSON.parse(hook.calls[hook.calls.length - 1]!.body) as Record<string, string>;
    expect(fb.failed!.split(',')).toContain('a.example.net');
    expect((await d.call('DELETE', `/api/ddns/rules/${created.key}`)).ret).toBe(0);
    // Its history goes with it.
    const left = d.runtime.db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM ddns_history WHERE task = ?').get(created.key)!;
    expect(left.n).toBe(0);
  });

  it('test webhook action fills sample values and checks the success string', async () => {
    hook.answer = { status: 200, body: 'received' };
    const r = await d.call<{ success: boolean; status: number; body: string }>('POST', '/api/ddns/webhooktest', {
      webhook: { enable: true, url: `${hook.url}/t?d=#{successDomains}`, method: 'GET', successCheck: { enable: true, text: 'received' } },
    });
    expect(r).toMatchObject({ ret: 0, success: true, status: 200, body: 'received' });
    expect(hook.calls[hook.calls.length - 1]!.url).toBe('/t?d=example.com%2Cwww.example.com');
    hook.answer = { status: 200, body: 'nope' };
    const bad = await d.call<{ success: boolean; msg: string }>('POST', '/api/ddns/webhooktest', {
      webhook: { enable: true, url: `${hook.url}/t`, method: 'POST', body: 'x=#{ipAddr}', successCheck: { enable: true, text: 'received' } },
    });
    expect(bad).toMatchObject({ ret: 0, success: false, msg: '回答中没有“received”' });
    expect(hook.calls[hook.calls.length - 1]!.body).toBe('x=192.0.2.1,2001:db8::1');
  });

  it('IP source test action: URL list with fallback and regex, command, timeout, interface, odhcpd', async () => {
    const url = await d.call<{ ip: string; detail: string }>('POST', '/api/ddns/iptest', {
      family: 'ipv4',
      source: { type: 'url', urls: ['http://127.0.0.1:1/nothing', `${ip.url}/json`], regex: '"query":"([^"]+)"' },
      httpTimeout: 3,
    });
    expect(url).toMatchObject({ ret: 0, ip: '203.0.113.99', detail: `${ip.url}/json` });
    const v6 = await d.call<{ ip: string }>('POST', '/api/ddns/iptest', { family: 'ipv6', source: { type: 'url', urls: [`${ip.url}/v6`] } });
    expect(v6.ip).toBe('2001:db8::9');
    const cmd = await d.call<{ ip: string }>('POST', '/api/ddns/iptest', { family: 'ipv4', source: { type: 'command', command: 'echo "wan 198.51.100.23/24"' } });
    expect(cmd.ip).toBe('198.51.100.23');
    const t0 = Date.now();
    const slow = await d.call('POST', '/api/ddns/iptest', { family: 'ipv4', source: { type: 'command', command: 'sleep 20', commandTimeout: 1 } }, en);
    expect(slow).toMatchObject({ ret: 6, msg: 'command timed out after 1s' });
    expect(Date.now() - t0).toBeLessThan(10_000);
    const lo = await d.call<{ ip: string }>('POST', '/api/ddns/iptest', { family: 'ipv4', source: { type: 'interface', interface: 'lo', rule: '@1' } });
    expect(lo).toMatchObject({ ip: '127.0.0.1', detail: '网卡 lo' });
    const none = await d.call('POST', '/api/ddns/iptest', { family: 'ipv4', source: { type: 'interface', interface: 'no-such-if0' } });
    expect(none).toMatchObject({ ret: 6, msg: '网卡 no-such-if0 不存在' });
    const unreachable = await d.call('POST', '/api/ddns/iptest', { family: 'ipv4', source: { type: 'url', urls: ['http://127.0.0.1:1/'] }, httpTimeout: 3 });
    expect(unreachable.ret).toBe(6);
    expect(unreachable.msg).toMatch(/^所有网址都没有返回 IPv4 地址（http:\/\/127\.0\.0\.1:1\/：请求失败：.*ECONNREFUSED/);
    const file = join(dir, 'odhcpd');
    writeFileSync(
      file,
      '# br-lan 000100012a3b4c5d6e7f 1a2b3c4d nas 1763780000 5 128 2001:db8:100::5/128 fd00::5/128\n' +
        '2001:db8:100::5 nas.lan nas\n# br-lan 00010001aabbccddeeff 0a0b0c0d tv 1763780000 6 128 2001:db8:100::6/128\n',
    );
    const byName = await d.call<{ ip: string }>('POST', '/api/ddns/iptest', { family: 'ipv6', source: { type: 'odhcpd', odhcpdFile: file, odhcpdHost: 'nas' } });
    expect(byName.ip).toBe('2001:db8:100::5');
    const byDuid = await d.call<{ ip: string }>('POST', '/api/ddns/iptest', { family: 'ipv6', source: { type: 'odhcpd', odhcpdFile: file, odhcpdHost: '00010001AABBCCDDEEFF' } });
    expect(byDuid.ip).toBe('2001:db8:100::6');
  });

  it('rejects bad tasks with a clear message and saves nothing', async () => {
    // Saved disabled, with a local IP source: nothing here may reach a real provider or IP service.
    const good = {
      name: 'x',
      enable: false,
      provider: 'alidns',
      credentials: { id: 'id', secret: 'secret' },
      domains: ['www.example.com'],
      ipv4: { urls: [`${ip.url}/`] },
    };
    expect((await d.call('POST', '/api/ddns/rules', good)).ret).toBe(0);
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list.length;
    const bad: Array<[unknown, RegExp]> = [
      [{ ...good, name: '' }, /name.*cannot be empty/],
      [{ ...good, provider: undefined }, /provider/],
      [{ ...good, provider: 'nope' }, /provider/],
      [{ ...good, domains: [] }, /domains.*cannot be empty/],
      [{ ...good, domains: '  \n ' }, /domains.*cannot be empty/],
      [{ ...good, domains: ['bad domain'] }, /domains\[0\].*not a valid domain/],
      [{ ...good, credentials: { id: '', secret: 'x' } }, /credentials\.id.*cannot be empty/],
      [{ ...good, credentials: { id: 'x', secret: '' } }, /credentials\.secret.*cannot be empty/],
      [{ ...good, provider: 'cloudflare', credentials: {} }, /credentials\.secret.*cannot be empty/],
      [{ ...good, provider: 'rfc2136', credentials: { id: 'k', secret: 'c2VjcmV0' } }, /credentials\.server.*cannot be empty/],
      [{ ...good, provider: 'rfc2136', credentials: { id: 'k', secret: 'c2VjcmV0', server: '300.1.1.1:53:1' } }, /credentials\.server/],
      [{ ...good, provider: 'rfc2136', credentials: { id: 'k', secret: 'not base64!', server: '127.0.0.1' } }, /base64/],
      [{ ...good, provider: 'azure', credentials: { id: 'app', secret: 's', id3: 'sub' } }, /credentials\.id2.*cannot be empty/],
      [{ ...good, provider: 'ovh', credentials: { server: 'ovh-mars', id: 'ak', secret: 'as', secret2: 'ck' } }, /credentials\.server.*not one of the choices/],
      [{ ...good, provider: 'ovh', credentials: { server: 'ovh-eu', id: 'ak', secret: 'as' } }, /credentials\.secret2.*cannot be empty/],
      [{ ...good, provider: 'dyndns2', credentials: { server: 'members.dyndns.org/nic/update', id: 'u', secret: 'p' } }, /credentials\.server/],
      [{ ...good, provider: 'he', credentials: {}, recordType: 'both' }, /credentials\.secret.*cannot be empty/],
      [{ ...good, forceSync: 59 }, /forced sync must be between 60 and 3600/],
      [{ ...good, forceSync: 3601 }, /forced sync must be between 60 and 3600/],
      [{ ...good, httpTimeout: 2 }, /HTTP client timeout must be between 3 and 60/],
      [{ ...good, httpTimeout: 61 }, /HTTP client timeout must be between 3 and 60/],
      [{ ...good, ttl: -1 }, /ttl/],
      [{ ...good, ipv4: { type: 'interface' } }, /ipv4\.interface.*cannot be empty/],
      [{ ...good, ipv4: { type: 'command' } }, /ipv4\.command.*cannot be empty/],
      [{ ...good, ipv4: { type: 'url', urls: ['ftp://x'] } }, /ipv4\.urls\[0\].*http/],
      [{ ...good, ipv4: { regex: '([a-' } }, /ipv4\.regex.*not a valid regular expression/],
      [{ ...good, ipv4: { type: 'interface', interface: 'eth0', rule: '(' } }, /ipv4\.rule.*not a valid regular expression/],
      [{ ...good, ipv4: { type: 'odhcpd', odhcpdHost: 'nas' } }, /odhcpd file source is for IPv6 only/],
      [{ ...good, recordType: 'AAAA', ipv6: { type: 'odhcpd' } }, /ipv6\.odhcpdHost.*cannot be empty/],
      [{ ...good, provider: 'namecheap', credentials: { secret: 'x' }, recordType: 'AAAA' }, /does not support IPv6/],
      [{ ...good, resolverCheck: { enable: true, servers: [] } }, /resolverCheck\.servers.*cannot be empty/],
      [{ ...good, resolverCheck: { enable: true, servers: ['1.2.3.400'] } }, /resolverCheck\.servers\[0\].*not a valid IP/],
      [{ ...good, proxy: { type: 'socks5', address: '' } }, /proxy\.address.*cannot be empty/],
      [{ ...good, proxy: { type: 'http', address: 'nohostport:99999' } }, /proxy\.address/],
      [{ ...good, webhook: { enable: true, url: '' } }, /webhook\.url.*cannot be empty/],
      [{ ...good, webhook: { enable: true, url: 'http://127.0.0.1/', method: 'DELETE' } }, /webhook\.method/],
      [{ ...good, webhook: { enable: true, url: 'http://127.0.0.1/', body: '{"a": #{ipAddr}' } }, /webhook\.body.*not valid JSON/],
      [{ ...good, webhook: { enable: true, url: 'http://127.0.0.1/', successCheck: { enable: true, text: '' } } }, /webhook\.successCheck\.text.*cannot be empty/],
      [{ ...good, webhook: { enable: true, url: 'http://127.0.0.1/', proxy: { type: 'http' } } }, /webhook\.proxy\.address.*cannot be empty/],
      [{ ...good, provider: 'callback', credentials: {} }, /callback\.url.*cannot be empty/],
      [{ ...good, provider: 'callback', callback: { url: 'http://127.0.0.1/', method: '' } }, /callback\.method/],
      [{ ...good, provider: 'callback', callback: { url: 'http://127.0.0.1/', successCheck: { enable: true, text: '' } } }, /callback\.successCheck\.text.*cannot be empty/],
      [{ ...good, provider: 'callback', callback: { url: 'http://127.0.0.1/', headers: ['no colon'] } }, /callback\.headers\[0\]/],
    ];
    for (const [body, msg] of bad) {
      const r = await d.call('POST', '/api/ddns/rules', body, { headers: { 'lucky-lang': 'en_US' } });
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg, JSON.stringify(body)).toMatch(msg);
    }
    // Invalid JSON.
    const bj = await d.call('POST', '/api/ddns/rules', '{"name": "x",', { headers: { 'lucky-lang': 'en_US' } });
    expect(bj).toMatchObject({ ret: 1, msg: 'The request body is not valid JSON' });
    // Chinese by default.
    const zh = await d.call('POST', '/api/ddns/rules', { ...good, forceSync: 59 });
    expect(zh.msg).toContain('强制同步间隔必须在 60-3600 秒之间');
    expect((await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list).toHaveLength(before);

    // Module settings: bounds off by one.
    for (const [body, msg] of [
      [{ interval: 29 }, /detection interval must be between 30 and 3600/],
      [{ interval: 3601 }, /detection interval must be between 30 and 3600/],
      [{ firstDelay: -1 }, /first-check delay must be between 0 and 3600/],
      [{ firstDelay: 3601 }, /first-check delay must be between 0 and 3600/],
      [{ webhook: { enable: true, url: '' } }, /webhook\.url.*cannot be empty/],
    ] as Array<[unknown, RegExp]>) {
      const r = await d.call('PUT', '/api/ddns/configure', body, { headers: { 'lucky-lang': 'en_US' } });
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg).toMatch(msg);
    }
    expect((await d.call<{ configure: { interval: number } }>('GET', '/api/ddns/configure')).configure.interval).toBe(300);
    expect((await d.call('PUT', '/api/ddns/configure', { interval: 30, firstDelay: 0 })).ret).toBe(0);
    expect((await d.call('PUT', '/api/ddns/configure', { interval: 3600, firstDelay: 3600 })).ret).toBe(0);
    // The global webhook's proxy password is masked like a task's secret, and a mask keeps it.
    const hook = { enable: true, url: 'http://127.0.0.1:9/hook', proxy: { type: 'http', address: '127.0.0.1:3128', user: 'u', password: 'proxy-pass-1' } };
    expect((await d.call('PUT', '/api/ddns/configure', { webhook: hook })).ret).toBe(0);
    const shown = await d.call<{ configure: { webhook: { proxy: { password: string } } } }>('GET', '/api/ddns/configure');
    expect(shown.configure.webhook.proxy.password).toBe('******');
    expect(JSON.stringify(shown)).not.toContain('proxy-pass-1');
    expect((await d.call('PUT', '/api/ddns/configure', shown.configure)).ret).toBe(0);
    const stored = d.runtime.db.prepare("SELECT data FROM module_settings WHERE module = 'ddns'").get() as { data: string };
    expect(JSON.parse(stored.data).webhook.proxy.password).toBe('proxy-pass-1');
    expect((await d.call('PUT', '/api/ddns/configure', {})).ret).toBe(0); // back to the defaults
  });

  it('credentials are masked in GET answers; saving the mask keeps them, a new value replaces them', async () => {
    const task = {
      name: 'mask',
      enable: false,
      provider: 'dnspod',
      credentials: { id: 'AKIDvisible', secret: 'very-secret-key' },
      domains: ['www.example.com'],
      proxy: { type: 'socks5', address: '127.0.0.1:1080', user: 'u', password: 'proxy-pass' },
    };
    const { key } = await d.call<{ key: string }>('POST', '/api/ddns/rules', task);
    const got = await d.call<{ rule: { credentials: { id: string; secret: string }; proxy: { password: string } } }>('GET', `/api/ddns/rules/${key}`);
    expect(got.rule.credentials).toMatchObject({ id: 'AKIDvisible', secret: SECRET_MASK });
    expect(got.rule.proxy.password).toBe(SECRET_MASK);
    expect(JSON.stringify(got)).not.toMatch(/very-secret-key|proxy-pass/);
    // Save back exactly what GET returned.
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, { ...task, credentials: got.rule.credentials, proxy: { ...task.proxy, password: SECRET_MASK } })).ret).toBe(0);
    const raw = d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'ddns' AND key = ?").get(key)!;
    expect(JSON.parse(raw.data)).toMatchObject({ credentials: { secret: 'very-secret-key' }, proxy: { password: 'proxy-pass' } });
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, { ...task, credentials: { id: 'AKIDvisible', secret: 'new-secret' } })).ret).toBe(0);
    const raw2 = d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'ddns' AND key = ?").get(key)!;
    expect(JSON.parse(raw2.data).credentials.secret).toBe('new-secret');
    // A mask with nothing stored behind it is an empty secret.
    const masked = await d.call('POST', '/api/ddns/rules', { ...task, credentials: { id: 'AKIDvisible', secret: SECRET_MASK } }, { headers: { 'lucky-lang': 'en_US' } });
    expect(masked).toMatchObject({ ret: 1, msg: 'Invalid credentials.secret: cannot be empty' });
    // A disabled task: "sync stopped", and manual sync refuses.
    const view = await d.call<{ rule: { sync: DdnsSyncState; status: { state: string } } }>('GET', `/api/ddns/rules/${key}`);
    expect(view.rule.sync.status).toBe('syncStopped');
    expect(view.rule.status.state).toBe('disabled');
    expect((await d.call('POST', `/api/ddns/rules/${key}/sync`)).ret).toBe(6);
    // The program log never saw the secrets.
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', '/api/logs?pre=0');
    expect(JSON.stringify(logs)).not.toMatch(/very-secret-key|new-secret|proxy-pass/);
  });

  it("a provider's second secret (OVH's consumer key) is masked and kept like the first", async () => {
    const task = {
      name: 'ovh mask',
      enable: false,
      provider: 'ovh',
      credentials: { server: 'ovh-ca', id: 'ovh-app-key', secret: 'ovh-app-secret', secret2: 'ovh-consumer-key' },
      domains: ['www.example.com'],
    };
    const { key } = await d.call<{ key: string }>('POST', '/api/ddns/rules', task);
    const got = await d.call<{ rule: { credentials: Record<string, string> } }>('GET', `/api/ddns/rules/${key}`);
    expect(got.rule.credentials).toMatchObject({ server: 'ovh-ca', id: 'ovh-app-key', secret: SECRET_MASK, secret2: SECRET_MASK });
    expect(JSON.stringify(got)).not.toMatch(/ovh-app-secret|ovh-consumer-key/);
    expect((await d.call('PUT', `/api/ddns/rules/${key}`, { ...task, credentials: got.rule.credentials })).ret).toBe(0);
    const raw = d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'ddns' AND key = ?").get(key)!;
    expect(JSON.parse(raw.data).credentials).toMatchObject({ secret: 'ovh-app-secret', secret2: 'ovh-consumer-key' });
    expect((await d.call('DELETE', `/api/ddns/rules/${key}`)).ret).toBe(0);
  });

  it('lists providers with their fields and presets; sync of an unknown task is "not found"', async () => {
    const p = await d.call<{ providers: DdnsProviderListing[]; webhookPresets: Record<string, unknown> }>('GET', '/api/ddns/providers');
    expect(p.providers.map((x) => x.name)).toEqual(DDNS_PROVIDERS);
    // The descriptions, with their texts in the caller's language.
    expect(p.providers.find((x) => x.name === 'alidns')).toMatchObject({
      label: '阿里云 DNS',
      region: 'cn',
      regionLabel: '中国大陆服务商',
      fields: [
        { key: 'id', label: 'AccessKey ID', secret: false, optional: false },
        { key: 'secret', label: 'AccessKey Secret', secret: true, optional: false },
      ],
      records: ['A', 'AAAA', 'TXT'],
      id: 'AccessKey ID',
      secret: 'AccessKey Secret',
    });
    const en = await d.call<{ providers: DdnsProviderListing[] }>('GET', '/api/ddns/providers', undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(en.providers.find((x) => x.name === 'rfc2136')).toMatchObject({ regionLabel: 'Protocols', server: 'DNS server (host:port)', fields: expect.arrayContaining([{ key: 'algorithm', label: 'TSIG algorithm', secret: false, optional: false, options: ['hmac-sha256', 'hmac-sha512', 'hmac-sha1'] }]) });
    expect(Object.keys(p.webhookPresets)).toEqual(expect.arrayContaining(['bark', 'serverchan', 'dingtalk', 'feishu', 'wecom', 'telegram']));
    expect((await d.call('POST', '/api/ddns/rules/nosuchkey/sync')).ret).toBe(3);
  });
  it('module switch: off answers "module disabled" and stops syncing; on resumes the tasks', async () => {
    cb.answer = { status: 200, body: 'all good' };
    const { key } = await d.call<{ key: string }>('POST', '/api/ddns/rules', {
      name: 'switch',
      provider: 'callback',
      domains: ['sw.example.net'],
      ipv4: { urls: [`${ip.url}/`] },
      callback: { url: `${cb.url}/sw?ip=#{ip}` },
    });
    await waitFor('first run', () => cb.calls.some((c) => c.url.startsWith('/sw?')));
    // "Run now" of the actions service (scheduled tasks) is a forced sync: the provider is called again.
    const actions = await d.runtime.deps.modules.service('actions');
    const runs = cb.calls.filter((c) => c.url.startsWith('/sw?')).length;
    expect((await actions.rules('ddns')).find((r) => r.key === key)).toMatchObject({ canRun: true });
    expect(await actions.run('ddns', key)).toEqual({ key: 'ddnsSyncDone' });
    expect(cb.calls.filter((c) => c.url.startsWith('/sw?')).length).toBe(runs + 1);
    const cfg = await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure');
    const others = cfg.baseconfigure.EnabledModules.filter((m) => m !== 'ddns');
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: others })).ret).toBe(0);
    expect(await d.call('GET', '/api/ddns/rules', undefined, { headers: { 'lucky-lang': 'en_US' } })).toMatchObject({ ret: 4, msg: 'Module ddns is disabled' });
    const before = cb.calls.filter((c) => c.url.startsWith('/sw?')).length;
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: [...others, 'ddns'] })).ret).toBe(0);
    // Back on: the task runs again at once (a new start of the engine).
    await waitFor('resumed', () => cb.calls.filter((c) => c.url.startsWith('/sw?')).length > before);
    const r = await d.call<{ rule: { sync: DdnsSyncState } }>('GET', `/api/ddns/rules/${key}`);
    expect(r.ret).toBe(0);
    expect((await d.call('DELETE', `/api/ddns/rules/${key}`)).ret).toBe(0);
  });
});
