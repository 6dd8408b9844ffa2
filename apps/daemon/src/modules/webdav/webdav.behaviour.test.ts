/**
 * What litmus does not look at: quotas (refused uploads leave nothing behind, the quota properties),
 * an upload broken off midway (no half file under the real name, no temporary file left), dead
 * properties following MOVE and COPY and leaving with DELETE, lock tokens and timeouts, PROPFIND
 * depth limits and Microsoft's noroot, the access log and figures.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, startTestDaemon, type TestDaemon } from './testing/daemon.js';
import { dav } from './testing/http.js';

const A: [string, string] = ['alice', 'pw'];
const auth = `Basic ${Buffer.from('alice:pw').toString('base64')}`;

describe('WebDAV behaviour', () => {
  let d: TestDaemon;
  let base: string;
  let port: number;
  let small: string;
  let big: string;

  beforeAll(async () => {
    d = await startTestDaemon();
    base = tempDir('beh');
    small = join(base, 'small');
    big = join(base, 'big');
    mkdirSync(small);
    mkdirSync(big);
    const sq = await makeStorage(d, { name: 'small', path: small, quota: 10_000 });
    const sb = await makeStorage(d, { name: 'big', path: big });
    await setStorageUsers(d, [{ account: 'alice', password: 'pw', permissions: { [sq]: { read: true, write: true, delete: true }, [sb]: { read: true, write: true, delete: true } } }]);
    ({ port } = await makeDav(d, { mounts: [{ name: 'small', storage: sq }, { name: 'big', storage: sb }], lockTimeout: 60 }));
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('refuses uploads beyond the quota, declared or streamed, and leaves nothing behind', async () => {
    expect((await dav(port, 'PUT', '/small/fits.bin', { auth: A, body: Buffer.alloc(4000) })).status).toBe(201);
    expect((await dav(port, 'PUT', '/small/toobig.bin', { auth: A, body: Buffer.alloc(20_000) })).status).toBe(507);
    expect((await dav(port, 'PUT', '/small/finder.bin', { auth: A, headers: { 'x-expected-entity-length': '50000' }, body: Buffer.alloc(10) })).status).toBe(507);
    // Chunked: the size is known only as it comes.
    const status = await new Promise<number>((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port, method: 'PUT', path: '/small/chunked.bin', headers: { authorization: auth, 'transfer-encoding': 'chunked' }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      r.on('error', reject);
      for (let i = 0; i < 30; i++) r.write(Buffer.alloc(1000));
      r.end();
    });
    expect(status).toBe(507);
    expect(readdirSync(small)).toEqual(['fits.bin']);
    const q = await dav(port, 'PROPFIND', '/small/', {
      auth: A,
      headers: { depth: '0' },
      body: '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:quota-available-bytes/><D:quota-used-bytes/></D:prop></D:propfind>',
    });
    const avail = Number(/<D:quota-available-bytes>(\d+)</.exec(q.body)?.[1]);
    const used = Number(/<D:quota-used-bytes>(\d+)</.exec(q.body)?.[1]);
    expect(avail + used).toBe(10_000);
    expect(avail).toBeLessThanOrEqual(10_000);
  });

  it('keeps a broken-off upload out of sight: no half file, no temporary file', async () => {
    writeFileSync(join(big, 'keep.bin'), 'old content');
    await new Promise<void>((resolve) => {
      const r = request({ host: '127.0.0.1', port, method: 'PUT', path: '/big/keep.bin', headers: { authorization: auth, 'content-length': String(1 << 20) }, agent: false });
      r.on('error', () => resolve());
      r.write(Buffer.alloc(100_000));
      setTimeout(() => {
        r.destroy();
        resolve();
      }, 200);
    });
    for (let i = 0; i < 50 && readdirSync(big).length > 1; i++) await new Promise((r) => setTimeout(r, 20));
    expect(readdirSync(big)).toEqual(['keep.bin']);
    expect(readFileSync(join(big, 'keep.bin'), 'utf8')).toBe('old content');
  });

  it('moves, copies and deletes dead properties with their resource, across storages too', async () => {
    mkdirSync(join(big, 'p'));
    writeFileSync(join(big, 'p', 'f.txt'), 'f');
    const set = '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:z"><D:set><D:prop><Z:colour>blue <Z:b>bold</Z:b></Z:colour></D:prop></D:set></D:propertyupdate>';
    expect((await dav(port, 'PROPPATCH', '/big/p/f.txt', { auth: A, body: set })).status).toBe(207);
    const ask = '<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><Q:colour xmlns:Q="urn:z"/></D:prop></D:propfind>';
    const has = async (p: string) => /colour[^>]*>blue <x\d:b>bold<\/x\d:b>/.test((await dav(port, 'PROPFIND', p, { auth: A, headers: { depth: '0' }, body: ask })).body);
    expect(await has('/big/p/f.txt')).toBe(true);
    expect((await dav(port, 'MOVE', '/big/p', { auth: A, headers: { destination: '/big/q' } })).status).toBe(201);
    expect(await has('/big/q/f.txt')).toBe(true);
    expect((await dav(port, 'COPY', '/big/q/f.txt', { auth: A, headers: { destination: '/small/f.txt' } })).status).toBe(201);
    expect(await has('/small/f.txt')).toBe(true);
    expect((await dav(port, 'DELETE', '/big/q', { auth: A })).status).toBe(204);
    writeFileSync(join(big, 'q'), 'a file now');
    expect(await has('/big/q/f.txt')).toBe(false);
    expect(existsSync(join(d.dataDir, 'webdav', 'props'))).toBe(true);
  });

  it('enforces lock tokens on writes and lets locks expire', async () => {
    writeFileSync(join(big, 'l.txt'), 'x');
    const body = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner>me</D:owner></D:lockinfo>';
    const lock = await dav(port, 'LOCK', '/big/l.txt', { auth: A, headers: { timeout: 'Second-1' }, body });
    expect(lock.status).toBe(200);
    const token = /<([^>]+)>/.exec(String(lock.headers['lock-token']))![1]!;
    expect(token).toMatch(/^opaquelocktoken:/);
    expect(lock.body).toContain('<D:timeout>Second-1</D:timeout>');
    expect((await dav(port, 'PUT', '/big/l.txt', { auth: A, body: 'y' })).status).toBe(423);
    expect((await dav(port, 'DELETE', '/big/l.txt', { auth: A })).status).toBe(423);
    expect((await dav(port, 'PUT', '/big/l.txt', { auth: A, body: 'y', headers: { if: `(<${token}>)` } })).status).toBe(204);
    expect((await dav(port, 'PUT', '/big/l.txt', { auth: A, body: 'z', headers: { if: '(<opaquelocktoken:wrong>)' } })).status).toBe(412);
    await new Promise((r) => setTimeout(r, 1200));
    expect((await dav(port, 'PUT', '/big/l.txt', { auth: A, body: 'w' })).status).toBe(204);
    expect(readFileSync(join(big, 'l.txt'), 'utf8')).toBe('w');
    // A timeout longer than the rule's is cut to it.
    const long = await dav(port, 'LOCK', '/big/l.txt', { auth: A, headers: { timeout: 'Second-999999' }, body });
    expect(long.body).toContain('<D:timeout>Second-60</D:timeout>');
  });

  it('answers ETag conditions', async () => {
    writeFileSync(join(big, 'e.txt'), 'e');
    const g = await dav(port, 'GET', '/big/e.txt', { auth: A });
    const etag = String(g.headers.etag);
    expect(g.headers['last-modified']).toBeTruthy();
    expect((await dav(port, 'GET', '/big/e.txt', { auth: A, headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await dav(port, 'PUT', '/big/e.txt', { auth: A, body: 'no', headers: { 'if-match': '"other"' } })).status).toBe(412);
    expect((await dav(port, 'PUT', '/big/e.txt', { auth: A, body: 'yes', headers: { 'if-match': etag } })).status).toBe(204);
    expect((await dav(port, 'PUT', '/big/e.txt', { auth: A, body: 'no', headers: { 'if-none-match': '*' } })).status).toBe(412);
    expect(readFileSync(join(big, 'e.txt'), 'utf8')).toBe('yes');
  });

  it('keeps as many access lines as the settings say, and none at 0', async () => {
    const rules = await d.call<{ list: Array<{ key: string }> }>('GET', '/api/webdav/rules');
    const key = rules.list[0]!.key;
    let last = 0;
    const accessLines = async (pre = 0) => {
      const r = await d.call<{ logs: Array<{ log: string; timestamp: number }> }>('GET', `/api/webdav/rules/${key}/logs?pre=${pre}`, undefined, { headers: { 'lucky-lang': 'en_US' } });
      last = r.logs.at(-1)?.timestamp ?? last;
      return r.logs.filter((l) => l.log.includes('GET /big/e.txt')).length;
    };
    expect((await d.call('PUT', '/api/webdav/configure', { accessLogLines: 400 })).ret).toBe(0);
    const earlier = await accessLines();
    for (let i = 0; i < 330; i++) await dav(port, 'GET', '/big/e.txt', { auth: A });
    // More than the 256 lines a rule's log keeps by default.
    expect(await accessLines()).toBe(earlier + 330);
    expect((await d.call('PUT', '/api/webdav/configure', { accessLogLines: 0 })).ret).toBe(0);
    await dav(port, 'GET', '/big/e.txt', { auth: A });
    expect(await accessLines(last)).toBe(0);
    expect((await d.call('PUT', '/api/webdav/configure', { accessLogLines: 200 })).ret).toBe(0);
  });

  it('refuses PROPFIND of infinite depth and knows noroot', async () => {
    const inf = await dav(port, 'PROPFIND', '/big/', { auth: A, headers: { depth: 'infinity' } });
    expect(inf.status).toBe(403);
    expect(inf.body).toContain('<D:propfind-finite-depth/>');
    expect((await dav(port, 'PROPFIND', '/big/', { auth: A })).status).toBe(403);
    // No DTD, so no entity can expand (the "billion laughs").
    const laughs = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><D:propfind xmlns:D="DAV:"><D:prop><D:getetag/></D:prop></D:propfind>';
    expect((await dav(port, 'PROPFIND', '/big/', { auth: A, headers: { depth: '0' }, body: laughs })).status).toBe(400);
    const nr = await dav(port, 'PROPFIND', '/big/', { auth: A, headers: { depth: '1,noroot' } });
    expect(nr.status).toBe(207);
    expect(nr.body).not.toContain('<D:href>/big/</D:href>');
    expect(nr.body).toContain('<D:href>/big/e.txt</D:href>');
  });
});
