/**
 * Remote storages, the S3 kind, against a real S3-compatible server: s3rver (npm
 * `@20minutes/s3rver` 4.x, a dev dependency), started once for this file on a free loopback port in a
 * child process (testing/s3peer.ts), its objects as files in a temp directory.
 *
 * Why s3rver: Debian bookworm has no S3 server that runs alone (no MinIO, Garage or moto; radosgw
 * needs a Ceph cluster), and on npm s3rver is the one that speaks the S3 REST API over real HTTP
 * (ListObjectsV2, Range GET, multipart uploads, CopyObject and UploadPartCopy, DeleteObjects, virtual-host buckets by
 * the Host header). The fork `@20minutes/s3rver` is taken because it CHECKS SigV4 header signatures
 * (access key, secret, signed headers, canonical path and query, the 15-minute clock skew): the
 * original s3rver's last release (3.7.1) accepts any V4 signature of a known key.
 *
 * What it does not check: the payload hash (x-amz-content-sha256 is taken as sent, so a body signed
 * UNSIGNED-PAYLOAD or with a wrong hash passes), Content-MD5, the region in the credential scope.
 * For a virtual-host request it canonicalises the path as `/bucket/key` where AWS (and we) use
 * `/key`, so correct virtual-host signatures fail there: that style runs against a second s3rver
 * in the same child process over the same objects with signatures not compared (the key must still
 * exist; the Host header routes the bucket), and its URL building is unit-tested below; path-style
 * runs with signatures checked. Its query canonicalisation is encodeURIComponent rather than
 * RFC 3986 (a listing's prefix with !'()* would fail there, not on AWS). It does not implement
 * AbortMultipartUpload (405): the parts of an abandoned upload stay, so that we free them is not
 * seen here, only that no object appears. Its DeleteObjects deletes the keys concurrently and can
 * race on a folder it empties (a 500, which our client retries as S3's "try again" error). Its
 * listings' continuation tokens need OpenSSL's legacy provider (DES), given to its Node.
 */
import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageView } from '@lucky/contracts';
import type { RemoteFs, StorageGrant, StoragesService } from '../../core/services/storages.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { EN, storagesOf, tempDir } from '../../test/storages.js';
import { RemoteS3Fs, s3Url, S3_PART_SIZE } from './remote/s3.js';
import { S3_BUCKET, S3_KEY_ID, S3_SECRET, startS3Peer } from '../../test/s3peer.js';

const ADMIN = { kind: 'admin', account: 'admin' } as const;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function bytes(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A body of `total` bytes in 1 MiB chunks of unknown length to the writer, and its sha256. */
function chunked(total: number): { body: Readable; hash: () => string } {
  const h = createHash('sha256');
  let left = total;
  const body = new Readable({
    read() {
      if (left <= 0) return this.push(null);
      const c = randomBytes(Math.min(left, 1 << 20));
      left -= c.length;
      h.update(c);
      this.push(c);
    },
  });
  return { body, hash: () => h.digest('hex') };
}

/** Every file name the peer keeps on disk (its objects are `<key>._S3rver_object`). */
function filesOnDisk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' });
}

async function waitState(d: TestDaemon, key: string, state: string): Promise<StorageView> {
  const view = async () => (await d.call<{ rule: StorageView }>('GET', `/api/storage/rules/${key}`, undefined, EN)).rule;
  let v = await view();
  for (let i = 0; i < 400 && v.status?.state !== state; i++) {
    await new Promise((r) => setTimeout(r, 25));
    v = await view();
  }
  return v;
}

