import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK, type PortforwardRuleView } from '@lucky/contracts';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { tcpEcho, tcpExchange, tcpHold, waitFor, type TcpPeer } from './testing/testkit.js';

type List = { list: PortforwardRuleView[] };

describe('portforward module over the API', () => {
  let d: TestDaemon;
  let backend: TcpPeer;

  beforeAll(async () => {
    d = await startTestDaemon();
    backend = await tcpEcho('127.0.0.1', 0, 'api:');
  });
  afterAll(async () => {
    await d.close();
    await backend.close();
  });

  it('creates a rule that forwards at once, lists it with figures, edits, disables and deletes it', async () => {
    const port = await freePort();
    const created = await d.call<{ key: string }>('POST', '/api/portforward/rules', {
      name: 'echo',
      types: ['tcp4'],
      listenHost: '127.0.0.1',
      listenPorts: String(port),
      targets: ['127.0.0.1'],
      targetPorts: String(backend.port),
    });
    expect(created.ret).toBe(0);
    expect((await tcpExchange(port, 'one')).reply.toString()).toBe('api:one');
    const held = tcpHold(port);
    await held.connected;

    let list = await d.call<List>('GET', '/api/portforward/rules');
    expect(await waitFor(async () => {
      list = await d.call<List>('GET', '/api/portforward/rules');
      return list.list[0]?.stats.tcpConnections === 1;
    })).toBe(true);
    expect(list.list).toHaveLength(1);
    expect(list.list[0]).toMatchObject({
      key: created.key,
      name: 'echo',
      status: { state: 'running' },
      limits: { tcpMaxConnections: null },
      stats: { tcpConnections: 1, totalConnections: 2, bytesIn: 3, listeners: 1 },
    });
    held.socket.destroy();

    // Edit: a second port; the first keeps working.
    const port2 = await freePort();
    const upd = await d.call('PUT', `/api/portforward/rules/${created.key}`, {
      name: 'echo2',
      types: ['tcp4'],
      listenHost: '127.0.0.1',
      listenPorts: `${port},${port2}`,
      targets: ['127.0.0.1'],
      targetPorts: String(backend.port),
    });
    expect(upd.ret).toBe(0);
    expect((await tcpExchange(port2, 'two')).reply.toString()).toBe('api:two');
    expect((await tcpExchange(port, 'three')).reply.toString()).toBe('api:three');

    // Every line in the reader's language: the log keeps message keys and values.
    const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/portforward/rules/${created.key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    const en = logs.logs.map((l) => l.log.slice(20));
    expect(en).toEqual(expect.arrayContaining([`listening on tcp 127.0.0.1:${port} → port ${backend.port}`, '1 of 1 listener(s) running', 'started', 'changes applied']));
    expect(en).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^closed: 127\\.0\\.0\\.1:\\d+ → 127\\.0\\.0\\.1:${backend.port}, in 3 B, out 7 B$`))]));
    expect(en.some((l) => l.includes('[object'))).toBe(false);
    const zh = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/portforward/rules/${created.key}/logs`)).logs.map((l) => l.log.slice(20));
    expect(zh).toEqual(expect.arrayContaining([`正在监听 tcp 127.0.0.1:${port} → 端口 ${backend.port}`, '1 个监听中 1 个正在运行', '已启动', '修改已生效']));
    expect(zh.length).toBe(en.length);
    // No English reaches a Chinese reader (protocol names and byte units aside).
    expect(zh.filter((l) => /[a-z]{3,}/i.test(l.replace(/\b(tcp|udp)\b/g, '')))).toEqual([]);

    expect((await d.call('PUT', `/api/portforward/rules/${created.key}/enable`, { enable: false })).ret).toBe(0);
    const one = await d.call<{ rule: PortforwardRuleView }>('GET', `/api/portforward/rules/${created.key}`);
    expect(one.rule.status.state).toBe('disabled');
    expect((await tcpExchange(port, 'x')).reply.length).toBe(0);

    expect((await d.call('PUT', `/api/portforward/rules/${created.key}/enable`, { enable: true })).ret).toBe(0);
    expect((await tcpExchange(port, 'back')).reply.toString()).toBe('api:back');

    expect((await d.call('DELETE', `/api/portforward/rules/${created.key}`)).ret).toBe(0);
    expect((await d.call('GET', `/api/portforward/rules/${created.key}`)).ret).toBe(3);
    expect((await tcpExchange(port, 'gone')).reply.length).toBe(0);
  });

  it('rejects bad rules with a clear message and saves nothing', async () => {
    const before = await d.call<List>('GET', '/api/portforward/rules');
    const good = { name: 'x', types: ['tcp'], listenPorts: '8080', targets: ['127.0.0.1'], targetPorts: '80' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...good, listenPorts: '0' }, 'port must be between 1 and 65535'],
      [{ ...good, listenPorts: '70000' }, 'port must be between 1 and 65535'],
      [{ ...good, listenPorts: '10-5' }, 'a port range must not start above its end'],
      [{ ...good, listenPorts: '80,81', targetPorts: '90,91,92' }, 'target ports must be as many as the listening ports'],
      [{ ...good, listenPorts: '80;81' }, 'invalid port list'],
      [{ ...good, types: [] }, 'choose at least one forwarding type'],
      [{ ...good, listenPorts: '' }, 'cannot be empty'],
      [{ ...good, targets: [] }, 'cannot be empty'],
      [{ ...good, targetPorts: '' }, 'cannot be empty'],
      [{ ...good, targets: ['not a host'] }, 'is not a valid IP address or domain name'],
      [{ ...good, filter: { mode: 'whitelist', list: ['10.0.0.0/33'] } }, 'is not a valid IP address or range'],
      [{ ...good, tls: { listen: true, cert: 'x', key: 'y' } }, 'is not a PEM certificate'],
    ];
    for (const [body, text] of cases) {
      const r = await d.call('POST', '/api/portforward/rules', body, { headers: { 'lucky-lang': 'en_US' } });
      expect(r.ret, JSON.stringify(body)).toBe(1);
      expect(r.msg, JSON.stringify(body)).toContain(text);
    }
    const zh = await d.call('POST', '/api/portforward/rules', { ...good, listenPorts: '10-5' });
    expect(zh).toMatchObject({ ret: 1 });
    expect(zh.msg).toContain('端口范围');
    const after = await d.call<List>('GET', '/api/portforward/rules');
    expect(after.list).toHaveLength(before.list.length);
  });

  it('refuses a certificate that does not match its key, saving nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-pair-'));
    try {
      const gen = (name: string) =>
        execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
          '-keyout', join(dir, `${name}.key`), '-out', join(dir, `${name}.crt`), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore', timeout: 20_000 });
      gen('a');
      gen('b');
      const cert = readFileSync(join(dir, 'a.crt'), 'utf8');
      const before = await d.call<List>('GET', '/api/portforward/rules');
      const bad = { name: 'tls', types: ['tcp'], listenPorts: '8443', targets: ['127.0.0.1'], targetPorts: '80', enable: false,
        tls: { listen: true, cert, key: readFileSync(join(dir, 'b.key'), 'utf8') } };
      const r = await d.call('POST', '/api/portforward/rules', bad, { headers: { 'lucky-lang': 'en_US' } });
      expect(r.ret).toBe(1);
      expect(r.msg).toMatch(/^The certificate and key cannot be used together/);
      expect((await d.call<List>('GET', '/api/portforward/rules')).list).toHaveLength(before.list.length);
      const good = await d.call('POST', '/api/portforward/rules', { ...bad, tls: { ...bad.tls, key: readFileSync(join(dir, 'a.key'), 'utf8') } });
      expect(good.ret).toBe(0);
      expect((await d.call('DELETE', `/api/portforward/rules/${good.key as string}`)).ret).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps the TLS key secret: masked in answers, kept when the mask comes back, refused with nothing stored behind it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pf-secret-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
        '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore', timeout: 20_000 });
      const cert = readFileSync(join(dir, 'c.pem'), 'utf8');
      const key = readFileSync(join(dir, 'k.pem'), 'utf8');
      const port = await freePort();
      const body = { name: 'tls in', types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(port), targets: ['127.0.0.1'], targetPorts: String(backend.port), tls: { listen: true, cert, key } };
      const created = await d.call<{ key: string }>('POST', '/api/portforward/rules', body);
      expect(created.ret).toBe(0);
      const shown = (await d.call<{ rule: PortforwardRuleView }>('GET', `/api/portforward/rules/${created.key}`)).rule;
      expect(shown.tls).toMatchObject({ listen: true, cert, key: SECRET_MASK });
      expect(JSON.stringify(await d.call('GET', '/api/portforward/rules'))).not.toContain('PRIVATE KEY');

      // The form sends back what it was shown: the stored key stays, and TLS still answers.
      const { key: _k, status: _s, created: _c, updated: _u, stats: _f, ...edited } = shown;
      expect((await d.call('PUT', `/api/portforward/rules/${created.key}`, { ...edited, note: 'edited' })).ret).toBe(0);
      const reply = await new Promise<string>((resolve, reject) => {
        const s = tlsConnect({ port, host: '127.0.0.1', ca: cert, servername: 'localhost' }, () => s.end('x'));
        let text = '';
        s.on('data', (c: Buffer) => (text += c.toString()));
        s.on('error', reject);
        s.on('close', () => resolve(text));
      });
      expect(reply).toBe('api:x');

      // A mask with no key stored behind it is no key at all.
      const before = (await d.call<List>('GET', '/api/portforward/rules')).list.length;
      const r = await d.call('POST', '/api/portforward/rules', { ...body, listenPorts: String(await freePort()), tls: { listen: true, cert, key: SECRET_MASK } }, { headers: { 'lucky-lang': 'en_US' } });
      expect(r).toMatchObject({ ret: 1, msg: expect.stringContaining('is not a PEM private key') });
      expect((await d.call<List>('GET', '/api/portforward/rules')).list).toHaveLength(before);
      const logs = await d.call<{ logs: Array<{ log: string }> }>('GET', '/api/logs?pre=0');
      expect(JSON.stringify(logs)).not.toContain('PRIVATE KEY');
      expect((await d.call('DELETE', `/api/portforward/rules/${created.key}`)).ret).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows a port in use as the rule status', async () => {
    const r = await d.call<{ key: string }>('POST', '/api/portforward/rules', {
      name: 'busy',
      types: ['tcp4'],
      listenHost: '127.0.0.1',
      listenPorts: String(backend.port),
      targets: ['127.0.0.1'],
      targetPorts: '9',
    });
    expect(r.ret).toBe(0);
    // In the caller's language, like every message of the API.
    const en = await d.call<{ rule: PortforwardRuleView }>('GET', `/api/portforward/rules/${r.key}`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(en.rule.status.state).toBe('error');
    expect(en.rule.status.message).toBe(`port ${backend.port} in use (tcp 127.0.0.1:${backend.port})`);
    expect(en.rule.stats).toMatchObject({ listeners: 0, listenersWanted: 1 });
    const zh = await d.call<{ list: PortforwardRuleView[] }>('GET', '/api/portforward/rules', undefined, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zh.list.find((x) => x.key === r.key)?.status.message).toBe(`端口 ${backend.port} 已被占用（tcp 127.0.0.1:${backend.port}）`);
    const log = await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/portforward/rules/${r.key}/logs`, undefined, { headers: { 'lucky-lang': 'en_US' } });
    expect(log.logs.map((l) => l.log.slice(20))).toEqual([`could not start: port ${backend.port} in use (tcp 127.0.0.1:${backend.port})`, 'retrying in 5 s']);
    expect((await d.call('DELETE', `/api/portforward/rules/${r.key}`)).ret).toBe(0);
  });

  it('reads and writes the module settings; limits apply at once', async () => {
    const got = await d.call<{ configure: Record<string, unknown> }>('GET', '/api/portforward/configure');
    expect(got.configure).toMatchObject({ tcpMaxConnections: 0, udpSessionTimeout: 60, connectTimeout: 5 });
    expect((await d.call('PUT', '/api/portforward/configure', { ruleTcpMaxConnections: 1 })).ret).toBe(0);
    expect((await d.call('PUT', '/api/portforward/configure', { udpSessionTimeout: 0 })).ret).toBe(1);
    const port = await freePort();
    const r = await d.call<{ key: string }>('POST', '/api/portforward/rules', {
      name: 'limited',
      types: ['tcp4'],
      listenPorts: String(port),
      targets: ['127.0.0.1'],
      targetPorts: String(backend.port),
    });
    const a = tcpHold(port);
    await a.connected;
    const rule = async () => (await d.call<{ rule: PortforwardRuleView }>('GET', `/api/portforward/rules/${r.key}`)).rule;
    expect(await waitFor(async () => (await rule()).stats.tcpConnections === 1)).toBe(true);
    const b = tcpHold(port);
    await b.closed;
    expect((await rule()).stats.refusedByLimit).toBe(1);
    a.socket.destroy();
    expect((await d.call('PUT', '/api/portforward/configure', { ruleTcpMaxConnections: 0 })).ret).toBe(0);
    expect((await d.call('DELETE', `/api/portforward/rules/${r.key}`)).ret).toBe(0);
  });

  it('appears in the OpenAPI document', async () => {
    const doc = await d.call<{ paths: Record<string, unknown> }>('GET', '/api/openapi.json');
    expect(Object.keys(doc.paths ?? {})).toEqual(expect.arrayContaining([expect.stringContaining('/api/portforward/rules')]));
  });
});
