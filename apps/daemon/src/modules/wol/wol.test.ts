import { createSocket, type Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestHost, freeLink, type TestHost } from '../../test/netns.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { magicPacket } from './wol.packet.js';

describe('magic packet', () => {
  it('is 6 × FF then the MAC 16 times', () => {
    const p = magicPacket('01:23:45:67:89:ab');
    expect(p.length).toBe(102);
    expect(p.subarray(0, 6).equals(Buffer.alloc(6, 0xff))).toBe(true);
    for (let i = 0; i < 16; i++) expect(p.subarray(6 + i * 6, 12 + i * 6).toString('hex')).toBe('0123456789ab');
  });
  it('appends the SecureOn password', () => {
    const p = magicPacket('01-23-45-67-89-AB', '11:22:33:44:55:66');
    expect(p.length).toBe(108);
    expect(p.subarray(102).toString('hex')).toBe('112233445566');
  });
});

describe('wol module over the API', () => {
  let d: TestDaemon;
  let receiver: Socket;
  let port: number;
  const received: Buffer[] = [];

  beforeAll(async () => {
    d = await startTestDaemon();
    receiver = createSocket('udp4');
    receiver.on('message', (m) => received.push(m));
    await new Promise<void>((r) => receiver.bind(0, '127.0.0.1', r));
    port = receiver.address().port;
  });
  afterAll(async () => {
    receiver.close();
    await d.close();
  });

  it('creates, lists, wakes, disables and deletes a device', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/wol/rules', {
      name: 'NAS',
      macs: ['aa:bb:cc:dd:ee:ff'],
      broadcast: '127.0.0.1',
      port,
      repeat: 2,
    });
    expect(created.ret).toBe(0);
    const list = await d.call<{ list: Array<{ key: string; name: string; status: { state: string } }> }>('GET', '/api/wol/rules');
    expect(list.list).toHaveLength(1);
    expect(list.list[0]).toMatchObject({ key: created.key, name: 'NAS', status: { state: 'running' } });

    const woke = await d.call<{ sent: number }>('POST', `/api/wol/rules/${created.key}/wake`);
    expect(woke).toMatchObject({ ret: 0, sent: 2 });
    for (let i = 0; i < 50 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    expect(received).toHaveLength(2);
    expect(received[0]!.equals(magicPacket('aa:bb:cc:dd:ee:ff'))).toBe(true);
    const en = { headers: { 'lucky-lang': 'en_US' } };
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${created.key}/logs`, undefined, en);
    expect(logs.logs.map((l) => l.log)).toEqual([expect.stringMatching(/ started$/), expect.stringContaining(`sent 2 magic packet(s) to 127.0.0.1:${port}`)]);
    // The same lines in Chinese for a Chinese reader: the log keeps messages, not text.
    const zh = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${created.key}/logs`);
    expect(zh.logs.map((l) => l.log)).toEqual([expect.stringMatching(/ 已启动$/), expect.stringContaining(`已发送 2 个唤醒包到 127.0.0.1:${port}`)]);

    expect((await d.call('PUT', `/api/wol/rules/${created.key}/enable`, { enable: false })).ret).toBe(0);
    const after = await d.call<{ rule: { status: { state: string } } }>('GET', `/api/wol/rules/${created.key}`);
    expect(after.rule.status.state).toBe('disabled');
    // A device that is switched off is not woken (scheduled tasks included).
    expect(await d.call('POST', `/api/wol/rules/${created.key}/wake`, undefined, en)).toMatchObject({ ret: 6, msg: 'The rule is switched off' });

    expect((await d.call('DELETE', `/api/wol/rules/${created.key}`)).ret).toBe(0);
    expect((await d.call('GET', `/api/wol/rules/${created.key}`)).ret).toBe(3);
  });

  it('rejects bad devices and saves nothing', async () => {
    const before = await d.call<{ list: unknown[] }>('GET', '/api/wol/rules');
    for (const bad of [
      { name: '', macs: ['aa:bb:cc:dd:ee:ff'] },
      { name: 'x', macs: [] },
      { name: 'x', macs: ['not-a-mac'] },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '300.1.1.1' },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], port: 70000 },
      { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'], secureOn: 'zz' },
    ]) {
      const r = await d.call('POST', '/api/wol/rules', bad);
      expect(r.ret, JSON.stringify(bad)).toBe(1);
      expect(r.msg).toBeTruthy();
    }
    const after = await d.call<{ list: unknown[] }>('GET', '/api/wol/rules');
    expect(after.list).toHaveLength(before.list.length);
  });

  it('answers "module disabled" while the module is switched off', async () => {
    const cfg = await d.call<{ baseconfigure: { EnabledModules: string[] } }>('GET', '/api/baseconfigure');
    const others = cfg.baseconfigure.EnabledModules.filter((m) => m !== 'wol');
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: others })).ret).toBe(0);
    const r = await d.call('GET', '/api/wol/rules', undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(r).toMatchObject({ ret: 4, msg: 'Module wol is disabled' });
    const mods = await d.call<{ Modules: string[] }>('GET', '/api/modules/list');
    expect(mods.Modules).not.toContain('wol');
    expect((await d.call('PUT', '/api/baseconfigure', { EnabledModules: [...others, 'wol'] })).ret).toBe(0);
    expect((await d.call('GET', '/api/wol/rules')).ret).toBe(0);
  });
});

