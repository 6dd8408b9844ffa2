/**
 * The SFTP rule's edges, with ssh2's own client speaking raw SFTP (paths no OpenSSH client would
 * send as they are): a port in use is the rule's error; bad input is refused with nothing saved;
 * `..`, backslashes and system paths stay inside the tree; a read-only storage refuses writes;
 * connection and per-user limits; and the lock-out shared with the console, which a correct key
 * does not get round either.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import ssh2, { type SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { ALL, EN, makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { keyPair, makeSftp, ruleView } from './testing/clients.js';

interface Session {
  conn: ssh2.Client;
  sftp: SFTPWrapper;
}

/** Logs in with ssh2's client; rejects with the client's error (a refused login, a closed connection). */
function connect(port: number, login: { username: string; password?: string; privateKey?: Buffer }): Promise<Session> {
  return new Promise((resolve, reject) => {
    const conn = new ssh2.Client();
    conn.on('error', reject);
    conn.on('close', () => reject(new Error('closed')));
    conn.on('ready', () => conn.sftp((err, sftp) => (err ? reject(err) : resolve({ conn, sftp }))));
    conn.connect({ host: '127.0.0.1', port, readyTimeout: 10_000, ...login });
  });
}

const call = <T>(f: (cb: (err: Error | null | undefined, v: T) => void) => void) =>
  new Promise<T>((resolve, reject) => f((err, v) => (err ? reject(err) : resolve(v))));

describe('SFTP rules: input, paths, limits', () => {
  let d: TestDaemon;
  let store: string;
  let storage: string;
  let roStorage: string;
  let port: number;
  let key: string;

  beforeAll(async () => {
    d = await startTestDaemon();
    store = tempDir('sftp-rules');
    storage = await makeStorage(d, { name: 'files', path: store });
    roStorage = await makeStorage(d, { name: 'ro', readOnly: true });
    writeFileSync(join(store, 'hello.txt'), 'hello');
    await setStorageUsers(d, [{ account: 'alice', password: 'alice-pw', permissions: { [storage]: ALL, [roStorage]: ALL } }]);
    ({ port, key } = await makeSftp(d, { mounts: [{ name: 'files', storage }, { name: 'ro', storage: roStorage }], maxConnections: 3, maxPerUser: 2 }));
  }, 30_000);

  afterAll(() => d?.close());

  it('refuses bad input in the caller’s language and saves nothing', async () => {
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/sftpserver/rules', undefined, EN)).list.length;
    const none = await d.call('POST', '/api/sftpserver/rules', { name: 'x', port: await freePort(), mounts: [{ name: '', storage }], passwordLogin: false, keyLogin: false }, EN);
    expect(none).toMatchObject({ ret: expect.any(Number), msg: expect.stringContaining('allow at least one way to log in') });
    expect(none.ret).not.toBe(0);
    const unknown = await d.call('POST', '/api/sftpserver/rules', { name: 'y', port: await freePort(), mounts: [{ name: '', storage: 'nosuchstorage' }] }, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(unknown.ret).not.toBe(0);
    expect(unknown.msg).toContain('不存在');
    expect((await d.call<{ list: unknown[] }>('GET', '/api/sftpserver/rules', undefined, EN)).list.length).toBe(before);
    // A public key line with options is refused, not stripped of them.
    const k = await keyPair(tempDir('sftp-keys'), 'opt');
    const opts = await d.call('PUT', '/api/storage/configure', { users: [{ account: 'zed', password: 'zed-pw', publicKeys: `from="10.0.0.1" ${k.pub}` }] }, EN);
    expect(opts).toMatchObject({ msg: expect.stringContaining('cannot start with options') });
  });

  it('shows a port in use as the rule’s error', async () => {
    const busy: Server = createServer();
    const taken = await freePort();
    await new Promise<void>((r) => busy.listen(taken, '127.0.0.1', () => r()));
    try {
      const r = await d.call<{ key: string }>('POST', '/api/sftpserver/rules', { name: 'busy', address: '127.0.0.1', port: taken, mounts: [{ name: '', storage }] }, EN);
      expect(r.ret).toBe(0);
      let v = await ruleView(d, r.key);
      for (let i = 0; i < 200 && v.status?.state !== 'error'; i++) {
        await new Promise((res) => setTimeout(res, 25));
        v = await ruleView(d, r.key);
      }
      expect(v.status?.state).toBe('error');
      expect(JSON.stringify(v.status)).toContain(String(taken));
      await d.call('DELETE', `/api/sftpserver/rules/${r.key}`, undefined, EN);
    } finally {
      busy.close();
    }
  });

  it('keeps every path inside the tree', async () => {
    const s = await connect(port, { username: 'alice', password: 'alice-pw' });
    try {
      expect(await call<Buffer>((cb) => s.sftp.readFile('/files/hello.txt', cb))).toEqual(Buffer.from('hello'));
      for (const p of ['/files/../../../../etc/passwd', '/etc/passwd', '/files/..\\..\\etc\\passwd', '../../etc/hostname', '/files/%2e%2e/%2e%2e/etc/passwd']) {
        await expect(call<Buffer>((cb) => s.sftp.readFile(p, cb)), p).rejects.toThrow();
      }
      expect(await call<string>((cb) => s.sftp.realpath('/files/../../..', cb))).toBe('/');
      // The virtual root lists the mounts and takes no files.
      const names = (await call<Array<{ filename: string }>>((cb) => s.sftp.readdir('/', cb))).map((e) => e.filename).sort();
      expect(names).toEqual(['files', 'ro']);
      await expect(call((cb) => s.sftp.writeFile('/rootfile', 'x', cb))).rejects.toThrow(/no such file/i);
      await expect(call((cb) => s.sftp.mkdir('/newmount', cb))).rejects.toThrow();
      // A read-only storage: listing yes, writing no.
      await expect(call((cb) => s.sftp.writeFile('/ro/new.txt', 'x', cb))).rejects.toThrow(/read-only|denied/i);
      await expect(call((cb) => s.sftp.mkdir('/ro/dir', cb))).rejects.toThrow();
      // Symlinks cannot be made.
      await expect(call((cb) => s.sftp.symlink('/files/hello.txt', '/files/link', cb))).rejects.toThrow(/cannot be made/i);
    } finally {
      s.conn.end();
    }
  });

  it('holds the connection and per-user limits', async () => {
    const a = await connect(port, { username: 'alice', password: 'alice-pw' });
    const b = await connect(port, { username: 'alice', password: 'alice-pw' });
    try {
      await expect(connect(port, { username: 'alice', password: 'alice-pw' })).rejects.toThrow();
      const v = await ruleView(d, key);
      expect(v.figures.sessions).toBe(2);
    } finally {
      a.conn.end();
      b.conn.end();
    }
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/sftpserver/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log).join('\n');
    expect(logs).toContain('user alice already has 2 connections');
  });
});