describe('a remote S3 storage (s3rver)', () => {
  let d: TestDaemon;
  let dir: string;
  let port: number;
  let vhostPort: number;
  let peer: ChildProcess;
  let key: string;
  let s: StoragesService;
  let g: StorageGrant;
  let fs: RemoteFs;
  const s3 = (o: Record<string, unknown> = {}) => ({ endpoint: `http://127.0.0.1:${port}`, bucket: S3_BUCKET, prefix: 'root', accessKeyId: S3_KEY_ID, secretAccessKey: S3_SECRET, pathStyle: true, ...o });
  /** A second client beside the daemon's, uncached: "someone else" writing to the bucket. */
  let other: RemoteS3Fs;

  beforeAll(async () => {
    dir = tempDir('remote-s3');
    port = await freePort();
    vhostPort = await freePort();
    peer = await startS3Peer(dir, port, vhostPort);
    d = await startTestDaemon();
    s = await storagesOf(d);
    other = new RemoteS3Fs('other', { region: 'us-east-1', ...s3() } as never);
  }, 30_000);

  afterAll(async () => {
    peer?.kill('SIGKILL');
    await other?.close();
    await d?.close();
  });

  it('tests the connection as the form has it, and says why one fails', async () => {
    const ok = await d.call('POST', '/api/storage/testremote', { storage: { name: 's3', kind: 's3', s3: s3() } }, EN);
    expect(ok).toMatchObject({ ret: 0, ok: true, entries: 0 });
    const wrong = await d.call('POST', '/api/storage/testremote', { storage: { name: 's3', kind: 's3', s3: s3({ secretAccessKey: 'not-the-secret' }) } }, EN);
    expect(wrong).toMatchObject({ ret: 0, ok: false, msg: expect.stringContaining('HTTP 403 SignatureDoesNotMatch') });
    expect(wrong.msg).not.toContain('not-the-secret');
    const unknown = await d.call('POST', '/api/storage/testremote', { storage: { name: 's3', kind: 's3', s3: s3({ accessKeyId: 'nobody' }) } }, EN);
    expect(unknown).toMatchObject({ ok: false, msg: expect.stringContaining('InvalidAccessKeyId') });
    const noBucket = await d.call('POST', '/api/storage/testremote', { storage: { name: 's3', kind: 's3', s3: s3({ bucket: 'no-such-bucket' }) } }, EN);
    expect(noBucket).toMatchObject({ ok: false, msg: expect.stringContaining('NoSuchBucket') });
  });

  it('runs while the bucket answers, and serves files through the storages service', async () => {
    const r = await d.call<{ key: string }>('POST', '/api/storage/rules', { name: 's3', kind: 's3', s3: s3(), cacheSeconds: 30 }, EN);
    expect(r.ret).toBe(0);
    key = r.key;
    expect((await waitState(d, key, 'running')).status?.state).toBe('running');
    const v = (await d.call<{ rule: StorageView }>('GET', `/api/storage/rules/${key}`, undefined, EN)).rule;
    expect(v.s3.secretAccessKey).toBe('******');
    g = s.grant(ADMIN, key, { remote: true })!;
    fs = g.remote!;

    // A small file through the service (one PutObject), under the prefix.
    expect(await s.write(g, '/note.txt', Buffer.from('from lucky'))).toMatchObject({ path: '/note.txt', created: true, size: 10 });
    expect((await s.read(g, '/note.txt', 1024))?.data?.toString()).toBe('from lucky');
    expect(filesOnDisk(dir).some((f) => f.endsWith(join('root', 'note.txt._S3rver_object')))).toBe(true);
  });

  it('streams 12 MiB up as a multipart upload (known and unknown size) and reads it back whole and by range', async () => {
    await fs.mkdir('/sub');
    // Unknown size: parts of 8 MiB, one held at a time.
    const a = chunked(12 << 20);
    await fs.write('/sub/big.bin', a.body);
    const back = await bytes(await fs.read('/sub/big.bin'));
    expect(back.length).toBe(12 << 20);
    expect(sha(back)).toBe(a.hash());
    // Across the parts' border.
    expect(await bytes(await fs.read('/sub/big.bin', { start: S3_PART_SIZE - 10, end: S3_PART_SIZE + 9 }))).toEqual(back.subarray(S3_PART_SIZE - 10, S3_PART_SIZE + 10));
    expect(await bytes(await fs.read('/sub/big.bin', { start: (12 << 20) - 5 }))).toEqual(back.subarray((12 << 20) - 5));
    // Unknown size under one part: one PutObject of what came (an FTP or SFTP upload is of unknown size).
    const small = randomBytes(100_001);
    await fs.write('/sub/small.bin', Readable.from([small.subarray(0, 50_000), small.subarray(50_000)]));
    expect(await bytes(await fs.read('/sub/small.bin'))).toEqual(small);
    await fs.remove('/sub/small.bin');
    // Known size, the body cut in odd chunks.
    const c = randomBytes((9 << 20) + 7);
    await fs.write('/sub/known.bin', Readable.from([c.subarray(0, 3e6), c.subarray(3e6, 3e6 + 1), c.subarray(3e6 + 1)]), c.length);
    expect(sha(await bytes(await fs.read('/sub/known.bin')))).toBe(sha(c));
    // A body shorter than it said: refused, nothing under the name.
    await expect(fs.write('/sub/short.bin', Readable.from([randomBytes(1000)]), 9 << 20)).rejects.toThrow(/1000 of/);
    expect(await fs.stat('/sub/short.bin')).toBeNull();
    // A body that fails after its first part went up: nothing under the key (the upload is never
    // completed; we abort it, which s3rver does not implement: it answers 405 and keeps the parts).
    const failing = Readable.from(
      (async function* () {
        yield randomBytes(9 << 20);
        throw new Error('client went away');
      })(),
    );
    await expect(fs.write('/sub/failed.bin', failing)).rejects.toThrow(/client went away/);
    expect(await fs.stat('/sub/failed.bin')).toBeNull();
    expect(filesOnDisk(dir).filter((f) => f.includes('failed.bin'))).toEqual([]);

    expect((await fs.list('/')).map((e) => `${e.kind}:${e.name}`).sort()).toEqual(['dir:sub', 'file:note.txt']);
    expect((await fs.list('/sub')).map((e) => `${e.kind}:${e.name}:${e.size}`).sort()).toEqual([`file:big.bin:${12 << 20}`, `file:known.bin:${c.length}`]);
    expect(await fs.stat('/sub')).toMatchObject({ kind: 'dir' });
    expect(await fs.stat('/sub/big.bin')).toMatchObject({ kind: 'file', size: 12 << 20 });
    expect(await fs.stat('/nothing')).toBeNull();
    await expect(fs.list('/nothing')).rejects.toThrow();
  });

  it('makes, renames and removes folders (copies and deletes, not atomic), with its cache dropped by its own changes', async () => {
    // An empty folder stays (its marker), and is listed.
    await fs.mkdir('/empty');
    expect((await fs.list('/empty'))).toEqual([]);
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['empty', 'note.txt', 'sub']);
    // Someone else writes: the cached listing (30 s) does not show it…
    await other.write('/outside.txt', Readable.from([Buffer.from('x')]), 1);
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['empty', 'note.txt', 'sub']);
    // …our own write drops it, so the next listing is fresh (and shows the other's file too).
    await fs.write('/mine.txt', Readable.from([Buffer.from('y')]), 1);
    expect((await fs.list('/')).map((e) => e.name).sort()).toEqual(['empty', 'mine.txt', 'note.txt', 'outside.txt', 'sub']);

    await fs.rename('/mine.txt', '/empty/moved.txt');
    expect((await fs.list('/empty')).map((e) => e.name)).toEqual(['moved.txt']);
    expect(await fs.stat('/mine.txt')).toBeNull();
    await fs.rename('/sub', '/renamed');
    expect((await fs.list('/renamed')).map((e) => e.name).sort()).toEqual(['big.bin', 'known.bin']);
    expect(await fs.stat('/sub')).toBeNull();
    await fs.remove('/outside.txt');
    await expect(fs.remove('/outside.txt')).rejects.toThrow();
    await fs.removeTree('/renamed');
    await fs.removeTree('/empty');
    expect((await fs.list('/')).map((e) => e.name)).toEqual(['note.txt']);
    expect(filesOnDisk(dir).filter((f) => f.includes('big.bin') || f.includes('moved.txt'))).toEqual([]);
  });

  it('renames an object past the single-copy limit by a copy in parts, on the server', async () => {
    // S3's limits (5 GiB, parts of 512 MiB) lowered to 6 and 5 MiB: 13 MiB go as parts of 5, 5 and 3.
    const parts = new RemoteS3Fs('parts', { region: 'us-east-1', ...s3({ prefix: 'parts' }) } as never, { copyMax: 6 << 20, copyPart: 5 << 20 });
    try {
      const data = randomBytes((13 << 20) + 9);
      await parts.write('/large.bin', Readable.from([data]), data.length);
      await parts.rename('/large.bin', '/moved/large.bin');
      expect(await parts.stat('/large.bin')).toBeNull();
      const back: Buffer[] = [];
      for await (const c of await parts.read('/moved/large.bin')) back.push(c as Buffer);
      expect(createHash('sha256').update(Buffer.concat(back)).digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
      // A small one beside it still goes by one CopyObject, in a folder rename as alone.
      await parts.write('/moved/small.txt', Readable.from([Buffer.from('small')]), 5);
      await parts.rename('/moved', '/again');
      expect((await parts.list('/again')).map((e) => [e.name, e.size]).sort()).toEqual([['large.bin', data.length], ['small.txt', 5]]);
      await parts.removeTree('/again');
    } finally {
      await parts.close();
    }
  });

  it('builds virtual-host URLs, and works against the peer by the bucket in the Host name', async () => {
    const cfg = { endpoint: 'https://s3.example.com:9000/base/', bucket: 'b1', pathStyle: false };
    expect(s3Url(cfg, 'a b/c+d(e).txt').href).toBe('https://b1.s3.example.com:9000/base/a%20b/c%2Bd%28e%29.txt');
    expect(s3Url({ ...cfg, pathStyle: true }, 'x/y', { 'list-type': '2', prefix: 'p/' }).href).toBe('https://s3.example.com:9000/base/b1/x/y?list-type=2&prefix=p%2F');
    expect(s3Url({ ...cfg, pathStyle: true }, '').href).toBe('https://s3.example.com:9000/base/b1');
    expect(s3Url(cfg, '').href).toBe('https://b1.s3.example.com:9000/base/');

    // `lucky-bucket.s3.localhost` names the bucket to the peer; this machine's resolver knows no
    // `*.localhost`, so the client is given a lookup that answers loopback (the Host header, the
    // URL and the signature are the real ones).
    const lookup = ((_h: string, o: unknown, cb: (e: null, a: string | { address: string; family: number }[], f?: number) => void) =>
      (o as { all?: boolean }).all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)) as never;
    const vh = new RemoteS3Fs('vhost', { region: 'us-east-1', ...s3({ endpoint: `http://s3.localhost:${vhostPort}`, pathStyle: false, prefix: 'vh' }) } as never, { lookup });
    try {
      await vh.write('/v.txt', Readable.from([Buffer.from('virtual')]), 7);
      expect((await bytes(await vh.read('/v.txt'))).toString()).toBe('virtual');
      expect((await vh.list('/')).map((e) => e.name)).toEqual(['v.txt']);
      await vh.removeTree('/');
      expect(await vh.stat('/v.txt')).toBeNull();
    } finally {
      await vh.close();
    }
  });

  it('says the remote is down when it dies mid-upload, leaving no object under the key; the rule shows it', async () => {
    let sent = 0;
    const body = new Readable({
      read() {
        if (sent === 10) {
          // Past the first part: the server goes away with the second on its way.
          peer.kill('SIGKILL');
          setTimeout(() => this.push(randomBytes(1 << 20)), 100);
          sent++;
          return;
        }
        if (sent > 20) return this.push(null);
        sent++;
        this.push(randomBytes(1 << 20));
      },
    });
    await expect(fs.write('/cut.bin', body)).rejects.toThrow(/cannot be reached/);
    const zh = await d.call('POST', '/api/storage/testremote', { key, storage: { name: 's3', kind: 's3', s3: { ...s3(), secretAccessKey: '******' } } }, { headers: { 'lucky-lang': 'zh_CN' } });
    expect(zh).toMatchObject({ ok: false, msg: expect.stringContaining('无法连接') });
    peer = await startS3Peer(dir, port, vhostPort);
    const back = await d.call('POST', '/api/storage/testremote', { key, storage: { name: 's3', kind: 's3', s3: { ...s3(), secretAccessKey: '******' } } }, EN);
    expect(back, back.msg).toMatchObject({ ok: true, entries: 1 });
    expect(await fs.stat('/cut.bin')).toBeNull();
    expect(filesOnDisk(dir).filter((f) => f.endsWith('cut.bin._S3rver_object'))).toEqual([]);
  });
});