describe('wol: several targets, the interface, online checks, wake and wait', () => {
  let d: TestDaemon;
  const EN = { headers: { 'lucky-lang': 'en_US' } };
  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
  });

  async function udpOn(address: string, port = 0): Promise<{ s: Socket; got: Array<{ m: Buffer; from: string }> }> {
    const s = createSocket('udp4');
    const got: Array<{ m: Buffer; from: string }> = [];
    s.on('message', (m, r) => got.push({ m, from: r.address }));
    await new Promise<void>((r) => s.bind(port, address, r));
    return { s, got };
  }
  const until = async (ok: () => boolean, ms = 3000) => {
    for (let i = 0; i < ms / 20 && !ok(); i++) await new Promise((r) => setTimeout(r, 20));
  };

  it('sends to every broadcast target, from the chosen interface, with SecureOn', async () => {
    const a = await udpOn('127.0.0.1');
    const port = a.s.address().port;
    const b = await udpOn('127.0.0.2', port);
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'two nets', macs: ['02:00:00:00:00:0a'], secureOn: '11:22:33:44:55:66', broadcast: '127.0.0.1', targets: ['127.0.0.2'], port, repeat: 1, interface: 'lo' });
    expect(dev.ret, dev.msg).toBe(0);
    expect(await d.call('POST', `/api/wol/rules/${dev.key}/wake`, undefined, EN)).toMatchObject({ ret: 0, sent: 2 });
    await until(() => a.got.length > 0 && b.got.length > 0);
    const want = magicPacket('02:00:00:00:00:0a', '11:22:33:44:55:66');
    expect(a.got.map((x) => x.m.equals(want))).toEqual([true]);
    expect(b.got.map((x) => x.m.equals(want))).toEqual([true]);
    // Sent from lo's address.
    expect(a.got[0]!.from).toBe('127.0.0.1');
    const ifs = await d.call<{ interfaces: Array<{ name: string; address: string; broadcast: string }> }>('GET', '/api/wol/interfaces');
    expect(ifs.interfaces).toContainEqual({ name: 'lo', address: '127.0.0.1', broadcast: '127.255.255.255', subnet: '127.0.0.0/8', prefix: 8, internal: true });
    // An interface that is not there: the wake says so, naming it.
    const gone = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'no nic', macs: ['02:00:00:00:00:0b'], interface: 'nope0' });
    expect(await d.call('POST', `/api/wol/rules/${gone.key}/wake`, undefined, EN)).toMatchObject({ ret: 6, msg: 'wake failed: interface nope0 does not exist or has no IPv4 address' });
    a.s.close();
    b.s.close();
  });

  it('refuses bad new fields and saves nothing', async () => {
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/wol/rules')).list.length;
    for (const bad of [{ targets: ['300.0.0.1'] }, { interface: 'bad name!' }, { checkHost: 'a b' }, { checkPort: 70000 }]) {
      const r = await d.call('POST', '/api/wol/rules', { name: 'x', macs: ['02:00:00:00:00:01'], ...bad }, EN);
      expect(r.ret, JSON.stringify(bad)).toBe(1);
    }
    expect((await d.call<{ list: unknown[] }>('GET', '/api/wol/rules')).list.length).toBe(before);
  });

  it('wakes and waits: the "device" starts answering on its port a second after the packet', async () => {
    const rx = await udpOn('127.0.0.1');
    const { freePort } = await import('../../test/harness.js');
    const checkPort = await freePort();
    let server: import('node:net').Server | undefined;
    rx.s.once('message', () => {
      setTimeout(() => {
        server = createServer((c) => c.on('error', () => undefined).end());
        server.listen(checkPort, '127.0.0.1');
      }, 1000);
    });
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'boots', macs: ['02:00:00:00:00:0c'], broadcast: '127.0.0.1', port: rx.s.address().port, repeat: 1, checkHost: '127.0.0.1', checkPort });
    const online0 = await d.call<{ online: Record<string, string> }>('GET', '/api/wol/online');
    expect(online0.online[dev.key]).toBe('offline');
    const r = await d.call<{ online: boolean; ms: number; msg: string }>('POST', `/api/wol/rules/${dev.key}/wakewait?timeout=10`, undefined, EN);
    expect(r).toMatchObject({ ret: 0, online: true });
    expect(r.ms).toBeGreaterThanOrEqual(1000);
    expect(r.msg).toMatch(/^The device is up after \d+\.\d s$/);
    await new Promise((res) => setTimeout(res, 3100));
    const online1 = await d.call<{ online: Record<string, string> }>('GET', '/api/wol/online');
    expect(online1.online[dev.key]).toBe('online');
    server?.close();
    rx.s.close();
    // No check address: a clear refusal.
    const plain = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'plain', macs: ['02:00:00:00:00:0d'] });
    expect(await d.call('POST', `/api/wol/rules/${plain.key}/wakewait`, undefined, EN)).toMatchObject({ ret: 1, msg: 'the device has no address to check' });
  });
});

