/**
 * Big transfers through real sockets: a 100 MiB file uploaded in chunks and downloaded whole and by
 * range with matching sha256; an upload resumed after its connection was cut mid-chunk; the quota
 * refusing an upload before anything is written; folders and selections as zips that Debian's
 * `unzip` unpacks to the same tree (ZIP64 records too).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER, type FbUpload } from '@lucky/contracts';
import { zipStream } from './filebrowser.zip.js';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, pseudoRandom, q, raw, sha256Of, startFb, uploadChunked } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;

const MiB = 1 << 20;

/** Every file under `dir` with its sha256, and every folder. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) {
        out[`${rel}${n}/`] = 'dir';
        walk(p, `${rel}${n}/`);
      } else out[`${rel}${n}`] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

function unzip(zip: string, into: string): void {
  mkdirSync(into, { recursive: true });
  const r = spawnSync('unzip', ['-q', zip, '-d', into], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`unzip failed (${r.status}): ${r.stderr}${r.stdout}`);
}

describe('file browser transfers', () => {
  let d: D;
  let base: string;
  let root: string;
  let s1: string;

  beforeAll(async () => {
    d = await startFb();
    base = tempDir('xfer');
    root = join(base, 'one');
    mkdirSync(root);
    s1 = await makeStorage(d, { name: 'one', path: root });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('uploads a 100 MiB file in chunks and downloads it whole and by range, same sha256', async () => {
    const size = 100 * MiB;
    const want = await sha256Of(pseudoRandom(size, 7));
    await uploadChunked(d, s1, '/big/数据 100M.bin', size, (from, to) => pseudoRandom(to, 7, from));
    expect(statSync(join(root, 'big', '数据 100M.bin')).size).toBe(size);
    // No temporary file is left behind, and none is listed while it exists.
    expect(readdirSync(root)).toEqual(['big']);
    const dl = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s1, path: '/big/数据 100M.bin' })}`, { hash: true });
    expect(dl.status).toBe(200);
    expect(dl.headers['content-length']).toBe(String(size));
    expect(dl.headers['content-disposition']).toBe(`attachment; filename="__ 100M.bin"; filename*=UTF-8''${encodeURIComponent('数据 100M.bin')}`);
    expect(dl.text).toBe(want);
    // A range from the middle: what a resumed download or a seeking player asks.
    const part = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s1, path: '/big/数据 100M.bin' })}`, { headers: { range: `bytes=${50 * MiB}-${50 * MiB + 999}` } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes ${50 * MiB}-${50 * MiB + 999}/${size}`);
    expect(part.body.equals(readFileSync(join(root, 'big', '数据 100M.bin')).subarray(50 * MiB, 50 * MiB + 1000))).toBe(true);
    const past = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s1, path: '/big/数据 100M.bin' })}`, { headers: { range: `bytes=${size}-` } });
    expect(past.status).toBe(416);
    // The same file through a ticket: a plain link a browser or a media player can fetch.
    const t = await api<{ url: string }>(d, 'POST', '/api/filebrowser/ticket', { storage: s1, paths: ['/big/数据 100M.bin'], inline: true });
    const byTicket = await raw(d, 'GET', `/${t.url}`, { anonymous: true, headers: { range: 'bytes=0-9' } });
    expect(byTicket.status).toBe(206);
    expect(byTicket.headers['content-disposition']).toMatch(/^inline; /);
    expect(byTicket.headers['content-security-policy']).toMatch(/^sandbox/);
    expect(byTicket.body.equals(readFileSync(join(root, 'big', '数据 100M.bin')).subarray(0, 10))).toBe(true);
    expect((await raw(d, 'GET', '/api/filebrowser/get/AAAAAAAAAAAAAAAAAAAAAAAA', { anonymous: true })).status).toBe(404);
  }, 120_000);

  it('resumes an upload whose connection was cut in the middle of a chunk', async () => {
    const size = 12 * MiB;
    const want = await sha256Of(pseudoRandom(size, 3));
    const c = await api<{ upload: FbUpload }>(d, 'POST', '/api/filebrowser/uploads', { storage: s1, path: '/resumed.bin', size });
    const id = c.upload.id;
    // Promise the whole file in one request, send 5 MiB of it, then cut the connection.
    await new Promise<void>((resolve) => {
      const req = request({
        host: '127.0.0.1',
        port: d.port,
        method: 'PATCH',
        path: `/api/filebrowser/uploads/${id}?offset=0`,
        headers: { [TOKEN_HEADER]: d.token, 'content-type': 'application/octet-stream', 'content-length': String(size) },
      });
      req.on('error', () => resolve());
      const src = pseudoRandom(5 * MiB, 3);
      src.on('data', (chunk) => req.write(chunk));
      src.on('end', () => setTimeout(() => {
        req.destroy();
        resolve();
      }, 300));
    });
    // The server keeps what reached its disk; HEAD tells where to go on.
    let offset = -1;
    for (let i = 0; i < 100; i++) {
      const h = await raw(d, 'HEAD', `/api/filebrowser/uploads/${id}`);
      const st = await api<{ upload: FbUpload }>(d, 'GET', `/api/filebrowser/uploads/${id}`);
      offset = Number(h.headers['upload-offset']);
      if (st.upload.offset === offset && offset > 0) {
        const again = await raw(d, 'PATCH', `/api/filebrowser/uploads/${id}?offset=${offset}`, { body: Buffer.alloc(0), headers: { 'content-type': 'application/octet-stream' } });
        // Not busy any more (a zero-length chunk at the right offset is accepted).
        if (again.json().ret === 0) break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThanOrEqual(5 * MiB);
    expect(statSync(join(root, readdirSync(root).find((n) => n.startsWith('.lucky-upload-'))!)).size).toBe(offset);
    // A chunk at the wrong offset is refused, naming the right one.
    const wrong = await raw(d, 'PATCH', `/api/filebrowser/uploads/${id}?offset=0`, { body: 'xx', headers: { 'content-type': 'application/octet-stream' } });
    expect(wrong.json()).toEqual({ ret: 1, msg: `the upload is elsewhere: the server has ${offset} bytes` });
    // Not complete yet: refused.
    expect((await api(d, 'POST', `/api/filebrowser/uploads/${id}/complete`)).msg).toBe(`the upload is not complete: ${offset} of ${size} bytes`);
    expect((await api<{ list: FbUpload[] }>(d, 'GET', '/api/filebrowser/uploads')).list.map((u) => u.id)).toContain(id);
    const rest = await raw(d, 'PATCH', `/api/filebrowser/uploads/${id}?offset=${offset}`, { body: pseudoRandom(size, 3, offset), headers: { 'content-type': 'application/octet-stream', 'content-length': String(size - offset) } });
    expect(rest.json<{ upload: FbUpload }>().upload.offset).toBe(size);
    expect((await api(d, 'POST', `/api/filebrowser/uploads/${id}/complete`)).ret).toBe(0);
    expect(await sha256Of(createReadStream(join(root, 'resumed.bin')))).toBe(want);
    expect(readdirSync(root).filter((n) => n.startsWith('.lucky-upload-'))).toEqual([]);
  }, 60_000);

  it('refuses an upload past the quota, or past its own size, and cancels cleanly', async () => {
    const qdir = join(base, 'quota');
    mkdirSync(qdir);
    writeFileSync(join(qdir, 'existing.bin'), Buffer.alloc(600 * 1024));
    const sq = await makeStorage(d, { name: 'small', path: qdir, quota: MiB });
    const over = await api(d, 'POST', '/api/filebrowser/uploads', { storage: sq, path: '/new.bin', size: 600 * 1024 });
    expect(over).toEqual({ ret: 6, msg: 'over the quota of storage "small": 424 KiB may still be written, 600 KiB needed' });
    expect(readdirSync(qdir)).toEqual(['existing.bin']);
    // Two uploads cannot together promise more than the room there is.
    const a = await api<{ upload: FbUpload }>(d, 'POST', '/api/filebrowser/uploads', { storage: sq, path: '/a.bin', size: 300 * 1024 });
    expect(a.ret).toBe(0);
    expect((await api(d, 'POST', '/api/filebrowser/uploads', { storage: sq, path: '/b.bin', size: 300 * 1024 })).msg).toMatch(/^over the quota/);
    // More bytes than declared: refused, and what the chunk wrote is cut off again.
    const tooMuch = await raw(d, 'PATCH', `/api/filebrowser/uploads/${a.upload.id}?offset=0`, { body: Buffer.alloc(300 * 1024 + 10), headers: { 'content-type': 'application/octet-stream' } });
    expect(tooMuch.json()).toEqual({ ret: 1, msg: `more data than the size the upload declared (${300 * 1024})` });
    expect((await api<{ upload: FbUpload }>(d, 'GET', `/api/filebrowser/uploads/${a.upload.id}`)).upload.offset).toBe(0);
    // Cancel removes the temporary file; the id is gone.
    expect((await api(d, 'DELETE', `/api/filebrowser/uploads/${a.upload.id}`)).ret).toBe(0);
    expect(readdirSync(qdir)).toEqual(['existing.bin']);
    expect((await api(d, 'GET', `/api/filebrowser/uploads/${a.upload.id}`)).ret).toBe(3);
  });

  it('zips a folder on the fly; unzip gives back the same tree', async () => {
    const src = join(root, 'album');
    mkdirSync(join(src, 'empty'), { recursive: true });
    mkdirSync(join(src, '子目录', 'deeper'), { recursive: true });
    writeFileSync(join(src, 'notes.txt'), 'hello '.repeat(10_000));
    writeFileSync(join(src, '子目录', '照片.jpg'), Buffer.alloc(200_000, 7));
    await pipeline(pseudoRandom(3 * MiB, 9), createWriteStream(join(src, '子目录', 'deeper', 'random.bin')));
    writeFileSync(join(src, 'zero.txt'), '');
    const zipFile = join(base, 'album.zip');
    const r = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s1, path: '/album' })}`);
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('application/zip');
    expect(r.headers['content-disposition']).toBe(`attachment; filename="album.zip"; filename*=UTF-8''album.zip`);
    // Made while sent: no length known in advance.
    expect(r.headers['content-length']).toBeUndefined();
    writeFileSync(zipFile, r.body);
    // Deflated where it pays: the text shrinks to a fraction.
    expect(r.body.length).toBeLessThan(3 * MiB + 200_000 + 20_000);
    unzip(zipFile, join(base, 'out1'));
    expect(tree(join(base, 'out1', 'album'))).toEqual(tree(src));

    // A selection of one folder's items as one zip (POST), the same through a ticket.
    const sel = await raw(d, 'POST', '/api/filebrowser/zip', { body: JSON.stringify({ storage: s1, paths: ['/album/notes.txt', '/album/子目录'], name: 'pick' }), headers: { 'content-type': 'application/json' } });
    writeFileSync(join(base, 'pick.zip'), sel.body);
    unzip(join(base, 'pick.zip'), join(base, 'out2'));
    expect(readdirSync(join(base, 'out2')).sort()).toEqual(['notes.txt', '子目录']);
    expect(tree(join(base, 'out2', '子目录'))).toEqual(tree(join(src, '子目录')));
    const t = await api<{ url: string }>(d, 'POST', '/api/filebrowser/ticket', { storage: s1, paths: ['/album/notes.txt', '/album/zero.txt'], name: 'two' });
    const byTicket = await raw(d, 'GET', `/${t.url}`, { anonymous: true });
    expect(byTicket.headers['content-disposition']).toMatch(/filename="two.zip"/);
    writeFileSync(join(base, 'two.zip'), byTicket.body);
    unzip(join(base, 'two.zip'), join(base, 'out3'));
    expect(readdirSync(join(base, 'out3')).sort()).toEqual(['notes.txt', 'zero.txt']);
  });

  it('writes ZIP64 records that unzip reads (forced, without writing 4 GiB)', async () => {
    const src = join(base, 'z64');
    mkdirSync(join(src, 'd'), { recursive: true });
    writeFileSync(join(src, 'a.txt'), 'a'.repeat(100_000));
    writeFileSync(join(src, 'd', 'b.jpg'), Buffer.alloc(1000, 3));
    const sources = [
      { name: 'z64/', size: 0, mtime: new Date(), mode: 0o40755 },
      { name: 'z64/a.txt', real: join(src, 'a.txt'), size: 100_000, mtime: new Date(), mode: 0o100644 },
      { name: 'z64/d/', size: 0, mtime: new Date(), mode: 0o40755 },
      { name: 'z64/d/b.jpg', real: join(src, 'd', 'b.jpg'), size: 1000, mtime: new Date(), mode: 0o100644 },
    ];
    const file = join(base, 'z64.zip');
    await pipeline(Readable.from(zipStream(sources, { forceZip64: true })), createWriteStream(file));
    const buf = readFileSync(file);
    // The ZIP64 end record and its locator are there.
    expect(buf.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    expect(buf.includes(Buffer.from([0x50, 0x4b, 0x06, 0x07]))).toBe(true);
    const test = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    expect(test.stdout).toMatch(/No errors detected/);
    unzip(file, join(base, 'out64'));
    expect(tree(join(base, 'out64', 'z64'))).toEqual(tree(src));
    expect(existsSync(join(base, 'out64', 'z64', 'd', 'b.jpg'))).toBe(true);
  });
});
