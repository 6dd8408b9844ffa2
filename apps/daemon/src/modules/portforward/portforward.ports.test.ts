/**
 * Port claims of port forwarding rules, on a real daemon with real sockets: a save that would take
 * a port another rule or the console holds is refused naming the owner, and of two conflicting
 * rules found at start (written straight into lucky.db) the first keeps the port.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PortforwardRuleInput, PortforwardRuleView } from '@lucky/contracts';
import { openDb } from '../../core/db.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { freeRange, tcpEcho, tcpExchange, udpClient, udpEcho, waitFor, type TcpPeer, type UdpPeer } from './testing/testkit.js';

type List = { list: PortforwardRuleView[] };
const EN = { headers: { 'lucky-lang': 'en_US' } };
const ZH = { headers: { 'lucky-lang': 'zh_CN' } };

/** A rule towards a loopback peer; the fields not given are those of a plain TCP rule on 127.0.0.1. */
const body = (name: string, listenPorts: string | number, targetPort: number, more: Partial<PortforwardRuleInput> = {}) => ({
  name,
  types: ['tcp4'],
  listenHost: '127.0.0.1',
  listenPorts: String(listenPorts),
  targets: ['127.0.0.1'],
  targetPorts: String(targetPort),
  ...more,
});

// Every test that carries traffic runs with each relay.
describe.each([
  { relay: 'native relay', nativeRelay: true },
  { relay: 'JavaScript relay', nativeRelay: false },
])('port claims over the API ($relay)', ({ nativeRelay }) => {
  let d: TestDaemon;
  let a: TcpPeer;
  let b: TcpPeer;
  let u: UdpPeer;

  beforeAll(async () => {
    d = await startTestDaemon({ env: { nativeRelay } });
    a = await tcpEcho('127.0.0.1', 0, 'A:');
    b = await tcpEcho('127.0.0.1', 0, 'B:');
    u = await udpEcho('127.0.0.1', 0, 'U:');
  });
  afterAll(async () => {
    await d.close();
    await a.close();
    await b.close();
    u.close();
  });
  afterEach(async () => {
    for (const r of (await d.call<List>('GET', '/api/portforward/rules')).list) await d.call('DELETE', `/api/portforward/rules/${r.key}`);
  });

  const create = (rule: ReturnType<typeof body>, headers = EN) => d.call<{ key: string }>('POST', '/api/portforward/rules', rule, headers);
  const count = async () => (await d.call<List>('GET', '/api/portforward/rules')).list.length;

  it('refuses a second rule on the port of the first, naming it in the caller\'s language, and saves nothing', async () => {
    const port = await freeRange(1);
    expect((await create(body('first', port, a.port))).ret).toBe(0);
    expect(await create(body('second', port, b.port))).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the port forwarding rule "first"` });
    expect(await create(body('second', port, b.port), ZH)).toMatchObject({ ret: 6, msg: `未保存：tcp 127.0.0.1:${port} 已被端口转发规则“first”占用` });
    expect(await count()).toBe(1);
    expect((await tcpExchange(port, 'x')).reply.toString()).toBe('A:x');

    // Saved switched off it holds nothing; switching it on, or moving another rule there, is refused the same way.
    const off = await create(body('off', port, b.port, { enable: false }));
    expect(off.ret).toBe(0);
    expect(await d.call('PUT', `/api/portforward/rules/${off.key}/enable`, { enable: true }, EN)).toMatchObject({ ret: 6, msg: expect.stringContaining('rule "first"') });
    const other = await freeRange(1);
    const moved = await create(body('moved', other, b.port));
    expect(moved.ret).toBe(0);
    expect(await d.call('PUT', `/api/portforward/rules/${moved.key}`, body('moved', port, b.port), EN)).toMatchObject({ ret: 6, msg: expect.stringContaining('rule "first"') });
    // Nothing changed: the refused edit left the rule where it was.
    expect((await tcpExchange(other, 'y')).reply.toString()).toBe('B:y');
    expect((await tcpExchange(port, 'z')).reply.toString()).toBe('A:z');
  });

  it('lets two rules share a number for TCP and UDP; both forward', async () => {
    const port = await freeRange(1);
    expect((await create(body('tcp', port, a.port))).ret).toBe(0);
    expect((await create(body('udp', port, u.port, { types: ['udp4'] }))).ret).toBe(0);
    expect((await tcpExchange(port, 't')).reply.toString()).toBe('A:t');
    const c = await udpClient();
    expect(await c.ask(port, 'u')).toBe('U:u');
    c.close();
  });

  it('refuses one address beside all addresses on a port, either way round, and IPv4 beside a dual-stack ::', async () => {
    const port = await freeRange(1);
    const all = await create(body('all v4', port, a.port, { listenHost: '' }));
    expect(all.ret).toBe(0);
    expect(await create(body('loopback', port, b.port))).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the port forwarding rule "all v4"` });
    await d.call('DELETE', `/api/portforward/rules/${all.key}`);

    expect((await create(body('loopback', port, b.port))).ret).toBe(0);
    expect(await create(body('all v4', port, a.port, { listenHost: '' }))).toMatchObject({ ret: 6, msg: `Not saved: tcp 0.0.0.0:${port} is taken by the port forwarding rule "loopback"` });
    // `tcp` on every address is :: with IPv4 too; tcp6 alone leaves IPv4 to the other rule.
    expect(await create(body('dual', port, a.port, { listenHost: '', types: ['tcp'] }))).toMatchObject({ ret: 6, msg: expect.stringContaining('rule "loopback"') });
    expect((await create(body('v6 only', port, a.port, { listenHost: '', types: ['tcp6'] }))).ret).toBe(0);
    expect((await tcpExchange(port, 'v4')).reply.toString()).toBe('B:v4');
  });

  it("refuses a rule on the console's own port (TCP; UDP on that number is free)", async () => {
    const consolePort = d.runtime.config.get().AdminWebListenPort;
    expect(await create(body('console', consolePort, a.port))).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${consolePort} is the admin console's port` });
    expect(await create(body('console', consolePort, a.port), ZH)).toMatchObject({ ret: 6, msg: `未保存：tcp 127.0.0.1:${consolePort} 是后台管理界面的端口` });
    expect(await count()).toBe(0);
    expect((await create(body('udp', consolePort, u.port, { types: ['udp4'] }))).ret).toBe(0);
  });

  it('refuses a port range that overlaps another rule\'s range in one port, naming the rule and the port', async () => {
    const base = await freeRange(20);
    expect((await create(body('lower', `${base}-${base + 9}`, a.port))).ret).toBe(0);
    expect(await create(body('upper', `${base + 9}-${base + 19}`, b.port))).toMatchObject({
      ret: 6,
      msg: `Not saved: tcp 127.0.0.1:${base + 9} is taken by the port forwarding rule "lower"`,
    });
    expect((await create(body('upper', `${base + 10}-${base + 19}`, b.port))).ret).toBe(0);
    expect((await tcpExchange(base + 9, 'l')).reply.toString()).toBe('A:l');
    expect((await tcpExchange(base + 10, 'u')).reply.toString()).toBe('B:u');
  });
});

