import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET_MASK, type StorageView } from '@lucky/contracts';
import { STORAGE_TEMP_PREFIX, type StorageGrant, type StoragesService } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { ALL, makeStorage, READ, setStorageUsers, storagesOf, tempDir } from '../../test/storages.js';

const en = { headers: { 'lucky-lang': 'en_US' } };

async function view(d: TestDaemon, key: string): Promise<StorageView> {
  return (await d.call<{ rule: StorageView }>('GET', `/api/storage/rules/${key}`, undefined, en)).rule;
}

describe('storage management over the API', () => {
  let d: TestDaemon;
  const dirs: string[] = [];
  const dir = () => {
    const p = tempDir();
    dirs.push(p);
    return p;
  };

  beforeAll(async () => {
    d = await startTestDaemon();
  });
  afterAll(async () => {
    await d.close();
    for (const p of dirs) rmSync(p, { recursive: true, force: true });
  });

  it('creates, shows usage, edits and deletes a storage', async () => {
    const path = dir();
    writeFileSync(join(path, 'a.bin'), Buffer.alloc(1000));
    mkdirSync(join(path, 'sub'));
    writeFileSync(join(path, 'sub', 'b.bin'), Buffer.alloc(234));
    const key = await makeStorage(d, { name: 'Photos', path, quota: 10_000 });
    let v = await view(d, key);
    expect(v).toMatchObject({ name: 'Photos', path, readOnly: false, quota: 10_000, status: { state: 'running' } });
    expect(v.usage.fsTotal).toBeGreaterThan(0);
    expect(v.usage.usedBy).toEqual([]);
    // The walk runs in the background: the first look may not know yet.
    for (let i = 0; i < 100 && v.usage.used === null; i++) {
      await new Promise((r) => setTimeout(r, 20));
      v = await view(d, key);
    }
    expect(v.usage.used).toBe(1234);
    expect(v.usage.usedAt).toBeGreaterThan(0);

    const other = dir();
    expect((await d.call('PUT', `/api/storage/rules/${key}`, { name: 'Photos 2', path: other, readOnly: true })).ret).toBe(0);
    expect(await view(d, key)).toMatchObject({ name: 'Photos 2', path: other, readOnly: true, status: { state: 'running' } });
    expect((await d.call('DELETE', `/api/storage/rules/${key}`)).ret).toBe(0);
    expect((await d.call('GET', `/api/storage/rules/${key}`)).ret).toBe(3);
  });

  it('refuses a directory that is missing, a file, a relative path, and saves nothing', async () => {
    const before = (await d.call<{ list: unknown[] }>('GET', '/api/storage/rules')).list.length;
    const file = join(dir(), 'file.txt');
    writeFileSync(file, 'x');
    const missing = join(dir(), 'nope');
    expect(await d.call('POST', '/api/storage/rules', { name: 'm', path: missing }, en)).toMatchObject({ ret: 1, msg: `the directory does not exist: ${missing}` });
    expect(await d.call('POST', '/api/storage/rules', { name: 'f', path: file }, en)).toMatchObject({ ret: 1, msg: `not a directory: ${file}` });
    expect(await d.call('POST', '/api/storage/rules', { name: 'r', path: 'relative/dir' }, en)).toMatchObject({ ret: 1, msg: expect.stringContaining('absolute path') });
    expect((await d.call('POST', '/api/storage/rules', { name: 'q', path: dir(), quota: 0 })).ret).toBe(1);
    expect((await d.call<{ list: unknown[] }>('GET', '/api/storage/rules')).list.length).toBe(before);
    // An edit to a missing directory leaves the stored storage as it was.
    const path = dir();
    const key = await makeStorage(d, { path });
    expect((await d.call('PUT', `/api/storage/rules/${key}`, { name: 'x', path: missing })).ret).toBe(1);
    expect((await view(d, key)).path).toBe(path);
  });

  it('shows an error status while the directory is gone', async () => {
    const path = dir();
    const key = await makeStorage(d, { path });
    rmSync(path, { recursive: true });
    // Switching it off and on again starts it anew: the engine finds nothing there.
    await d.call('PUT', `/api/storage/rules/${key}/enable`, { enable: false });
    await d.call('PUT', `/api/storage/rules/${key}/enable`, { enable: true });
    const v = await view(d, key);
    expect(v.status.state).toBe('error');
    expect(v.status.message).toContain('does not exist');
    expect(v.usage).toMatchObject({ fsTotal: 0, used: null });
  });

  it('checks a directory for the form', async () => {
    const path = dir();
    writeFileSync(join(path, 'f'), 'x');
    expect(await d.call('POST', '/api/storage/checkpath', { path }, en)).toMatchObject({ ret: 0, exists: true, directory: true, writable: true, msg: 'the directory can be used' });
    expect(await d.call('POST', '/api/storage/checkpath', { path: join(path, 'f') }, en)).toMatchObject({ ret: 0, exists: true, directory: false });
    expect(await d.call('POST', '/api/storage/checkpath', { path: join(path, 'nope') }, en)).toMatchObject({ ret: 0, exists: false, directory: false });
    expect(await d.call('POST', '/api/storage/checkpath', { path: 'rel' }, en)).toMatchObject({ ret: 0, exists: false, msg: expect.stringContaining('absolute') });
  });

  it('hashes and masks passwords, keeps them when the mask comes back, refuses bad and duplicate accounts', async () => {
    const key = await makeStorage(d, { path: dir() });
    await setStorageUsers(d, [{ account: 'alice', password: 'pw-alice-1', permissions: { [key]: ALL } }]);
    const got = await d.call<{ configure: { users: Array<{ account: string; password: string }> } }>('GET', '/api/storage/configure');
    expect(got.configure.users[0]).toMatchObject({ account: 'alice', password: SECRET_MASK });
    const stored = d.runtime.db.prepare("SELECT data FROM module_settings WHERE module = 'storage'").get() as { data: string };
    expect(stored.data).not.toContain('pw-alice-1');
    expect(stored.data).toMatch(/scrypt\$/);

    // The mask sent back keeps the password; a note changes.
    expect((await d.call('PUT', '/api/storage/configure', { users: [{ ...got.configure.users[0], note: 'hi' }] })).ret).toBe(0);
    const s = await storagesOf(d);
    expect(await s.login({ account: 'alice', password: 'pw-alice-1', ip: '10.0.0.1', service: 'test' })).toEqual({ kind: 'user', account: 'alice' });

    expect((await d.call('PUT', '/api/storage/configure', { users: [{ account: 'bad account', password: 'x' }] }, en)).ret).toBe(1);
    expect((await d.call('PUT', '/api/storage/configure', { users: [{ account: 'a/b', password: 'x' }] }, en)).ret).toBe(1);
    expect((await d.call('PUT', '/api/storage/configure', { users: [{ account: 'new', password: SECRET_MASK }] }, en)).ret).toBe(1);
    expect(
      (await d.call('PUT', '/api/storage/configure', { users: [{ account: 'Bob', password: 'x' }, { account: 'bob', password: 'y' }] }, en)).ret,
    ).toBe(1);
    // Nothing of the refused writes was kept.
    expect(await s.login({ account: 'alice', password: 'pw-alice-1', ip: '10.0.0.1', service: 'test' })).not.toBeNull();
  });

  it('logs in only enabled users with the right password', async () => {
    const key = await makeStorage(d, { path: dir() });
    await setStorageUsers(d, [
      { account: 'carol', password: 'carol-pw', permissions: { [key]: READ } },
      { account: 'dave', password: 'dave-pw', enable: false, permissions: { [key]: READ } },
    ]);
    const s = await storagesOf(d);
    const at = { ip: '10.0.0.2', service: 'test' };
    expect(await s.login({ account: 'carol', password: 'carol-pw', ...at })).toEqual({ kind: 'user', account: 'carol' });
    expect(await s.login({ account: 'carol', password: 'wrong', ...at })).toBeNull();
    expect(await s.login({ account: 'carol', password: '', ...at })).toBeNull();
    expect(await s.login({ account: 'nobody', password: 'carol-pw', ...at })).toBeNull();
    expect(await s.login({ account: 'dave', password: 'dave-pw', ...at })).toBeNull();
    // A switched-off user sees nothing even with a principal taken before.
    expect(s.grants({ kind: 'user', account: 'dave' })).toEqual([]);
  });

  it('trusts a verified login for a while, but not past a change of the users', async () => {
    const key = await makeStorage(d, { path: dir() });
    await setStorageUsers(d, [{ account: 'erin2', password: 'first-pw', permissions: { [key]: READ } }]);
    const s = await storagesOf(d);
    const at = { ip: '10.0.0.7', service: 'test' };
    expect(await s.login({ account: 'erin2', password: 'first-pw', ...at })).toEqual({ kind: 'user', account: 'erin2' });
    expect(await s.login({ account: 'erin2', password: 'first-pw', ...at })).toEqual({ kind: 'user', account: 'erin2' });
    expect(await s.login({ account: 'erin2', password: 'first-pw!', ...at })).toBeNull();
    // The password changed (the users saved again): the old one is refused at once, the new one works.
    await setStorageUsers(d, [{ account: 'erin2', password: 'second-pw', permissions: { [key]: READ } }]);
    expect(await s.login({ account: 'erin2', password: 'first-pw', ...at })).toBeNull();
    expect(await s.login({ account: 'erin2', password: 'second-pw', ...at })).toEqual({ kind: 'user', account: 'erin2' });
    // Switched off: refused at once too, trusted or not.
    await setStorageUsers(d, [{ account: 'erin2', password: 'second-pw', enable: false, permissions: { [key]: READ } }]);
    expect(await s.login({ account: 'erin2', password: 'second-pw', ...at })).toBeNull();
  });

  it('answers logins sent at once with one check each, and no old password after a change under way', async () => {
    const key = await makeStorage(d, { path: dir() });
    await setStorageUsers(d, [{ account: 'fay', password: 'fay-pw-1', permissions: { [key]: READ } }]);
    const s = await storagesOf(d);
    const at = { ip: '10.0.0.8', service: 'test' };
    const burst = (password: string) => Promise.all(Array.from({ length: 16 }, () => s.login({ account: 'fay', password, ...at })));
    expect(await burst('fay-pw-1')).toEqual(Array(16).fill({ kind: 'user', account: 'fay' }));
    expect(await burst('wrong-pw')).toEqual(Array(16).fill(null));
    // A new password saved while checks of the old one are under way: those answer for the users
    // they began with, and the old password is not trusted afterwards.
    const inFlight = burst('fay-pw-9');
    await setStorageUsers(d, [{ account: 'fay', password: 'fay-pw-9', permissions: { [key]: READ } }]);
    await inFlight;
    expect(await s.login({ account: 'fay', password: 'fay-pw-1', ...at })).toBeNull();
    expect(await s.login({ account: 'fay', password: 'fay-pw-9', ...at })).toEqual({ kind: 'user', account: 'fay' });
  });

  it('gives each user the storages of their permissions; read-only storages never grant write or delete; admin sees all', async () => {
    const aPath = dir();
    const a = await makeStorage(d, { name: 'A', path: aPath });
    const b = await makeStorage(d, { name: 'B', path: dir(), readOnly: true });
    const c = await makeStorage(d, { name: 'C', path: dir() });
    await d.call('PUT', `/api/storage/rules/${c}/enable`, { enable: false });
    await setStorageUsers(d, [
      { account: 'erin', password: 'pw', permissions: { [a]: ALL, [b]: ALL, [c]: ALL } },
      { account: 'frank', password: 'pw', permissions: { [a]: READ } },
    ]);
    const s = await storagesOf(d);
    const erin = s.grants({ kind: 'user', account: 'erin' });
    expect(erin.map((g) => g.name).sort()).toEqual(['A', 'B']);
    expect(erin.find((g) => g.name === 'A')!.can).toEqual(ALL);
    expect(erin.find((g) => g.name === 'B')!.can).toEqual(READ);
    const frank = s.grants({ kind: 'user', account: 'frank' });
    expect(frank.map((g) => [g.name, g.can])).toEqual([['A', READ]]);
    expect(s.grant({ kind: 'user', account: 'frank' }, b)).toBeNull();
    await expect(s.resolve(frank[0]!, '/x.txt', 'write')).rejects.toMatchObject({ msg: { key: 'storageDenied' } });
    await expect(s.resolve(erin.find((g) => g.name === 'B')!, '/x.txt', 'write')).rejects.toMatchObject({ msg: { key: 'storageReadOnly' } });
    const admin = s.grants({ kind: 'admin', account: 'admin' });
    expect(admin.map((g) => g.name)).toEqual(expect.arrayContaining(['A', 'B']));
    expect(admin.map((g) => g.name)).not.toContain('C');
    expect(admin.find((g) => g.name === 'B')!.can).toEqual(READ);

    // A grant taken before the storage was made read-only no longer writes.
    const before = erin.find((g) => g.name === 'A')!;
    await d.call('PUT', `/api/storage/rules/${a}`, { name: 'A', path: aPath, readOnly: true });
    await expect(s.resolve(before, '/x.txt', 'write')).rejects.toMatchObject({ msg: { key: 'storageReadOnly' } });
    await d.call('PUT', `/api/storage/rules/${a}/enable`, { enable: false });
    await expect(s.resolve(before, '/x.txt', 'read')).rejects.toMatchObject({ msg: { key: 'storageDisabled' } });
  });

  it('anonymous access is off by default, read-only at most, only to the storages listed', async () => {
    const a = await makeStorage(d, { name: 'Public', path: dir() });
    const b = await makeStorage(d, { name: 'Private', path: dir() });
    await setStorageUsers(d, []);
    const s = await storagesOf(d);
    expect(s.anonymous()).toBeNull();
    await setStorageUsers(d, [], { enable: true, storages: [a] });
    const anon = s.anonymous()!;
    expect(anon).toEqual({ kind: 'anonymous', account: '' });
    const grants = s.grants(anon);
    expect(grants.map((g) => [g.storage, g.can])).toEqual([[a, READ]]);
    expect(s.grant(anon, b)).toBeNull();
    await expect(s.resolve(grants[0]!, '/new.txt', 'write')).rejects.toMatchObject({ msg: { key: 'storageDenied' } });
    await expect(s.resolve(grants[0]!, '/new.txt', 'delete')).rejects.toMatchObject({ msg: { key: 'storageDenied' } });
    expect((await s.resolve(grants[0]!, '/new.txt', 'read')).exists).toBe(false);
    await setStorageUsers(d, []);
  });

  it('room is the quota minus what is used, Infinity without a quota', async () => {
    const path = dir();
    writeFileSync(join(path, 'f'), Buffer.alloc(300));
    const q = await makeStorage(d, { path, quota: 1000 });
    const n = await makeStorage(d, { path: dir() });
    const s = await storagesOf(d);
    const admin = { kind: 'admin' as const, account: 'admin' };
    expect(await s.room(s.grant(admin, q)!)).toBe(700);
    expect(await s.room(s.grant(admin, n)!)).toBe(Infinity);
  });

  it('asks for confirmation before deleting a storage a service uses, naming the services', async () => {
    const key = await makeStorage(d, { name: 'Shared', path: dir() });
    const s = await storagesOf(d);
    s.setUsage('webdav', [key]);
    s.setUsage('ftpserver', [key]);
    expect((await view(d, key)).usage.usedBy).toEqual(['ftpserver', 'webdav']);
    expect(await d.call('DELETE', `/api/storage/rules/${key}`, undefined, en)).toMatchObject({ ret: 6, msg: 'storage "Shared" is used by ftpserver, webdav; confirm to delete it' });
    expect((await d.call('DELETE', `/api/storage/rules/${key}?confirm=0`)).ret).toBe(6);
    expect((await d.call('GET', `/api/storage/rules/${key}`)).ret).toBe(0);
    expect((await d.call('DELETE', `/api/storage/rules/${key}?confirm=1`)).ret).toBe(0);
    expect((await d.call('GET', `/api/storage/rules/${key}`)).ret).toBe(3);
    s.setUsage('webdav', []);
    s.setUsage('ftpserver', []);
    // Not used: deleted at once, no confirmation needed.
    const other = await makeStorage(d, { path: dir() });
    expect((await d.call('DELETE', `/api/storage/rules/${other}`)).ret).toBe(0);
  });

  it('other modules ignore the confirm query of the uniform delete', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/wol/rules', { name: 'x', macs: ['aa:bb:cc:dd:ee:ff'] });
    expect((await d.call('DELETE', `/api/wol/rules/${created.key}?confirm=1`)).ret).toBe(0);
    expect((await d.call('DELETE', `/api/wol/rules/nope?confirm=maybe`)).ret).toBe(1);
  });
});

