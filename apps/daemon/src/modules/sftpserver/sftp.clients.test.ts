/**
 * Real SFTP clients against the server: OpenSSH's sftp (batch mode) and scp (its SFTP mode), and
 * rclone's sftp backend. Trees with UTF-8 names go both ways and come back with equal sha256;
 * transfers resume (reget, reput); rename, remove and mkdir work; the host keys the API shows are
 * the ones the clients check. Refused: a symlink out of the storage, a read-only user's upload, a
 * wrong key, a wrong password, a shell, a command and a forward.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { ALL, EN, makeStorage, READ, setStorageUsers, tempDir } from '../../test/storages.js';
import { runTool } from '../../test/tool.js';
import { hostKeys, keyPair, type Login, makeSftp, OpenSsh, ruleView, sha, tree } from './testing/clients.js';

/** A small tree with UTF-8 names, an empty file and one of a few MiB (several hundred SFTP requests). */
function makeTree(dir: string): void {
  mkdirSync(join(dir, '照片', 'año 2024'), { recursive: true });
  writeFileSync(join(dir, '照片', 'año 2024', 'été.jpg'), randomBytes(3 * 1024 * 1024 + 17));
  writeFileSync(join(dir, '照片', 'читать.txt'), 'привет\n');
  writeFileSync(join(dir, 'empty'), '');
  writeFileSync(join(dir, 'with space & quote\'s.bin'), randomBytes(70_000));
}

