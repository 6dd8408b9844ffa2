/**
 * The STUN module inside a real NAT (src/test/natlab.ts): the daemon runs in the test's namespace,
 * which is the LAN; a router namespace masquerades it and runs miniupnpd; coturn and the outside
 * clients live in a WAN namespace. If namespaces cannot be made here, createNatLab throws and these
 * tests fail saying so.
 */
import { createSocket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StunRuleView } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { fakeIpServer, receiver, waitFor, type FakeIpServer, type Receiver } from '../../lib/dns/testing/fakes.js';
import { createNatLab, type NatLab } from '../../test/natlab.js';

const en = { headers: { 'lucky-lang': 'en_US' } };
const INTERVAL = 5;

/** A client in the WAN namespace: sends `ping` to addr over UDP or TCP and prints the answer. */
const CLIENT = `
const [proto, host, port] = process.argv.slice(1);
const done = (s) => { process.stdout.write(s); process.exit(0); };
setTimeout(() => { process.stderr.write('no answer'); process.exit(1); }, 4000);
if (proto === 'udp') {
  const s = require('node:dgram').createSocket('udp4');
  s.on('message', (m) => done(m.toString()));
  const send = () => s.send('ping', Number(port), host);
  send(); setInterval(send, 500);
} else {
  const c = require('node:net').connect(Number(port), host, () => c.write('ping'));
  c.on('data', (d) => done(d.toString()));
  c.on('error', (e) => { process.stderr.write(String(e)); process.exit(1); });
}`;

