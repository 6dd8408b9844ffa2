/**
 * DNS-01 through an HTTP provider and the propagation check, against pebble and real BIND 9s on
 * 127.0.0.1. The Cloudflare stand-in keeps the records; every change it makes is mirrored into the
 * test's BIND by an RFC 2136 update before it answers, so BIND serves what "Cloudflare" holds, as
 * the real one's name servers would: pebble validates through it, and the daemon finds the zone's
 * name servers with a resolver pointed at it (the one thing tests inject). A second BIND with the
 * same zone never gets the record: a server the record does not reach.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Msg } from '@lucky/contracts';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { fakeCloudflare, type FakeProvider } from '../../lib/dns/testing/fakes.js';
import { buildUpdate, exchange, parseMessage, queryTexts, signTsig, TYPE } from '../../lib/dns/wire.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { awaitPropagation } from './acme.propagation.js';
import { startPebble, type Pebble } from '../../test/pebble.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const CF = { id: '', secret: 'cf-acme-token' };

describe('DNS-01 through Cloudflare and the propagation check', () => {
  let bind: Bind;
  let lagging: Bind;
  let cf: FakeProvider;
  let pebble: Pebble;
  let d: TestDaemon;
  let task: string;

  const server = () => ({ host: '127.0.0.1', port: bind.port });
  const logs = async (key: string) => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/acme/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log.replace(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /, ''));
  const rule = (name: string, domains: string[], over: Record<string, unknown> = {}) => ({
    name,
    source: 'acme',
    ca: 'custom',
    directoryUrl: pebble.directory,
    caRoot: pebble.tlsCa,
    challenge: 'dns-01',
    dnsTask: task,
    domains,
    ...over,
  });
  const order = async (body: object) => {
    const created = await d.call<{ key: string }>('POST', '/api/acme/rules', body, EN);
    expect(created.ret, created.msg).toBe(0);
    const renewed = await d.call<{ msg: string }>('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
    return { key: created.key, renewed };
  };

  beforeAll(async () => {
    bind = await startBind('example.test');
    lagging = await startBind('example.test');
    cf = await fakeCloudflare(CF, 'example.test');
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    cf.onChange = async (name, type) => {
      if (type !== 'TXT') return;
      const texts = cf.all(name, type).map((r) => r.value);
      // Replaces the name's TXT set with what the fake holds (none: deleted).
      const msg = buildUpdate({ zone: 'example.test', name, type: TYPE.TXT, ttl: 60, ips: [], texts });
      expect(parseMessage(await exchange(server(), signTsig(msg, key).signed, 4000)).rcode).toBe(0);
    };
    pebble = await startPebble({ httpPort: await freePort(), dnsServer: `127.0.0.1:${bind.port}` });
    d = await startTestDaemon({
      env: { nativeRelay: true, ddnsTestEndpoints: { cloudflare: cf.url }, acmeTestLookup: { resolvers: [`127.0.0.1:${bind.port}`], port: bind.port } },
    });
    const created = await d.call<{ key: string }>('POST', '/api/ddns/rules', { name: 'cf', enable: false, provider: 'cloudflare', credentials: CF, domains: ['www.example.test'] });
    expect(created.ret, created.msg).toBe(0);
    task = created.key;
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await pebble?.stop();
    await cf?.close();
    await lagging?.stop();
    await bind?.stop();
  });

  it('a name and its wildcard: the zone\'s name servers are found, answer each value before the CA looks, and the records go after', async () => {
    const { key, renewed } = await order(rule('cf-wild', ['cf.example.test', '*.cf.example.test']));
    expect(renewed.ret, renewed.msg).toBe(0);
    expect(renewed.msg).toMatch(/^certificate issued/);
    const lines = await logs(key);
    const all = lines.join('\n');
    expect(lines.filter((l) => l === 'DNS-01: the authoritative servers of example.test: ns.example.test')).toHaveLength(2);
    expect(lines.filter((l) => l === 'DNS-01: waiting for the TXT record _acme-challenge.cf.example.test at ns.example.test')).toHaveLength(2);
    expect(lines.filter((l) => /^DNS-01: the TXT record _acme-challenge\.cf\.example\.test is at ns\.example\.test \(after \d+ s\)$/.test(l))).toHaveLength(2);
    // Each time: written, seen by the name servers, then the CA asked.
    const first = (re: RegExp) => lines.findIndex((l) => re.test(l));
    expect(first(/TXT record _acme-challenge\.cf\.example\.test written/)).toBeLessThan(first(/is at ns\.example\.test/));
    expect(first(/is at ns\.example\.test/)).toBeLessThan(first(/dns-01 challenge ready/));
    expect(lines.filter((l) => l.includes('DNS-01: TXT record _acme-challenge.cf.example.test removed'))).toHaveLength(2);
    expect(all).not.toContain('not found');
    expect(cf.all('_acme-challenge.cf.example.test', 'TXT')).toEqual([]);
    expect(await queryTexts(server(), '_acme-challenge.cf.example.test', 4000, false)).toEqual([]);
    expect(cf.rejected, cf.lastReject).toBe(0);
  }, 60_000);

  it('a server the record never reaches: the order fails after the rule\'s timeout naming it, the CA is never asked, the record goes', async () => {
    const slow = `127.0.0.1:${lagging.port}`;
    const fast = `127.0.0.1:${bind.port}`;
    const started = Date.now();
    const { key, renewed } = await order(rule('cf-lag', ['lag.example.test'], { dnsServers: [fast, slow], dnsCheckTimeout: 5 }));
    expect(renewed.ret).toBe(6);
    expect(renewed.msg).toMatch(new RegExp(`^the certificate order failed: after [5-9] s the TXT record _acme-challenge\\.lag\\.example\\.test is still not at ${slow.replace(/\./g, '\\.')}$`));
    expect(Date.now() - started).toBeLessThan(20_000);
    const lines = await logs(key);
    expect(lines).toContain(`DNS-01: waiting for the TXT record _acme-challenge.lag.example.test at ${fast}, ${slow}`);
    expect(lines).toContain(`DNS-01: the TXT record _acme-challenge.lag.example.test is not at ${slow} yet`);
    expect(lines.some((l) => l.includes('challenge ready'))).toBe(false);
    expect(lines.some((l) => l.includes('TXT record _acme-challenge.lag.example.test removed'))).toBe(true);
    expect(cf.all('_acme-challenge.lag.example.test', 'TXT')).toEqual([]);
    const view = (await d.call<{ rule: { status: { state: string; message: string } } }>('GET', `/api/acme/rules/${key}`, undefined, EN)).rule;
    expect(view.status.state).toBe('error');
    expect(view.status.message).toContain(`is still not at ${slow}`);
    // Switched off, the check is skipped and the order goes through.
    const saved = await d.call('PUT', `/api/acme/rules/${key}`, rule('cf-lag', ['lag.example.test'], { dnsServers: [fast, slow], dnsCheck: false }), EN);
    expect(saved.ret, saved.msg).toBe(0);
    const again = await d.call<{ msg: string }>('POST', `/api/acme/rules/${key}/renew`, undefined, EN);
    expect(again.ret, again.msg).toBe(0);
  }, 60_000);

  it('servers that cannot be found are a line of the log, not a failure; a bad server line is refused at save', async () => {
    let silent: Socket | undefined;
    try {
      silent = createSocket('udp4');
      await new Promise<void>((r) => silent!.bind(0, '127.0.0.1', r));
      const notes: Msg[] = [];
      await awaitPropagation({
        rule: { dnsServers: [], dnsCheckTimeout: 5 },
        record: '_acme-challenge.x.example.test',
        value: 'v',
        lookup: { resolvers: [`127.0.0.1:${silent.address().port}`], timeoutMs: 300 },
        note: (l) => notes.push(l),
        stopped: () => false,
      });
      expect(notes).toEqual([{ key: 'acmeDnsCheckNoServers', vars: { record: '_acme-challenge.x.example.test', detail: { key: 'dnsLookupFailed', vars: { type: 'NS', name: '_acme-challenge.x.example.test', code: 'ETIMEOUT' } } } }]);
    } finally {
      silent?.close();
    }
    const bad = await d.call('POST', '/api/acme/rules', rule('bad-servers', ['x.example.test'], { dnsServers: ['127.0.0.1:53', 'not a server'] }), EN);
    expect(bad.ret).toBe(1);
    expect(bad.msg).toMatch(/is not a valid IP address/);
  }, 30_000);
});
