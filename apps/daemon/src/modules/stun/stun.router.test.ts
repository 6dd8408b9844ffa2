/**
 * The router side of the STUN module against real peers: miniupnpd (UPnP IGD and NAT-PMP) in the
 * NAT lab's router namespace, coturn for RFC 5780, and real packets through the router's NAT.
 */
import dgram from 'node:dgram';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MsgError } from '../../lib/msgerror.js';
import { startCoturn } from '../../test/coturn.js';
import { createNatLab, type NatLab } from '../../test/natlab.js';
import { defaultGateway } from './stun.gateway.js';
import { natpmpMapper } from './stun.natpmp.js';
import { findService, upnpMapper, xmlText } from './stun.upnp.js';

let lab: NatLab;

beforeAll(async () => {
  lab = await createNatLab('rt');
});
afterAll(async () => {
  await lab?.remove();
});

async function keyOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof MsgError) return err.msg.key;
    throw err;
  }
  throw new Error('expected a failure');
}

/** Ports are per test, so a leftover mapping of one never answers for another. */
let nextPort = 41_000 + (process.pid % 1000) * 10;
const port = () => nextPort++;

describe('coturn (the test STUN server)', () => {
  it('answers RFC 5780 on two loopback addresses: OTHER-ADDRESS, and CHANGE-REQUEST from the other address', async () => {
    const c = await startCoturn({ listen: ['127.0.0.1', '127.0.0.2'] });
    const s = dgram.createSocket('udp4');
    try {
      await new Promise<void>((r) => s.bind(0, '127.0.0.1', () => r()));
      const ask = async (change: number) => {
        const req = Buffer.alloc(28);
        req.writeUInt16BE(0x0001, 0);
        req.writeUInt16BE(8, 2);
        req.writeUInt32BE(0x2112a442, 4);
        req.writeUInt32BE(change, 8);
        req.writeUInt16BE(0x0003, 20); // CHANGE-REQUEST
        req.writeUInt16BE(4, 22);
        req.writeUInt32BE(change, 24);
        const answer = new Promise<[Buffer, dgram.RemoteInfo]>((r) => s.once('message', (m, ri) => r([m, ri])));
        s.send(req, c.port, '127.0.0.1');
        return answer;
      };
      const [m, from] = await ask(0);
      expect(m.readUInt16BE(0)).toBe(0x0101);
      expect(`${from.address}:${from.port}`).toBe(`127.0.0.1:${c.port}`);
      // OTHER-ADDRESS (0x802C): the second address, on the alternate port.
      const attrs = new Map<number, Buffer>();
      for (let i = 20; i + 4 <= m.length; ) {
        const len = m.readUInt16BE(i + 2);
        attrs.set(m.readUInt16BE(i), m.subarray(i + 4, i + 4 + len));
        i += 4 + Math.ceil(len / 4) * 4;
      }
      const other = attrs.get(0x802c);
      expect(other && `${[...other.subarray(4, 8)].join('.')}:${other.readUInt16BE(2)}`).toBe(`127.0.0.2:${c.port + 1}`);
      // Change IP and port (0x06): the answer comes from the other address and port.
      const [, changed] = await ask(0x06);
      expect(`${changed.address}:${changed.port}`).toBe(`127.0.0.2:${c.port + 1}`);
    } finally {
      s.close();
      await c.stop();
    }
  });
});

