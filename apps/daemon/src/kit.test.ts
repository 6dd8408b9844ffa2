/**
 * The module kit across modules, through the real API: one port has one owner whatever module
 * asks (at save, at start after a restore, and again when a module is switched off and on);
 * secrets declared once in a contract are masked in every answer, kept when the mask comes back,
 * left out of backups and never logged.
 */
import { createSocket, type Socket } from 'node:dgram';
import { request } from 'node:http';
import { connect, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestDaemon, type TestDaemon } from './test/harness.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

function httpGet(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c));
      res.on('end', () => resolve(body));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end();
  });
}

/** Whether something accepts TCP connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function until(cond: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Status = { state: string; message: string };

describe('one port, one owner, across modules', () => {
  let d: TestDaemon;
  let target: Server;
  let targetPort: number;
  beforeAll(async () => {
    d = await startTestDaemon();
    // What port forwarding rules forward to: answers "pf" to any connection. A probe that only
    // connects and leaves makes the forwarder drop its side unread: a reset here, not a failure.
    target = createServer((s) => {
      s.on('error', () => undefined);
      s.end('pf');
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as { port: number }).port;
  });
  afterAll(async () => {
    await d.close();
    target.close();
  });

  const web = (name: string, port: number, address = '127.0.0.1') => ({ name, address, port, defaultService: { type: 'text', body: name } });
  const pf = (name: string, port: number, types = ['tcp4'], listenHost = '127.0.0.1') => ({ name, types, listenHost, listenPorts: String(port), targets: ['127.0.0.1'], targetPorts: String(targetPort) });
  const rules = async (m: string) => (await d.call<{ list: Array<{ key: string; name: string; status: Status }> }>('GET', `/api/${m}/rules`, undefined, EN)).list;

  it('refuses a port forwarding rule on a web rule\'s port (and the reverse), naming the owner; UDP on the number is fine', async () => {
    const port = await freePort();
    expect((await d.call('POST', '/api/web/rules', web('site', port))).ret).toBe(0);
    const before = (await rules('portforward')).length;
    const r = await d.call('POST', '/api/portforward/rules', pf('fwd', port, ['tcp4'], '0.0.0.0'), EN);
    expect(r).toMatchObject({ ret: 6, msg: `Not saved: tcp 0.0.0.0:${port} is taken by the web services rule "site"` });
    expect((await rules('portforward')).length).toBe(before);
    // UDP on the same number is another socket altogether.
    expect((await d.call('POST', '/api/portforward/rules', pf('dns-like', port, ['udp4']))).ret).toBe(0);

    const port2 = await freePort();
    expect((await d.call('POST', '/api/portforward/rules', pf('rdp', port2))).ret).toBe(0);
    const zh = await d.call('POST', '/api/web/rules', web('blog', port2));
    expect(zh).toMatchObject({ ret: 6, msg: `未保存：tcp 127.0.0.1:${port2} 已被端口转发规则“rdp”占用` });
    expect(await httpGet(port)).toBe('site');
  });

  it('refuses the console\'s own port to every module', async () => {
    const admin = d.runtime.config.get().AdminWebListenPort;
    expect(await d.call('POST', '/api/web/rules', web('console?', admin), EN)).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${admin} is the admin console's port` });
    expect((await d.call('POST', '/api/portforward/rules', pf('console?', admin), EN)).ret).toBe(6);
  });

  it('after a restore holding two rules on one port, the first serves and the second says who owns the port', async () => {
    const port = await freePort();
    const backup = JSON.parse((await d.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=1', headers: { 'lucky-admin-token': d.token } })).body);
    const now = Date.now();
    backup.modules.web = { settings: null, rules: [{ key: 'aaa-first', data: web('first', port), created: now, updated: now }] };
    backup.modules.portforward = { settings: null, rules: [{ key: 'bbb-second', data: pf('second', port), created: now, updated: now }] };
    const up = await d.runtime.app.inject({
      method: 'POST',
      url: '/api/configure',
      headers: { 'lucky-admin-token': d.token, 'content-type': 'application/json' },
      payload: JSON.stringify(backup),
    });
    const key = (up.json() as { key: string }).key;
    expect((await d.call('GET', `/api/restoreconfigureconfirm?key=${key}`)).ret).toBe(0);

    // Web services start before port forwarding (the module table's order): web keeps the port.
    for (let i = 0; i < 10; i++) expect(await httpGet(port)).toBe('first');
    const second = (await rules('portforward')).find((r) => r.name === 'second')!;
    expect(second.status.state).toBe('error');
    expect(second.status.message).toBe(`tcp 127.0.0.1:${port} is taken by the web services rule "first"`);
  });

  it('switching a module off closes its listeners at once, and on again opens them, without a restart', async () => {
    const port = await freePort();
    expect((await d.call('POST', '/api/portforward/rules', pf('switch', port))).ret).toBe(0);
    await until(() => listening(port));
    const cfg = await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure');
    const all = cfg.baseconfigure.EnabledModules;
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all.filter((m) => m !== 'portforward') })).ret).toBe(0);
    await until(async () => !(await listening(port)));
    // Its port is free for another module meanwhile.
    expect(d.runtime.ports.list().some((c) => c.endpoint.port === port)).toBe(false);
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: all })).ret).toBe(0);
    await until(() => listening(port));
  });
});

describe('secrets declared in a contract', () => {
  let d: TestDaemon;
  let receiver: Socket;
  let port: number;
  const packets: Buffer[] = [];
  const SECRET = 'a1:b2:c3:d4:e5:f6';

  beforeAll(async () => {
    d = await startTestDaemon();
    receiver = createSocket('udp4');
    receiver.on('message', (m) => packets.push(m));
    await new Promise<void>((r) => receiver.bind(0, '127.0.0.1', r));
    port = receiver.address().port;
  });
  afterAll(async () => {
    receiver.close();
    await d.close();
  });

  it('are masked in answers, kept when the mask comes back, out of backups, and never logged', async () => {
    // Everything the daemon can log, logged.
    expect((await d.call('PUT', '/api/baseconfigure', { LogLevel: 6 })).ret).toBe(0);
    const created = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'NAS', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '127.0.0.1', port, repeat: 1, secureOn: SECRET });
    expect(created.ret).toBe(0);
    const url = `/api/wol/rules/${created.key}`;
    const shown = await d.call<{ rule: Record<string, unknown> }>('GET', url);
    expect(shown.rule.secureOn).toBe('******');
    expect(JSON.stringify(await d.call('GET', '/api/wol/rules'))).not.toContain(SECRET);

    // The form sends back what it was shown, with another name: the secret stays.
    const { key: _k, status: _s, created: _c, updated: _u, lastWake: _l, ...input } = shown.rule;
    expect((await d.call('PUT', url, { ...input, name: 'NAS 2' })).ret).toBe(0);
    expect((await d.call<{ sent: number }>('POST', `${url}/wake`)).sent).toBe(1);
    for (let i = 0; i < 50 && packets.length < 1; i++) await new Promise((r) => setTimeout(r, 20));
    // The packet on the wire ends with the SecureOn password: the stored secret was kept.
    expect(packets[0]!.subarray(102).toString('hex')).toBe(SECRET.replace(/:/g, ''));

    const backup = await d.runtime.app.inject({ method: 'GET', url: '/api/configure', headers: { 'lucky-admin-token': d.token } });
    expect(backup.body).not.toContain(SECRET);
    expect(JSON.parse(backup.body).modules.wol.rules[0].data.secureOn).toBe('******');
    const full = await d.runtime.app.inject({ method: 'GET', url: '/api/configure?secrets=1', headers: { 'lucky-admin-token': d.token } });
    expect(JSON.parse(full.body).modules.wol.rules[0].data.secureOn).toBe(SECRET);

    const logs = [
      ...d.runtime.programLog.read(0, 'en_US'),
      ...(await d.call<{ logs: Array<{ log: string }> }>('GET', `${url}/logs`)).logs,
    ]
      .map((l) => l.log)
      .join('\n');
    expect(logs).toContain('NAS 2');
    expect(logs).not.toContain(SECRET);
    expect(logs.toLowerCase()).not.toContain(SECRET.replace(/:/g, ''));
  });
});