describe.each([
  { relay: 'native relay', nativeRelay: true },
  { relay: 'JavaScript relay', nativeRelay: false },
])('two conflicting rules found at start ($relay)', ({ nativeRelay }) => {
  let dir = '';
  let d: TestDaemon | null = null;
  let a: TcpPeer;
  let b: TcpPeer;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pf-conflict-'));
    a = await tcpEcho('127.0.0.1', 0, 'A:');
    b = await tcpEcho('127.0.0.1', 0, 'B:');
  });
  afterAll(async () => {
    await d?.close();
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives every connection to the first; the second shows an error naming it, and takes over once the first lets go', async () => {
    const port = await freeRange(1);
    const first = await startTestDaemon({ dataDir: dir, env: { nativeRelay } });
    expect((await first.call('POST', '/api/portforward/rules', body('first', port, a.port))).ret).toBe(0);
    await first.close();
    // What a restore or a hand edit could leave: a second rule on the same port, after the first.
    const db = openDb(dir);
    const row = db.prepare<[], { key: string; position: number; data: string; created_at: number }>("SELECT key, position, data, created_at FROM rules WHERE module = 'portforward'").get()!;
    const data = { ...(JSON.parse(row.data) as Record<string, unknown>), name: 'second', targetPorts: String(b.port) };
    db.prepare('INSERT INTO rules (module, key, position, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('portforward', 'second0000000000', row.position + 1, JSON.stringify(data), row.created_at + 1, row.created_at + 1);
    db.close();

    d = await startTestDaemon({ dataDir: dir, env: { nativeRelay } });
    const list = async (headers = EN) => (await d!.call<List>('GET', '/api/portforward/rules', undefined, headers)).list;
    const [one, two] = await list();
    expect(one).toMatchObject({ name: 'first', status: { state: 'running' } });
    expect(two).toMatchObject({ name: 'second', status: { state: 'error', message: `tcp 127.0.0.1:${port} is taken by the port forwarding rule "first"` } });
    expect((await list(ZH))[1]!.status.message).toBe(`tcp 127.0.0.1:${port} 已被端口转发规则“first”占用`);
    const log = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/portforward/rules/${two!.key}/logs`, undefined, EN);
    expect(log.logs.map((l) => l.log.slice(20))).toEqual([`could not start: tcp 127.0.0.1:${port} is taken by the port forwarding rule "first"`, 'retrying in 5 s']);
    // Every connection reaches the first rule's target.
    for (let i = 0; i < 20; i++) expect((await tcpExchange(port, `${i}`)).reply.toString()).toBe(`A:${i}`);

    expect((await d.call('PUT', `/api/portforward/rules/${one!.key}/enable`, { enable: false })).ret).toBe(0);
    expect(await waitFor(async () => (await list())[1]!.status.state === 'running', 500)).toBe(true);
    expect((await tcpExchange(port, 'next')).reply.toString()).toBe('B:next');
  });
});
