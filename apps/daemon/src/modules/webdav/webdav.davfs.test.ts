/**
 * davfs2, the Linux client that mounts a WebDAV share as a file system (FUSE), against a real
 * daemon: a tree copied in with cp, renamed, partly deleted, read back by name after a fresh mount. davfs2
 * locks what it writes (LOCK/UNLOCK with If headers), asks for properties with PROPFIND and sends
 * its uploads on close, so it walks most of a desktop client's paths. Its cache and credentials
 * live in a temp dir given by `conf=`; the mount is taken down in afterAll whatever happened.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, startTestDaemon, type TestDaemon } from './testing/daemon.js';

function run(cmd: string, args: string[]): Promise<{ out: string; code: number }> {
  return new Promise((resolve) => {
    // Bounded: a hung mount or upload fails the test instead of holding it.
    execFile(cmd, args, { timeout: 60_000 }, (e, stdout, stderr) => resolve({ out: `${stdout}${stderr}`, code: e ? ((e as { code?: number }).code ?? 1) : 0 }));
  });
}

function tree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      if (n === 'lost+found') continue;
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(root, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(root);
  return out;
}

describe('WebDAV mounted with davfs2', () => {
  let d: TestDaemon;
  let store: string;
  let work: string;
  let mnt: string;
  let conf: string;
  let url: string;

  // mode 0777 whatever the umask: mount.davfs writes there as its own user.
  const makeCache = () => {
    mkdirSync(join(work, 'cache'));
    chmodSync(join(work, 'cache'), 0o777);
  };
  const mounted = () => readFileSync('/proc/self/mounts', 'utf8').includes(` ${mnt} `);
  const mount = async () => {
    const r = await run('mount.davfs', [url, mnt, '-o', `conf=${conf}`]);
    expect(r.code, r.out).toBe(0);
    expect(mounted()).toBe(true);
  };
  // umount waits for mount.davfs to send what is still in its cache.
  const umount = async () => {
    const r = await run('umount', [mnt]);
    expect(r.code, r.out).toBe(0);
    expect(mounted()).toBe(false);
  };

  beforeAll(async () => {
    d = await startTestDaemon();
    store = tempDir();
    work = tempDir('davfs');
    mnt = join(work, 'mnt');
    mkdirSync(mnt);
    // mount.davfs runs as its own user (davfs2) once mounted: it must reach its cache.
    chmodSync(work, 0o755);
    makeCache();
    const s = await makeStorage(d, { name: 'files', path: store });
    await setStorageUsers(d, [{ account: 'alice', password: 'davfs-pass-1', permissions: { [s]: { read: true, write: true, delete: true } } }]);
    ({ url } = await makeDav(d, { mounts: [{ name: 'files', storage: s }] }));
    url = `${url}files/`;
    const secrets = join(work, 'secrets');
    writeFileSync(secrets, `${url} alice davfs-pass-1\n`);
    chmodSync(secrets, 0o600);
    conf = join(work, 'davfs2.conf');
    // Uploads at once on close, locks on (davfs2's default), its own cache and secrets.
    writeFileSync(conf, [`cache_dir ${join(work, 'cache')}`, `secrets ${secrets}`, 'delay_upload 0', 'use_locks 1', 'ask_auth 0', ''].join('\n'));
  });
  afterAll(async () => {
    if (mnt && mounted()) await run('umount', ['-l', mnt]);
    await d.close();
    for (const p of [store, work]) if (p) rmSync(p, { recursive: true, force: true });
  });

  it('copies a tree in, renames and deletes, and reads it back after a new mount', async () => {
    const src = join(work, 'src');
    mkdirSync(join(src, 'docs', 'ü b'), { recursive: true });
    writeFileSync(join(src, 'readme.txt'), 'hello davfs\n');
    writeFileSync(join(src, 'docs', 'big.bin'), randomBytes(3 << 20));
    writeFileSync(join(src, 'docs', 'ü b', 'naïve #1.txt'), 'unicode and a space\n');
    for (let i = 0; i < 20; i++) writeFileSync(join(src, 'docs', `n${i}.txt`), `note ${i}\n`);

    await mount();
    // Through the mount only from child processes: the daemon serving davfs2 runs in this process,
    // so a file call here would block the very event loop that has to answer it.
    const shell = async (script: string) => {
      const r = await run('sh', ['-c', script]);
      expect(r.code, `${script}: ${r.out}`).toBe(0);
      return r.out;
    };
    await shell(`cp -r '${src}' '${mnt}/in'`);
    await shell(`mv '${mnt}/in/readme.txt' '${mnt}/in/README.txt' && rm '${mnt}/in/docs/n0.txt' && mkdir '${mnt}/in/empty dir'`);
    await umount();

    const expected = tree(src);
    expected['README.txt'] = expected['readme.txt']!;
    delete expected['readme.txt'];
    delete expected[join('docs', 'n0.txt')];
    expect(tree(join(store, 'in'))).toEqual(expected);
    expect(statSync(join(store, 'in', 'empty dir')).isDirectory()).toBe(true);
    // No temporary upload file stays behind, and the locks davfs2 took are gone with the mount.
    expect(readdirSync(join(store, 'in')).filter((n) => n.startsWith('.lucky-upload-'))).toEqual([]);

    // A fresh mount reads what is on the server, not davfs2's cache of the last one.
    rmSync(join(work, 'cache'), { recursive: true, force: true });
    makeCache();
    writeFileSync(join(store, 'in', 'server-side.txt'), 'written on the server\n');
    await mount();
    // Read back by name: listing a directory through davfs2's FUSE fails with EINVAL on this
    // kernel whatever the server (rclone's too), so what a listing would show is checked on the
    // server's side above.
    const want = { ...expected, 'server-side.txt': createHash('sha256').update('written on the server\n').digest('hex') };
    const names = Object.keys(want).map((n) => `'${n}'`).join(' ');
    const sums = await shell(`cd '${mnt}/in' && sha256sum ${names} && test ! -e docs/n0.txt && test -d 'empty dir'`);
    const got = Object.fromEntries(sums.trim().split('\n').map((l) => [l.slice(66), l.slice(0, 64)]));
    await umount();
    expect(got).toEqual(want);
  });
});
