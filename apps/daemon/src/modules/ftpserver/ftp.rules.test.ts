/**
 * FTP rules over the API and FTPS: what cannot work is refused with a clear message in the
 * caller's language and nothing is saved (a bad passive range, a range another rule holds, a bad
 * certificate, an unknown storage or DDNS task); a port taken by another program is the rule's
 * error status, not a crash; explicit FTPS (AUTH TLS, PROT P) with the certificate checked by curl
 * and lftp, TLS required before login, implicit FTPS; connection limits and the idle timeout.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCert } from '../../test/certs.js';
import { EN, makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { freePort, freeRange, lftp, makeFtp, run, startTestDaemon, waitState, type TestDaemon } from './testing/daemon.js';

const ZH = { headers: { 'lucky-lang': 'zh_CN' } };

function firstLine(port: number, lines: string[] = []): Promise<string[]> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    let buf = '';
    const got: string[] = [];
    s.setEncoding('utf8');
    s.on('data', (c: string) => {
      buf += c;
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        got.push(buf.slice(0, nl).trimEnd());
        buf = buf.slice(nl + 1);
        const next = lines.shift();
        if (next !== undefined) s.write(`${next}\r\n`);
      }
    });
    s.on('close', () => resolve(got));
    s.on('error', () => resolve(got));
    setTimeout(() => s.destroy(), 8000);
  });
}

describe('FTP rules and FTPS', () => {
  let d: TestDaemon;
  let base: string;
  let s1: string;
  const list = async () => (await d.call<{ list: Array<{ key: string }> }>('GET', '/api/ftpserver/rules')).list;

  beforeAll(async () => {
    d = await startTestDaemon();
    base = tempDir('rules');
    mkdirSync(join(base, 'a'));
    writeFileSync(join(base, 'a', 'hello.txt'), 'hello');
    s1 = await makeStorage(d, { name: 'a', path: join(base, 'a') });
    await setStorageUsers(d, [{ account: 'alice', password: 'pw', permissions: { [s1]: { read: true, write: true, delete: true } } }]);
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses rules that cannot work, saying why in the caller language, and saves nothing', async () => {
    const port = await freePort();
    const [pasvMin, pasvMax] = await freeRange();
    const good = { name: 'x', address: '127.0.0.1', port, pasvMin, pasvMax, mounts: [{ name: '', storage: s1 }] };
    const cert = makeCert(base, 'c', ['ftp.test']);
    const other = makeCert(base, 'o', ['other.test']);
    const before = await list();
    const cases: Array<[object, RegExp, RegExp]> = [
      [{ ...good, pasvMin: 50100, pasvMax: 50000 }, /first passive port cannot be above the last/, /起始端口不能大于结束端口/],
      [{ ...good, pasvMin: 40000, pasvMax: 45000 }, /at most 2000 ports/, /最多 2000 个端口/],
      [{ ...good, pasvMin: port, pasvMax: port + 5 }, /control port cannot lie inside the passive range/, /控制端口不能在被动端口范围之内/],
      [{ ...good, pasvMin: 0 }, /port/i, /端口/],
      [{ ...good, pasvMode: 'fixed', pasvAddress: 'example.com' }, /fixed passive address must be an IPv4/, /IPv4/],
      [{ ...good, pasvMode: 'ddns', pasvDdnsTask: 'nosuchtask' }, /DDNS task nosuchtask does not exist/, /DDNS 任务 nosuchtask 不存在/],
      [{ ...good, mounts: [{ name: '', storage: 'nosuchstorage' }] }, /storage nosuchstorage does not exist/, /存储 nosuchstorage 不存在/],
      [{ ...good, tls: 'explicit' }, /FTPS needs at least one certificate/, /FTPS 至少需要一个证书/],
      [{ ...good, requireTls: true }, /needs explicit FTPS/, /显式 FTPS/],
      [{ ...good, tls: 'explicit', certs: [{ cert: 'not a certificate', key: 'nor a key' }] }, /certificate 1: /, /证书 1：/],
      [{ ...good, tls: 'explicit', certs: [{ cert: cert.cert, key: other.key }] }, /certificate 1: the private key does not belong to the certificate/, /证书 1：/],
      [{ ...good, maxConnections: 2, maxPerUser: 3 }, /connections per user cannot be more/, /每个用户的连接数/],
    ];
    for (const [body, en, zh] of cases) {
      const r = await d.call<{ msg: string }>('POST', '/api/ftpserver/rules', body, EN);
      expect(r.ret, JSON.stringify(body).slice(0, 120)).not.toBe(0);
      expect(r.msg).toMatch(en);
      const z = await d.call<{ msg: string }>('POST', '/api/ftpserver/rules', body, ZH);
      expect(z.msg).toMatch(zh);
    }
    expect(await list()).toEqual(before);

    // The control port or one passive port another rule holds.
    const first = await makeFtp(d, { ...good, name: 'first' });
    const port2 = await freePort();
    const taken = await d.call<{ msg: string }>('POST', '/api/ftpserver/rules', { ...good, name: 'second', port: port2, pasvMin: pasvMax, pasvMax: pasvMax + 3 }, EN);
    expect(taken).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${pasvMax} is taken by the FTP rule "first"` });
    const taken2 = await d.call<{ msg: string }>('POST', '/api/ftpserver/rules', { ...good, name: 'third', pasvMin: pasvMax + 10, pasvMax: pasvMax + 12 }, EN);
    expect(taken2).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the FTP rule "first"` });
    expect((await list()).length).toBe(before.length + 1);
    expect((await d.call('DELETE', `/api/ftpserver/rules/${first.key}`)).ret).toBe(0);
  });

  it('shows a port taken by another program as the rule error, and serves once it is free', async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    const [pasvMin, pasvMax] = await freeRange();
    const r = await d.call<{ key: string }>('POST', '/api/ftpserver/rules', { name: 'squatted', address: '127.0.0.1', port, pasvMin, pasvMax, mounts: [{ name: '', storage: s1 }] }, EN);
    expect(r.ret).toBe(0);
    let v = await waitState(d, r.key, 'error');
    expect(v.status).toMatchObject({ state: 'error', message: `port ${port} in use (127.0.0.1:${port})` });
    await new Promise<void>((res) => squatter.close(() => res()));
    expect((await d.call('PUT', `/api/ftpserver/rules/${r.key}/enable`, { enable: false })).ret).toBe(0);
    expect((await d.call('PUT', `/api/ftpserver/rules/${r.key}/enable`, { enable: true })).ret).toBe(0);
    v = await waitState(d, r.key, 'running');
    expect(v.status?.state).toBe('running');
    expect((await lftp(port, ['alice', 'pw'], 'cat /hello.txt')).out).toBe('hello');
    expect((await d.call('DELETE', `/api/ftpserver/rules/${r.key}`)).ret).toBe(0);
  });

  it('serves explicit FTPS with the certificate checked, and requires TLS before login when asked', async () => {
    const cert = makeCert(base, 'tls', ['localhost']);
    const wrong = makeCert(base, 'wrong', ['localhost']);
    const { port, key } = await makeFtp(d, { tls: 'explicit', requireTls: true, certs: [{ cert: cert.cert, key: cert.key }], mounts: [{ name: '', storage: s1 }] });
    const curl = (args: string[]) => run('curl', ['-sS', '--max-time', '30', '--resolve', `localhost:${port}:127.0.0.1`, '-u', 'alice:pw', ...args]);
    const ok = await curl(['--ssl-reqd', '--cacert', cert.certFile, `ftp://localhost:${port}/hello.txt`]);
    expect(ok.err).toBe('');
    expect(ok.out).toBe('hello');
    // Uploads over TLS, data protected (curl sends PBSZ 0, PROT P).
    const up = await curl(['--ssl-reqd', '--cacert', cert.certFile, '-T', join(base, 'a', 'hello.txt'), `ftp://localhost:${port}/copy.txt`]);
    expect(up.code).toBe(0);
    expect((await curl(['--ssl-reqd', '--cacert', cert.certFile, `ftp://localhost:${port}/copy.txt`])).out).toBe('hello');
    // Another CA: curl refuses the server.
    const bad = await curl(['--ssl-reqd', '--cacert', wrong.certFile, `ftp://localhost:${port}/hello.txt`]);
    expect(bad.code).toBe(60);
    // Without TLS the server refuses the login.
    const plain = await curl([`ftp://localhost:${port}/hello.txt`]);
    expect(plain.code).not.toBe(0);
    expect(await firstLine(port, ['USER alice', 'QUIT'])).toEqual(['220 Lucky FTP server ready.', '530 Sessions must use encryption (AUTH TLS) before login.', '221 Goodbye.']);
    // lftp: AUTH TLS, PROT P, listing and download with the chain checked.
    const l = await lftp(port, ['alice', 'pw'], 'cls -1 /; cat /hello.txt', { tls: true, cafile: cert.certFile });
    expect(l.err).toBe('');
    expect(l.out).toBe('/copy.txt\n/hello.txt\nhello');
    expect((await d.call('DELETE', `/api/ftpserver/rules/${key}`)).ret).toBe(0);
  });

  it('serves a certificate of the store by name (explicit and implicit FTPS) and swaps in its replacement', async () => {
    const first = makeCert(base, 'store1', ['localhost']);
    const second = makeCert(base, 'store2', ['localhost']);
    const stored = await d.call<{ key: string }>('POST', '/api/acme/rules', { name: 'ftp-cert', source: 'pem', cert: first.cert, privateKey: first.key });
    expect(stored.ret, stored.msg).toBe(0);
    const certs = [{ source: 'store' as const, cert: 'ftp-cert' }];
    const explicit = await makeFtp(d, { tls: 'explicit', certs, mounts: [{ name: '', storage: s1 }] });
    const implicit = await makeFtp(d, { tls: 'implicit', certs, mounts: [{ name: '', storage: s1 }] });
    const get = (port: number, scheme: string, ca: string) =>
      run('curl', ['-sS', '--max-time', '30', '--resolve', `localhost:${port}:127.0.0.1`, '-u', 'alice:pw', ...(scheme === 'ftp' ? ['--ssl-reqd'] : []), '--cacert', ca, `${scheme}://localhost:${port}/hello.txt`]);
    expect((await get(explicit.port, 'ftp', first.certFile)).out).toBe('hello');
    expect((await get(implicit.port, 'ftps', first.certFile)).out).toBe('hello');
    expect((await d.call('PUT', `/api/acme/rules/${stored.key}`, { name: 'ftp-cert', source: 'pem', cert: second.cert, privateKey: second.key })).ret).toBe(0);
    for (const [port, scheme] of [[explicit.port, 'ftp'], [implicit.port, 'ftps']] as const) {
      let r = await get(port, scheme, second.certFile);
      for (let i = 0; i < 50 && r.out !== 'hello'; i++) {
        await new Promise((res) => setTimeout(res, 100));
        r = await get(port, scheme, second.certFile);
      }
      expect(r.out).toBe('hello');
      expect((await get(port, scheme, first.certFile)).code).toBe(60);
    }
    for (const k of [explicit.key, implicit.key]) expect((await d.call('DELETE', `/api/ftpserver/rules/${k}`)).ret).toBe(0);
  });

  it('serves implicit FTPS', async () => {
    const cert = makeCert(base, 'imp', ['localhost']);
    const { port, key } = await makeFtp(d, { tls: 'implicit', certs: [{ cert: cert.cert, key: cert.key }], mounts: [{ name: '', storage: s1 }] });
    const r = await run('curl', ['-sS', '--max-time', '30', '--resolve', `localhost:${port}:127.0.0.1`, '-u', 'alice:pw', '--cacert', cert.certFile, `ftps://localhost:${port}/hello.txt`]);
    expect(r.err).toBe('');
    expect(r.out).toBe('hello');
    expect((await d.call('DELETE', `/api/ftpserver/rules/${key}`)).ret).toBe(0);
  });

  it('stops an upload at the storage quota (552), keeping the storage within it', async () => {
    const q = join(base, 'q');
    mkdirSync(q);
    const qs = await makeStorage(d, { name: 'q', path: q, quota: 100_000 });
    await setStorageUsers(d, [{ account: 'alice', password: 'pw', permissions: { [s1]: { read: true, write: true, delete: true }, [qs]: { read: true, write: true, delete: true } } }]);
    const { key, port } = await makeFtp(d, { mounts: [{ name: '', storage: qs }] });
    writeFileSync(join(base, 'big.bin'), Buffer.alloc(300_000, 7));
    writeFileSync(join(base, 'small.bin'), Buffer.alloc(50_000, 7));
    const curl = (args: string[]) => run('curl', ['-sS', '--max-time', '30', '-u', 'alice:pw', ...args]);
    expect((await curl(['-T', join(base, 'small.bin'), `ftp://127.0.0.1:${port}/small.bin`])).code).toBe(0);
    const big = await curl(['-T', join(base, 'big.bin'), `ftp://127.0.0.1:${port}/big.bin`]);
    expect(big.code).not.toBe(0);
    expect(big.err).toMatch(/\(70\) Exceeded storage allocation/);
    const { statSync } = await import('node:fs');
    expect(statSync(join(q, 'small.bin')).size).toBe(50_000);
    // The room is what the storages service knows: its usage walk may not have counted small.bin yet.
    expect(statSync(join(q, 'big.bin')).size).toBeLessThanOrEqual(100_000);
    expect((await d.call('DELETE', `/api/ftpserver/rules/${key}`)).ret).toBe(0);
  });

  it('limits connections in total and per user, and closes idle sessions', async () => {
    const { port, key } = await makeFtp(d, { maxConnections: 2, maxPerUser: 1, idleTimeout: 10, mounts: [{ name: '', storage: s1 }] });
    const a = connect(port, '127.0.0.1');
    const b = connect(port, '127.0.0.1');
    await new Promise((r) => setTimeout(r, 300));
    expect(await firstLine(port)).toEqual(['421 Too many connections, try again later.']);
    a.destroy();
    b.destroy();
    await new Promise((r) => setTimeout(r, 300));
    // One session of alice is allowed; the second login is refused.
    const s = connect(port, '127.0.0.1');
    s.write('USER alice\r\nPASS pw\r\n');
    await new Promise((r) => setTimeout(r, 300));
    expect(await firstLine(port, ['USER alice', 'PASS pw'])).toEqual(['220 Lucky FTP server ready.', '331 Please specify the password.', '421 Too many connections for this user.']);
    // The idle session is closed after its timeout.
    const closed = await new Promise<string>((resolve) => {
      let got = '';
      s.setEncoding('utf8');
      s.on('data', (c: string) => (got += c));
      s.on('close', () => resolve(got));
    });
    expect(closed).toMatch(/421 Timeout, closing control connection\.\r\n$/);
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/ftpserver/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log).join('\n');
    expect(logs).toMatch(/refused: 2 connections already open/);
    expect(logs).toMatch(/user alice already has 1 connections/);
    expect(logs).toMatch(/\(alice\) was idle too long/);
    expect((await d.call('DELETE', `/api/ftpserver/rules/${key}`)).ret).toBe(0);
  }, 30_000);
});