describe('storage logins share the console lock-out', () => {
  let d: TestDaemon;
  let s: StoragesService;
  beforeAll(async () => {
    d = await startTestDaemon({ loginGuard: { freeFailures: 2, baseLockSeconds: 60, globalFailuresPerMinute: 10000 } });
    const key = await makeStorage(d);
    await setStorageUsers(d, [{ account: 'gina', password: 'gina-pw', permissions: { [key]: ALL } }]);
    s = await storagesOf(d);
  });
  afterAll(() => d.close());

  it('locks an address out after failures, and the console login sees the same lock', async () => {
    const at = { ip: '192.168.77.7', service: 'webdav' };
    expect(await s.login({ account: 'gina', password: 'no', ...at })).toBeNull();
    expect(await s.login({ account: 'gina', password: 'no', ...at })).toBeNull();
    // Locked now: even the right password is refused from that address.
    expect(await s.login({ account: 'gina', password: 'gina-pw', ...at })).toBeNull();
    const consoleLogin = await d.call('POST', '/api/login', { Account: 'admin', Password: 'whatever' }, { token: null, remoteAddress: '192.168.77.7', ...en });
    expect(consoleLogin).toMatchObject({ ret: 2, msg: expect.stringContaining('Too many failed logins') });
    // Another address is not locked.
    expect(await s.login({ account: 'gina', password: 'gina-pw', ip: '192.168.77.8', service: 'webdav' })).toEqual({ kind: 'user', account: 'gina' });
  });

  it('counts failed console logins against the storage login too', async () => {
    const ip = '192.168.77.9';
    for (let i = 0; i < 2; i++) await d.call('POST', '/api/login', { Account: 'admin', Password: 'wrong' }, { token: null, remoteAddress: ip });
    expect(await s.login({ account: 'gina', password: 'gina-pw', ip, service: 'webdav' })).toBeNull();
  });
});

