/**
 * The FTP server over a remote storage (a remote WebDAV server: `rclone serve webdav` on loopback):
 * lftp mirrors a tree up and down with equal sha256, resumes a download (REST + RETR) and an upload
 * (REST + STOR, and curl's APPE: the kept bytes and the client's written as one new file), renames,
 * removes, makes and removes folders (a full one refused), lists; an upload stopped by ABOR, by the
 * session's end or by its remote dying fails and leaves nothing under the name; the same remote
 * over explicit FTPS (lftp with the chain checked, data protected). One lftp round trip over each
 * other kind of remote storage (SFTP: OpenSSH's sshd; S3: s3rver) beside it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeFileTransfers } from '../../core/relay.js';
import { makeCert } from '../../test/certs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { rcloneWebdav, RCLONE_PASS, RCLONE_USER } from '../../test/rclone.js';
import { sha, tree } from '../../test/tree.js';
import { makeRemote, type RemoteKind, type TestRemote } from '../../test/remotes.js';
import { EN, setStorageUsers, tempDir } from '../../test/storages.js';
import { Control, expectCode } from './testing/control.js';
import { lftp, makeFtp, ruleView, run } from './testing/daemon.js';

const ALICE: [string, string] = ['alice', 'alice-pw'];
/** The other kinds of remote storage, each mounted beside the WebDAV one for one round trip. */
const OTHERS: RemoteKind[] = ['sftp', 's3'];
const uploading = (dir: string) => readdirSync(dir).some((n) => n.startsWith('.lucky-upload-'));

