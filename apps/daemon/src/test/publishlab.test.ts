/**
 * The publish lab (publishlab.ts) works end to end with nothing of the daemon: a record set by
 * RFC 2136 from the LAN host is what the WAN side resolves, a UPnP mapping on the router carries a
 * WAN visitor to a LAN server, pebble's directory answers the LAN host through the router, and all
 * of it holds again after the router's WAN address moves. If namespaces cannot be made here,
 * createPublishLab throws and these tests fail saying so (as the STUN lab tests do).
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUpdate, exchange, parseMessage, signTsig, TYPE } from '../lib/dns/wire.js';
import { createPublishLab, type PublishLab } from './publishlab.js';

let lab: PublishLab;
let server: http.Server;
let lanPort: number;
/** The remote address of each request the LAN server answered. */
const seen: string[] = [];

beforeAll(async () => {
  lab = await createPublishLab('pub');
  server = http.createServer((req, res) => {
    seen.push(req.socket.remoteAddress ?? '');
    res.setHeader('x-lab', 'lan');
    res.end(`hello from the LAN, host ${req.headers.host}`);
  });
  await new Promise<void>((r) => server.listen(0, lab.lanAddr, r));
  lanPort = (server.address() as AddressInfo).port;
}, 60_000);
afterAll(async () => {
  server?.close();
  await lab?.remove();
}, 30_000);

/** `name A addr` at the lab's BIND by a TSIG-signed RFC 2136 update from the LAN host. */
async function setA(name: string, addr: string): Promise<void> {
  const key = { name: lab.bind.keyName, algorithm: 'hmac-sha256' as const, secret: lab.bind.secret };
  const msg = buildUpdate({ zone: lab.bind.zone, name, type: TYPE.A, ttl: 60, ips: [addr] });
  const answer = parseMessage(await exchange({ host: lab.bind.host, port: lab.bind.port }, signTsig(msg, key).signed, 4000));
  expect(answer.rcode).toBe(0);
}

/** Router port 80 → the LAN server, by upnpc from the LAN host (miniupnpd's secure mode: our own address). */
function mapPort80(): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('upnpc', ['-u', lab.upnpUrl, '-e', 'publish lab', '-a', lab.lanAddr, String(lanPort), '80', 'TCP'], { timeout: 10_000 }, (err, out) => (err ? reject(err) : resolve(out)));
  });
}

const WWW = 'www.lab.test';

describe('the publish lab', () => {
  it('DNS: an RFC 2136 update from the LAN host is what the WAN side resolves at BIND', async () => {
    expect(lab.bind.port).toBe(53);
    expect(lab.wan.addrs).toContain(lab.bind.host);
    await setA(WWW, lab.routerWanAddr());
    expect(await lab.wanClient.resolve(WWW)).toEqual([lab.routerWanAddr()]);
    expect(await lab.wanClient.resolve('nothing.lab.test')).toEqual([]);
  });

  it('HTTP: a UPnP mapping of the router\'s port 80 carries the WAN visitor to the LAN server', async () => {
    const out = await mapPort80();
    expect(out).toMatch(new RegExp(`external ${lab.routerWanAddr().replace(/\./g, '\\.')}:80 TCP is redirected to internal ${lab.lanAddr.replace(/\./g, '\\.')}:${lanPort}`));
    const res = await lab.wanClient.http(`http://${WWW}/`);
    expect(res).toMatchObject({ status: 200, body: `hello from the LAN, host ${WWW}` });
    expect(res.headers['x-lab']).toBe('lan');
    // Not masqueraded on the way in: the server sees the visitor's own WAN address.
    expect(lab.wan.addrs).toContain(seen.at(-1));
  });

  it('ACME: pebble\'s directory answers the LAN host through the router, and the WAN side over HTTPS', async () => {
    expect(new URL(lab.pebble.directory).hostname).toBe(lab.bind.host);
    const agent = new Agent({ connect: { ca: lab.pebble.tlsCa } });
    try {
      const r = await request(lab.pebble.directory, { dispatcher: agent });
      expect(r.statusCode).toBe(200);
      expect(await r.body.json()).toHaveProperty('newOrder');
    } finally {
      await agent.close();
    }
    const fromWan = await lab.wanClient.https(lab.pebble.directory, { caPem: lab.pebble.tlsCa });
    expect(fromWan.status).toBe(200);
    expect(JSON.parse(fromWan.body)).toHaveProperty('newOrder');
  });

  it('renumberWan: with the mapping made again and the record moved, the WAN visitor reaches the server at the new address', async () => {
    const next = lab.wanFree[0]!;
    await lab.renumberWan(next);
    expect(lab.routerWanAddr()).toBe(next);
    expect(await mapPort80()).toMatch(new RegExp(`external ${next.replace(/\./g, '\\.')}:80 TCP is redirected`));
    await setA(WWW, next);
    expect(await lab.wanClient.resolve(WWW)).toEqual([next]);
    const res = await lab.wanClient.http(`http://${WWW}/`);
    expect(res).toMatchObject({ status: 200, body: `hello from the LAN, host ${WWW}` });
  });
});