describe('UPnP IGD against miniupnpd', () => {
  it('maps UDP and TCP with the gateway URL given; visible in upnpc and nft; unmap removes them', async () => {
    const m = upnpMapper({ gatewayUrl: lab.upnpUrl, localAddress: lab.lanAddr, timeoutMs: 3000 });
    const u = port();
    const t = port();
    const r1 = await m.map({ protocol: 'udp', internalPort: u, externalPort: u, lifetimeSec: 600, description: 'lucky test udp' });
    expect(r1).toEqual({ gateway: lab.upnpUrl, externalPort: u, lifetimeSec: 600 });
    await m.map({ protocol: 'tcp', internalPort: t, externalPort: t + 100, lifetimeSec: 600, description: 'lucky <test> & tcp' });
    const list = await lab.upnpList();
    expect(list).toMatch(new RegExp(`UDP\\s+${u}->${lab.lanAddr.replace(/\./g, '\\.')}:${u}\\s+'lucky test udp'`));
    // Escaped in the SOAP body (or miniupnpd would refuse it); miniupnpd 2.3.1 keeps the entities as
    // they came, undecoded, and upnpc prints them so.
    expect(list).toMatch(new RegExp(`TCP\\s+${t + 100}->${lab.lanAddr.replace(/\./g, '\\.')}:${t}\\s+'lucky &lt;test&gt; &amp; tcp'`));
    const rules = await lab.nftRuleset();
    expect(rules).toContain(`dnat ip to ${lab.lanAddr}:${u}`);
    expect(rules).toContain(`dnat ip to ${lab.lanAddr}:${t}`);
    expect(await m.externalAddress()).toBe(lab.routerWanAddr());
    await m.unmap({ protocol: 'udp', externalPort: u, internalPort: u });
    await m.unmap({ protocol: 'tcp', externalPort: t + 100, internalPort: t });
    expect(await lab.upnpList()).not.toMatch(new RegExp(`->${lab.lanAddr.replace(/\./g, '\\.')}:(${u}|${t})\\b`));
    expect(await lab.nftRuleset()).not.toMatch(new RegExp(`${lab.lanAddr.replace(/\./g, '\\.')}:(${u}|${t})\\b`));
    m.close();
  });

  it('finds the gateway by SSDP from the LAN address', async () => {
    const m = upnpMapper({ localAddress: lab.lanAddr, timeoutMs: 3000 });
    const p = port();
    const r = await m.map({ protocol: 'udp', internalPort: p, externalPort: p, lifetimeSec: 300, description: 'lucky ssdp' });
    expect(r.gateway).toBe(lab.upnpUrl);
    expect(await lab.upnpList()).toContain(`${p}->${lab.lanAddr}:${p}`);
    expect(await m.externalAddress()).toBe(lab.routerWanAddr());
    await m.unmap({ protocol: 'udp', externalPort: p, internalPort: p });
    m.close();
  });

  it('without a local address, names the one its connection to the gateway came from', async () => {
    const m = upnpMapper({ gatewayUrl: lab.upnpUrl });
    const p = port();
    await m.map({ protocol: 'tcp', internalPort: p, externalPort: p, lifetimeSec: 300, description: 'lucky own address' });
    // secure_mode=yes: miniupnpd accepts only the asker's own address as the internal client.
    expect(await lab.upnpList()).toContain(`${p}->${lab.lanAddr}:${p}`);
    await m.unmap({ protocol: 'tcp', externalPort: p, internalPort: p });
  });

  it('passes the router’s UPnPError on as a refusal', async () => {
    // miniupnpd in secure mode refuses a mapping to an address other than the asker's (718).
    const m = upnpMapper({ gatewayUrl: lab.upnpUrl, localAddress: '10.77.0.99' });
    const p = port();
    const err = await m.map({ protocol: 'udp', internalPort: p, externalPort: p, lifetimeSec: 60, description: 'x' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MsgError);
    expect((err as MsgError).msg).toEqual({ key: 'stunUpnpRefused', vars: { code: 718, text: 'ConflictInMappingEntry' } });
  });

  it('fails clearly when nothing listens at the URL, and when no gateway answers SSDP', async () => {
    const t0 = Date.now();
    const closed = upnpMapper({ gatewayUrl: `http://${lab.lanAddr}:9/rootDesc.xml`, timeoutMs: 1000 });
    expect(await keyOf(closed.externalAddress())).toBe('stunConnectFailed');
    // The root namespace's own LAN address has no IGD: discovery from loopback finds nothing.
    const none = upnpMapper({ localAddress: '127.0.0.1', timeoutMs: 1000 });
    expect(await keyOf(none.externalAddress())).toBe('stunUpnpNoGateway');
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('carries a real packet: UDP and TCP from the WAN to a LAN server through a mapping', async () => {
    const p = port();
    const udp = dgram.createSocket('udp4');
    udp.on('message', (msg, from) => udp.send(Buffer.concat([Buffer.from('echo:'), msg]), from.port, from.address));
    await new Promise<void>((r) => udp.bind(p, lab.lanAddr, () => r()));
    const tcp = net.createServer((c) => c.on('error', () => undefined).end('hello over tcp'));
    await new Promise<void>((r) => tcp.listen(p, lab.lanAddr, () => r()));
    const m = upnpMapper({ gatewayUrl: lab.upnpUrl, localAddress: lab.lanAddr });
    try {
      await m.map({ protocol: 'udp', internalPort: p, externalPort: p, lifetimeSec: 300, description: 'lucky echo' });
      await m.map({ protocol: 'tcp', internalPort: p, externalPort: p, lifetimeSec: 300, description: 'lucky echo' });
      const udpClient = `
        const s = require('node:dgram').createSocket('udp4');
        const t = setTimeout(() => { process.stderr.write('no answer'); process.exit(1); }, 3000);
        s.on('message', (m) => { process.stdout.write(String(m)); clearTimeout(t); s.close(); });
        s.bind(0, process.argv[3], () => s.send('ping', Number(process.argv[2]), process.argv[1]));`;
      const tcpClient = `
        const c = require('node:net').connect({ host: process.argv[1], port: Number(process.argv[2]), localAddress: process.argv[3], timeout: 3000 });
        let b = ''; c.on('data', (d) => (b += d)); c.on('end', () => process.stdout.write(b));
        c.on('timeout', () => { process.stderr.write('timeout'); process.exit(1); });
        c.on('error', (e) => { process.stderr.write(String(e)); process.exit(1); });`;
      const peer = lab.wan.addrs[2]!;
      expect(await lab.wan.exec(process.execPath, ['-e', udpClient, lab.routerWanAddr(), String(p), peer])).toBe('echo:ping');
      expect(await lab.wan.exec(process.execPath, ['-e', tcpClient, lab.routerWanAddr(), String(p), peer])).toBe('hello over tcp');
    } finally {
      await m.unmap({ protocol: 'udp', externalPort: p, internalPort: p }).catch(() => {});
      await m.unmap({ protocol: 'tcp', externalPort: p, internalPort: p }).catch(() => {});
      udp.close();
      tcp.close();
    }
  });
});

describe('NAT-PMP against miniupnpd', () => {
  it('maps UDP and TCP, tells the external address, and deletes', async () => {
    const m = natpmpMapper({ gateway: lab.routerLanAddr, attempts: 4 });
    expect(await m.externalAddress()).toBe(lab.routerWanAddr());
    const u = port();
    const t = port();
    const r1 = await m.map({ protocol: 'udp', internalPort: u, externalPort: u, lifetimeSec: 120, description: '' });
    expect(r1).toEqual({ gateway: lab.routerLanAddr, externalPort: u, lifetimeSec: 120 });
    const r2 = await m.map({ protocol: 'tcp', internalPort: t, externalPort: t, lifetimeSec: 120, description: '' });
    expect(r2.externalPort).toBe(t);
    const rules = await lab.nftRuleset();
    expect(rules).toContain(`dnat ip to ${lab.lanAddr}:${u}`);
    expect(rules).toContain(`dnat ip to ${lab.lanAddr}:${t}`);
    expect(await lab.upnpList()).toContain(`${u}->${lab.lanAddr}:${u}`);
    await m.unmap({ protocol: 'udp', externalPort: u, internalPort: u });
    await m.unmap({ protocol: 'tcp', externalPort: t, internalPort: t });
    expect(await lab.nftRuleset()).not.toMatch(new RegExp(`${lab.lanAddr.replace(/\./g, '\\.')}:(${u}|${t})\\b`));
    m.close();
  });

  it('gives up with stunNatpmpNoAnswer when nothing answers, within the retransmission schedule', async () => {
    const t0 = Date.now();
    // The root namespace's own LAN address: reachable, nothing on 5351.
    const m = natpmpMapper({ gateway: lab.lanAddr, attempts: 2 });
    const err = await m.externalAddress().catch((e: unknown) => e);
    expect((err as MsgError).msg).toEqual({ key: 'stunNatpmpNoAnswer', vars: { gateway: lab.lanAddr, seconds: 0.8 } });
    // 250 ms + 500 ms.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(700);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

/** The public address coturn sees for a Binding request from lanAddr:localPort. */
async function mappedAddress(server: string, localPort: number): Promise<string> {
  const [host, p] = server.split(':') as [string, string];
  const s = dgram.createSocket('udp4');
  try {
    await new Promise<void>((r) => s.bind(localPort, lab.lanAddr, () => r()));
    const req = Buffer.alloc(20);
    req.writeUInt16BE(0x0001, 0);
    req.writeUInt32BE(0x2112a442, 4);
    const answer = new Promise<Buffer>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`no STUN answer from ${server}`)), 3000);
      s.once('message', (m) => {
        clearTimeout(t);
        resolve(m);
      });
    });
    s.send(req, Number(p), host);
    const m = await answer;
    for (let i = 20; i + 4 <= m.length; i += 4 + Math.ceil(m.readUInt16BE(i + 2) / 4) * 4) {
      if (m.readUInt16BE(i) !== 0x0020) continue; // XOR-MAPPED-ADDRESS
      const port = m.readUInt16BE(i + 6) ^ 0x2112;
      const a = m.readUInt32BE(i + 8) ^ 0x2112a442;
      return `${a >>> 24}.${(a >>> 16) & 0xff}.${(a >>> 8) & 0xff}.${a & 0xff}:${port}`;
    }
    throw new Error('no XOR-MAPPED-ADDRESS');
  } finally {
    s.close();
  }
}

describe('the router renumbers its WAN', () => {
  it('UPnP and NAT-PMP then answer the new address, and STUN through the NAT sees it', async () => {
    const stun = await lab.startStun();
    const local = port();
    const before = lab.routerWanAddr();
    expect(await mappedAddress(stun.server, local)).toMatch(new RegExp(`^${before.replace(/\./g, '\\.')}:`));
    const next = lab.wanFree[0]!;
    await lab.renumberWan(next);
    expect(lab.routerWanAddr()).toBe(next);
    expect(lab.wanFree).toContain(before);
    expect(await upnpMapper({ gatewayUrl: lab.upnpUrl, localAddress: lab.lanAddr }).externalAddress()).toBe(next);
    expect(await natpmpMapper({ gateway: lab.routerLanAddr, attempts: 4 }).externalAddress()).toBe(next);
    // The same local port: the old masquerade entry is gone with the old address.
    expect(await mappedAddress(stun.server, local)).toMatch(new RegExp(`^${next.replace(/\./g, '\\.')}:`));
    await stun.stop();
  });
});

describe('parts', () => {
  it('UPnP: an IGD:1 router that only takes permanent leases (725) gets lease 0', async () => {
    // miniupnpd takes leases, so this router is a small fake: IGD:1, a relative control URL.
    const leases: string[] = [];
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/desc.xml') {
          res.end(`<?xml version="1.0"?><root><device><deviceList><device><serviceList><service>
            <serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType><controlURL>ctl/ip</controlURL>
            </service></serviceList></device></deviceList></device></root>`);
          return;
        }
        expect(req.headers.soapaction).toBe('"urn:schemas-upnp-org:service:WANIPConnection:1#AddPortMapping"');
        const lease = xmlText(body, 'NewLeaseDuration')!;
        leases.push(lease);
        if (lease !== '0') {
          res.statusCode = 500;
          res.end('<s:Envelope><s:Body><s:Fault><detail><UPnPError><errorCode>725</errorCode><errorDescription>OnlyPermanentLeasesSupported</errorDescription></UPnPError></detail></s:Fault></s:Body></s:Envelope>');
        } else {
          res.end('<s:Envelope><s:Body><u:AddPortMappingResponse xmlns:u="urn:schemas-upnp-org:service:WANIPConnection:1"></u:AddPortMappingResponse></s:Body></s:Envelope>');
        }
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(srv.address() as net.AddressInfo).port}/desc.xml`;
      const r = await upnpMapper({ gatewayUrl: url }).map({ protocol: 'udp', internalPort: 5, externalPort: 6, lifetimeSec: 3600, description: 'd' });
      expect(r).toEqual({ gateway: url, externalPort: 6, lifetimeSec: 0 });
      expect(leases).toEqual(['3600', '0']);
    } finally {
      srv.close();
    }
  });

  it('defaultGateway reads the default route of /proc/net/route', () => {
    const gw = defaultGateway();
    expect(gw === null || /^\d+\.\d+\.\d+\.\d+$/.test(gw)).toBe(true);
    expect(defaultGateway('/nonexistent')).toBeNull();
  });

  it('finds the WAN service in a description: prefixes, URLBase, comments, entities', () => {
    const xml = `<?xml version="1.0"?><root xmlns="urn:schemas-upnp-org:device-1-0">
      <URLBase>http://192.168.1.1:1900/</URLBase>
      <device><serviceList>
        <!-- <service><serviceType>urn:schemas-upnp-org:service:WANIPConnection:2</serviceType><controlURL>/fake</controlURL></service> -->
        <service><serviceType>urn:schemas-upnp-org:service:Layer3Forwarding:1</serviceType><controlURL>/l3f</controlURL></service>
        <d:service xmlns:d="x"><d:serviceType>urn:schemas-upnp-org:service:WANPPPConnection:1</d:serviceType>
          <d:controlURL>ctl/ppp?a=1&amp;b=2</d:controlURL></d:service>
      </serviceList></device></root>`;
    expect(findService(xml, 'http://192.168.1.1:5000/desc.xml')).toEqual({
      type: 'urn:schemas-upnp-org:service:WANPPPConnection:1',
      controlUrl: 'http://192.168.1.1:1900/ctl/ppp?a=1&b=2',
    });
    expect(findService('<root><device/></root>', 'http://x/')).toBeNull();
    expect(xmlText('<a><NewExternalIPAddress>1.2.3.4</NewExternalIPAddress></a>', 'NewExternalIPAddress')).toBe('1.2.3.4');
  });
});