async function waitFor(f: () => boolean, ms = 5000): Promise<boolean> {
  for (let i = 0; i < ms / 10 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
  return f();
}

describe('FTP over a remote WebDAV storage', () => {
  let d: TestDaemon;
  let origin: string;
  let work: string;
  let rclone: ChildProcess;
  let port: number;
  let key: string;
  let farKey: string;
  const others: TestRemote[] = [];

  beforeAll(async () => {
    origin = tempDir('ftp-remote-origin');
    work = tempDir('ftp-remote-work');
    const rport = await freePort();
    rclone = await rcloneWebdav(origin, rport);
    d = await startTestDaemon();
    const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: 'far', kind: 'webdav', webdav: { url: `http://127.0.0.1:${rport}/`, username: RCLONE_USER, password: RCLONE_PASS }, cacheSeconds: 5 }, EN);
    if (r.ret !== 0) throw new Error(JSON.stringify(r));
    farKey = r.key;
    for (let i = 0; i < 200; i++) {
      const v = await d.call<{ rule: { status?: { state: string } } }>('GET', `/api/storage/rules/${r.key}`);
      if (v.rule.status?.state === 'running') break;
      await new Promise((res) => setTimeout(res, 25));
    }
    for (const kind of OTHERS) others.push(await makeRemote(d, kind));
    const all = { read: true, write: true, delete: true };
    await setStorageUsers(d, [{ account: 'alice', password: 'alice-pw', permissions: Object.fromEntries([r.key, ...others.map((o) => o.key)].map((k) => [k, all])) }]);
    ({ port, key } = await makeFtp(d, { mounts: [{ name: 'far', storage: r.key }, ...others.map((o) => ({ name: o.kind, storage: o.key }))] }));
  }, 30_000);

  afterAll(async () => {
    rclone?.kill('SIGKILL');
    for (const o of others) o.kill();
    await d?.close();
  });

  it('mirrors a tree up and down with equal sha256; renames, removes, makes folders, lists', async () => {
    const up = join(work, 'up');
    mkdirSync(join(up, 'ñandú 文件'), { recursive: true });
    writeFileSync(join(up, 'ñandú 文件', 'big.bin'), randomBytes(3 * 1024 * 1024 + 11));
    writeFileSync(join(up, 'small.txt'), 'small');
    writeFileSync(join(up, 'empty'), '');
    const put = await lftp(port, ALICE, `mirror -R ${up} /far/up`);
    expect(put.err).toBe('');
    expect(tree(join(origin, 'up'))).toEqual(tree(up));
    const down = join(work, 'down');
    const passed = nativeFileTransfers().started;
    const get = await lftp(port, ALICE, `mirror /far/up ${down}`);
    expect(get.err).toBe('');
    expect(tree(down)).toEqual(tree(up));
    // The large file came off the remote's connection onto the data connection by the relay.
    expect(nativeFileTransfers().started - passed).toBe(1);

    const ops = await lftp(port, ALICE, 'cd /far/up; mv small.txt moved.txt; mkdir 新; rm empty; cls -1 --sort=name; rmdir 新');
    expect(ops.err).toBe('');
    expect(ops.out.split('\n').filter(Boolean)).toEqual(['moved.txt', 'ñandú 文件/', '新/']);
    expect(readFileSync(join(origin, 'up', 'moved.txt'), 'utf8')).toBe('small');
    expect(existsSync(join(origin, 'up', 'small.txt')) || existsSync(join(origin, 'up', 'empty')) || existsSync(join(origin, 'up', '新'))).toBe(false);
    // A folder with something in it is not removed by RMD, on a remote as on disk.
    const full = await lftp(port, ALICE, 'rmdir "/far/up/ñandú 文件"');
    expect(full.err).toMatch(/550 Directory not empty/);
    expect(existsSync(join(origin, 'up', 'ñandú 文件', 'big.bin'))).toBe(true);
    const size = await lftp(port, ALICE, 'quote SIZE "/far/up/ñandú 文件/big.bin"');
    expect(size.out).toContain(`213 ${3 * 1024 * 1024 + 11}`);
  });

  it('resumes a download (REST + RETR) and an upload (REST + STOR, APPE) as whole new files', async () => {
    const src = join(work, 'resume.bin');
    writeFileSync(src, randomBytes(2 * 1024 * 1024 + 123));
    const bytes = readFileSync(src);
    writeFileSync(join(origin, 'resume.bin'), bytes);
    const part = join(work, 'resume.part');
    writeFileSync(part, bytes.subarray(0, 777_777));
    expect((await lftp(port, ALICE, `get -c /far/resume.bin -o ${part}`)).err).toBe('');
    expect(sha(part)).toBe(sha(src));
    // lftp's put -c: SIZE, then REST n + STOR of the rest.
    writeFileSync(join(origin, 'up-rest.bin'), bytes.subarray(0, 1_500_001));
    expect((await lftp(port, ALICE, `set ftp:rest-stor true; put -c ${src} -o /far/up-rest.bin`)).err).toBe('');
    expect(sha(join(origin, 'up-rest.bin'))).toBe(sha(src));
    // curl -C - -T: SIZE, then APPE of the rest.
    writeFileSync(join(origin, 'up-appe.bin'), bytes.subarray(0, 1024 * 1024));
    const c = await run('curl', ['-sS', '--max-time', '30', '-u', ALICE.join(':'), '-C', '-', '-T', src, `ftp://127.0.0.1:${port}/far/up-appe.bin`]);
    expect(c.code, c.err).toBe(0);
    expect(sha(join(origin, 'up-appe.bin'))).toBe(sha(src));
  });

  it.each(OTHERS)('mirrors a tree up and down over a remote %s storage too, with equal sha256', async (kind) => {
    const up = join(work, `up-${kind}`);
    mkdirSync(join(up, 'sub 子'), { recursive: true });
    writeFileSync(join(up, 'sub 子', 'big.bin'), randomBytes(1024 * 1024 + 7));
    writeFileSync(join(up, 'small.txt'), 'small');
    expect((await lftp(port, ALICE, `mirror -R ${up} /${kind}/up`)).err).toBe('');
    const remote = others.find((o) => o.kind === kind)!;
    // On the peer's own disk where it keeps files as files (s3rver keeps objects its own way: the way down shows them).
    if (kind !== 's3') expect(sha(join(remote.dir, 'up', 'sub 子', 'big.bin'))).toBe(sha(join(up, 'sub 子', 'big.bin')));
    const down = join(work, `down-${kind}`);
    expect((await lftp(port, ALICE, `mirror /${kind}/up ${down}`)).err).toBe('');
    expect(tree(down)).toEqual(tree(up));
  });

  it('fails an upload stopped by ABOR, or by the end of its session, leaving nothing under the name', async () => {
    const c = await Control.login(port, ...ALICE);
    let data = await c.passive();
    expectCode(await c.cmd('STOR /far/abor.bin'), 150);
    data.write(randomBytes(2 * 1024 * 1024));
    expect(await waitFor(() => uploading(origin))).toBe(true);
    expectCode(await c.cmd('ABOR'), 426);
    expectCode(await c.reply(), 226);
    // The upload's body ended in an error: the remote never moves it over the name. (rclone may keep
    // the temp name of a PUT cut short: hidden from every listing, never the file.)
    expect(existsSync(join(origin, 'abor.bin'))).toBe(false);
    // The session goes while its data connection is still open (in stream mode only the end of the
    // data connection says a file is complete: a client that closes it has sent the whole file).
    data = await c.passive();
    expectCode(await c.cmd('STOR /far/dropped.bin'), 150);
    data.write(randomBytes(2 * 1024 * 1024));
    expect(await waitFor(() => uploading(origin))).toBe(true);
    c.close();
    // The session is gone once the rule counts no connection: its transfer was taken back with it.
    for (let i = 0; i < 200 && (await ruleView(d, key)).figures.connections > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect((await ruleView(d, key)).figures.connections).toBe(0);
    expect(existsSync(join(origin, 'dropped.bin'))).toBe(false);
    const l = await lftp(port, ALICE, 'cls -1 /far/');
    expect(l.out).not.toMatch(/dropped|abor|lucky-upload/);
    data.destroy();
  });

  it('serves the remote over explicit FTPS as over plain FTP: a tree up and down with equal sha256', async () => {
    const cert = makeCert(work, 'ftps', ['localhost']);
    const ftps = await makeFtp(d, { tls: 'explicit', requireTls: true, certs: [{ cert: cert.cert, key: cert.key }], mounts: [{ name: 'far', storage: farKey }] });
    const up = join(work, 'tls-up');
    mkdirSync(join(up, 'sub'), { recursive: true });
    writeFileSync(join(up, 'sub', 'mid.bin'), randomBytes(2 * 1024 * 1024 + 5));
    writeFileSync(join(up, 'note.txt'), 'over TLS');
    const put = await lftp(ftps.port, ALICE, `mirror -R ${up} /far/tls`, { tls: true, cafile: cert.certFile });
    expect(put.err).toBe('');
    expect(tree(join(origin, 'tls'))).toEqual(tree(up));
    const down = join(work, 'tls-down');
    const get = await lftp(ftps.port, ALICE, `mirror /far/tls ${down}`, { tls: true, cafile: cert.certFile });
    expect(get.err).toBe('');
    expect(tree(down)).toEqual(tree(up));
    expect((await d.call('DELETE', `/api/ftpserver/rules/${ftps.key}`)).ret).toBe(0);
  });

  it('fails an upload whose remote dies, and leaves nothing under the name', async () => {
    writeFileSync(join(work, 'cut.bin'), randomBytes(24 * 1024 * 1024));
    const upload = lftp(port, ALICE, `put ${join(work, 'cut.bin')} -o /far/cut.bin`);
    // Once bytes are on their way, the remote goes.
    expect(await waitFor(() => uploading(origin))).toBe(true);
    rclone.kill('SIGKILL');
    const r = await upload;
    expect(r.code).not.toBe(0);
    // (The remote died holding our temp name: that one stays, hidden from every listing.)
    expect(existsSync(join(origin, 'cut.bin'))).toBe(false);
    // What comes next is told the remote is down (451: a transient failure), the session unharmed.
    const c = await Control.login(port, ...ALICE);
    expect(await c.cmd('SIZE /far/never/seen.bin')).toMatch(/^451 remote storage "far" cannot be reached/);
    c.close();
  });
});
