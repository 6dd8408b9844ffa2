/**
 * WebDAV rules over the API: what cannot work is refused with a clear message and nothing is saved
 * (overlapping mounts, a storage that does not exist, a taken port, a bad certificate); a port taken
 * by another program is the rule's error status, not a crash; HTTPS, the path prefix and anonymous
 * access work with real clients.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCert } from '../../test/certs.js';
import { EN, makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { freePort, makeDav, ruleView, startTestDaemon, type TestDaemon } from './testing/daemon.js';
import { dav } from './testing/http.js';

function curl(args: string[]): Promise<string> {
  return new Promise((resolve) => execFile('curl', ['-s', ...args], { timeout: 20_000 }, (_e, out) => resolve(out)));
}

describe('WebDAV rules', () => {
  let d: TestDaemon;
  let base: string;
  let s1: string;
  let s2: string;
  const list = async () => (await d.call<{ list: Array<{ key: string }> }>('GET', '/api/webdav/rules')).list;

  beforeAll(async () => {
    d = await startTestDaemon();
    base = tempDir('rules');
    mkdirSync(join(base, 'a'));
    mkdirSync(join(base, 'b'));
    writeFileSync(join(base, 'a', 'hello.txt'), 'hello');
    s1 = await makeStorage(d, { name: 'a', path: join(base, 'a') });
    s2 = await makeStorage(d, { name: 'b', path: join(base, 'b') });
    await setStorageUsers(d, [{ account: 'alice', password: 'pw', permissions: { [s1]: { read: true, write: true, delete: true }, [s2]: { read: true } } }], { enable: true, storages: [s1] });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses rules that cannot work, saying why, and saves nothing', async () => {
    const port = await freePort();
    const good = { name: 'x', address: '127.0.0.1', port, mounts: [{ name: 'a', storage: s1 }] };
    const cert = makeCert(base, 'c', ['dav.test']);
    const other = makeCert(base, 'o', ['other.test']);
    const before = await list();
    const cases: Array<[object, RegExp]> = [
      [{ ...good, mounts: [{ name: 'a', storage: s1 }, { name: 'A', storage: s2 }] }, /mount names repeat/],
      [{ ...good, mounts: [{ name: '', storage: s1 }, { name: 'b', storage: s2 }] }, /mount names repeat, or a root mount/],
      [{ ...good, mounts: [{ name: 'a', storage: 'nosuchstorage' }] }, /storage nosuchstorage does not exist/],
      [{ ...good, mounts: [{ name: 'a/b', storage: s1 }] }, /mount name cannot contain/],
      [{ ...good, mounts: [] }, /mounts.*cannot be empty/],
      [{ ...good, prefix: '/a b' }, /path prefix/],
      [{ ...good, tls: true }, /https needs at least one certificate/],
      [{ ...good, tls: true, certs: [{ cert: 'not a certificate', key: 'nor a key' }] }, /certificate 1: /],
      [{ ...good, tls: true, certs: [{ cert: cert.cert, key: other.key }] }, /certificate 1: the private key does not belong to the certificate/],
    ];
    for (const [body, msg] of cases) {
      const r = await d.call<{ msg: string }>('POST', '/api/webdav/rules', body, EN);
      expect(r.ret, JSON.stringify(body).slice(0, 80)).not.toBe(0);
      expect(r.msg).toMatch(msg);
    }
    expect(await list()).toEqual(before);

    // A port another rule holds.
    const first = await makeDav(d, { ...good, name: 'first' });
    const taken = await d.call<{ msg: string }>('POST', '/api/webdav/rules', { ...good, name: 'second' }, EN);
    expect(taken).toMatchObject({ ret: 6, msg: `Not saved: tcp 127.0.0.1:${port} is taken by the WebDAV rule "first"` });
    expect((await list()).length).toBe(before.length + 1);
    expect((await d.call('DELETE', `/api/webdav/rules/${first.key}`)).ret).toBe(0);
  });

  it('shows a port taken by another program as the rule error, and serves once it is free', async () => {
    const port = await freePort();
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    const r = await d.call<{ key: string }>('POST', '/api/webdav/rules', { name: 'squatted', address: '127.0.0.1', port, mounts: [{ name: '', storage: s1 }] }, EN);
    expect(r.ret).toBe(0);
    let v = await ruleView(d, r.key);
    for (let i = 0; i < 100 && v.status?.state !== 'error'; i++) {
      await new Promise((res) => setTimeout(res, 25));
      v = await ruleView(d, r.key);
    }
    expect(v.status).toMatchObject({ state: 'error', message: `port ${port} in use (127.0.0.1:${port})` });
    await new Promise<void>((res) => squatter.close(() => res()));
    // The runtime retries; the next start finds the port free.
    expect((await d.call('PUT', `/api/webdav/rules/${r.key}/enable`, { enable: false })).ret).toBe(0);
    expect((await d.call('PUT', `/api/webdav/rules/${r.key}/enable`, { enable: true })).ret).toBe(0);
    for (let i = 0; i < 100 && v.status?.state !== 'running'; i++) {
      await new Promise((res) => setTimeout(res, 25));
      v = await ruleView(d, r.key);
    }
    expect(v.status?.state).toBe('running');
    expect((await dav(port, 'GET', '/hello.txt', { auth: ['alice', 'pw'] })).body).toBe('hello');
    expect((await d.call('DELETE', `/api/webdav/rules/${r.key}`)).ret).toBe(0);
  });

  it('serves HTTPS under a path prefix', async () => {
    const cert = makeCert(base, 'tls', ['dav.test']);
    const { url, key } = await makeDav(d, { tls: true, certs: [{ cert: cert.cert, key: cert.key }], prefix: '/dav', mounts: [{ name: 'a', storage: s1 }, { name: 'b', storage: s2 }] });
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/dav\/$/);
    expect(await curl(['-k', '-u', 'alice:pw', `${url}a/hello.txt`])).toBe('hello');
    const listing = await curl(['-k', '-u', 'alice:pw', '-X', 'PROPFIND', '-H', 'Depth: 1', url]);
    expect(listing).toContain('<D:href>/dav/a/</D:href>');
    expect(listing).toContain('<D:href>/dav/b/</D:href>');
    expect(await curl(['-k', '-o', '/dev/null', '-w', '%{http_code}', '-u', 'alice:pw', url.replace('/dav/', '/a/hello.txt')])).toBe('404');
    expect((await ruleView(d, key)).url).toBe(url.replace('127.0.0.1', '127.0.0.1'));
    expect((await d.call('DELETE', `/api/webdav/rules/${key}`)).ret).toBe(0);
  });

  it('serves a certificate of the store by name and swaps in its replacement while a connection stays open', async () => {
    const first = makeCert(base, 'store1', ['dav.test']);
    const second = makeCert(base, 'store2', ['dav.test']);
    const stored = await d.call<{ key: string }>('POST', '/api/acme/rules', { name: 'dav-cert', source: 'pem', cert: first.cert, privateKey: first.key }, EN);
    expect(stored.ret, stored.msg).toBe(0);
    const { port, key } = await makeDav(d, { tls: true, certs: [{ source: 'store', cert: 'dav-cert' }], mounts: [{ name: 'a', storage: s1 }] });
    const peer = async () => {
      const s = tlsConnect({ host: '127.0.0.1', port, servername: 'dav.test', rejectUnauthorized: false });
      await new Promise((r) => s.once('secureConnect', r));
      return { s, fp: s.getPeerCertificate().fingerprint256 };
    };
    const open = await peer();
    expect(open.fp).toBe(new X509Certificate(first.cert).fingerprint256);
    expect((await d.call('PUT', `/api/acme/rules/${stored.key}`, { name: 'dav-cert', source: 'pem', cert: second.cert, privateKey: second.key }, EN)).ret).toBe(0);
    const want = new X509Certificate(second.cert).fingerprint256;
    let now = await peer();
    for (let i = 0; i < 100 && now.fp !== want; i++) {
      now.s.destroy();
      await new Promise((r) => setTimeout(r, 50));
      now = await peer();
    }
    expect(now.fp).toBe(want);
    // The connection made before the swap is still there.
    expect(open.s.destroyed).toBe(false);
    open.s.write('GET /a/hello.txt HTTP/1.1\r\nHost: dav.test\r\nAuthorization: Basic ' + Buffer.from('alice:pw').toString('base64') + '\r\n\r\n');
    const answer = await new Promise<string>((r) => open.s.once('data', (b: Buffer) => r(b.toString())));
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    open.s.destroy();
    now.s.destroy();
    expect((await d.call('DELETE', `/api/webdav/rules/${key}`)).ret).toBe(0);
  });

  it('lets the anonymous user read the storages it is given, and nothing more', async () => {
    const { port, key } = await makeDav(d, { mounts: [{ name: 'a', storage: s1 }, { name: 'b', storage: s2 }] });
    expect((await dav(port, 'GET', '/a/hello.txt')).body).toBe('hello');
    expect((await dav(port, 'PUT', '/a/anon.txt', { body: 'x' })).status).toBe(403);
    expect((await dav(port, 'GET', '/b/')).status).toBe(404);
    const root = await dav(port, 'PROPFIND', '/', { headers: { depth: '1' } });
    expect(root.body).toContain('/a/');
    expect(root.body).not.toContain('/b/');
    expect((await d.call('DELETE', `/api/webdav/rules/${key}`)).ret).toBe(0);
  });
});
