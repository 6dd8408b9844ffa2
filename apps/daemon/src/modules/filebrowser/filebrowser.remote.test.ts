/**
 * The file browser over a remote storage (a remote WebDAV server: `rclone serve webdav` on loopback,
 * serving a temp directory the test looks into), through the module's real routes: a chunked upload
 * and its download with equal sha256, a Range download, listing, stat, mkdir, rename, copy and move
 * across storages, text, delete, a folder's zip that Info-ZIP tests good, a thumbnail, a share link,
 * paths kept inside the storage; and the remote killed while an upload is sent to it: a clear
 * `{ret, msg}` and nothing under the name. Then the round trip (chunked upload, download whole and
 * by range) over a remote SFTP storage (OpenSSH's sshd) and an S3 one (s3rver). Then search by name
 * over a fresh remote of each kind (test/remotes.ts): files put through the API found by the first
 * walk, by substring and by pattern; our own upload and delete seen at once; a search of every
 * storage that includes the remote's.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FbEntry, FbShareView, FbUpload, StorageView } from '@lucky/contracts';
import { freePort } from '../../test/harness.js';
import { rcloneWebdav, RCLONE_PASS, RCLONE_USER } from '../../test/rclone.js';
import { makeRemote } from '../../test/remotes.js';
import { startSshd } from '../../test/sshd.js';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, pseudoRandom, q, raw, sha256Of, startFb, uploadChunked } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;
interface Found {
  ret: number;
  msg?: string;
  results: Array<FbEntry & { path: string; storage: string }>;
  truncated: boolean;
  indexing: boolean;
  partial: boolean;
  indexed: number;
}
const MiB = 1 << 20;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
async function bytes(r: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of r) chunks.push(c);
  return Buffer.concat(chunks);
}

describe('the file browser over a remote WebDAV storage (rclone serve webdav)', () => {
  let d: D;
  let base: string;
  let served: string;
  let local: string;
  let port: number;
  let rclone: ChildProcess;
  let dav: string;
  let loc: string;

  const search = (query: Record<string, string>) => api<Found>(d, 'GET', `/api/filebrowser/search?${q(query)}`);
  const paths = (f: Found) => f.results.map((r) => r.path).sort();

  /** A remote storage saved, once its engine says it is running. */
  async function remoteStorage(body: Record<string, unknown>): Promise<string> {
    const r = await api<{ key: string }>(d, 'POST', '/api/storage/rules', body);
    if (r.ret !== 0) throw new Error(`storage not saved: ${r.msg}`);
    for (let i = 0; i < 400; i++) {
      const v = await api<{ rule: StorageView }>(d, 'GET', `/api/storage/rules/${r.key}`);
      if (v.rule.status?.state === 'running') break;
      await new Promise((res) => setTimeout(res, 25));
    }
    return r.key;
  }

  beforeAll(async () => {
    base = tempDir('fb-remote');
    served = join(base, 'served', 'base');
    local = join(base, 'local');
    mkdirSync(served, { recursive: true });
    mkdirSync(local);
    // Put there by others before the storage is saved: written later, they would show only once the
    // remote's listing cache (cacheSeconds) let go of the root our own writes listed.
    mkdirSync(join(served, 'pack', 'inner'), { recursive: true });
    writeFileSync(join(served, 'pack', 'one.txt'), 'one '.repeat(5000));
    writeFileSync(join(served, 'pack', 'inner', 'two.bin'), Buffer.alloc(300_000, 7));
    writeFileSync(join(served, 'pack', 'red.png'), await sharp({ create: { width: 400, height: 200, channels: 3, background: '#c00' } }).png().toBuffer());
    port = await freePort();
    rclone = await rcloneWebdav(join(base, 'served'), port);
    d = await startFb();
    loc = await makeStorage(d, { name: 'local', path: local });
    dav = await remoteStorage({ name: 'dav', kind: 'webdav', webdav: { url: `http://127.0.0.1:${port}/base`, username: RCLONE_USER, password: RCLONE_PASS }, cacheSeconds: 2 });
  }, 30_000);

  afterAll(async () => {
    rclone?.kill('SIGKILL');
    await d?.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('uploads in chunks and downloads whole and by range with equal sha256; lists and stats', async () => {
    const list = await api<{ list: Array<{ key: string }> }>(d, 'GET', '/api/filebrowser/storages');
    expect(list.list.map((s) => s.key).sort()).toEqual([dav, loc].sort());
    const size = 5 * MiB + 123;
    const want = await sha256Of(pseudoRandom(size, 3));
    // 2 MiB chunks, into a folder that does not exist yet (made on the remote at the end).
    await uploadChunked(d, dav, '/up/数据.bin', size, (from, to) => pseudoRandom(to, 3, from), 2 * MiB);
    expect(sha(readFileSync(join(served, 'up', '数据.bin')))).toBe(want);
    // Nothing staged is left, and no temp name on the remote.
    expect((await api<{ list: FbUpload[] }>(d, 'GET', '/api/filebrowser/uploads')).list).toEqual([]);
    expect(readdirSync(join(served, 'up'))).toEqual(['数据.bin']);

    const dl = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: dav, path: '/up/数据.bin' })}`, { hash: true });
    expect(dl.status).toBe(200);
    expect(dl.headers['content-length']).toBe(String(size));
    expect(dl.text).toBe(want);
    const part = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: dav, path: '/up/数据.bin' })}`, { headers: { range: `bytes=${3 * MiB}-${3 * MiB + 999}` } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${3 * MiB}-${3 * MiB + 999}/${size}`);
    expect(part.body.equals(readFileSync(join(served, 'up', '数据.bin')).subarray(3 * MiB, 3 * MiB + 1000))).toBe(true);

    const ls = await api<{ entries: FbEntry[] }>(d, 'GET', `/api/filebrowser/list?${q({ storage: dav, path: '/up' })}`);
    expect(ls.entries.map((e) => [e.name, e.kind, e.size])).toEqual([['数据.bin', 'file', size]]);
    const st = await api<{ entry: FbEntry; items: number | null }>(d, 'GET', `/api/filebrowser/stat?${q({ storage: dav, path: '/up' })}`);
    expect(st).toMatchObject({ ret: 0, entry: { name: 'up', kind: 'dir' }, items: 1 });
  });

  it('makes, renames, copies and moves (across storages too), saves text and deletes, inside the storage only', async () => {
    const ok = async (method: string, path: string, body: unknown) => {
      const r = await api(d, method, path, body);
      expect(r, `${path}: ${r.msg}`).toMatchObject({ ret: 0 });
      return r;
    };
    await ok('POST', '/api/filebrowser/mkdir', { storage: dav, path: '/', name: 'docs' });
    expect(existsSync(join(served, 'docs'))).toBe(true);
    await ok('PUT', '/api/filebrowser/text', { storage: dav, path: '/docs/a.txt', content: 'line 1\n第二行\n' });
    expect(readFileSync(join(served, 'docs', 'a.txt'), 'utf8')).toBe('line 1\n第二行\n');
    expect((await api<{ content: string }>(d, 'GET', `/api/filebrowser/text?${q({ storage: dav, path: '/docs/a.txt' })}`)).content).toBe('line 1\n第二行\n');
    await ok('POST', '/api/filebrowser/rename', { storage: dav, path: '/docs/a.txt', name: 'b.txt' });
    expect(readdirSync(join(served, 'docs'))).toEqual(['b.txt']);
    // An existing name is refused, nothing changed.
    await ok('POST', '/api/filebrowser/newfile', { storage: dav, path: '/docs', name: 'c.txt' });
    expect(await api(d, 'POST', '/api/filebrowser/rename', { storage: dav, path: '/docs/b.txt', name: 'c.txt' })).toMatchObject({ ret: 6, msg: 'a file or folder of that name exists already: /docs/c.txt' });
    // Copied to the local storage and back under another name, moved within the remote.
    await ok('POST', '/api/filebrowser/copy', { storage: dav, paths: ['/docs'], to: '/', toStorage: loc });
    expect(readFileSync(join(local, 'docs', 'b.txt'), 'utf8')).toBe('line 1\n第二行\n');
    await ok('POST', '/api/filebrowser/rename', { storage: loc, path: '/docs', name: 'docs2' });
    await ok('POST', '/api/filebrowser/move', { storage: loc, paths: ['/docs2'], to: '/up', toStorage: dav });
    expect(existsSync(join(local, 'docs2'))).toBe(false);
    expect(readdirSync(join(served, 'up', 'docs2')).sort()).toEqual(['b.txt', 'c.txt']);
    await ok('POST', '/api/filebrowser/move', { storage: dav, paths: ['/up/docs2'], to: '/docs' });
    expect(readdirSync(join(served, 'docs')).sort()).toEqual(['b.txt', 'c.txt', 'docs2']);
    await ok('POST', '/api/filebrowser/delete', { storage: dav, paths: ['/docs/docs2', '/docs/c.txt'] });
    expect(readdirSync(join(served, 'docs'))).toEqual(['b.txt']);

    // Paths stay inside the storage, on a remote as on a disk.
    for (const path of ['/../../etc/passwd', '/docs/../../x', '/a\\..\\b']) {
      const r = await api(d, 'GET', `/api/filebrowser/list?${q({ storage: dav, path })}`);
      expect(r.ret, path).toBe(1);
    }
    expect((await api(d, 'POST', '/api/filebrowser/delete', { storage: dav, paths: ['/'] })).ret).toBe(1);
  });

  it('zips a remote folder that Info-ZIP tests good; makes a thumbnail; shares a remote file', async () => {
    const zip = await raw(d, 'POST', '/api/filebrowser/zip', { body: JSON.stringify({ storage: dav, paths: ['/pack'] }), headers: { 'content-type': 'application/json' } });
    expect(zip.status).toBe(200);
    const file = join(base, 'pack.zip');
    writeFileSync(file, zip.body);
    const t = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    expect(t.status, t.stdout + t.stderr).toBe(0);
    const names = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8' }).stdout.trim().split('\n').sort();
    expect(names).toEqual(['pack/', 'pack/inner/', 'pack/inner/two.bin', 'pack/one.txt', 'pack/red.png']);

    const th = await raw(d, 'GET', `/api/filebrowser/thumb?${q({ storage: dav, path: '/pack/red.png', size: 128 })}`);
    expect(th.headers['content-type'], th.text).toBe('image/webp');
    expect(await sharp(th.body).metadata()).toMatchObject({ format: 'webp', width: 128, height: 64 });

    const r = await api<{ key: string }>(d, 'POST', '/api/filebrowser/rules', { name: 'remote share', storage: dav, path: '/pack/one.txt' });
    expect(r.ret, r.msg).toBe(0);
    const v = (await api<{ rule: FbShareView }>(d, 'GET', `/api/filebrowser/rules/${r.key}`)).rule;
    expect(v.target).toBe('file');
    const got = await raw(d, 'GET', `/${v.url}/dl`, { anonymous: true });
    expect(got.status).toBe(200);
    expect(got.text).toBe('one '.repeat(5000));
  });

  it('says the remote is down when it dies while an upload is sent to it, leaving nothing under the name', async () => {
    const size = 24 * MiB;
    const c = await api<{ upload: FbUpload }>(d, 'POST', '/api/filebrowser/uploads', { storage: dav, path: '/cut.bin', size });
    expect(c.ret, c.msg).toBe(0);
    const id = c.upload.id;
    for (let off = 0; off < size; off += 8 * MiB) {
      const r = await raw(d, 'PATCH', `/api/filebrowser/uploads/${id}?offset=${off}`, { body: pseudoRandom(off + 8 * MiB, 5, off), headers: { 'content-type': 'application/octet-stream', 'content-length': String(8 * MiB) } });
      expect(r.json().ret).toBe(0);
    }
    // The remote goes away as soon as the assembled file starts to reach it (its temp name appears).
    const w = watch(served, (_e, name) => {
      if (name?.startsWith('.lucky-upload-')) rclone.kill('SIGKILL');
    });
    let done;
    try {
      done = await api(d, 'POST', `/api/filebrowser/uploads/${id}/complete`);
    } finally {
      w.close();
    }
    expect(rclone.killed).toBe(true);
    expect(done).toMatchObject({ ret: 6, msg: expect.stringMatching(/^remote storage "dav" cannot be reached/) });
    expect(existsSync(join(served, 'cut.bin'))).toBe(false);
    // The staged upload is kept for another try; cancelled, it is gone.
    expect((await api<{ list: FbUpload[] }>(d, 'GET', '/api/filebrowser/uploads')).list.map((u) => u.id)).toEqual([id]);
    expect((await api(d, 'DELETE', `/api/filebrowser/uploads/${id}`)).ret).toBe(0);
    // Others go on: the local storage still answers.
    expect((await api(d, 'GET', `/api/filebrowser/list?${q({ storage: loc, path: '/' })}`)).ret).toBe(0);
  });

  it('uploads and downloads with equal sha256 over a remote SFTP storage (OpenSSH sshd)', async () => {
    const sshd = await startSshd();
    try {
      mkdirSync(join(sshd.root, 'base'));
      const key = await remoteStorage({
        name: 'ssh',
        kind: 'sftp',
        sftp: { host: '127.0.0.1', port: sshd.port, username: sshd.user, privateKey: sshd.clientKey, hostKey: sshd.fingerprint, root: join(sshd.root, 'base') },
      });
      const size = 3 * MiB + 7;
      const want = await sha256Of(pseudoRandom(size, 9));
      await uploadChunked(d, key, '/in/a.bin', size, (from, to) => pseudoRandom(to, 9, from), 2 * MiB);
      expect(sha(readFileSync(join(sshd.root, 'base', 'in', 'a.bin')))).toBe(want);
      const dl = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: key, path: '/in/a.bin' })}`, { hash: true });
      expect([dl.status, dl.text]).toEqual([200, want]);
      const part = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: key, path: '/in/a.bin' })}`, { headers: { range: 'bytes=2097150-2097159' } });
      expect(part.status).toBe(206);
      expect(part.body.equals(readFileSync(join(sshd.root, 'base', 'in', 'a.bin')).subarray(2097150, 2097160))).toBe(true);
    } finally {
      sshd.kill();
    }
  }, 20_000);

  it('uploads and downloads with equal sha256 over a remote S3 storage (s3rver)', async () => {
    const s3 = await makeRemote(d, 's3');
    try {
      const size = 3 * MiB + 7;
      const want = await sha256Of(pseudoRandom(size, 11));
      await uploadChunked(d, s3.key, '/in/b.bin', size, (from, to) => pseudoRandom(to, 11, from), 2 * MiB);
      const ls = await api<{ entries: FbEntry[] }>(d, 'GET', `/api/filebrowser/list?${q({ storage: s3.key, path: '/in' })}`);
      expect(ls.entries.map((e) => [e.name, e.size])).toEqual([['b.bin', size]]);
      const dl = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s3.key, path: '/in/b.bin' })}`, { hash: true });
      expect([dl.status, dl.text]).toEqual([200, want]);
      const part = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s3.key, path: '/in/b.bin' })}`, { headers: { range: 'bytes=10-19' } });
      expect(part.status).toBe(206);
      expect(part.body.equals(await bytes(pseudoRandom(20, 11, 10)))).toBe(true);
    } finally {
      s3.kill();
    }
  }, 20_000);

  for (const kind of ['webdav', 'sftp', 's3'] as const) {
    it(`searches a remote ${kind} storage by name: walked, kept fresh by our own writes, in a search of every storage`, async () => {
      const remote = await makeRemote(d, kind);
      try {
        const key = remote.key;
        const ok = async (method: string, path: string, body: unknown) => {
          const r = await api(d, method, path, body);
          expect(r, `${path}: ${r.msg}`).toMatchObject({ ret: 0 });
        };
        // Through the API (an S3 peer keeps objects in its own layout), before the storage is indexed.
        await ok('POST', '/api/filebrowser/mkdir', { storage: key, path: '/', name: 'finds' });
        await ok('POST', '/api/filebrowser/mkdir', { storage: key, path: '/finds', name: 'deep' });
        await ok('PUT', '/api/filebrowser/text', { storage: key, path: '/finds/deep/Needle-One.txt', content: 'one' });
        await ok('PUT', '/api/filebrowser/text', { storage: key, path: '/finds/needle-two.log', content: 'two' });
        await ok('POST', '/api/filebrowser/newfile', { storage: key, path: '/', name: 'hay.txt' });

        const first = await search({ storage: key, q: 'NEEDLE' });
        expect(first).toMatchObject({ ret: 0, indexing: false, partial: false, truncated: false, indexed: 5 });
        expect(paths(first)).toEqual(['/finds/deep/Needle-One.txt', '/finds/needle-two.log']);
        expect(first.results.find((r) => r.name === 'needle-two.log')).toMatchObject({ kind: 'file', size: 3, storage: key });
        expect(paths(await search({ storage: key, q: 'needle-*.txt' }))).toEqual(['/finds/deep/Needle-One.txt']);
        expect(paths(await search({ storage: key, q: '*.LOG' }))).toEqual(['/finds/needle-two.log']);
        expect(paths(await search({ storage: key, path: '/finds/deep', q: 'needle' }))).toEqual(['/finds/deep/Needle-One.txt']);

        // Our own upload (into a folder it makes) and delete: seen by the next search.
        await uploadChunked(d, key, '/finds/new/fresh-upload.bin', 1000, (from, to) => pseudoRandom(to, 2, from));
        const up = await search({ storage: key, q: 'fresh-upload' });
        expect(paths(up)).toEqual(['/finds/new/fresh-upload.bin']);
        expect(up.indexed).toBe(7);
        await ok('POST', '/api/filebrowser/delete', { storage: key, paths: ['/finds/new/fresh-upload.bin'] });
        const gone = await search({ storage: key, q: 'fresh-upload' });
        expect(gone.results).toEqual([]);
        expect(gone.indexed).toBe(6);

        // Every storage: the remote's results among them, each with its storage.
        const all = await search({ q: 'needle' });
        expect(all.ret).toBe(0);
        expect(all.results.filter((r) => r.storage === key).map((r) => r.path).sort()).toEqual(['/finds/deep/Needle-One.txt', '/finds/needle-two.log']);
      } finally {
        remote.kill();
      }
    }, 20_000);
  }
});