describe('wol inside a network namespace', () => {
  let d: TestDaemon;
  let host: TestHost;
  const { host: HOST, inside: INSIDE, broadcast: BROADCAST } = freeLink('10.91');
  beforeAll(async () => {
    d = await startTestDaemon();
    host = createTestHost('wol', [`${HOST}/24`], [`${INSIDE}/24`]);
  });
  afterAll(async () => {
    host?.remove();
    await d?.close();
  });

  it('broadcasts from the chosen interface into its network, caught inside the namespace', async () => {
    const ifs = await d.call<{ interfaces: Array<{ name: string; address: string; broadcast: string }> }>('GET', '/api/wol/interfaces');
    const nic = ifs.interfaces.find((i) => i.address === HOST)!;
    expect(nic.broadcast).toBe(BROADCAST);
    // A listener inside the namespace on port 9 (all addresses, broadcast included): prints the first packet and who sent it.
    const script = `const s = require('node:dgram').createSocket('udp4');
      s.on('message', (m, r) => { process.stdout.write(m.toString('hex') + ' ' + r.address); process.exit(0); });
      s.bind(9, '0.0.0.0', () => { s.setBroadcast(true); process.stdout.write(''); });
      setTimeout(() => process.exit(2), 8000);`;
    const caught = host.exec(process.execPath, ['-e', script], 10_000);
    let heard = false;
    void caught.finally(() => (heard = true)).catch(() => undefined);
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'in ns', macs: ['02:00:00:00:00:ee'], interface: nic.name, broadcast: nic.broadcast, port: 9, repeat: 3 });
    expect(dev.ret, dev.msg).toBe(0);
    // The listener is a Node started in the namespace: on a busy machine it may bind after a
    // first wake, so wake again until it has heard one (it gives up by itself after 8 s).
    for (let i = 0; i < 40 && !heard; i++) {
      expect((await d.call('POST', `/api/wol/rules/${dev.key}/wake`)).ret).toBe(0);
      await new Promise((r) => setTimeout(r, 250));
    }
    const [hex, from] = (await caught).split(' ');
    expect(hex).toBe(magicPacket('02:00:00:00:00:ee').toString('hex'));
    expect(from).toBe(HOST);
  });

  it('online status from ping: answers, then stops answering when its link goes down', async () => {
    const dev = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'pinged', macs: ['02:00:00:00:00:ef'], checkHost: INSIDE, checkPort: 0 });
    expect((await d.call<{ online: Record<string, string> }>('GET', '/api/wol/online')).online[dev.key]).toBe('online');
    await host.exec('sh', ['-c', 'for i in $(ls /sys/class/net); do [ "$i" = lo ] || ip link set "$i" down; done']);
    await new Promise((r) => setTimeout(r, 3100));
    expect((await d.call<{ online: Record<string, string> }>('GET', '/api/wol/online')).online[dev.key]).toBe('offline');
  });
});