describe('SFTP logins share the console lock-out', () => {
  let d: TestDaemon;
  let port: number;
  let aliceKey: Buffer;

  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: { freeFailures: 2, baseLockSeconds: 60, globalFailuresPerMinute: 10000 } });
    const storage = await makeStorage(d);
    const k = await keyPair(tempDir('sftp-lock'), 'alice');
    const { readFileSync } = await import('node:fs');
    aliceKey = readFileSync(k.file);
    await setStorageUsers(d, [{ account: 'alice', password: 'alice-pw', permissions: { [storage]: ALL }, publicKeys: k.pub }]);
    ({ port } = await makeSftp(d, { mounts: [{ name: '', storage }] }));
  }, 30_000);

  afterAll(() => d?.close());

  it('locks the address after wrong passwords: the right key is refused, and so is the console', async () => {
    // The key works before.
    (await connect(port, { username: 'alice', privateKey: aliceKey })).conn.end();
    for (let i = 0; i < 3; i++) await expect(connect(port, { username: 'alice', password: 'wrong' })).rejects.toThrow();
    await expect(connect(port, { username: 'alice', privateKey: aliceKey })).rejects.toThrow();
    await expect(connect(port, { username: 'alice', password: 'alice-pw' })).rejects.toThrow();
    const consoleLogin = await d.call('POST', '/api/login', { Account: 'admin', Password: 'whatever' }, { token: null, remoteAddress: '127.0.0.1', ...EN });
    expect(consoleLogin).toMatchObject({ ret: 2, msg: expect.stringContaining('Too many failed logins') });
  });
});