describe('resolve: no path leaves its storage', () => {
  let d: TestDaemon;
  let s: StoragesService;
  let g: StorageGrant;
  let root: string;
  let outside: string;

  beforeAll(async () => {
    d = await startTestDaemon();
    root = tempDir();
    outside = tempDir('outside');
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'c.txt'), 'c');
    writeFileSync(join(root, 'inside.txt'), 'i');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link-file-out'));
    symlinkSync(outside, join(root, 'link-dir-out'));
    symlinkSync(join(root, 'inside.txt'), join(root, 'link-file-in'));
    symlinkSync(join(root, 'a'), join(root, 'link-dir-in'));
    symlinkSync('/nonexistent-lucky-target', join(root, 'dangling'));
    const key = await makeStorage(d, { path: root });
    s = await storagesOf(d);
    g = s.grant({ kind: 'admin', account: 'admin' }, key)!;
  });
  afterAll(async () => {
    await d.close();
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  const refused: Array<[string, string]> = [
    ['..', 'storagePathEscapes'],
    ['../..', 'storagePathEscapes'],
    ['/..', 'storagePathEscapes'],
    ['a/../../x', 'storagePathEscapes'],
    ['a/b/../../../etc/passwd', 'storagePathEscapes'],
    ['%2e%2e/', 'storagePathEscapes'],
    ['%2e%2e/%2e%2e/etc/passwd', 'storagePathEscapes'],
    ['%252e%252e%252f', 'storagePathEscapes'],
    ['a/%252e%252e/x', 'storagePathEscapes'],
    ['..%2f', 'storagePathEscapes'],
    ['..%2fetc', 'storagePathEscapes'],
    ['%2fetc%2fpasswd', 'storagePathEscapes'],
    ['..%5c..%5cetc', 'storagePathEscapes'],
    ['..\\', 'storagePathEscapes'],
    ['..\\..\\etc\\passwd', 'storagePathEscapes'],
    ['a\\b', 'storagePathEscapes'],
    ['C:\\Windows', 'storagePathEscapes'],
    ['C:/Windows', 'storagePathInvalid'],
    ['/c:/Windows/System32', 'storagePathInvalid'],
    ['a\0b', 'storagePathInvalid'],
    ['inside.txt\0.jpg', 'storagePathInvalid'],
    ['%00', 'storagePathEscapes'],
    ['link-file-out', 'storagePathEscapes'],
    ['link-dir-out', 'storagePathEscapes'],
    ['link-dir-out/secret.txt', 'storagePathEscapes'],
    ['link-dir-out/new.txt', 'storagePathEscapes'],
    ['link-dir-out/newdir/new.txt', 'storagePathEscapes'],
    ['dangling', 'storagePathEscapes'],
    ['dangling/x', 'storagePathEscapes'],
  ];

  for (const [path, key] of refused) {
    it(`refuses ${JSON.stringify(path)} (${key})`, async () => {
      for (const op of ['read', 'write', 'delete'] as const) {
        const err = await s.resolve(g, path, op).then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, `${op} ${path}`).toBeInstanceOf(MsgError);
        expect((err as MsgError).msg.key).toBe(key);
      }
      // The one-step read and write (kernel-confined where openat2 exists) refuse the same, for the same reason.
      for (const [what, call] of [
        ['read', () => s.read(g, path, 1024)],
        ['write', () => s.write(g, path, Buffer.from('x'))],
      ] as const) {
        const err = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(err, `${what} ${path}`).toBeInstanceOf(MsgError);
        expect((err as MsgError).msg.key).toBe(key);
      }
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    });
  }

  it('read gives a small file whole, only the figures of a larger one, null when missing', async () => {
    const small = await s.read(g, 'a/b/c.txt', 1024);
    expect(small).toMatchObject({ path: '/a/b/c.txt', kind: 'file', size: 1 });
    expect(small!.data!.toString()).toBe('c');
    writeFileSync(join(root, 'big.bin'), Buffer.alloc(5000, 7));
    const big = await s.read(g, 'big.bin', 4096);
    expect(big).toMatchObject({ kind: 'file', size: 5000, data: null });
    expect(big!.ino).toBe(statSync(join(root, 'big.bin')).ino);
    expect(await s.read(g, 'a', 1024)).toMatchObject({ path: '/a', kind: 'dir', data: null });
    expect(await s.read(g, '/', 1024)).toMatchObject({ path: '/', kind: 'dir' });
    expect(await s.read(g, 'nothing-here.txt', 1024)).toBeNull();
    expect(await s.read(g, 'inside.txt/below', 1024)).toBeNull();
    // Links that stay inside are followed, relative or absolute (the kernel's confinement refuses
    // absolute ones; the realpath check then allows them).
    symlinkSync('a/b/c.txt', join(root, 'rel-link'));
    expect((await s.read(g, 'rel-link', 1024))!.data!.toString()).toBe('c');
    expect((await s.read(g, 'link-file-in', 1024))!.data!.toString()).toBe('i');
    expect((await s.read(g, 'link-dir-in/b/c.txt', 1024))!.data!.toString()).toBe('c');
  });

  it('write creates or replaces a whole file, and refuses a missing folder, a folder, the root', async () => {
    const first = await s.write(g, 'a/w.txt', Buffer.from('one'));
    expect(first).toMatchObject({ path: '/a/w.txt', created: true, size: 3 });
    expect(readFileSync(join(root, 'a', 'w.txt'), 'utf8')).toBe('one');
    const second = await s.write(g, '/a/w.txt', Buffer.from('second'));
    expect(second).toMatchObject({ created: false, size: 6 });
    expect(second.ino).toBe(statSync(join(root, 'a', 'w.txt')).ino);
    expect(readFileSync(join(root, 'a', 'w.txt'), 'utf8')).toBe('second');
    const code = (p: Promise<unknown>) => p.then(() => null, (e: MsgError) => e.msg?.key ?? String(e));
    expect(await code(s.write(g, 'no/such/dir.txt', Buffer.from('x')))).toBe('storageNoFolder');
    expect(await code(s.write(g, 'inside.txt/x', Buffer.from('x')))).toBe('storageNoFolder');
    expect(await code(s.write(g, 'a/b', Buffer.from('x')))).toBe('storageIsFolder');
    expect(await code(s.write(g, '/', Buffer.from('x')))).toBe('storageIsFolder');
    // Through a link inside the storage the write lands on the link's target, as resolve says.
    await s.write(g, 'link-file-in', Buffer.from('via link'));
    expect(readFileSync(join(root, 'inside.txt'), 'utf8')).toBe('via link');
    writeFileSync(join(root, 'inside.txt'), 'i');
    // Nothing half-written is left behind.
    expect(readdirSync(join(root, 'a')).filter((n) => n.startsWith(STORAGE_TEMP_PREFIX))).toEqual([]);
  });

  it('write keeps within a quota, counting the bytes an overwrite frees, and changes nothing when refused', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'old.bin'), Buffer.alloc(600));
    const key = await makeStorage(d, { path: dir, quota: 1000 });
    const q = s.grant({ kind: 'admin', account: 'admin' }, key)!;
    await expect(s.write(q, 'new.bin', Buffer.alloc(500))).rejects.toMatchObject({ msg: { key: 'storageQuotaFull' } });
    expect(readdirSync(dir)).toEqual(['old.bin']);
    expect(await s.write(q, 'old.bin', Buffer.alloc(900))).toMatchObject({ created: false, size: 900 });
    const ro = { ...q, readOnly: true, can: { read: true, write: false, delete: false } };
    await expect(s.write(ro, 'x.bin', Buffer.alloc(1))).rejects.toMatchObject({ msg: { key: 'storageReadOnly' } });
    rmSync(dir, { recursive: true, force: true });
  });

  it('read does not hang on a FIFO left in a storage', async () => {
    const fifo = join(root, 'pipe');
    spawnSync('mkfifo', [fifo]);
    expect(await s.read(g, 'pipe', 1024)).toMatchObject({ kind: 'other', data: null });
  });

  it('read refuses what the grant does not allow', async () => {
    const none = { ...g, can: { read: false, write: false, delete: false } };
    await expect(s.read(none, 'inside.txt', 1024)).rejects.toMatchObject({ msg: { key: 'storageDenied' } });
  });

  it('takes an absolute path as inside the storage, never as the system path', async () => {
    const r = await s.resolve(g, '/etc/passwd', 'read');
    expect(r).toMatchObject({ path: '/etc/passwd', real: join(g.root, 'etc', 'passwd'), exists: false });
    expect(r.real.startsWith(g.root + '/')).toBe(true);
  });

  it('normalises and allows what stays inside, symlinks inside included', async () => {
    expect(await s.resolve(g, '', 'read')).toMatchObject({ path: '/', real: g.root, exists: true });
    expect(await s.resolve(g, '/', 'read')).toMatchObject({ path: '/', real: g.root, exists: true });
    expect(await s.resolve(g, '//a//./b/', 'read')).toMatchObject({ path: '/a/b', real: join(g.root, 'a', 'b'), exists: true });
    expect(await s.resolve(g, 'a/b/c.txt', 'read')).toMatchObject({ path: '/a/b/c.txt', exists: true });
    expect(await s.resolve(g, 'a/b/new.txt', 'write')).toMatchObject({ real: join(g.root, 'a', 'b', 'new.txt'), exists: false });
    expect(await s.resolve(g, 'a/new/deeper.txt', 'write')).toMatchObject({ real: join(g.root, 'a', 'new', 'deeper.txt'), exists: false });
    expect(await s.resolve(g, 'link-file-in', 'read')).toMatchObject({ real: join(g.root, 'inside.txt'), exists: true });
    expect(await s.resolve(g, 'link-dir-in/b/c.txt', 'read')).toMatchObject({ real: join(g.root, 'a', 'b', 'c.txt'), exists: true });
    // Names that merely hold a percent sign or dots are names.
    expect(await s.resolve(g, '100%.txt', 'write')).toMatchObject({ path: '/100%.txt' });
    expect(await s.resolve(g, '...', 'write')).toMatchObject({ path: '/...' });
    expect(await s.resolve(g, 'a..b', 'write')).toMatchObject({ path: '/a..b' });
    expect(await s.resolve(g, 'C:', 'write').catch((e: MsgError) => e.msg.key)).toBe('storagePathInvalid');
  });

  it('never deletes the root itself', async () => {
    await expect(s.resolve(g, '/', 'delete')).rejects.toMatchObject({ msg: { key: 'storageDenied' } });
  });

  it('checks symlinks at each call: one made after the grant was taken is refused', async () => {
    expect(await s.resolve(g, 'later', 'read')).toMatchObject({ exists: false });
    symlinkSync(outside, join(root, 'later'));
    await expect(s.resolve(g, 'later', 'read')).rejects.toMatchObject({ msg: { key: 'storagePathEscapes' } });
    await expect(s.resolve(g, 'later/secret.txt', 'read')).rejects.toMatchObject({ msg: { key: 'storagePathEscapes' } });
    await expect(s.resolve(g, 'later/new.txt', 'write')).rejects.toMatchObject({ msg: { key: 'storagePathEscapes' } });
    // A directory replaced by a link out is refused too.
    mkdirSync(join(root, 'swap'));
    expect(await s.resolve(g, 'swap/x', 'write')).toMatchObject({ exists: false });
    rmSync(join(root, 'swap'), { recursive: true });
    symlinkSync(outside, join(root, 'swap'));
    await expect(s.resolve(g, 'swap/x', 'write')).rejects.toMatchObject({ msg: { key: 'storagePathEscapes' } });
  });

  it('works when the storage root itself is reached through a symlink', async () => {
    const via = join(tempDir('via'), 'root-link');
    symlinkSync(root, via);
    const key = await makeStorage(d, { path: via });
    const g2 = s.grant({ kind: 'admin', account: 'admin' }, key)!;
    expect(g2.root).toBe(g.root);
    expect(await s.resolve(g2, 'a/b/c.txt', 'read')).toMatchObject({ real: join(g.root, 'a', 'b', 'c.txt'), exists: true });
    await expect(s.resolve(g2, 'link-dir-out', 'read')).rejects.toMatchObject({ msg: { key: 'storagePathEscapes' } });
  });
});