describe('SFTP server with OpenSSH and rclone', () => {
  let d: TestDaemon;
  let store: string;
  let roStore: string;
  let port: number;
  let key: string;
  let ssh: OpenSsh;
  let work: string;
  let alice: Login;
  let alicePw: Login;
  let bobRo: Login;

  beforeAll(async () => {
    d = await startTestDaemon();
    work = tempDir('sftp-work');
    store = tempDir('sftp-store');
    roStore = tempDir('sftp-ro');
    const s = await makeStorage(d, { name: 'files', path: store });
    const ro = await makeStorage(d, { name: 'ro', path: roStore });
    const aliceKey = await keyPair(work, 'alice');
    const bobKey = await keyPair(work, 'bob', 'ecdsa');
    await setStorageUsers(d, [
      { account: 'alice', password: 'alice-pw', permissions: { [s]: ALL, [ro]: ALL }, publicKeys: `# alice's laptop\n${aliceKey.pub}\n` },
      { account: 'bob', password: 'bob-pw', permissions: { [s]: READ, [ro]: READ }, publicKeys: bobKey.pub },
    ]);
    ({ key, port } = await makeSftp(d, { mounts: [{ name: 'files', storage: s }, { name: 'ro', storage: ro }] }));
    ssh = new OpenSsh(port, await hostKeys(d));
    alice = { user: 'alice', key: aliceKey.file };
    alicePw = { user: 'alice', password: 'alice-pw' };
    bobRo = { user: 'bob', key: bobKey.file };
  }, 60_000);

  afterAll(async () => {
    await d?.close();
  });

  it('shows host keys as ssh-keygen prints them, kept across a restart of the rule', async () => {
    const keys = await hostKeys(d);
    expect(keys.map((k) => k.type).sort()).toEqual(['ssh-ed25519', 'ssh-rsa']);
    for (const k of keys) {
      const f = join(work, `host-${k.type}.pub`);
      writeFileSync(f, `${k.publicKey}\n`);
      const r = await runTool('ssh-keygen', ['-l', '-E', 'sha256', '-f', f]);
      expect(r.out).toContain(k.fingerprint);
    }
    expect(await d.call('PUT', `/api/sftpserver/rules/${key}/enable`, { enable: false })).toMatchObject({ ret: 0 });
    expect(await d.call('PUT', `/api/sftpserver/rules/${key}/enable`, { enable: true })).toMatchObject({ ret: 0 });
    for (let i = 0; i < 200 && (await ruleView(d, key)).status?.state !== 'running'; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await hostKeys(d)).toEqual(keys);
  });

  it('copies a tree with UTF-8 names up and down with sftp, by key and by password, equal by sha256', async () => {
    const up = join(work, 'up');
    makeTree(up);
    const put = await ssh.sftp(alice, ['cd /files', 'put -r up'], work);
    expect(put.err).toBe('');
    expect(put.code).toBe(0);
    expect(tree(join(store, 'up'))).toEqual(tree(up));

    const down = join(work, 'down');
    mkdirSync(down);
    const get = await ssh.sftp(alicePw, ['get -r /files/up'], down);
    expect(get.code, get.err).toBe(0);
    expect(tree(join(down, 'up'))).toEqual(tree(up));
    // The storages show as top-level folders; listing names what a client may see.
    const ls = await ssh.sftp(alice, ['ls -1 /', 'ls -l /files/up/照片']);
    expect(ls.out).toMatch(/files\n.*ro\n/s);
    expect(ls.out).toContain('читать.txt');
  });

  it('resumes a download (reget) and an upload (reput)', async () => {
    const big = randomBytes(2 * 1024 * 1024 + 5);
    writeFileSync(join(store, 'resume.bin'), big);
    const local = join(work, 'resume.bin');
    writeFileSync(local, big.subarray(0, 700_000));
    const reget = await ssh.sftp(alice, ['reget /files/resume.bin resume.bin'], work);
    expect(reget.code, reget.err).toBe(0);
    expect(sha(local)).toBe(sha(join(store, 'resume.bin')));

    const again = randomBytes(1024 * 1024 + 3);
    writeFileSync(join(work, 'up2.bin'), again);
    writeFileSync(join(store, 'up2.bin'), again.subarray(0, 300_001));
    const reput = await ssh.sftp(alice, ['reput up2.bin /files/up2.bin'], work);
    expect(reput.code, reput.err).toBe(0);
    expect(sha(join(store, 'up2.bin'))).toBe(sha(join(work, 'up2.bin')));
  });

  it('renames, removes, makes and removes folders; scp in SFTP mode copies both ways', async () => {
    writeFileSync(join(store, 'a.txt'), 'a');
    const r = await ssh.sftp(alice, ['cd /files', 'rename a.txt b.txt', 'mkdir 新しい', 'rename b.txt 新しい/c.txt', 'rm 新しい/c.txt', 'rmdir 新しい']);
    expect(r.code, r.err).toBe(0);
    expect(existsSync(join(store, 'a.txt')) || existsSync(join(store, '新しい'))).toBe(false);

    writeFileSync(join(work, 'scp.bin'), randomBytes(200_000));
    expect((await ssh.scp(alice, join(work, 'scp.bin'), ':/files/scp.bin')).code).toBe(0);
    expect(sha(join(store, 'scp.bin'))).toBe(sha(join(work, 'scp.bin')));
    expect((await ssh.scp(alicePw, ':/files/scp.bin', join(work, 'scp-back.bin'))).code).toBe(0);
    expect(sha(join(work, 'scp-back.bin'))).toBe(sha(join(work, 'scp.bin')));
    // scp keeps a download only up to the first answer that came out of order: a server answering
    // reads as they finish cut one in five short here, with exit code 0. Several sizes, every time whole.
    for (let i = 0; i < 8; i++) {
      const size = 150_000 + i * 12_345;
      writeFileSync(join(store, `scp${i}.bin`), randomBytes(size));
      expect((await ssh.scp(alice, `:/files/scp${i}.bin`, join(work, `scp${i}.bin`))).code).toBe(0);
      expect(sha(join(work, `scp${i}.bin`)), `download ${i}`).toBe(sha(join(store, `scp${i}.bin`)));
    }
  });

  it('copies a tree both ways with rclone sftp', async () => {
    const pass = (await runTool('rclone', ['obscure', 'alice-pw'])).out.trim();
    const remote = `:sftp,host=127.0.0.1,port=${port},user=alice,pass=${pass},known_hosts_file=${join(work, 'rclone_known_hosts')},disable_hashcheck=true:`;
    writeFileSync(join(work, 'rclone_known_hosts'), (await hostKeys(d)).map((k) => `[127.0.0.1]:${port} ${k.publicKey}\n`).join(''));
    const src = join(work, 'rc-up');
    makeTree(src);
    const flags = ['--config', '/dev/null', '--retries', '1', '--low-level-retries', '1', '--contimeout', '10s'];
    const up = await runTool('rclone', ['copy', ...flags, src, `${remote}files/rc`]);
    expect(up.code, up.err).toBe(0);
    expect(tree(join(store, 'rc'))).toEqual(tree(src));
    const back = join(work, 'rc-down');
    const down = await runTool('rclone', ['copy', ...flags, `${remote}files/rc`, back]);
    expect(down.code, down.err).toBe(0);
    expect(tree(back)).toEqual(tree(src));
    // Times come back too (rclone sets them with SETSTAT after an upload).
    expect(Math.abs(statSync(join(store, 'rc', 'empty')).mtimeMs - statSync(join(src, 'empty')).mtimeMs)).toBeLessThan(1500);
  });

  it('refuses a symlink out of the storage, and a read-only user writing', async () => {
    symlinkSync('/etc', join(store, 'etc-link'));
    writeFileSync(join(roStore, 'note.txt'), 'hello');
    const denied = (await ruleView(d, key)).figures.denied;
    const out = await ssh.sftp(alice, ['get /files/etc-link/hostname'], work);
    expect(out.code).not.toBe(0);
    expect(existsSync(join(work, 'hostname'))).toBe(false);
    // OpenSSH's client says "not found" for any failed stat; the server refused it (a permission).
    expect((await ruleView(d, key)).figures.denied).toBeGreaterThan(denied);
    writeFileSync(join(work, 'x.txt'), 'x');
    const put = await ssh.sftp(bobRo, ['put x.txt /files/x.txt'], work);
    expect(put.code).not.toBe(0);
    expect(existsSync(join(store, 'x.txt'))).toBe(false);
    const get = await ssh.sftp(bobRo, ['get /ro/note.txt ro-note.txt'], work);
    expect(get.code, get.err).toBe(0);
    expect(readFileSync(join(work, 'ro-note.txt'), 'utf8')).toBe('hello');
  });

  it('refuses a wrong key and a wrong password, and a shell, a command or a forward', async () => {
    const stranger = await keyPair(work, 'stranger');
    expect((await ssh.sftp({ user: 'alice', key: stranger.file }, ['ls /'])).code).not.toBe(0);
    expect((await ssh.sftp({ user: 'alice', password: 'wrong' }, ['ls /'])).code).not.toBe(0);
    // Bob's key is not Alice's.
    expect((await ssh.sftp({ user: 'alice', key: join(work, 'bob') }, ['ls /'])).code).not.toBe(0);
    const before = (await ruleView(d, key)).figures.denied;
    const exec = await ssh.ssh(alice, ['-T'], ['echo', 'pwned']);
    expect(exec.code).not.toBe(0);
    expect(exec.out).not.toContain('pwned');
    const forward = await ssh.ssh(alice, ['-W', `127.0.0.1:${port}`]);
    expect(forward.code).not.toBe(0);
    expect(forward.err).toMatch(/prohibited|open failed/i);
    const v = await ruleView(d, key);
    expect(v.figures.denied).toBeGreaterThanOrEqual(before + 2);
    const logs = (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/sftpserver/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log).join('\n');
    expect(logs).toMatch(/asked for exec, refused/);
    expect(logs).toMatch(/direct-tcpip/);
  });

  it('counts what it served', async () => {
    const v = await ruleView(d, key);
    expect(v.figures.uploads).toBeGreaterThan(5);
    expect(v.figures.downloads).toBeGreaterThan(5);
    expect(v.figures.bytesIn).toBeGreaterThan(6 * 1024 * 1024);
    expect(v.figures.bytesOut).toBeGreaterThan(6 * 1024 * 1024);
    expect(v.url).toBe(`sftp://127.0.0.1:${port}/`);
  });
});
