/**
 * Publishing a LAN service on loopback, with real peers: BIND 9 holds the zone (the template DDNS
 * task writes it by RFC 2136 with TSIG), Debian's pebble issues the certificate (HTTP-01 answered by
 * the web rule's companion), a real HTTP backend is the target. The router is left out here (the
 * user forwards by hand): the NAT lab test does the router. Bad input and a failure half way through
 * leave nothing behind; deleting the service deletes exactly its parts.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { waitFor } from '../../lib/dns/testing/fakes.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startPebble, type Pebble } from '../../test/pebble.js';
import { tlsGet } from '../../test/tlsget.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

interface Check {
  id: string;
  state: string;
  message: string;
  hint: string;
}
interface View {
  key: string;
  status: { state: string; message: string };
  url: string;
  publicAddress: string;
  parts: { ddns: string | null; web: string | null; certificate: string | null };
  checks: Check[];
}

describe('publish on loopback (BIND, pebble, a real backend)', () => {
  let bind: Bind;
  let pebble: Pebble;
  let d: TestDaemon;
  let backend: Server;
  let backendPort: number;
  let httpPort: number;
  let httpsPort: number;
  let template: string;
  let root: string;

  const list = async <T>(m: string) => (await d.call<{ list: T[] }>('GET', `/api/${m}/rules`, undefined, EN)).list;
  const view = async (key: string) => (await d.call<{ rule: View }>('GET', `/api/publish/rules/${key}`, undefined, EN)).rule;
  const service = (over: Record<string, unknown> = {}) => ({
    name: 'home assistant',
    target: `http://127.0.0.1:${backendPort}`,
    names: ['ha.example.test'],
    dnsTask: template,
    httpsPort,
    httpPort,
    mapRouter: false,
    ...over,
  });

  beforeAll(async () => {
    bind = await startBind('example.test');
    backendPort = await freePort();
    backend = createServer((req, res) => res.end(`backend saw ${req.headers.host} ${req.url}\n`));
    await new Promise<void>((r) => backend.listen(backendPort, '127.0.0.1', r));
    httpPort = await freePort();
    httpsPort = await freePort();
    pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}` });
    root = await pebble.root();
    d = await startTestDaemon();
    expect((await d.call('PUT', '/api/acme/configure', { auto: { ca: 'custom', directoryUrl: pebble.directory, caRoot: pebble.tlsCa } }, EN)).ret).toBe(0);
    expect((await d.call('PUT', '/api/publish/configure', { checkInterval: 5 }, EN)).ret).toBe(0);
    // The user's own task for the zone: its provider account is what a published service uses.
    const t = await d.call<{ key: string }>('POST', '/api/ddns/rules', {
      name: 'zone example.test',
      provider: 'rfc2136',
      recordType: 'A',
      credentials: { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` },
      domains: ['home.example.test'],
      ipv4: { type: 'command', command: 'echo 127.0.0.1' },
      ttl: 60,
    }, EN);
    expect(t.ret, t.msg).toBe(0);
    template = t.key;
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await pebble?.stop();
    await bind?.stop();
    await new Promise((r) => backend?.close(r));
  });

  it('refuses bad input with a clear error and makes nothing', async () => {
    const before = { ddns: (await list('ddns')).length, web: (await list('web')).length };
    const notUrl = await d.call('POST', '/api/publish/rules', service({ target: 'ha.lan:8123' }), EN);
    expect(notUrl.ret).toBe(1);
    const samePorts = await d.call('POST', '/api/publish/rules', service({ publicHttpPort: 443 }), EN);
    expect(samePorts).toMatchObject({ ret: 1, msg: 'the HTTP redirect port cannot be the HTTPS port 443' });
    const outside = await d.call('POST', '/api/publish/rules', service({ names: ['ha.other.test'] }), EN);
    expect(outside).toMatchObject({ ret: 6, msg: 'could not create the DDNS task: ha.other.test is not in the zone example.test of DDNS task zone example.test' });
    // The HTTPS port is another rule's: the DDNS task made first is undone.
    const taken = await d.call<{ key: string }>('POST', '/api/web/rules', { name: 'someone else', protocol: 'http', address: '127.0.0.1', port: httpsPort }, EN);
    expect(taken.ret).toBe(0);
    const busy = await d.call('POST', '/api/publish/rules', service(), EN);
    expect(busy.ret).toBe(6);
    expect(busy.msg).toMatch(/^could not create the web rule: Not saved: tcp 0\.0\.0\.0:\d+ is taken by the web services rule "someone else"/);
    expect((await d.call('DELETE', `/api/web/rules/${taken.key}`)).ret).toBe(0);
    // STUN mode's certificate comes by DNS-01: a provider that writes no TXT records cannot carry it.
    const callback = await d.call<{ key: string }>('POST', '/api/ddns/rules', {
      name: 'callback zone',
      provider: 'callback',
      recordType: 'A',
      domains: ['ha.example.test'],
      ipv4: { type: 'command', command: 'echo 127.0.0.1' },
      callback: { url: 'http://127.0.0.1:9/update?ip=#{ip}', method: 'GET' },
    }, EN);
    expect(callback.ret, callback.msg).toBe(0);
    const noTxt = await d.call('POST', '/api/publish/rules', service({ reach: 'stun', dnsTask: callback.key }), EN);
    expect(noTxt).toMatchObject({ ret: 6, msg: 'could not create the DDNS task: in STUN mode the certificate comes by DNS-01, which needs a DNS provider that writes TXT records: callback does not' });
    expect((await d.call('DELETE', `/api/ddns/rules/${callback.key}`)).ret).toBe(0);
    expect(await list('publish')).toEqual([]);
    expect(await list('stun')).toEqual([]);
    expect((await list('ddns')).length).toBe(before.ddns);
    expect((await list('web')).length).toBe(before.web);
  });

  let key: string;

  it('one step: the task, the web rule and its certificate are made, marked, and every check turns green', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/publish/rules', service(), EN);
    expect(created.ret, created.msg).toBe(0);
    key = created.key;
    const owner = { module: 'publish', key, name: 'home assistant' };
    const tasks = await list<{ key: string; owner: unknown; domains: string[] }>('ddns');
    expect(tasks.find((t) => t.key !== template)).toMatchObject({ owner, domains: ['ha.example.test'] });
    const webs = await list<{ key: string; owner: unknown; port: number }>('web');
    expect(webs).toEqual([expect.objectContaining({ owner, port: httpsPort })]);

    const green = await waitFor('every check green', async () => {
      const v = await view(key);
      return v.checks.length === 5 && v.checks.every((c) => c.state === 'ok') ? v : undefined;
    }, 45_000);
    expect(green.url).toBe('https://ha.example.test/');
    expect(green.publicAddress).toBe('127.0.0.1');
    expect(green.status.state).toBe('running');
    const by = Object.fromEntries(green.checks.map((c) => [c.id, c.message]));
    expect(by.dns).toBe(`ha.example.test resolve to 127.0.0.1 at the authoritative servers 127.0.0.1:${bind.port}`);
    expect(by.certificate).toMatch(/^the certificate is valid for every name until \d{4}-\d\d-\d\d \(\d+ days left\)$/);
    expect(by.target).toBe(`the target http://127.0.0.1:${backendPort} answers (200)`);
    expect(by.router).toMatch(/^forwarded by hand on the router \(TCP 443 → \d+, TCP 80 → \d+ → /);

    // "Check now" answers once every link was looked at.
    expect(await d.call('POST', `/api/publish/rules/${key}/check`, undefined, EN)).toMatchObject({ ret: 0, msg: 'every link was looked at again' });
    // The service itself, over HTTPS with pebble's certificate.
    const got = await tlsGet(httpsPort, 'ha.example.test', root, '/hello');
    expect(got.authorized).toBe(true);
    expect(got.answer).toMatch(/backend saw ha\.example\.test \/hello\n$/);
  }, 60_000);

  it('a target that stops answering turns its light red, with what to do', async () => {
    const down = await freePort();
    expect((await d.call('PUT', `/api/publish/rules/${key}`, service({ target: `http://127.0.0.1:${down}` }), EN)).ret).toBe(0);
    const v = await waitFor('the target check red', async () => {
      const now = await view(key);
      return now.checks.find((c) => c.id === 'target' && c.state === 'failed') ? now : undefined;
    }, 20_000);
    const target = v.checks.find((c) => c.id === 'target')!;
    expect(target.message).toBe(`the target http://127.0.0.1:${down} does not answer: ECONNREFUSED`);
    expect(target.hint).toBe(`check that http://127.0.0.1:${down} is up and that this device reaches it`);
    expect(v.status.state).toBe('error');
    expect((await d.call('PUT', `/api/publish/rules/${key}`, service(), EN)).ret).toBe(0);
  }, 30_000);

  it('switched off, its web rule goes off with it and the names are no longer served; on again, both run', async () => {
    const webOf = async () => (await list<{ key: string; enable: boolean; status: { state: string } }>('web'))[0]!;
    expect((await webOf()).status.state).toBe('running');
    expect((await d.call('PUT', `/api/publish/rules/${key}/enable`, { enable: false }, EN)).ret).toBe(0);
    await waitFor('the web rule off', async () => ((await webOf()).enable === false ? true : undefined));
    expect((await webOf()).status.state).toBe('disabled');
    // Stored off at once; its listener closes as the rule stops.
    const knock = () =>
      new Promise<string>((resolve) => {
        const sock = connect(httpsPort, '127.0.0.1', () => (sock.destroy(), resolve('open')));
        sock.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
    await waitFor('the HTTPS port closed', async () => ((await knock()) === 'ECONNREFUSED' ? true : undefined), 10_000);
    expect((await d.call('PUT', `/api/publish/rules/${key}/enable`, { enable: true }, EN)).ret).toBe(0);
    await waitFor('the web rule on and running', async () => {
      const w = await webOf();
      return w.enable && w.status.state === 'running' ? true : undefined;
    }, 20_000);
    await waitFor('the service green again', async () => ((await view(key)).checks.every((c) => c.state === 'ok') ? true : undefined), 30_000);
  }, 60_000);

  it('deleting the service deletes its parts and nothing else', async () => {
    expect((await d.call('DELETE', `/api/publish/rules/${key}`)).ret).toBe(0);
    await waitFor('its parts gone', async () => ((await list('web')).length === 0 && (await list('ddns')).length === 1 && (await list('acme')).length === 0 ? true : undefined));
    expect((await list<{ key: string }>('ddns'))[0]!.key).toBe(template);
  });
});
