/**
 * Publishing end to end in the NAT lab (test/publishlab.ts): Lucky and the backend on the LAN host,
 * a router namespace with masquerade and a real miniupnpd, a WAN namespace with BIND (authoritative
 * for lab.test, RFC 2136 with TSIG) and pebble resolving through it. Direct mode: Lucky maps 443 and
 * 80 on the router by UPnP, publishes the router's address through its DDNS task, and the WAN
 * client — resolving the name at BIND — gets the backend's answer over HTTPS verified against
 * pebble's root. Then the router's WAN address is renumbered: within a check the record follows and
 * the WAN client gets through again. STUN mode, with coturn in the WAN namespace: a STUN rule holds
 * a public port open (let in by the router through UPnP), the URL carries that port, the A, HTTPS
 * and SRV records follow it, the certificate comes by DNS-01 through the service's task; renumbered,
 * the WAN client gets through on the new address. The times are printed (bench/publish measures
 * direct mode too).
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../lib/dns/testing/fakes.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { createPublishLab, labSetup, type PublishLab } from '../../test/publishlab.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const NAME = 'ha.lab.test';
const STUN_NAME = 'nas.lab.test';

interface View {
  status: { state: string; message: string };
  url: string;
  publicAddress: string;
  publicPort: number | null;
  parts: { ddns: string | null; web: string | null; stun: string | null };
  checks: Array<{ id: string; state: string; message: string; hint: string }>;
}

describe('publish in the NAT lab (direct and STUN: UPnP, coturn, BIND, pebble)', () => {
  let lab: PublishLab;
  let d: TestDaemon;
  let backend: Server;
  let root: string;
  let key: string;

  let stun: { server: string; stop(): Promise<void> } | undefined;
  let keepaliveServer: ChildProcess | undefined;
  let template: string;

  const view = async () => (await d.call<{ rule: View }>('GET', `/api/publish/rules/${key}`, undefined, EN)).rule;
  const green = (what: string, ms: number) =>
    waitFor(what, async () => {
      const v = await view();
      return v.checks.length === 5 && v.checks.every((c) => c.state === 'ok') ? v : undefined;
    }, ms).catch(async (err: unknown) => {
      throw new Error(`${(err as Error).message}\n${JSON.stringify((await view()).checks, null, 1)}\nminiupnpd: ${lab.miniupnpdLog().slice(-1500)}`);
    });

  beforeAll(async () => {
    // Short, and one per Node: the two Nodes' runs of this file go side by side (natlab keeps 9 characters of tag + pid).
    lab = await createPublishLab(`ps${process.versions.node.split('.')[0]}`);
    backend = createServer((req, res) => res.end(`home assistant here, ${req.headers.host}\n`));
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    root = await lab.pebble.root();
    d = await startTestDaemon();
    expect((await d.call('PUT', '/api/acme/configure', labSetup(lab).acme, EN)).ret).toBe(0);
    expect((await d.call('PUT', '/api/publish/configure', labSetup(lab).publish, EN)).ret).toBe(0);
  }, 90_000);
  afterAll(async () => {
    await d?.close();
    keepaliveServer?.kill('SIGKILL');
    await stun?.stop();
    await new Promise((r) => backend?.close(r));
    await lab?.remove();
  }, 60_000);

  it('the WAN client resolves the name at BIND and gets the backend over HTTPS through the router', async () => {
    const made = await d.call<{ key: string }>('POST', '/api/ddns/rules', labSetup(lab).template, EN);
    expect(made.ret, made.msg).toBe(0);
    template = made.key;
    const t0 = Date.now();
    const created = await d.call<{ key: string }>('POST', '/api/publish/rules', {
      name: 'home assistant',
      target: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
      names: [NAME],
      dnsTask: template,
      httpsPort: await freePort(),
      httpPort: await freePort(),
      upnpUrl: lab.upnpUrl,
    }, EN);
    expect(created.ret, created.msg).toBe(0);
    key = created.key;

    const first = await waitFor('the WAN client\'s first answer', async () => {
      const r = await lab.wanClient.https(`https://${NAME}/`, { caPem: root }).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 60_000);
    const firstAnswer = Date.now() - t0;
    expect(first.body).toBe(`home assistant here, ${NAME}\n`);
    expect(await lab.wanClient.resolve(NAME)).toEqual([lab.routerWanAddr()]);
    // Plain HTTP from outside goes on to HTTPS.
    const plain = await lab.wanClient.http(`http://${NAME}/x?y=1`);
    expect(plain.status).toBe(308);
    expect(plain.headers.location).toBe(`https://${NAME}/x?y=1`);

    const v = await green('every light green', 30_000);
    expect(v.url).toBe(`https://${NAME}/`);
    expect(v.publicAddress).toBe(lab.routerWanAddr());
    const router = v.checks.find((c) => c.id === 'router')!;
    expect(router.message).toBe(`the router forwards public 443, 80 to this device by UPnP (public address ${lab.routerWanAddr()})`);
    expect(v.checks.find((c) => c.id === 'dns')!.message).toBe(`${NAME} resolve to ${lab.routerWanAddr()} at the authoritative servers ${lab.bind.host}`);
    console.log(`publish → first answer at the WAN client: ${firstAnswer} ms`);
  }, 120_000);

  it('after the router\'s WAN address is renumbered, the record follows within a check and the WAN client gets through again', async () => {
    const before = lab.routerWanAddr();
    const next = lab.wanFree[0]!;
    const t0 = Date.now();
    await lab.renumberWan(next);
    expect(lab.routerWanAddr()).toBe(next);
    await waitFor('the record at BIND', async () => ((await lab.wanClient.resolve(NAME))[0] === next ? true : undefined), 30_000);
    const again = await waitFor('the WAN client through again', async () => {
      const r = await lab.wanClient.https(`https://${NAME}/`, { caPem: root }).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 30_000);
    expect(again.body).toBe(`home assistant here, ${NAME}\n`);
    const v = await green('every light green again', 30_000);
    expect(v.publicAddress).toBe(next);
    expect(v.publicAddress).not.toBe(before);
    console.log(`renumbered → WAN client through again: ${Date.now() - t0} ms`);
  }, 90_000);

  it('deleting the service removes its router mappings, its web rule and its task', async () => {
    expect((await d.call('DELETE', `/api/publish/rules/${key}`)).ret).toBe(0);
    await waitFor('the mappings gone', async () => (!(await lab.upnpList()).includes('Lucky publish') ? true : undefined), 15_000);
    await waitFor('the parts gone', async () => ((await d.call<{ list: unknown[] }>('GET', '/api/web/rules')).list.length === 0 ? true : undefined));
    // The DDNS task goes last, after the web and STUN rules (index.ts `removed`): waited for, not raced.
    await waitFor('the DDNS task gone', async () => ((await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list.length === 1 ? true : undefined));
    expect((await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list.length).toBe(1);
  }, 30_000);

  it('STUN mode: the public port the STUN rule holds is in the URL and the records, and the WAN client gets the backend through it', async () => {
    stun = await lab.startStun();
    const kaHost = lab.wan.addrs[1]!;
    keepaliveServer = lab.wan.spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(8080, '${kaHost}')`]);
    const cfg = await d.call('PUT', '/api/stun/configure', { stunServers: [stun.server], keepaliveInterval: 5, keepaliveUrl: `http://${kaHost}:8080/` }, EN);
    expect(cfg.ret, cfg.msg).toBe(0);
    const t0 = Date.now();
    const created = await d.call<{ key: string }>('POST', '/api/publish/rules', {
      name: 'nas',
      reach: 'stun',
      target: `http://127.0.0.1:${(backend.address() as AddressInfo).port}`,
      names: [STUN_NAME],
      dnsTask: template,
      httpsPort: await freePort(),
      upnpUrl: lab.upnpUrl,
    }, EN);
    expect(created.ret, created.msg).toBe(0);
    key = created.key;
    const v = await green('every light green (STUN)', 60_000);
    const port = v.publicPort!;
    expect(v.url).toBe(`https://${STUN_NAME}:${port}/`);
    expect(v.publicAddress).toBe(lab.routerWanAddr());
    expect(v.checks.map((c) => c.id)).toEqual(['dns', 'certificate', 'web', 'target', 'stun']);
    expect(v.checks.find((c) => c.id === 'stun')!.message).toMatch(new RegExp(`^STUN rule nas holds public ${lab.routerWanAddr().replace(/\./g, '\\.')}:${port} open, forwarded to local port \\d+ \\(let in by the router by UPnP\\)$`));
    expect(v.checks.find((c) => c.id === 'dns')!.message).toBe(`${STUN_NAME} resolve to ${lab.routerWanAddr()} at the authoritative servers ${lab.bind.host}, and their port records name ${port}`);
    // What a client outside reads: the address, the port in the HTTPS and SRV records.
    expect(await lab.wanClient.resolve(STUN_NAME)).toEqual([lab.routerWanAddr()]);
    expect(await lab.wanClient.resolve(STUN_NAME, 'HTTPS')).toEqual([`1 . alpn="h2,http/1.1" port=${port}`]);
    expect(await lab.wanClient.resolve(`_https._tcp.${STUN_NAME}`, 'SRV')).toEqual([`0 0 ${port} ${STUN_NAME}.`]);
    const first = await waitFor('the WAN client through the STUN port', async () => {
      const r = await lab.wanClient.https(v.url, { caPem: root }).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 30_000);
    expect(first.body).toBe(`home assistant here, ${STUN_NAME}:${port}\n`);
    console.log(`publish (STUN) → every light green and the WAN client through: ${Date.now() - t0} ms`);
    // Its parts, each in its own module and marked as the service's.
    const stunRules = (await d.call<{ list: Array<{ key: string; owner: { module: string } | null }> }>('GET', '/api/stun/rules')).list;
    expect(stunRules.filter((r) => r.owner?.module === 'publish').map((r) => r.key)).toEqual([v.parts.stun]);
  }, 120_000);

  it('STUN mode: renumbered, the STUN rule learns the new address, the records follow and the WAN client gets through again', async () => {
    const next = lab.wanFree[1]!;
    const t0 = Date.now();
    await lab.renumberWan(next);
    await waitFor('the record at BIND', async () => ((await lab.wanClient.resolve(STUN_NAME))[0] === next ? true : undefined), 40_000);
    const v = await green('every light green again (STUN)', 40_000);
    expect(v.publicAddress).toBe(next);
    const again = await waitFor('the WAN client through again', async () => {
      const r = await lab.wanClient.https(v.url, { caPem: root }).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 30_000);
    expect(again.body).toBe(`home assistant here, ${STUN_NAME}:${v.publicPort}\n`);
    expect(await lab.wanClient.resolve(STUN_NAME, 'HTTPS')).toEqual([`1 . alpn="h2,http/1.1" port=${v.publicPort}`]);
    console.log(`renumbered (STUN) → WAN client through again: ${Date.now() - t0} ms`);
  }, 90_000);

  it('STUN mode: deleting the service removes its STUN rule (and the router mapping it held), its web rule and its task', async () => {
    expect((await d.call('DELETE', `/api/publish/rules/${key}`)).ret).toBe(0);
    await waitFor('the STUN rule gone', async () => ((await d.call<{ list: unknown[] }>('GET', '/api/stun/rules')).list.length === 0 ? true : undefined), 15_000);
    await waitFor('the mapping gone', async () => (!(await lab.upnpList()).includes('Lucky STUN') ? true : undefined), 15_000);
    await waitFor('the parts gone', async () => ((await d.call<{ list: unknown[] }>('GET', '/api/web/rules')).list.length === 0 ? true : undefined));
    // The DDNS task goes last, after the web and STUN rules (index.ts `removed`): waited for, not raced.
    await waitFor('the DDNS task gone', async () => ((await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list.length === 1 ? true : undefined));
    expect((await d.call<{ list: unknown[] }>('GET', '/api/ddns/rules')).list.length).toBe(1);
  }, 30_000);
});
