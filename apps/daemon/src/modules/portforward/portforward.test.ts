import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createSocket as createUdpSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parsePortList, ZPortforwardRule } from '@lucky/contracts';
import { freePort } from '../../test/harness.js';
import { planListeners } from './portforward.plan.js';
import { parseProxyV2, proxyV1Header, proxyV2Header } from './portforward.proxyproto.js';
import { engineHarness } from './testing/harness.js';
import {
  freeRange,
  listenPeer,
  rule,
  tcpEcho,
  tcpExchange,
  tcpHold,
  udpClient,
  udpEcho,
  waitFor,
  type TcpPeer,
  type UdpPeer,
} from './testing/testkit.js';

describe('port lists', () => {
  it('expands commas and ranges in order', () => {
    expect(parsePortList('80,443,1000-1003')).toEqual({ ok: true, ports: [80, 443, 1000, 1001, 1002, 1003] });
    expect(parsePortList(' 22 , 8080 - 8081 ')).toEqual({ ok: true, ports: [22, 8080, 8081] });
    expect(parsePortList('65535')).toEqual({ ok: true, ports: [65535] });
  });
  it('rejects bad syntax with a reason', () => {
    expect(parsePortList('0')).toEqual({ ok: false, error: 'range' });
    expect(parsePortList('70000')).toEqual({ ok: false, error: 'range' });
    expect(parsePortList('10-5')).toEqual({ ok: false, error: 'reversed' });
    expect(parsePortList('')).toEqual({ ok: false, error: 'empty' });
    expect(parsePortList('80,,81')).toEqual({ ok: false, error: 'syntax' });
    expect(parsePortList('a-b')).toEqual({ ok: false, error: 'syntax' });
    expect(parsePortList('80,80')).toEqual({ ok: false, error: 'duplicate' });
    expect(parsePortList('1-5000')).toEqual({ ok: false, error: 'tooMany' });
  });
  it('requires target ports to match in count or be one', () => {
    const base = { name: 'x', types: ['tcp'], targets: ['127.0.0.1'] };
    expect(ZPortforwardRule.safeParse({ ...base, listenPorts: '80,81', targetPorts: '90,91' }).success).toBe(true);
    expect(ZPortforwardRule.safeParse({ ...base, listenPorts: '80,81', targetPorts: '90' }).success).toBe(true);
    const bad = ZPortforwardRule.safeParse({ ...base, listenPorts: '80,81', targetPorts: '90,91,92' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(['targetPorts']);
  });
  it('requires a type, a listening port, a target and a target port', () => {
    const ok = { name: 'x', types: ['tcp'], listenPorts: '80', targets: ['a.example'], targetPorts: '80' };
    expect(ZPortforwardRule.safeParse(ok).success).toBe(true);
    for (const [field, value] of [
      ['types', []],
      ['listenPorts', ''],
      ['targets', []],
      ['targetPorts', ''],
      ['targets', ['bad host!']],
      ['listenHost', '1.2.3'],
    ] as const) {
      const r = ZPortforwardRule.safeParse({ ...ok, [field]: value });
      expect(r.success, field).toBe(false);
      expect(r.error?.issues[0]?.path[0]).toBe(field);
    }
  });
  it('plans one socket per protocol, family and port', () => {
    const ids = (input: Record<string, unknown>) => planListeners(rule({ listenPorts: '80,81', targetPorts: '90', ...input })).map((s) => `${s.id}>${s.targetPort}`);
    expect(ids({ types: ['tcp', 'udp'] })).toEqual(['tcp [::]:80>90', 'tcp [::]:81>90', 'udp [::]:80>90', 'udp [::]:81>90']);
    expect(ids({ types: ['tcp4'] })).toEqual(['tcp 0.0.0.0:80>90', 'tcp 0.0.0.0:81>90']);
    expect(ids({ types: ['udp6'], targetPorts: '90,91' })).toEqual(['udp [::]:80 v6only>90', 'udp [::]:81 v6only>91']);
    expect(ids({ types: ['tcp4', 'tcp6'] })).toEqual(['tcp [::]:80>90', 'tcp [::]:81>90']);
    expect(ids({ types: ['tcp', 'tcp4'], listenHost: '127.0.0.1' })).toEqual(['tcp 127.0.0.1:80>90', 'tcp 127.0.0.1:81>90']);
    expect(ZPortforwardRule.safeParse({ name: 'x', types: ['tcp4'], listenHost: '::1', listenPorts: '1', targets: ['h'], targetPorts: '1' }).success).toBe(false);
  });
});

describe('PROXY protocol headers', () => {
  it('v2 round-trips IPv4 and IPv6 and mixes them as IPv6', () => {
    const h4 = parseProxyV2(proxyV2Header({ srcAddress: '10.1.2.3', srcPort: 5555, dstAddress: '127.0.0.1', dstPort: 80 }));
    expect(h4).toMatchObject({ command: 'PROXY', family: 'TCP4', srcAddress: '10.1.2.3', srcPort: 5555, dstAddress: '127.0.0.1', dstPort: 80, length: 28 });
    const h6 = parseProxyV2(proxyV2Header({ srcAddress: '::1', srcPort: 1, dstAddress: '::ffff:127.0.0.1', dstPort: 2 }));
    expect(h6).toMatchObject({ family: 'TCP6', srcAddress: '0:0:0:0:0:0:0:1', dstAddress: '0:0:0:0:0:ffff:7f00:1', length: 52 });
  });
  it('v1 is one text line', () => {
    expect(proxyV1Header({ srcAddress: '::ffff:10.0.0.1', srcPort: 1000, dstAddress: '10.0.0.2', dstPort: 443 }).toString()).toBe(
      'PROXY TCP4 10.0.0.1 10.0.0.2 1000 443\r\n',
    );
  });
});

// Every relay test runs twice: plain TCP pairs and UDP sessions through the native relay, and through the
// JavaScript relay that TLS rules, other systems and builds without a compiler use.
describe.each([
  { relay: 'native relay', native: true },
  { relay: 'JavaScript relay', native: false },
])('engine over loopback ($relay)', ({ native }) => {
  const pf = engineHarness(native);
  const engine = pf.engine;
  const peers: Array<TcpPeer | UdpPeer> = [];
  const keys: string[] = [];
  let n = 0;
  const start = async (input: Parameters<typeof rule>[0]) => {
    const key = `r${++n}`;
    keys.push(key);
    await pf.start(key, rule(input));
    return key;
  };
  const tcp = async (host = '127.0.0.1', port = 0, tag = '') => {
    const p = await tcpEcho(host, port, tag);
    peers.push(p);
    return p;
  };
  const udp = async (host = '127.0.0.1', port = 0, tag = '') => {
    const p = await udpEcho(host, port, tag);
    peers.push(p);
    return p;
  };
  afterEach(async () => {
    for (const k of keys.splice(0)) await pf.stop(k);
    for (const p of peers.splice(0)) await p.close();
  });
  afterAll(() => pf.close());

  it('forwards TCP on one port with half-close, and counts it', async () => {
    const backend = await tcp('127.0.0.1', 0, '>');
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(port), targetPorts: String(backend.port) });
    expect(pf.status(key).state).toBe('running');
    const r = await tcpExchange(port, 'hello');
    expect(r.reply.toString()).toBe('>hello');
    expect(r.ended).toBe(true);
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 0)).toBe(true);
    expect(await pf.stats(key)).toMatchObject({ totalConnections: 1, bytesIn: 5, bytesOut: 6, refusedByLimit: 0 });
    expect(pf.logs(key).some((l) => l.includes('closed: 127.0.0.1'))).toBe(true);
  });

  it('forwards a TCP and UDP port range to the matching target ports', async () => {
    const tBase = await freeRange(3);
    const lBase = await freeRange(3);
    for (let i = 0; i < 3; i++) {
      await tcp('127.0.0.1', tBase + i, `t${i}:`);
      await udp('127.0.0.1', tBase + i, `u${i}:`);
    }
    const key = await start({
      types: ['tcp', 'udp'],
      listenPorts: `${lBase}-${lBase + 2}`,
      targetPorts: `${tBase}-${tBase + 2}`,
    });
    expect(pf.status(key)).toMatchObject({ state: 'running' });
    expect((await pf.stats(key)).listeners).toBe(6);
    const client = await udpClient();
    for (let i = 0; i < 3; i++) {
      expect((await tcpExchange(lBase + i, 'x')).reply.toString()).toBe(`t${i}:x`);
      expect(await client.ask(lBase + i, `y${i}`)).toBe(`u${i}:y${i}`);
    }
    client.close();
    expect((await pf.stats(key)).udpSessions).toBe(3);
  });

  it('sends a whole range to one target port', async () => {
    const backend = await tcp('127.0.0.1', 0, 'one:');
    const lBase = await freeRange(2);
    await start({ types: ['tcp4'], listenPorts: `${lBase},${lBase + 1}`, targetPorts: String(backend.port) });
    expect((await tcpExchange(lBase, 'a')).reply.toString()).toBe('one:a');
    expect((await tcpExchange(lBase + 1, 'b')).reply.toString()).toBe('one:b');
  });

  it('routes UDP replies back to the right client', async () => {
    const backend = await udp('127.0.0.1', 0);
    const port = await freePort();
    const key = await start({ types: ['udp4'], listenHost: '127.0.0.1', listenPorts: String(port), targetPorts: String(backend.port) });
    const a = await udpClient();
    const b = await udpClient('127.0.0.1', '127.0.0.2');
    const [ra, rb] = await Promise.all([a.ask(port, 'from-a'), b.ask(port, 'from-b')]);
    expect(ra).toBe('from-a');
    expect(rb).toBe('from-b');
    expect(a.inbox.map(String)).not.toContain('from-b');
    expect(b.inbox.map(String)).not.toContain('from-a');
    expect((await pf.stats(key)).udpSessions).toBe(2);
    // Once a session is set up, its datagrams flow on the relay thread (native) both ways.
    expect(await waitFor(async () => engine.nativeFlows() === (native ? 2 : 0))).toBe(true);
    for (let i = 0; i < 20; i++) {
      const [xa, xb] = await Promise.all([a.ask(port, `a${i}`), b.ask(port, `b${i}`)]);
      expect([xa, xb]).toEqual([`a${i}`, `b${i}`]);
    }
    expect(a.inbox.map(String).filter((m) => m.startsWith('b'))).toEqual([]);
    expect(await pf.stats(key)).toMatchObject({ udpSessions: 2, totalConnections: 2 });
    expect((await pf.stats(key)).bytesIn).toBeGreaterThanOrEqual(12 + 20 * 4);
    expect((await pf.stats(key)).bytesOut).toBe((await pf.stats(key)).bytesIn);
    a.close();
    b.close();
  });

  it('keeps every datagram of a burst whole and apart (batched and segmented sends)', async () => {
    // The target keeps what it gets; the client bursts datagrams of mixed sizes, each stamped.
    const target = createUdpSocket('udp4');
    const got: Buffer[] = [];
    target.on('message', (m) => got.push(m));
    await new Promise<void>((r) => target.bind(0, '127.0.0.1', () => r()));
    const port = await freePort();
    const key = await start({ types: ['udp4'], listenHost: '127.0.0.1', listenPorts: String(port), targetPorts: String(target.address().port) });
    const client = createUdpSocket('udp4');
    await new Promise<void>((r) => client.bind(0, '127.0.0.1', () => r()));
    const send = (b: Buffer) => new Promise<void>((r, j) => client.send(b, port, '127.0.0.1', (e) => (e ? j(e) : r())));
    // The first datagram sets the session up (on the relay thread, natively); then the burst.
    await send(Buffer.from('hello'));
    expect(await waitFor(() => got.length === 1)).toBe(true);
    if (native) expect(await waitFor(() => engine.nativeFlows() === 1)).toBe(true);
    const sizeOf = (i: number) => (i % 50 === 49 ? 100 : i % 97 === 0 ? 1450 : 512);
    const sent = Array.from({ length: 400 }, (_, i) => {
      const b = Buffer.alloc(sizeOf(i), i & 0xff);
      b.writeUInt32BE(i, 0);
      return b;
    });
    // In waves of 64 (what the relay takes in two batches): a wave fits the target's default socket
    // buffer, which a test's JavaScript reader empties more slowly than the relay fills it.
    for (let w = 0; w < sent.length; w += 64) {
      await Promise.all(sent.slice(w, w + 64).map(send));
      await waitFor(() => got.length >= 1 + Math.min(sent.length, w + 64));
    }
    const burst = got.slice(1);
    expect(burst.length).toBe(sent.length);
    expect((await pf.stats(key)).bytesIn).toBe(5 + sent.reduce((a, b) => a + b.length, 0));
    for (const b of burst) expect(b.equals(sent[b.readUInt32BE(0)]!)).toBe(true);
    expect(new Set(burst.map((b) => b.readUInt32BE(0))).size).toBe(sent.length);
    client.close();
    target.close();
  });

  it('ends a UDP session whose target is unreachable and fails over to the next target', async () => {
    const live = await udp('127.0.0.1', 0, 'live:');
    const port = await freePort();
    // Nothing listens on 127.0.0.2 at that port: the kernel answers "port unreachable".
    const key = await start({ types: ['udp4'], listenPorts: String(port), targets: ['127.0.0.2', '127.0.0.1'], targetPorts: String(live.port) });
    const c = await udpClient();
    expect(await c.ask(port, 'x', 20)).toBe('live:x');
    expect(pf.logs(key).some((l) => /target 127\.0\.0\.2:\d+ failed \((ECONNREFUSED|connect ECONNREFUSED|.*refused)/i.test(l))).toBe(true);
    expect((await pf.stats(key)).udpSessions).toBe(1);
    c.close();
  });

  it('works on IPv6 loopback for TCP and UDP', async () => {
    const t = await tcp('::1', 0, 'v6:');
    const u = await udp('::1', t.port, 'u6:').catch(() => udp('::1', 0, 'u6:'));
    const lport = await freePort('::1');
    const key = await start({ types: ['tcp6'], listenHost: '::1', listenPorts: String(lport), targets: ['::1'], targetPorts: String(t.port) });
    expect((await tcpExchange(lport, 'hi', { host: '::1' })).reply.toString()).toBe('v6:hi');
    const uport = await freePort('::1');
    const key2 = await start({ types: ['udp6'], listenPorts: String(uport), targets: ['::1'], targetPorts: String(u.port) });
    const c = await udpClient('::1');
    expect(await c.ask(uport, 'hi')).toBe('u6:hi');
    c.close();
    expect((await pf.stats(key)).totalConnections).toBe(1);
    expect((await pf.stats(key2)).udpSessions).toBe(1);
    // Dual stack: `tcp` on all addresses takes IPv4 and IPv6 clients.
    const dport = await freePort('::1');
    await start({ types: ['tcp'], listenPorts: String(dport), targets: ['::1'], targetPorts: String(t.port) });
    expect((await tcpExchange(dport, 'a', { host: '::1' })).reply.toString()).toBe('v6:a');
    expect((await tcpExchange(dport, 'b', { host: '127.0.0.1' })).reply.toString()).toBe('v6:b');
  });

  it('rotates targets and fails over to a live one', async () => {
    const live1 = await tcp('127.0.0.1', 0, 'A:');
    await tcp('127.0.0.3', live1.port, 'C:');
    const port = await freePort();
    // 127.0.0.2 has nothing on that port: connections there are refused and the next target takes over.
    const key = await start({ types: ['tcp4'], listenPorts: String(port), targets: ['127.0.0.1', '127.0.0.2', '127.0.0.3'], targetPorts: String(live1.port) });
    const replies: string[] = [];
    for (let i = 0; i < 6; i++) replies.push((await tcpExchange(port, 'x')).reply.toString());
    expect(replies.every((r) => r === 'A:x' || r === 'C:x')).toBe(true);
    expect(replies).toContain('A:x');
    expect(replies).toContain('C:x');
    expect(pf.logs(key).some((l) => l.includes('127.0.0.2') && l.includes('failed'))).toBe(true);
    // UDP: a target that answers with "port unreachable" ends the session; the next packet goes elsewhere.
    const ub = await udp('127.0.0.1', 0, 'U:');
    const uport = await freePort();
    await start({ types: ['udp4'], listenPorts: String(uport), targets: ['127.0.0.2', '127.0.0.1'], targetPorts: String(ub.port) });
    const c = await udpClient();
    let got: string | null = null;
    for (let i = 0; i < 10 && got === null; i++) got = await c.ask(uport, 'q', 2);
    expect(got).toBe('U:q');
    c.close();
  });

  it('refuses and counts connections over the rule and global limits', async () => {
    const backend = await tcp('127.0.0.1', 0);
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), limits: { tcpMaxConnections: 2 } });
    const held = [tcpHold(port), tcpHold(port)];
    await Promise.all(held.map((h) => h.connected));
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 2)).toBe(true);
    const third = tcpHold(port);
    await third.closed;
    expect(third.received).toHaveLength(0);
    expect((await pf.stats(key)).refusedByLimit).toBe(1);
    for (const h of held) h.socket.destroy();
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 0)).toBe(true);

    // Global limit across rules.
    await pf.configure({ tcpMaxConnections: 1 });
    try {
      const one = tcpHold(port);
      await one.connected;
      expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 1)).toBe(true);
      const two = tcpHold(port);
      await two.closed;
      expect((await pf.stats(key)).refusedByLimit).toBe(2);
      one.socket.destroy();
    } finally {
      await pf.configure({});
    }

    // UDP sessions.
    const ub = await udp('127.0.0.1', 0);
    const uport = await freePort();
    const ukey = await start({ types: ['udp4'], listenPorts: String(uport), targetPorts: String(ub.port), limits: { udpMaxSessions: 1 } });
    const a = await udpClient();
    const b = await udpClient();
    expect(await a.ask(uport, 'a')).toBe('a');
    expect(await b.ask(uport, 'b', 2)).toBeNull();
    expect((await pf.stats(ukey)).refusedByLimit).toBeGreaterThanOrEqual(1);
    a.close();
    b.close();
    expect(pf.logs(key).some((l) => l.includes('limit reached'))).toBe(true);
  });

  it('logs refusals at most once a second, saying how many more were not shown, in both languages', async () => {
    const backend = await tcp('127.0.0.1', 0);
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), limits: { tcpMaxConnections: 1 } });
    const held = tcpHold(port);
    await held.connected;
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 1)).toBe(true);
    for (let i = 0; i < 20; i++) await tcpHold(port).closed;
    await new Promise((r) => setTimeout(r, 1100));
    await tcpHold(port).closed;
    expect((await pf.stats(key)).refusedByLimit).toBe(21);
    const refusals = pf.logs(key).filter((l) => l.startsWith('refused'));
    expect(refusals).toHaveLength(2);
    expect(refusals[0]).toMatch(/^refused tcp 127\.0\.0\.1:\d+ \(limit reached\)$/);
    expect(refusals[1]).toMatch(/^refused tcp 127\.0\.0\.1:\d+ \(limit reached\) \(\+19 more like it not shown\)$/);
    expect(pf.logs(key, 'zh_CN').filter((l) => l.startsWith('已拒绝'))[1]).toMatch(/^已拒绝 tcp 127\.0\.0\.1:\d+（达到数量限制）（另有 19 条同类记录未显示）$/);
    held.socket.destroy();
  });

  it('keeps its connections when an edit moves it onto a port in use, and says why', async () => {
    const backend = await tcp('127.0.0.1', 0);
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(port), targetPorts: String(backend.port) });
    const held = tcpHold(port);
    await held.connected;
    held.socket.write('a');
    expect(await waitFor(() => Buffer.concat(held.received).toString() === 'a')).toBe(true);
    await pf.start(key, rule({ types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(backend.port), targetPorts: String(backend.port) }));
    expect(pf.status(key)).toEqual({ state: 'error', message: `port ${backend.port} in use (tcp 127.0.0.1:${backend.port}); 0 of 1 listener(s) running` });
    expect(pf.logs(key).slice(-4)).toEqual([`stopped listening on tcp 127.0.0.1:${port}`, `port ${backend.port} in use (tcp 127.0.0.1:${backend.port})`, '0 of 1 listener(s) running', 'changes applied']);
    held.socket.write('b');
    expect(await waitFor(() => Buffer.concat(held.received).toString() === 'ab')).toBe(true);
    expect((await tcpExchange(port, 'gone')).reply.length).toBe(0);
    held.socket.destroy();
  });

  it('filters clients by IP (whitelist and blacklist)', async () => {
    const backend = await tcp('127.0.0.1', 0, 'ok:');
    const port = await freePort();
    const key = await start({
      types: ['tcp4', 'udp4'],
      listenPorts: String(port),
      targetPorts: String(backend.port),
      filter: { mode: 'whitelist', list: ['127.0.0.2', '127.0.1.0/24'] },
    });
    expect((await tcpExchange(port, 'a', { localAddress: '127.0.0.2' })).reply.toString()).toBe('ok:a');
    expect((await tcpExchange(port, 'b', { localAddress: '127.0.1.9' })).reply.toString()).toBe('ok:b');
    expect((await tcpExchange(port, 'c', { localAddress: '127.0.0.3' })).reply.toString()).toBe('');
    expect((await pf.stats(key)).refusedByFilter).toBe(1);
    await pf.start(key, rule({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), filter: { mode: 'blacklist', list: ['127.0.0.2/32'] } }));
    expect((await tcpExchange(port, 'd', { localAddress: '127.0.0.2' })).reply.toString()).toBe('');
    expect((await tcpExchange(port, 'e', { localAddress: '127.0.0.3' })).reply.toString()).toBe('ok:e');
    expect((await pf.stats(key)).refusedByFilter).toBe(2);
  });

  it('closes idle TCP connections and ends idle UDP sessions', async () => {
    const backend = await tcp('127.0.0.1', 0);
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), limits: { tcpIdleTimeout: 1 } });
    const h = tcpHold(port);
    await h.connected;
    await h.closed; // the forwarder closes it; the test timeout bounds this
    expect(pf.logs(key).some((l) => l.includes('idle timeout'))).toBe(true);
    const ub = await udp('127.0.0.1', 0);
    const uport = await freePort();
    const ukey = await start({ types: ['udp4'], listenPorts: String(uport), targetPorts: String(ub.port), limits: { udpSessionTimeout: 1 } });
    const c = await udpClient();
    expect(await c.ask(uport, 'x')).toBe('x');
    expect((await pf.stats(ukey)).udpSessions).toBe(1);
    expect(await waitFor(async () => (await pf.stats(ukey)).udpSessions === 0, 500)).toBe(true);
    c.close();
  });

  it('reports a port in use as the rule status and keeps its other ports', async () => {
    const busy = await tcp('127.0.0.1', 0);
    const lBase = await freeRange(1);
    const key = await start({ types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: `${busy.port},${lBase}`, targetPorts: String(busy.port) });
    const st = pf.status(key);
    expect(st.state).toBe('error');
    expect(st.message).toBe(`port ${busy.port} in use (tcp 127.0.0.1:${busy.port}); 1 of 2 listener(s) running`);
    expect(pf.status(key, 'zh_CN').message).toBe(`端口 ${busy.port} 已被占用（tcp 127.0.0.1:${busy.port}）；2 个监听中 1 个正在运行`);
    const lines = pf.logs(key);
    expect(lines.slice(0, 2).sort()).toEqual([`listening on tcp 127.0.0.1:${lBase} → port ${busy.port}`, `port ${busy.port} in use (tcp 127.0.0.1:${busy.port})`]);
    expect(lines.slice(2)).toEqual(['1 of 2 listener(s) running', 'started']);
    expect(await pf.stats(key)).toMatchObject({ listeners: 1, listenersWanted: 2 });
    expect((await tcpExchange(lBase, 'z')).reply.toString()).toBe('z');
  });

  it('tries a listener that could not open again, and runs once its port is free', async () => {
    const backend = await tcp('127.0.0.1', 0, 'r:');
    const blocker = await tcpEcho('127.0.0.1', 0);
    const lBase = await freeRange(1);
    const key = await start({ types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: `${blocker.port},${lBase}`, targetPorts: String(backend.port) });
    expect(pf.status(key).state).toBe('error');
    await blocker.close();
    expect(await waitFor(() => pf.status(key).state === 'running')).toBe(true);
    // Said once when it failed, and once when it opened.
    expect(pf.logs(key).filter((l) => l.includes(`127.0.0.1:${blocker.port}`))).toEqual([
      `port ${blocker.port} in use (tcp 127.0.0.1:${blocker.port})`,
      `listening on tcp 127.0.0.1:${blocker.port} → port ${backend.port}`,
    ]);
    expect((await tcpExchange(blocker.port, 'x')).reply.toString()).toBe('r:x');
    expect(await pf.stats(key)).toMatchObject({ listeners: 2, listenersWanted: 2 });
  });

  it('sends a PROXY v2 header the backend can parse', async () => {
    let header: ReturnType<typeof parseProxyV2> = null;
    let payload = '';
    const server = createServer((s: Socket) => {
      let buf = Buffer.alloc(0);
      s.on('data', (c: Buffer) => {
        buf = Buffer.concat([buf, c]);
        if (!header) header = parseProxyV2(buf);
        if (header) payload = buf.subarray(header.length).toString();
        if (payload === 'ping') s.end('pong');
      });
      s.on('error', () => undefined);
    });
    const backend = await listenPeer(server, '127.0.0.1', 0);
    peers.push(backend);
    const port = await freePort();
    await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), proxyProtocol: 'v2' });
    const c = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.5' });
    let localPort = 0;
    const reply = await new Promise<string>((resolve) => {
      let text = '';
      c.on('data', (d: Buffer) => (text += d.toString()));
      c.on('close', () => resolve(text));
      c.on('connect', () => {
        localPort = c.localPort ?? 0;
        c.write('ping');
      });
    });
    expect(reply).toBe('pong');
    expect(header).toMatchObject({ command: 'PROXY', family: 'TCP4', srcAddress: '127.0.0.5', srcPort: localPort, dstAddress: '127.0.0.1', dstPort: port });
  });

  describe('TLS', () => {
    let dir = '';
    let cert = '';
    let key = '';
    let strangerKey = '';
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'pf-tls-'));
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ], { stdio: 'ignore', timeout: 20_000 });
      cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
      key = readFileSync(join(dir, 'key.pem'), 'utf8');
      strangerKey = execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1'], {
        encoding: 'utf8',
        timeout: 20_000,
      });
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('terminates TLS on the listener and forwards plain', async () => {
      const backend = await tcp('127.0.0.1', 0, 'plain:');
      const port = await freePort();
      const rk = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), tls: { listen: true, cert, key } });
      expect(pf.status(rk).state).toBe('running');
      const reply = await new Promise<string>((resolve, reject) => {
        const s = tlsConnect({ port, host: '127.0.0.1', ca: cert, servername: 'localhost' }, () => s.end('secret'));
        let text = '';
        s.on('data', (d: Buffer) => (text += d.toString()));
        s.on('error', reject);
        s.on('close', () => resolve(text));
      });
      expect(reply).toBe('plain:secret');
      // A client that does not speak TLS is dropped and logged.
      expect((await tcpExchange(port, 'GET / HTTP/1.0\r\n\r\n')).reply.toString()).not.toContain('plain:');
    });

    it('connects to the target over TLS', async () => {
      const tlsServer = createTlsServer({ cert, key }, (s) => {
        s.on('error', () => undefined);
        s.on('data', (d: Buffer) => s.end(`tls:${d.toString()}`));
      });
      const backend = await listenPeer(tlsServer as never, '127.0.0.1', 0);
      peers.push(backend);
      const port = await freePort();
      await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), tls: { target: true, targetInsecure: true } });
      const c = tcpHold(port);
      await c.connected;
      c.socket.write('hi');
      await c.closed;
      expect(Buffer.concat(c.received).toString()).toBe('tls:hi');
      // Verified: the name must match the certificate.
      const port2 = await freePort();
      await start({ types: ['tcp4'], listenPorts: String(port2), targetPorts: String(backend.port), tls: { target: true, targetServerName: 'wrong.example' } });
      const r = await tcpExchange(port2, 'x');
      expect(r.reply.toString()).toBe('');
    });

    it('serves certificates of the store by name, picked by SNI, and a renewed one reaches new connections while open ones carry on', async () => {
      const selfSigned = (name: string) => {
        const out = join(dir, name.replace('*', 'star'));
        execFileSync('openssl', [
          'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
          '-keyout', `${out}.key`, '-out', `${out}.pem`, '-days', '2', '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`,
        ], { stdio: 'ignore', timeout: 20_000 });
        return { cert: readFileSync(`${out}.pem`, 'utf8'), key: readFileSync(`${out}.key`, 'utf8') };
      };
      const a = selfSigned('a.test');
      const b1 = selfSigned('*.b.test');
      pf.certificates.put('site-a', a.cert, a.key);
      pf.certificates.put('site-b', b1.cert, b1.key);
      const backend = await tcp('127.0.0.1', 0);
      const port = await freePort();
      const rk = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port), tls: { listen: true, certSource: 'store', certNames: ['site-a', 'site-b'] } });
      expect(pf.status(rk).state).toBe('running');
      /** A TLS client kept open: the certificate it was shown, and a round trip through the relay. */
      const open = (servername?: string) =>
        new Promise<{ subject: string; fingerprint: string; echo(text: string): Promise<string>; close(): void }>((resolve, reject) => {
          const s = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false, ...(servername ? { servername } : {}) }, () => {
            const peer = s.getPeerCertificate();
            resolve({
              subject: peer.subjectaltname ?? '',
              fingerprint: peer.fingerprint256,
              echo: (text) =>
                new Promise((done) => {
                  s.once('data', (d: Buffer) => done(d.toString()));
                  s.write(text);
                }),
              close: () => s.destroy(),
            });
          });
          s.on('error', reject);
        });
      expect((await open('a.test').then((c) => (c.close(), c))).subject).toBe('DNS:a.test');
      const held = await open('www.b.test');
      expect(held.subject).toBe('DNS:*.b.test');
      // No SNI: the first certificate named.
      expect((await open().then((c) => (c.close(), c))).subject).toBe('DNS:a.test');
      const b2 = selfSigned('*.b.test');
      pf.certificates.put('site-b', b2.cert, b2.key);
      // The renewed certificate on new connections.
      const renewed = await waitFor(async () => {
        const c = await open('www.b.test');
        c.close();
        return c.fingerprint !== held.fingerprint;
      });
      expect(renewed).toBe(true);
      expect(pf.logs(rk).some((l) => l.includes('site-b'))).toBe(true);
      expect(await held.echo('still here')).toBe('still here');
      held.close();
      // A name not in the store yet (being ordered): the rule waits for it, saying which, and starts once it is stored.
      const port2 = await freePort();
      const missing = await start({ types: ['tcp4'], listenPorts: String(port2), targetPorts: '9', tls: { listen: true, certSource: 'store', certNames: ['later'] } });
      expect(pf.status(missing).state).toBe('waiting');
      expect(pf.status(missing).message).toContain('later');
      const later = selfSigned('later.test');
      pf.certificates.put('later', later.cert, later.key);
      expect(await waitFor(() => pf.status(missing).state === 'running')).toBe(true);
    });

    it('refuses a rule whose key does not fit', async () => {
      const port = await freePort();
      expect(strangerKey).toContain('PRIVATE KEY');
      const rk = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: '9', tls: { listen: true, cert, key: strangerKey } });
      expect(pf.status(rk).state).toBe('error');
      expect(pf.status(rk).message).toContain('the private key does not belong to the certificate');
    });
  });

  it('keeps a long transfer intact while other rules (and its own) are edited', async () => {
    // Backend that answers with the sha256 of everything it received, after the client half-closed.
    const sink = createServer({ allowHalfOpen: true }, (s) => {
      const h = createHash('sha256');
      let bytes = 0;
      s.on('data', (c: Buffer) => {
        h.update(c);
        bytes += c.length;
      });
      s.on('end', () => s.end(`${bytes}:${h.digest('hex')}`));
      s.on('error', () => undefined);
    });
    const backend = await listenPeer(sink, '127.0.0.1', 0);
    peers.push(backend);
    const other = await tcp('127.0.0.1', 0, 'o:');
    const port = await freePort();
    const longKey = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port) });
    const oBase = await freeRange(4);
    const otherKey = await start({ types: ['tcp4', 'udp4'], listenPorts: String(oBase), targetPorts: String(other.port) });

    const total = 48 * 1024 * 1024;
    const block = randomBytes(256 * 1024);
    const expected = createHash('sha256');
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const answer = new Promise<string>((resolve) => {
      let text = '';
      client.on('data', (d: Buffer) => (text += d.toString()));
      client.on('error', () => undefined);
      client.on('close', () => resolve(text));
    });
    await new Promise<void>((r) => client.once('connect', () => r()));
    let sent = 0;
    let editsDone = false;
    // The client keeps sending until the edits below are done (and at least `total` bytes), so they overlap.
    const writer = (async () => {
      while (sent < total || !editsDone) {
        expected.update(block);
        sent += block.length;
        if (!client.write(block)) await new Promise((r) => client.once('drain', r));
      }
      client.end();
    })();

    // While it runs: edit the other rule several times (ports, targets, types), add and remove a rule, edit this one.
    for (let i = 0; i < 4; i++) {
      await pf.start(otherKey, rule({ types: i % 2 ? ['tcp4'] : ['tcp4', 'udp4'], listenPorts: String(oBase + i), targetPorts: String(other.port) }));
      // A failure names what the rule said (a port taken meanwhile by another program...).
      expect((await tcpExchange(oBase + i, `e${i}`)).reply.toString(), pf.logs(otherKey).join('\n')).toBe(`o:e${i}`);
    }
    const tmpPort = await freePort();
    const tmpKey = await start({ types: ['tcp4'], listenPorts: String(tmpPort), targetPorts: String(other.port) });
    await pf.stop(tmpKey);
    await pf.start(longKey, rule({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(other.port), note: 'edited' }));
    expect((await pf.stats(longKey)).tcpConnections).toBe(1);
    editsDone = true;
    await writer;
    expect(await answer).toBe(`${sent}:${expected.digest('hex')}`);
    expect(sent).toBeGreaterThanOrEqual(total);
    // New connections on the edited rule use its new target.
    expect((await tcpExchange(port, 'n')).reply.toString()).toBe('o:n');
  });

  it('relays bulk data both ways at once, intact, after a banner from the target', async () => {
    const backend = await tcp('127.0.0.1', 0, 'BANNER');
    const port = await freePort();
    const key = await start({ types: ['tcp4'], listenPorts: String(port), targetPorts: String(backend.port) });
    const total = 24 * 1024 * 1024;
    const sentHash = createHash('sha256').update('BANNER');
    const gotHash = createHash('sha256');
    let received = 0;
    const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    client.on('data', (c: Buffer) => {
      gotHash.update(c);
      received += c.length;
    });
    const closed = new Promise<void>((r) => client.once('close', () => r()));
    await new Promise<void>((r) => client.once('connect', () => r()));
    let midway = { pairs: -1, bytesIn: 0 };
    let sent = 0;
    while (sent < total) {
      const block = randomBytes(64 * 1024 + (sent % 7919));
      sentHash.update(block);
      sent += block.length;
      if (!client.write(block)) await new Promise((r) => client.once('drain', r));
      if (midway.pairs < 0 && sent > total / 2) midway = { pairs: engine.nativeFlows(), bytesIn: (await pf.stats(key)).bytesIn };
    }
    client.end();
    await closed;
    expect(received).toBeGreaterThan(total);
    expect(gotHash.digest('hex')).toBe(sentHash.digest('hex'));
    // The live figures follow the transfer whichever relay carries it.
    expect(midway.bytesIn).toBeGreaterThan(0);
    expect(midway.pairs).toBe(native ? 1 : 0);
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 0)).toBe(true);
    expect((await pf.stats(key)).bytesIn).toBe(sent);
    expect((await pf.stats(key)).bytesOut).toBe(received);
  });

  it('carries many pairs and sessions at once, and lets them go in any order', async () => {
    const base = await freeRange(1);
    await tcp('127.0.0.1', base);
    await udp('127.0.0.1', base);
    const backend = { port: base };
    const port = await freePort();
    const key = await start({ types: ['tcp4', 'udp4'], listenPorts: String(port), targetPorts: String(backend.port), limits: { udpSessionTimeout: 1 } });
    // 48 echo round trips of 256 KiB at once, some clients leaving early with a reset.
    const rounds = Array.from({ length: 48 }, async (_, i) => {
      const data = randomBytes(256 * 1024);
      const s = connect({ port, host: '127.0.0.1' });
      s.on('error', () => undefined);
      const got: Buffer[] = [];
      let n = 0;
      const closed = new Promise<void>((r) => s.once('close', () => r()));
      s.on('data', (c: Buffer) => {
        got.push(c);
        n += c.length;
        if (i % 6 === 5 && n > 64 * 1024) s.resetAndDestroy();
        else if (n >= data.length) s.end();
      });
      s.write(data);
      await closed;
      return i % 6 === 5 || Buffer.concat(got).equals(data);
    });
    // 60 UDP clients meanwhile; their sessions time out after a second, while others are still talking.
    const clients = await Promise.all(Array.from({ length: 60 }, () => udpClient()));
    const answers = await Promise.all(clients.map((c, i) => c.ask(port, `c${i}`, 20)));
    expect(answers).toEqual(clients.map((_, i) => `c${i}`));
    expect((await Promise.all(rounds)).every(Boolean)).toBe(true);
    expect(await waitFor(async () => (await pf.stats(key)).tcpConnections === 0)).toBe(true);
    expect(await waitFor(async () => (await pf.stats(key)).udpSessions === 0, 200)).toBe(true);
    expect(engine.nativeFlows()).toBe(0);
    // The rule still works afterwards, both ways.
    expect((await tcpExchange(port, 'again')).reply.toString()).toBe('again');
    expect(await clients[0]!.ask(port, 'again')).toBe('again');
    for (const c of clients) c.close();
    expect((await pf.stats(key)).totalConnections).toBeGreaterThanOrEqual(48 + 60 + 2);
  });

  it('stops a rule: its listeners and connections go, others stay', async () => {
    const backend = await tcp('127.0.0.1', 0);
    const p1 = await freePort();
    const p2 = await freePort();
    const k1 = await start({ types: ['tcp4'], listenPorts: String(p1), targetPorts: String(backend.port) });
    const k2 = await start({ types: ['tcp4'], listenPorts: String(p2), targetPorts: String(backend.port) });
    const h1 = tcpHold(p1);
    const h2 = tcpHold(p2);
    await Promise.all([h1.connected, h2.connected]);
    expect(await waitFor(async () => (await pf.stats(k1)).tcpConnections === 1 && (await pf.stats(k2)).tcpConnections === 1)).toBe(true);
    await pf.stop(k1);
    await h1.closed;
    expect(pf.status(k1).state).toBe('stopped');
    h2.socket.write('still');
    expect(await waitFor(async () => Buffer.concat(h2.received).toString() === 'still')).toBe(true);
    expect(engine.connections()).toBe(1);
    h2.socket.destroy();
    const refused = await tcpExchange(p1, 'x');
    expect(refused.reply.length).toBe(0);
  });
});