describe('wol shutdown: a command run here or a URL called', () => {
  let d: TestDaemon;
  let work: string;
  const EN = { headers: { 'lucky-lang': 'en_US' } };
  type Shut = { ret: number; msg: string; ok: boolean; exitCode: number | null; httpStatus: number | null; output: string; truncated: boolean };
  beforeAll(async () => {
    d = await startTestDaemon();
    work = mkdtempSync(join(tmpdir(), 'lucky-wol-shutdown-'));
  });
  afterAll(async () => {
    await d.close();
    rmSync(work, { recursive: true, force: true });
  });
  const device = async (name: string, shutdown: Record<string, unknown>) => {
    const r = await d.call<{ key: string }>('POST', '/api/wol/rules', { name, macs: ['02:00:00:00:01:01'], checkHost: '192.0.2.7', shutdown });
    expect(r.ret, r.msg).toBe(0);
    return r.key;
  };
  const shut = (key: string, o = EN) => d.call('POST', `/api/wol/rules/${key}/shutdown`, undefined, o) as Promise<Shut>;
  const logs = async (key: string, o = EN) => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/wol/rules/${key}/logs`, undefined, o)).logs.map((l) => l.log);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  it('runs the command with the device in its environment: exit code, output, the device log', async () => {
    const file = join(work, 'off.txt');
    const key = await device('desk', { kind: 'command', command: `printf '%s %s %s' "$LUCKY_DEVICE" "$LUCKY_MAC" "$LUCKY_HOST" > ${file}; echo powering off` });
    const r = await shut(key);
    expect(r).toMatchObject({ ret: 0, ok: true, exitCode: 0, httpStatus: null, output: 'powering off\n', truncated: false, msg: 'shutdown: command exited with code 0' });
    expect(readFileSync(file, 'utf8')).toBe('desk 02:00:00:00:01:01 192.0.2.7');
    expect((await logs(key)).slice(-2)).toEqual([expect.stringMatching(/shutdown: command exited with code 0$/), expect.stringMatching(/shutdown output: powering off$/)]);
    // The same line for a Chinese reader.
    expect((await logs(key, { headers: {} } as never)).slice(-2)[0]).toMatch(/关机：命令退出，退出码 0$/);
    // A failing command: still an answer (ret 0) with its code and output, logged as a failure.
    const bad = await device('failing', { kind: 'command', command: 'echo no route to host >&2; exit 3' });
    expect(await shut(bad)).toMatchObject({ ret: 0, ok: false, exitCode: 3, output: 'no route to host\n', msg: 'shutdown failed: command exited with code 3' });
    expect((await logs(bad)).some((l) => l.endsWith('shutdown failed: command exited with code 3'))).toBe(true);
  });

  it('kills the whole process group at the timeout, children included', async () => {
    const pidFile = join(work, 'child.pid');
    const key = await device('hangs', { kind: 'command', command: `sleep 60 & echo $! > ${pidFile}; echo waiting; sleep 60`, timeout: 1 });
    const t0 = Date.now();
    const r = await shut(key);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(r).toMatchObject({ ret: 0, ok: false, exitCode: null, output: 'waiting\n', msg: 'shutdown failed: command timed out (1 s): its whole process group was killed' });
    const child = Number(readFileSync(pidFile, 'utf8'));
    expect(child).toBeGreaterThan(1);
    // The background sleep (the shell's child) is gone as well (TERM at once, KILL a second later at most).
    for (let i = 0; i < 40 && alive(child); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive(child)).toBe(false);
  });

  it('keeps the output bounded: its beginning and its end', async () => {
    const key = await device('chatty', { kind: 'command', command: `printf 'FIRST'; head -c 200000 /dev/zero | tr '\\0' y; printf 'LAST'` });
    const r = await shut(key);
    expect(r).toMatchObject({ ok: true, truncated: true });
    expect(r.output.length).toBeLessThan(16 * 1024 + 100);
    expect(r.output.startsWith('FIRSTyyy')).toBe(true);
    expect(r.output.endsWith('yyyLAST')).toBe(true);
    expect(r.output).toMatch(/\[… \d+ bytes …\]/);
  });

  it('calls the shutdown URL with the device\'s values, judged by the status', async () => {
    const got: Array<{ method: string; url: string; body: string }> = [];
    const srv: HttpServer = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        got.push({ method: req.method!, url: req.url!, body });
        res.statusCode = req.url!.startsWith('/broken') ? 500 : 200;
        res.end('shutting down');
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    try {
      const key = await device('nas', { kind: 'url', url: `${base}/off?mac=#{mac}`, method: 'POST', body: '{"device":"#{deviceName}"}' });
      expect(await shut(key)).toMatchObject({ ret: 0, ok: true, httpStatus: 200, exitCode: null, output: 'shutting down', msg: 'shutdown: HTTP 200' });
      // Values in a URL are encoded as the DDNS webhook encodes them.
      expect(got[0]).toEqual({ method: 'POST', url: '/off?mac=02%3A00%3A00%3A00%3A01%3A01', body: '{"device":"nas"}' });
      const broken = await device('broken', { kind: 'url', url: `${base}/broken` });
      const r = await shut(broken);
      expect(r).toMatchObject({ ret: 0, ok: false, httpStatus: 500 });
      expect(r.msg).toMatch(/^shutdown failed: request failed: .*500/);
      expect(got.map((g) => g.method)).toEqual(['POST', 'GET']);
      // Nobody listening: no status at all.
      const nobody = await device('nobody', { kind: 'url', url: `http://127.0.0.1:${await (await import('../../test/harness.js')).freePort()}/`, timeout: 2 });
      expect(await shut(nobody)).toMatchObject({ ret: 0, ok: false, httpStatus: null });
    } finally {
      srv.close();
    }
  });

  it('the shutdown command and URL are secrets: masked in answers and backups without secrets, kept when the mask comes back', async () => {
    const got: string[] = [];
    const srv: HttpServer = createHttpServer((req, res) => {
      got.push(req.url!);
      res.end('off');
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(srv.address() as { port: number }).port}`;
    const stored = (key: string) =>
      (JSON.parse(d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'wol' AND key = ?").get(key)!.data) as { shutdown: Record<string, string> }).shutdown;
    type View = { rule: Record<string, unknown> & { shutdown: Record<string, unknown> } };
    try {
      const byUrl = await device('by url', { kind: 'url', url: `${base}/off?token=url-token-1`, method: 'POST' });
      const byCommand = await device('by command', { kind: 'command', command: 'echo cmd-token-2 >/dev/null; echo done' });
      const one = await d.call<View>('GET', `/api/wol/rules/${byUrl}`);
      expect(one.rule.shutdown).toMatchObject({ kind: 'url', url: '******', command: '' });
      const list = JSON.stringify(await d.call('GET', '/api/wol/rules'));
      expect(list).not.toMatch(/url-token-1|cmd-token-2/);
      expect(list).toContain('******');
      // The view sent back as it is (an edit of the name): the stored URL and command stay and still work.
      const { key: _k, status: _s, created: _c, updated: _u, lastWake: _l, ...input } = one.rule;
      expect((await d.call('PUT', `/api/wol/rules/${byUrl}`, { ...input, name: 'by url, renamed' }, EN)).ret).toBe(0);
      expect(stored(byUrl).url).toBe(`${base}/off?token=url-token-1`);
      expect(await shut(byUrl)).toMatchObject({ ret: 0, ok: true, httpStatus: 200 });
      expect(got).toEqual(['/off?token=url-token-1']);
      const cmdView = (await d.call<View>('GET', `/api/wol/rules/${byCommand}`)).rule;
      expect(cmdView.shutdown).toMatchObject({ kind: 'command', command: '******' });
      const { key: _k2, status: _s2, created: _c2, updated: _u2, lastWake: _l2, ...cmdInput } = cmdView;
      expect((await d.call('PUT', `/api/wol/rules/${byCommand}`, { ...cmdInput, note: 'edited' }, EN)).ret).toBe(0);
      expect(stored(byCommand).command).toBe('echo cmd-token-2 >/dev/null; echo done');
      expect(await shut(byCommand)).toMatchObject({ ret: 0, ok: true, exitCode: 0, output: 'done\n' });
      // A mask with nothing stored behind it (a new device) is judged as an empty field.
      const r = await d.call('POST', '/api/wol/rules', { name: 'new', macs: ['02:00:00:00:01:09'], shutdown: { kind: 'url', url: '******' } }, EN);
      expect(r.ret).toBe(1);
      expect(r.msg).toMatch(/shutdown\.url/);
      // Backups: left out without secrets, whole with them.
      const backup = async (secrets: 0 | 1) => (await d.runtime.app.inject({ method: 'GET', url: `/api/configure?secrets=${secrets}`, headers: { 'lucky-admin-token': d.token } })).body;
      const without = await backup(0);
      expect(without).not.toMatch(/url-token-1|cmd-token-2/);
      expect(await backup(1)).toContain('url-token-1');
      expect(await backup(1)).toContain('cmd-token-2');
    } finally {
      srv.close();
    }
  });

  it('refuses bad shutdown settings and saves nothing; no shutdown set is a clear refusal', async () => {
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/wol/rules')).list.length;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ kind: 'command', command: '  ' }, /shutdown\.command.*cannot be empty/],
      [{ kind: 'url', url: 'ftp://host/off' }, /shutdown\.url.*not a valid http\(s\) URL/],
      [{ kind: 'url', url: '' }, /shutdown\.url/],
      [{ kind: 'command', command: 'true', timeout: 0 }, /shutdown\.timeout/],
      [{ kind: 'command', command: 'true', timeout: 601 }, /shutdown\.timeout/],
      [{ kind: 'command', command: 'true', timeout: 'soon' }, /shutdown\.timeout/],
      [{ kind: 'reboot' }, /shutdown\.kind/],
    ];
    for (const [shutdown, msg] of cases) {
      const r = await d.call('POST', '/api/wol/rules', { name: 'bad', macs: ['02:00:00:00:01:02'], shutdown }, EN);
      expect(r.ret, JSON.stringify(shutdown)).toBe(1);
      expect(r.msg).toMatch(msg);
    }
    expect((await d.call<{ list: unknown[] }>('GET', '/api/wol/rules')).list.length).toBe(before);
    // An edit with a bad shutdown leaves the stored device as it was.
    const key = await device('kept', { kind: 'command', command: 'true' });
    expect((await d.call('PUT', `/api/wol/rules/${key}`, { name: 'kept', macs: ['02:00:00:00:01:01'], shutdown: { kind: 'command', command: '' } }, EN)).ret).toBe(1);
    const stored = d.runtime.db.prepare<[string], { data: string }>("SELECT data FROM rules WHERE module = 'wol' AND key = ?").get(key)!;
    expect((JSON.parse(stored.data) as { shutdown: { command: string } }).shutdown.command).toBe('true');
    const none = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'wake only', macs: ['02:00:00:00:01:03'] });
    expect(await shut(none.key)).toMatchObject({ ret: 1, msg: 'the device has no shutdown command or URL' });
    expect((await d.call('PUT', `/api/wol/rules/${key}/enable`, { enable: false })).ret).toBe(0);
    expect(await shut(key)).toMatchObject({ ret: 6, msg: 'The rule is switched off' });
  });
});
