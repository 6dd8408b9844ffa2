/**
 * Remote storages, the WebDAV kind, against a real WebDAV server (`rclone serve webdav` on loopback,
 * its own directory cache off, serving a temp directory the test can look into): "test connection"
 * from the form, the storage
 * running while the server answers, files written (streamed) and read back (whole and by range)
 * through the storages service, listings cached but our own changes seen at once, a server that
 * dies mid-upload (a clear error, nothing left under the file's name), and a service that does not
 * say it serves remote storages never given one.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageView } from '@lucky/contracts';
import type { RemoteFs, StorageGrant, StoragesService } from '../../core/services/storages.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { rcloneWebdav, RCLONE_PASS, RCLONE_USER } from '../../test/rclone.js';
import { EN, storagesOf, tempDir } from '../../test/storages.js';

const ADMIN = { kind: 'admin', account: 'admin' } as const;

async function text(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

async function view(d: TestDaemon, key: string): Promise<StorageView> {
  return (await d.call<{ rule: StorageView }>('GET', `/api/storage/rules/${key}`, undefined, EN)).rule;
}

async function waitState(d: TestDaemon, key: string, state: string): Promise<StorageView> {
  let v = await view(d, key);
  for (let i = 0; i < 400 && v.status?.state !== state; i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await view(d, key);
  }
  return v;
}

describe('a remote WebDAV storage (rclone serve webdav)', () => {
  let d: TestDaemon;
  let dir: string;
  let port: number;
  let rclone: ChildProcess;
  let key: string;
  let s: StoragesService;
  let g: StorageGrant;
  let fs: RemoteFs;
  const webdav = () => ({ url: `http://127.0.0.1:${port}/base`, username: RCLONE_USER, password: RCLONE_PASS });

  beforeAll(async () => {
    dir = tempDir('remote-dav');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'base'));
    writeFileSync(join(dir, 'base', 'hello.txt'), 'hello');
    port = await freePort();
    rclone = await rcloneWebdav(dir, port);
    d = await startTestDaemon();
    s = await storagesOf(d);
  }, 30_000);

  afterAll(async () => {
    rclone?.kill('SIGKILL');
    await d?.close();
  });

  it('tests the connection as the form has it, and says why one fails', async () => {
    const ok = await d.call('POST', '/api/storage/testremote', { storage: { name: 'dav', kind: 'webdav', webdav: webdav() } }, EN);
    expect(ok).toMatchObject({ ret: 0, ok: true, entries: 1, msg: 'connected: 1 entries at the root' });
    const wrong = await d.call('POST', '/api/storage/testremote', { storage: { name: 'dav', kind: 'webdav', webdav: { ...webdav(), password: 'nope' } } }, EN);
    expect(wrong).toMatchObject({ ret: 0, ok: false, msg: expect.stringContaining('HTTP 401') });
    const none = await d.call('POST', '/api/storage/testremote', { storage: { name: 'dav', kind: 'webdav', webdav: { url: '' } } }, EN);
    expect(none.ret).not.toBe(0);
  });

  it('runs while the server answers, and serves files through the storages service', async () => {
    const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: 'dav', kind: 'webdav', webdav: webdav(), cacheSeconds: 2 }, EN);
    expect(r.ret).toBe(0);
    key = r.key;
    expect((await waitState(d, key, 'running')).status?.state).toBe('running');
    // The password is a secret: masked in answers.
    expect((await view(d, key)).webdav.password).toBe('******');
    // Only a service that says it serves remote storages gets one.
    expect(s.grant(ADMIN, key)).toBeNull();
    g = s.grant(ADMIN, key, { remote: true })!;
    expect(g.remote).not.toBeNull();
    fs = g.remote!;

    expect((await s.read(g, '/hello.txt', 1024))?.data?.toString()).toBe('hello');
    const w = await s.write(g, '/note.txt', Buffer.from('from lucky'));
    expect(w).toMatchObject({ path: '/note.txt', created: true, size: 10 });
    expect(readFileSync(join(dir, 'base', 'note.txt'), 'utf8')).toBe('from lucky');

    // A streamed upload of several MiB, never whole in memory on our side; equal by sha256.
    const big = randomBytes(9 * 1024 * 1024 + 3);
    await fs.mkdir('/sub');
    await fs.write('/sub/big.bin', Readable.from([big.subarray(0, 4e6), big.subarray(4e6)]), big.length);
    expect(createHash('sha256').update(readFileSync(join(dir, 'base', 'sub', 'big.bin'))).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
    // A range read.
    expect(await text(await fs.read('/sub/big.bin', { start: 1000, end: 1999 }))).toEqual(big.subarray(1000, 2000));
    const names = (await fs.list('/')).map((e) => `${e.kind}:${e.name}`).sort();
    expect(names).toEqual(['dir:sub', 'file:hello.txt', 'file:note.txt']);
    expect(await fs.stat('/nothing-here')).toBeNull();
    // Paths are checked as for any storage.
    await expect(s.resolve(g, '/../../etc/passwd', 'read')).rejects.toThrow();
  });

  it('drops its cached listing on its own changes, and sees others’ within cacheSeconds', async () => {
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['big.bin']);
    await fs.rename('/sub/big.bin', '/sub/moved.bin');
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['moved.bin']);
    writeFileSync(join(dir, 'base', 'sub', 'outside.txt'), 'x');
    // Still the cached listing: the change was not ours.
    expect((await fs.list('/sub')).map((e) => e.name)).toEqual(['moved.bin']);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fs.list('/sub')).map((e) => e.name).sort()).toEqual(['moved.bin', 'outside.txt']);
    await fs.removeTree('/sub');
    expect(existsSync(join(dir, 'base', 'sub'))).toBe(false);
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['hello.txt', 'note.txt']);
  });

  it('says the remote is down when it dies mid-upload, leaving nothing under the name; the rule shows it', async () => {
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent === 2) {
          // Half way: the server goes away.
          rclone.kill('SIGKILL');
          setTimeout(() => this.push(randomBytes(1 << 20)), 200);
          sent++;
          return;
        }
        if (sent > 6) return this.push(null);
        sent++;
        this.push(randomBytes(1 << 20));
      },
    });
    await expect(fs.write('/cut.bin', body, 7 << 20)).rejects.toThrow(/cannot be reached/);
    expect(existsSync(join(dir, 'base', 'cut.bin'))).toBe(false);
    const zh = await d.call('POST', '/api/storage/testremote', { key, storage: { name: 'dav', kind: 'webdav', webdav: { ...webdav(), password: '******' } } }, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zh).toMatchObject({ ok: false, msg: expect.stringContaining('无法连接') });
    // Brought back: the masked password is the stored one, and it works again.
    rclone = await rcloneWebdav(dir, port);
    const back = await d.call('POST', '/api/storage/testremote', { key, storage: { name: 'dav', kind: 'webdav', webdav: { ...webdav(), password: '******' } } }, EN);
    expect(back).toMatchObject({ ok: true });
    // The temp file of the cut upload is never listed.
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['hello.txt', 'note.txt']);
    expect(readdirSync(join(dir, 'base')).filter((n) => n === 'cut.bin')).toEqual([]);
  });
});
