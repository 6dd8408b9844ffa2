/**
 * The STUN module over the API, on loopback: a real STUN server (coturn), real sockets, the real
 * daemon. Without a NAT the public address is the local one; what a NAT adds is in stun.lab.test.ts.
 */
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StunRuleView } from '@lucky/contracts';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { receiver, waitFor, type Receiver } from '../../lib/dns/testing/fakes.js';
import { startCoturn, type Coturn } from '../../test/coturn.js';

const en = { headers: { 'lucky-lang': 'en_US' } };

describe('stun module over the API (loopback)', () => {
  let d: TestDaemon;
  let coturn: Coturn;
  let hook: Receiver;
  let keepalive: Receiver;
  let echoTcp: Server;
  let echoUdp: ReturnType<typeof createSocket>;
  let dir: string;
  let server: string;

  beforeAll(async () => {
    coturn = await startCoturn({ listen: ['127.0.0.1'] });
    server = `127.0.0.1:${coturn.port}`;
    hook = await receiver();
    keepalive = await receiver();
    echoTcp = createServer((s) => s.on('error', () => undefined).pipe(s));
    await new Promise<void>((r) => echoTcp.listen(0, '127.0.0.1', r));
    echoUdp = createSocket('udp4');
    echoUdp.on('message', (m, r) => echoUdp.send(Buffer.concat([Buffer.from('echo:'), m]), r.port, r.address));
    await new Promise<void>((r) => echoUdp.bind(0, '127.0.0.1', r));
    dir = mkdtempSync(join(tmpdir(), 'lucky-stun-'));
    d = await startTestDaemon({ dataDir: join(dir, 'data'), keepDir: true });
    expect((await d.call('PUT', '/api/stun/configure', { stunServers: [server], keepaliveInterval: 5, keepaliveUrl: `${keepalive.url}/ka`, logLines: 32 })).ret).toBe(0);
  });
  afterAll(async () => {
    await d?.close();
    await coturn?.stop();
    await hook?.close();
    await keepalive?.close();
    echoTcp?.close();
    echoUdp?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const rules = async () => (await d.call<{ list: StunRuleView[] }>('GET', '/api/stun/rules', undefined, en)).list;
  const rule = async (key: string) => (await rules()).find((r) => r.key === key)!;
  const published = (key: string) => waitFor(`public address of ${key}`, async () => (await rule(key)).stun.publicAddr ?? undefined);

  it('refuses bad input with a clear error and saves nothing', async () => {
    const good = { name: 'ok', protocol: 'udp', mode: 'forward', targetHost: '127.0.0.1', targetPort: 9, stunServers: [server] };
    expect((await d.call('POST', '/api/stun/rules', { ...good, enable: false })).ret).toBe(0);
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...good, name: 'a', stunServers: ['stun..example.com'] }, /stunServers\[0\].*not a valid STUN server/],
      [{ ...good, name: 'b', stunServers: ['127.0.0.1:99999'] }, /stunServers\[0\].*not a valid STUN server/],
      [{ ...good, name: 'c', targetPort: 0 }, /targetPort.*between 1 and 65535/],
      [{ ...good, name: 'd', targetHost: '' }, /targetHost.*cannot be empty/],
      [{ ...good }, /already taken/],
      [{ ...good, name: 'e', webhook: { enable: true, url: 'ftp://x' } }, /webhook\.url.*not a valid http\(s\) URL/],
      [{ ...good, name: 'f', ddnsTasks: ['nosuchtask'] }, /DDNS task nosuchtask does not exist/],
      [{ ...good, name: 'g', keepaliveUrl: 'https://x/' }, /keepaliveUrl.*must start with http:\/\//],
      [{ ...good, name: 'h', command: { enable: true, line: ' ' } }, /command\.line.*cannot be empty/],
    ];
    for (const [body, msg] of bad) {
      const r = await d.call('POST', '/api/stun/rules', body, en);
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg, JSON.stringify(body)).toMatch(msg);
    }
    const list = await rules();
    expect(list.map((r) => r.name)).toEqual(['ok']);
    await d.call('DELETE', `/api/stun/rules/${list[0]!.key}`);
  });

  it('UDP: learns the address from the STUN server on the same socket that forwards, and announces it once', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'udp-fwd',
      protocol: 'udp',
      listenHost: '127.0.0.1',
      mode: 'forward',
      targetHost: '127.0.0.1',
      targetPort: echoUdp.address().port,
      webhook: { enable: true, method: 'GET', url: `${hook.url}/udp?addr=#{addr}&ip=#{ip}&port=#{port}&local=#{localPort}&proto=#{protocol}&rule=#{ruleName}` },
    });
    expect(created.ret).toBe(0);
    const addr = await published(created.key);
    const view = await rule(created.key);
    expect(view.status.state).toBe('running');
    expect(addr).toBe(`127.0.0.1:${view.stun.localPort}`);
    expect(view.stun.server).toBe(server);
    await waitFor('webhook', () => hook.calls.find((c) => c.url.startsWith('/udp')));
    expect(hook.calls.filter((c) => c.url.startsWith('/udp')).map((c) => c.url)).toEqual([
      `/udp?addr=127.0.0.1%3A${view.stun.localPort}&ip=127.0.0.1&port=${view.stun.localPort}&local=${view.stun.localPort}&proto=udp&rule=udp-fwd`,
    ]);

    // A client's datagram reaches the target through the rule, and the reply comes back.
    const client = createSocket('udp4');
    const reply = new Promise<Buffer>((r) => client.once('message', r));
    client.send('ping', view.stun.localPort!, '127.0.0.1');
    expect((await reply).toString()).toBe('echo:ping');
    client.close();
    await waitFor('figures', async () => ((await rule(created.key)).stun.bytesOut >= 9 ? true : undefined));

    // A recheck finds the same address: nothing is announced again.
    const re = await d.call<{ stun: { publicAddr: string } }>('POST', `/api/stun/rules/${created.key}/recheck`, undefined, en);
    expect(re).toMatchObject({ ret: 0, msg: 'checked again', stun: { publicAddr: addr } });
    expect(hook.calls.filter((c) => c.url.startsWith('/udp'))).toHaveLength(1);

    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/stun/rules/${created.key}/logs`, undefined, en);
    expect(logs.logs.map((l) => l.log).join('\n')).toContain(`public address is ${addr}`);
    const zh = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/stun/rules/${created.key}/logs`);
    expect(zh.logs.map((l) => l.log).join('\n')).toContain(`公网地址为 ${addr}`);
  });

  it('TCP: keeps a connection to the keepalive server from the listening port, and forwards', async () => {
    const before = keepalive.calls.length;
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'tcp-fwd',
      protocol: 'tcp',
      listenHost: '127.0.0.1',
      mode: 'forward',
      targetHost: '127.0.0.1',
      targetPort: (echoTcp.address() as { port: number }).port,
    });
    expect(created.ret).toBe(0);
    const addr = await published(created.key);
    const view = await rule(created.key);
    expect(addr).toBe(`127.0.0.1:${view.stun.localPort}`);
    // The keepalive requests came from the rule's own port (the port the NAT maps).
    const ka = await waitFor('keepalive request', () => keepalive.calls.slice(before).find((c) => c.method === 'HEAD'));
    expect(ka.url).toBe('/ka');
    const c = connect(view.stun.localPort!, '127.0.0.1');
    const got = new Promise<string>((r) => c.once('data', (b) => r(b.toString())));
    c.write('hello');
    expect(await got).toBe('hello');
    c.destroy();
  });

  it('port 0: the system chooses once, and the rule asks for the same port after a restart', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', { name: 'auto', protocol: 'udp', listenHost: '127.0.0.1', mode: 'none' });
    await published(created.key);
    const first = (await rule(created.key)).stun.localPort;
    expect(first).toBeGreaterThan(0);
    await d.close();
    d = await startTestDaemon({ dataDir: join(dir, 'data'), keepDir: true });
    await published(created.key);
    expect((await rule(created.key)).stun.localPort).toBe(first);
    // The address did not change across the restart: the UDP rule's webhook was not called again.
    expect(hook.calls.filter((c) => c.url.startsWith('/udp'))).toHaveLength(1);
  });

  it('a port another rule holds is refused at save, naming the owner', async () => {
    const owner = (await rules()).find((r) => r.name === 'tcp-fwd')!;
    const r = await d.call('POST', '/api/stun/rules', { name: 'clash', protocol: 'tcp', listenHost: '127.0.0.1', localPort: owner.stun.localPort, mode: 'none' }, en);
    // tcp-fwd was saved with port 0; it claimed the port it got, which a fixed port may not take while it runs.
    expect(r).toMatchObject({ ret: 6 });
    expect(r.msg).toMatch(/STUN.*tcp-fwd/);
    const pf = await d.call('POST', '/api/portforward/rules', { name: 'pf', types: ['udp4'], listenHost: '127.0.0.1', listenPorts: String((await rules()).find((x) => x.name === 'udp-fwd')!.stun.localPort), targets: ['127.0.0.1'], targetPorts: '9' }, en);
    expect(pf).toMatchObject({ ret: 6 });
    expect(pf.msg).toMatch(/STUN.*udp-fwd/);
  });

  it('says when no STUN server answers, in the reader\'s language', async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((r) => silent.bind(0, '127.0.0.1', r));
    const dead = `127.0.0.1:${silent.address().port}`;
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', { name: 'silent', protocol: 'udp', listenHost: '127.0.0.1', mode: 'none', stunServers: [dead] });
    const st = await waitFor('error status', async () => {
      const v = await rule(created.key);
      return v.status.state === 'error' ? v.status.message : undefined;
    });
    expect(st).toBe(`no STUN server answered (tried ${dead})`);
    const zh = (await d.call<{ list: StunRuleView[] }>('GET', '/api/stun/rules')).list.find((r) => r.key === created.key)!;
    expect(zh.status.message).toBe(`没有 STUN 服务器应答（已尝试 ${dead}）`);
    silent.close();
    await d.call('DELETE', `/api/stun/rules/${created.key}`);
  });

  it('runs the command with the address in its environment', async () => {
    const out = join(dir, 'cmd.txt');
    const created = await d.call<{ key: string }>('POST', '/api/stun/rules', {
      name: 'cmd',
      protocol: 'udp',
      listenHost: '127.0.0.1',
      mode: 'none',
      command: { enable: true, line: `echo "$LUCKY_STUN_ADDR $LUCKY_STUN_PROTOCOL $LUCKY_STUN_RULE" > ${out}; echo done`, timeout: 5 },
    });
    const addr = await published(created.key);
    await waitFor('command output', () => {
      try {
        return readFileSync(out, 'utf8').trim() || undefined;
      } catch {
        return undefined;
      }
    });
    expect(readFileSync(out, 'utf8').trim()).toBe(`${addr} udp cmd`);
    const logs = await waitFor('command log', async () => {
      const l = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/stun/rules/${created.key}/logs`, undefined, en);
      return l.logs.find((x) => x.log.includes('command ended'))?.log;
    });
    expect(logs).toContain('command ended (exit code 0): done');
  });

  it('NAT test on loopback: no NAT', async () => {
    const r = await d.call<{ result: { verdict: string; publicAddr: string } }>('POST', '/api/stun/nattest', { server, localHost: '127.0.0.1' }, en);
    expect(r.ret).toBe(0);
    expect(r.result.verdict).toMatch(/no NAT/);
  });

  it('forwards the same with the JavaScript relay (LUCKY_NATIVE_RELAY=0), and counts what passed', async () => {
    const js = await startTestDaemon({ env: { nativeRelay: false } });
    try {
      await js.call('PUT', '/api/stun/configure', { stunServers: [server], keepaliveInterval: 5, keepaliveUrl: `${keepalive.url}/ka`, logLines: 32 });
      const list = async () => (await js.call<{ list: StunRuleView[] }>('GET', '/api/stun/rules')).list;
      for (const protocol of ['udp', 'tcp'] as const) {
        const target = protocol === 'udp' ? echoUdp.address().port : (echoTcp.address() as { port: number }).port;
        const made = await js.call<{ key: string }>('POST', '/api/stun/rules', { name: `js-${protocol}`, protocol, listenHost: '127.0.0.1', mode: 'forward', targetHost: '127.0.0.1', targetPort: target });
        expect(made.ret).toBe(0);
        const port = await waitFor('published', async () => {
          const f = (await list()).find((r) => r.key === made.key)!.stun;
          return f.publicAddr ? f.localPort! : undefined;
        });
        if (protocol === 'udp') {
          const client = createSocket('udp4');
          const reply = new Promise<Buffer>((r) => client.once('message', r));
          client.send('ping', port, '127.0.0.1');
          expect((await reply).toString()).toBe('echo:ping');
          client.close();
        } else {
          const c = connect(port, '127.0.0.1');
          const got = new Promise<string>((r) => c.once('data', (b) => r(b.toString())));
          c.write('hello');
          expect(await got).toBe('hello');
          c.destroy();
        }
        const figures = await waitFor('bytes counted', async () => {
          const f = (await list()).find((r) => r.key === made.key)!.stun;
          return f.bytesIn >= 4 && f.bytesOut >= 4 ? f : undefined;
        });
        expect(figures.totalConnections).toBe(1);
      }
    } finally {
      await js.close();
    }
  });

  it('a rule switched off frees its port', async () => {
    const fwd = (await rules()).find((r) => r.name === 'udp-fwd')!;
    const port = fwd.stun.localPort!;
    await d.call('PUT', `/api/stun/rules/${fwd.key}/enable`, { enable: false });
    const s = createSocket('udp4');
    await new Promise<void>((r, j) => {
      s.once('error', j);
      s.bind(port, '127.0.0.1', r);
    });
    s.close();
  });
});
