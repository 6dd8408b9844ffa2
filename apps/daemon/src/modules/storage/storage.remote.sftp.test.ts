/**
 * Remote storages, the SFTP kind, against a real SFTP server: OpenSSH's sshd with its sftp-server
 * on loopback (its own config, host key and authorized_keys; key login), serving a temp directory
 * the test can look into. "Test connection" from the form (the host key's fingerprint reported to
 * pin, a wrong pin refused), the storage running, files written (streamed) and read back (whole
 * and by range) through the storages service, mkdir/rename/removeTree, listings cached but our own
 * changes seen at once, an sshd killed mid-upload (a clear error, nothing under the name) and the
 * connection made again once it is back. Password login is tested against Lucky's own SFTP server
 * (sshd would need PAM or a password on a system account).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageView } from '@lucky/contracts';
import type { RemoteFs, StoragesService } from '../../core/services/storages.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startSshd, type TestSshd } from '../../test/sshd.js';
import { EN, makeStorage, setStorageUsers, storagesOf } from '../../test/storages.js';

const ADMIN = { kind: 'admin', account: 'admin' } as const;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function bytes(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function view(d: TestDaemon, key: string, module = 'storage'): Promise<StorageView> {
  return (await d.call<{ rule: StorageView }>('GET', `/api/${module}/rules/${key}`, undefined, EN)).rule;
}

async function waitState(d: TestDaemon, key: string, state: string, module = 'storage'): Promise<StorageView> {
  let v = await view(d, key, module);
  for (let i = 0; i < 400 && v.status?.state !== state; i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await view(d, key, module);
  }
  return v;
}

type TestRemote = { ok: boolean; msg: string; entries: number; hostKey: string };

describe('a remote SFTP storage (OpenSSH sshd + sftp-server)', () => {
  let d: TestDaemon;
  let sshd: TestSshd;
  let s: StoragesService;
  let fs: RemoteFs;
  let key: string;
  let base: string;
  const sftp = (o: Record<string, unknown> = {}) => ({ host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: sshd.clientKey, hostKey: sshd.fingerprint, root: base, ...o });
  const test = (o: Record<string, unknown>, k?: string) => d.call<TestRemote>('POST', '/api/storage/testremote', { ...(k ? { key: k } : {}), storage: { name: 'ssh', kind: 'sftp', sftp: sftp(o) } }, EN);

  beforeAll(async () => {
    [sshd, d] = await Promise.all([startSshd(), startTestDaemon()]);
    base = join(sshd.root, 'base');
    mkdirSync(base);
    writeFileSync(join(base, 'hello.txt'), 'hello');
    s = await storagesOf(d);
  }, 30_000);

  afterAll(async () => {
    sshd?.kill();
    await d?.close();
  });

  it('tests the connection: the host key seen reported to pin, a wrong pin or key refused', async () => {
    // Nothing pinned yet: refused, and the fingerprint the server showed (as ssh-keygen prints it) answered.
    const first = await test({ hostKey: '' });
    expect(first).toMatchObject({ ret: 0, ok: false, hostKey: sshd.fingerprint, msg: expect.stringContaining('host key fingerprint') });
    const ok = await test({});
    expect(ok).toMatchObject({ ret: 0, ok: true, entries: 1, hostKey: sshd.fingerprint, msg: 'connected: 1 entries at the root' });
    const other = `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`;
    const wrong = await test({ hostKey: other });
    expect(wrong).toMatchObject({ ok: false, hostKey: sshd.fingerprint, msg: `cannot connect: the server's host key is ${sshd.fingerprint}, not ${other} as pinned` });
    const { utils } = (await import('ssh2')).default;
    const stranger = utils.generateKeyPairSync('ed25519').private;
    const badKey = await test({ privateKey: stranger });
    expect(badKey).toMatchObject({ ok: false, msg: expect.stringMatching(/cannot connect: .*authentication/i) });
    const badRoot = await test({ root: join(sshd.root, 'none') });
    expect(badRoot).toMatchObject({ ok: false, msg: expect.stringMatching(/no such file/i) });
  });

  it('runs while the server answers, and serves files through the storages service', async () => {
    const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: 'ssh', kind: 'sftp', sftp: sftp(), cacheSeconds: 2 }, EN);
    expect(r.ret).toBe(0);
    key = r.key;
    expect((await waitState(d, key, 'running')).status?.state).toBe('running');
    // The private key is a secret: masked in answers.
    expect((await view(d, key)).sftp.privateKey).toBe('******');
    expect(s.grant(ADMIN, key)).toBeNull();
    const g = s.grant(ADMIN, key, { remote: true })!;
    fs = g.remote!;
    expect(fs).toBeTruthy();

    expect((await s.read(g, '/hello.txt', 1024))?.data?.toString()).toBe('hello');
    expect(await s.write(g, '/note.txt', Buffer.from('from lucky'))).toMatchObject({ path: '/note.txt', created: true, size: 10 });
    expect(readFileSync(join(base, 'note.txt'), 'utf8')).toBe('from lucky');

    // A streamed upload of a few MiB in uneven chunks; equal by sha256 on the server's disk and read back.
    const big = randomBytes(5 * 1024 * 1024 + 3);
    await fs.mkdir('/sub');
    await fs.write('/sub/big.bin', Readable.from([big.subarray(0, 1e6), big.subarray(1e6, 1e6 + 7), big.subarray(1e6 + 7)]), big.length);
    expect(sha(readFileSync(join(base, 'sub', 'big.bin')))).toBe(sha(big));
    expect(sha(await bytes(await fs.read('/sub/big.bin')))).toBe(sha(big));
    // Overwritten in place of the old one.
    await fs.write('/note.txt', Readable.from([Buffer.from('second')]));
    expect(readFileSync(join(base, 'note.txt'), 'utf8')).toBe('second');
    // Ranges: inclusive ends as HTTP's, an open end to the file's end.
    expect(await bytes(await fs.read('/sub/big.bin', { start: 1000, end: 1999 }))).toEqual(big.subarray(1000, 2000));
    expect(await bytes(await fs.read('/sub/big.bin', { start: big.length - 10 }))).toEqual(big.subarray(big.length - 10));
    await expect(fs.read('/nothing.bin')).rejects.toThrow(/no such file/);
    // A temp name of an upload on its way is never listed.
    writeFileSync(join(base, '.lucky-upload-0123'), 'x');
    const names = (await fs.list('/')).map((e) => `${e.kind}:${e.name}`).sort();
    expect(names).toEqual(['dir:sub', 'file:hello.txt', 'file:note.txt']);
    expect(await fs.stat('/sub/big.bin')).toMatchObject({ kind: 'file', size: big.length });
    expect(await fs.stat('/nothing-here')).toBeNull();
    await expect(s.resolve(g, '/../../etc/passwd', 'read')).rejects.toThrow();
  });

  it('renames, removes trees, and drops its cached listing on its own changes only', async () => {
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['big.bin']);
    await fs.rename('/sub/big.bin', '/sub/moved.bin');
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['moved.bin']);
    writeFileSync(join(base, 'sub', 'outside.txt'), 'x');
    // Still the cached listing: the change was not ours.
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['moved.bin']);
    await fs.mkdir('/sub/deeper');
    await fs.write('/sub/deeper/a.txt', Readable.from([Buffer.from('a')]));
    // Ours: the listing is asked again, and shows the other's file too.
    expect((await fs.list('/sub')).map((e) => e.name).sort()).toEqual(['deeper', 'moved.bin', 'outside.txt']);
    await fs.rename('/sub', '/tree');
    expect(existsSync(join(base, 'tree', 'deeper', 'a.txt'))).toBe(true);
    await fs.removeTree('/tree');
    expect(existsSync(join(base, 'tree'))).toBe(false);
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['hello.txt', 'note.txt']);
    await fs.remove('/note.txt');
    await expect(fs.remove('/note.txt')).rejects.toThrow(/no such file/);
  });

  it('says the remote is down when sshd dies mid-upload, leaving nothing under the name; connects again once it is back', async () => {
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent === 2) {
          // Half way: sshd and its sessions go away.
          sshd.kill();
          sent++;
          setTimeout(() => this.push(randomBytes(1 << 20)), 200);
          return;
        }
        if (sent > 6) return this.push(null);
        sent++;
        this.push(randomBytes(1 << 20));
      },
    });
    await expect(fs.write('/cut.bin', body, 7 << 20)).rejects.toThrow(/remote storage "ssh" cannot be reached/);
    expect(existsSync(join(base, 'cut.bin'))).toBe(false);
    // While it is away, each request fails alone, clearly.
    await expect(fs.list('/')).rejects.toThrow(/remote storage "ssh" cannot be reached: .*ECONNREFUSED/);
    const zh = await d.call<TestRemote>('POST', '/api/storage/testremote', { key, storage: { name: 'ssh', kind: 'sftp', sftp: sftp({ privateKey: '******' }) } }, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zh).toMatchObject({ ok: false, msg: expect.stringContaining('无法连接') });
    // Back on the same port: the next request connects again, and the cut upload's temp file is swept.
    await sshd.start();
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['hello.txt']);
    expect(await test({ privateKey: '******' }, key)).toMatchObject({ ok: true });
    for (let i = 0; i < 80 && readdirSync(base).some((n) => n.startsWith('.lucky-upload-') && n !== '.lucky-upload-0123'); i++) await new Promise((r) => setTimeout(r, 25));
    expect(readdirSync(base).sort()).toEqual(['.lucky-upload-0123', 'hello.txt']);
    await fs.write('/after.txt', Readable.from([Buffer.from('back')]));
    expect(readFileSync(join(base, 'after.txt'), 'utf8')).toBe('back');
  });

  it('logs in with a password (against Lucky’s own SFTP server, over a local storage)', async () => {
    const local = await makeStorage(d, { name: 'behind' });
    await setStorageUsers(d, [{ account: 'pw', password: 'pw-secret-1', permissions: { [local]: { read: true, write: true, delete: true } } }]);
    const port = await freePort();
    const r = await d.call<{ key: string }>('POST', '/api/sftpserver/rules', { name: 'own', address: '127.0.0.1', port, mounts: [{ name: '', storage: local }] }, EN);
    expect(r.ret).toBe(0);
    expect((await waitState(d, r.key, 'running', 'sftpserver')).status?.state).toBe('running');
    const pw = (o: Record<string, unknown>) => test({ port, username: 'pw', privateKey: '', password: 'pw-secret-1', root: '/', ...o });
    const { hostKey } = await pw({ hostKey: '' });
    expect(hostKey).toMatch(/^SHA256:/);
    expect(await pw({ hostKey })).toMatchObject({ ok: true, entries: 0 });
    expect(await pw({ hostKey, password: 'wrong-one' })).toMatchObject({ ok: false, msg: expect.stringMatching(/authentication/i) });
  });
});