describe('stun rules inside a real NAT', () => {
  let lab: NatLab;
  let stun: { server: string; stop(): Promise<void> };
  let d: TestDaemon;
  let hook: Receiver;
  let cb: Receiver;
  let ipSource: FakeIpServer;
  let httpKeepalive: ChildProcess;
  let echoTcp: Server;
  let echoUdp: ReturnType<typeof createSocket>;

  beforeAll(async () => {
    lab = await createNatLab('stn');
    stun = await lab.startStun();
    const kaHost = lab.wan.addrs[2]!;
    httpKeepalive = lab.wan.spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(8080, '${kaHost}')`]);
    hook = await receiver();
    cb = await receiver();
    ipSource = await fakeIpServer('192.0.2.55', '2001:db8::55');
    echoTcp = createServer((s) => s.on('data', (b) => s.write(`echo:${b}`)));
    await new Promise<void>((r) => echoTcp.listen(0, '127.0.0.1', r));
    echoUdp = createSocket('udp4');
    echoUdp.on('message', (m, r) => echoUdp.send(`echo:${m}`, r.port, r.address));
    await new Promise<void>((r) => echoUdp.bind(0, '127.0.0.1', r));
    d = await startTestDaemon();
    const cfg = await d.call('PUT', '/api/stun/configure', { stunServers: [stun.server], keepaliveInterval: INTERVAL, keepaliveUrl: `http://${kaHost}:8080/`, logLines: 64 });
    expect(cfg.ret).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    httpKeepalive?.kill('SIGKILL');
    await stun?.stop();
    await lab?.remove();
    await hook?.close();
    await cb?.close();
    await ipSource?.close();
    echoTcp?.close();
    echoUdp?.close();
  }, 60_000);

  const rule = async (key: string) => (await d.call<{ list: StunRuleView[] }>('GET', '/api/stun/rules', undefined, en)).list.find((r) => r.key === key)!;
  const logsOf = async (key: string) => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/stun/rules/${key}/logs`, undefined, en)).logs.map((l) => l.log).join('\n');
  const fromWan = (proto: 'udp' | 'tcp', addr: string) => {
    const i = addr.lastIndexOf(':');
    return lab.wan.exec(process.execPath, ['-e', CLIENT, proto, addr.slice(0, i), addr.slice(i + 1)], 8000);
  };
  const mapped = async (key: string, kind: 'upnp' | 'natpmp') =>
    waitFor(`${kind} mapping of ${key}`, async () => {
      const v = await rule(key);
      const m = v.stun.mappings.find((x) => x.kind === kind);
      return m?.state === 'ok' && v.stun.publicAddr ? v : undefined;
    });

  it('UDP with UPnP: learns the router WAN address, a WAN client reaches the LAN service, the mapping goes with the rule', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'game',
      protocol: 'udp',
      listenHost: lab.lanAddr,
      localPort: 0,
      mode: 'forward',
      targetHost: '127.0.0.1',
      targetPort: echoUdp.address().port,
      upnp: { enable: true, gatewayUrl: lab.upnpUrl, lease: 3600 },
    });
    expect(created.ret).toBe(0);
    const v = await mapped(created.key, 'upnp');
    const [ip, port] = v.stun.publicAddr!.split(':');
    expect(ip).toBe(lab.routerWanAddr());
    expect(v.stun.mappings[0]).toMatchObject({ kind: 'upnp', state: 'ok', externalPort: Number(port) });
    expect(await lab.upnpList()).toMatch(new RegExp(`UDP\\s+${port}->${lab.lanAddr.replace(/\./g, '\\.')}:${v.stun.localPort}`));

    expect(await fromWan('udp', v.stun.publicAddr!)).toBe('echo:ping');

    await d.call('PUT', `/api/stun/rules/${created.key}/enable`, { enable: false });
    expect(await lab.upnpList()).not.toMatch(new RegExp(`UDP\\s+${port}->`));
    await d.call('DELETE', `/api/stun/rules/${created.key}`);
  }, 60_000);

  it('TCP with NAT-PMP: the keepalive connection holds the mapping, a WAN client reaches the LAN service, the mapping goes with the rule', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'nas',
      protocol: 'tcp',
      listenHost: lab.lanAddr,
      localPort: 0,
      mode: 'forward',
      targetHost: '127.0.0.1',
      targetPort: (echoTcp.address() as { port: number }).port,
      natpmp: { enable: true, gateway: lab.routerLanAddr, lifetime: 3600 },
    });
    expect(created.ret).toBe(0);
    const v = await mapped(created.key, 'natpmp');
    const [ip, port] = v.stun.publicAddr!.split(':');
    expect(ip).toBe(lab.routerWanAddr());
    expect(await lab.nftRuleset()).toContain(`dnat ip to ${lab.lanAddr}:${v.stun.localPort}`);
    expect(await logsOf(created.key)).toContain('TCP keepalive connection open');

    expect(await fromWan('tcp', v.stun.publicAddr!)).toBe('echo:ping');

    await d.call('PUT', `/api/stun/rules/${created.key}/enable`, { enable: false });
    expect(await lab.nftRuleset()).not.toContain(`dnat ip to ${lab.lanAddr}:${v.stun.localPort}`);
    await d.call('DELETE', `/api/stun/rules/${created.key}`);
  }, 60_000);

  it('renumbering the router WAN address fires the webhook once and publishes through the DDNS task', async () => {
    const task = await d.call<{ key: string }>('POST', '/api/ddns/rules', {
      name: 'home',
      provider: 'callback',
      recordType: 'A',
      domains: 'home.example.net',
      ipv4: { urls: [`${ipSource.url}/`] },
      callback: { url: `${cb.url}/update?ip=#{ip}&domain=#{domain}`, method: 'GET' },
    });
    expect(task.ret).toBe(0);
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'web',
      protocol: 'udp',
      listenHost: lab.lanAddr,
      mode: 'none',
      webhook: { enable: true, method: 'GET', url: `${hook.url}/changed?addr=#{addr}` },
      ddnsTasks: [task.key],
    });
    expect(created.ret).toBe(0);
    const first = await waitFor('first address', async () => (await rule(created.key)).stun.publicAddr ?? undefined);
    await waitFor('first webhook', () => hook.calls.find((c) => c.url === `/changed?addr=${encodeURIComponent(first)}`));
    await waitFor('first publish', () => cb.calls.find((c) => c.url.includes(`ip=${first.split(':')[0]}`)));

    const next = lab.wanFree[0]!;
    await lab.renumberWan(next);
    const second = await waitFor('new address', async () => {
      const a = (await rule(created.key)).stun.publicAddr;
      return a && a.startsWith(`${next}:`) ? a : undefined;
    }, INTERVAL * 4000);
    await waitFor('webhook with the new address', () => hook.calls.find((c) => c.url === `/changed?addr=${encodeURIComponent(second)}`));
    await waitFor('DDNS callback with the new address', () => cb.calls.find((c) => c.url === `/update?ip=${next}&domain=home.example.net`));
    // Two more checks find the same address: nothing more is sent.
    await new Promise((r) => setTimeout(r, INTERVAL * 2000 + 1000));
    expect(hook.calls.map((c) => c.url)).toEqual([`/changed?addr=${encodeURIComponent(first)}`, `/changed?addr=${encodeURIComponent(second)}`]);
    expect(await logsOf(created.key)).toContain(`public address changed to ${second} (was ${first})`);
  }, 90_000);

  it('a symmetric NAT is said in the rule status: two servers see two public ports', async () => {
    await lab.setMasquerade('random,fully-random');
    try {
      const port = stun.server.split(':')[1];
      const servers = [stun.server, `${lab.wan.addrs[1]}:${port}`];
      const created = await d.call<{ key: string }>('POST', '/api/stun/rules', { name: 'sym', protocol: 'udp', listenHost: lab.lanAddr, mode: 'none', stunServers: servers });
      expect(created.ret).toBe(0);
      const status = await waitFor('symmetric status', async () => {
        const v = await rule(created.key);
        return v.status.state === 'error' && v.status.message.includes('symmetric') ? v.status.message : undefined;
      });
      expect(status).toMatch(/^symmetric NAT: the public port changes with the destination \(198\.20\.\d+\.\d+:\d+ and 198\.20\.\d+\.\d+:\d+\)/);
      await d.call('DELETE', `/api/stun/rules/${created.key}`);
    } finally {
      await lab.setMasquerade('');
    }
  }, 30_000);

  it('NAT test through the router: restricted cone (Linux masquerade filters by address and port)', async () => {
    const r = await d.call<{ result: { mapping: string; filtering: string; verdict: string } }>('POST', '/api/stun/nattest', { server: stun.server, localHost: lab.lanAddr }, en);
    expect(r.ret).toBe(0);
    expect(r.result.mapping).toBe('endpointIndependent');
    expect(r.result.filtering).not.toBe('endpointIndependent');
    expect(r.result.verdict).toMatch(/restricted cone/);
  }, 30_000);
});
