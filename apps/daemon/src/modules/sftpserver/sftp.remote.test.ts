/**
 * The SFTP server over a remote storage (a remote WebDAV server: `rclone serve webdav` on loopback):
 * OpenSSH's sftp puts and gets a tree with equal sha256, renames, removes and makes folders; what a
 * remote cannot do is refused with a clear status (a resumed upload: a remote takes a file whole);
 * a remote that dies mid-upload fails the transfer and leaves nothing under the name.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { makeRemote, type TestRemote } from '../../test/remotes.js';
import { setStorageUsers, tempDir } from '../../test/storages.js';
import { hostKeys, keyPair, type Login, makeSftp, OpenSsh, sha, tree } from './testing/clients.js';

describe('SFTP over a remote WebDAV storage', () => {
  let d: TestDaemon;
  let origin: string;
  let remote: TestRemote;
  let ssh: OpenSsh;
  let alice: Login;
  let work: string;

  beforeAll(async () => {
    work = tempDir('sftp-remote-work');
    d = await startTestDaemon();
    remote = await makeRemote(d, 'webdav', { name: 'far', cacheSeconds: 5 });
    origin = remote.dir;
    const k = await keyPair(work, 'alice');
    await setStorageUsers(d, [{ account: 'alice', password: 'alice-pw', permissions: { [remote.key]: { read: true, write: true, delete: true } }, publicKeys: k.pub }]);
    const { port } = await makeSftp(d, { mounts: [{ name: 'far', storage: remote.key }] });
    ssh = new OpenSsh(port, await hostKeys(d));
    alice = { user: 'alice', key: k.file };
  }, 30_000);

  afterAll(async () => {
    remote?.kill();
    await d?.close();
  });

  it('puts and gets a tree with equal sha256; renames, removes, makes folders', async () => {
    const up = join(work, 'up');
    mkdirSync(join(up, 'ñandú'), { recursive: true });
    writeFileSync(join(up, 'ñandú', 'big.bin'), randomBytes(3 * 1024 * 1024 + 11));
    writeFileSync(join(up, 'small.txt'), 'small');
    writeFileSync(join(up, 'empty'), '');
    const put = await ssh.sftp(alice, ['put -r up /far/up'], work);
    expect(put.code, put.err).toBe(0);
    expect(tree(join(origin, 'up'))).toEqual(tree(up));
    const down = join(work, 'down');
    mkdirSync(down);
    const get = await ssh.sftp(alice, ['get -r /far/up'], down);
    expect(get.code, get.err).toBe(0);
    expect(tree(join(down, 'up'))).toEqual(tree(up));
    const ops = await ssh.sftp(alice, ['cd /far/up', 'rename small.txt moved.txt', 'mkdir 新', 'rm moved.txt', 'rmdir 新', 'ls -1']);
    expect(ops.code, ops.err).toBe(0);
    expect(existsSync(join(origin, 'up', 'moved.txt')) || existsSync(join(origin, 'up', 'small.txt'))).toBe(false);
    expect(ops.out).toContain('ñandú');
  });

  it('refuses to resume an upload into a remote file, clearly', async () => {
    writeFileSync(join(work, 'r.bin'), randomBytes(100_000));
    const r = await ssh.sftp(alice, ['reput r.bin /far/up/empty'], work);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/cannot change a file in place|unsupported/i);
  });

  it('fails an upload whose remote dies, and leaves nothing under the name', async () => {
    writeFileSync(join(work, 'cut.bin'), randomBytes(24 * 1024 * 1024));
    const upload = ssh.sftp(alice, ['put cut.bin /far/cut.bin'], work);
    // Once bytes are on their way, the remote goes.
    for (let i = 0; i < 200 && !readdirSync(origin).some((n) => n.startsWith('.lucky-upload-')); i++) await new Promise((r) => setTimeout(r, 10));
    remote.kill();
    const r = await upload;
    expect(r.code).not.toBe(0);
    expect(existsSync(join(origin, 'cut.bin'))).toBe(false);
  });
});
