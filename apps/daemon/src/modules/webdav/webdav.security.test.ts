/**
 * Who may do what, and no path out of a storage: a read-only user cannot change anything, a user
 * without a storage does not see it, a read-only storage refuses everyone's writes, and every
 * method that takes a path or a Destination refuses `..`, encoded and doubly encoded forms,
 * backslashes, NUL bytes and symlinks that leave the root, with 403 and nothing touched outside.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import { makeDav, startTestDaemon, type TestDaemon } from './testing/daemon.js';
import { dav } from './testing/http.js';

const ALICE: [string, string] = ['alice', 'alice-pw'];
const READER: [string, string] = ['reader', 'reader-pw'];
const BOB: [string, string] = ['bob', 'bob-pw'];

describe('WebDAV permissions and paths', () => {
  let d: TestDaemon;
  let port: number;
  let base: string;
  let one: string;
  let outside: string;
  const lockBody = '<?xml version="1.0"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockinfo>';
  const patchBody = '<?xml version="1.0"?><D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><Z:p xmlns:Z="urn:z">v</Z:p></D:prop></D:set></D:propertyupdate>';

  beforeAll(async () => {
    d = await startTestDaemon();
    base = tempDir('sec');
    one = join(base, 'one');
    outside = join(base, 'outside');
    for (const p of [one, join(base, 'two'), join(base, 'ro'), outside]) mkdirSync(p);
    writeFileSync(join(outside, 'secret.txt'), 'secret');
    writeFileSync(join(one, 'file.txt'), 'inside');
    mkdirSync(join(one, 'dir'));
    symlinkSync(outside, join(one, 'link'));
    symlinkSync(join(outside, 'secret.txt'), join(one, 'filelink'));
    writeFileSync(join(base, 'ro', 'r.txt'), 'read me');
    const s1 = await makeStorage(d, { name: 'one', path: one });
    const s2 = await makeStorage(d, { name: 'two', path: join(base, 'two') });
    const ro = await makeStorage(d, { name: 'ro', path: join(base, 'ro'), readOnly: true });
    await setStorageUsers(d, [
      { account: 'alice', password: 'alice-pw', permissions: { [s1]: { read: true, write: true, delete: true }, [ro]: { read: true, write: true, delete: true } } },
      { account: 'reader', password: 'reader-pw', permissions: { [s1]: { read: true } } },
      { account: 'bob', password: 'bob-pw', permissions: { [s2]: { read: true, write: true, delete: true } } },
    ]);
    ({ port } = await makeDav(d, { mounts: [{ name: 'one', storage: s1 }, { name: 'two', storage: s2 }, { name: 'ro', storage: ro }] }));
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('shows each user only the storages they have', async () => {
    const a = await dav(port, 'PROPFIND', '/', { auth: ALICE, headers: { depth: '1' } });
    expect(a.status).toBe(207);
    expect(a.body).toContain('<D:href>/one/</D:href>');
    expect(a.body).toContain('<D:href>/ro/</D:href>');
    expect(a.body).not.toContain('/two/');
    expect((await dav(port, 'PROPFIND', '/two/', { auth: ALICE, headers: { depth: '0' } })).status).toBe(404);
    expect((await dav(port, 'GET', '/two/', { auth: ALICE })).status).toBe(404);
    const b = await dav(port, 'PROPFIND', '/', { auth: BOB, headers: { depth: '1' } });
    expect(b.body).toContain('/two/');
    expect(b.body).not.toContain('/one/');
    expect((await dav(port, 'GET', '/one/file.txt', { auth: BOB })).status).toBe(404);
    // Wrong password, no password: asked to log in.
    const bad = await dav(port, 'GET', '/one/file.txt', { auth: ['alice', 'nope'] });
    expect(bad.status).toBe(401);
    expect(bad.headers['www-authenticate']).toMatch(/^Basic realm=/);
    expect((await dav(port, 'PROPFIND', '/', { headers: { depth: '0' } })).status).toBe(401);
    // OPTIONS is answered before login (Windows asks it first), with what a client must know.
    const o = await dav(port, 'OPTIONS', '/');
    expect(o.status).toBe(200);
    expect(o.headers.dav).toBe('1, 2');
    expect(o.headers['ms-author-via']).toBe('DAV');
  });

  it('lets a read-only user read and nothing else', async () => {
    expect((await dav(port, 'GET', '/one/file.txt', { auth: READER })).body).toBe('inside');
    expect((await dav(port, 'PROPFIND', '/one/', { auth: READER, headers: { depth: '1' } })).status).toBe(207);
    const refused = [
      ['PUT', '/one/new.txt', {}],
      ['PUT', '/one/file.txt', {}],
      ['DELETE', '/one/file.txt', {}],
      ['MKCOL', '/one/newdir', {}],
      ['MOVE', '/one/file.txt', { destination: '/one/moved.txt' }],
      ['COPY', '/one/file.txt', { destination: '/one/copied.txt' }],
      ['PROPPATCH', '/one/file.txt', {}],
      ['LOCK', '/one/file.txt', {}],
    ] as const;
    for (const [m, p, h] of refused) {
      const r = await dav(port, m, p, { auth: READER, headers: { ...h }, body: m === 'PUT' ? 'x' : m === 'PROPPATCH' ? patchBody : m === 'LOCK' ? lockBody : '' });
      expect(`${m} ${p} ${r.status}`).toBe(`${m} ${p} 403`);
    }
    expect(readdirSync(one).sort()).toEqual(['dir', 'file.txt', 'filelink', 'link']);
    expect(readFileSync(join(one, 'file.txt'), 'utf8')).toBe('inside');
    // A read-only storage refuses even a user with every permission.
    expect((await dav(port, 'PUT', '/ro/w.txt', { auth: ALICE, body: 'x' })).status).toBe(403);
    expect((await dav(port, 'DELETE', '/ro/r.txt', { auth: ALICE })).status).toBe(403);
    expect((await dav(port, 'GET', '/ro/r.txt', { auth: ALICE })).body).toBe('read me');
    // The top level is made of mounts: nothing is created or removed there.
    expect((await dav(port, 'MKCOL', '/three', { auth: ALICE })).status).toBe(404);
    expect((await dav(port, 'DELETE', '/one', { auth: ALICE })).status).toBe(403);
    expect((await dav(port, 'PUT', '/', { auth: ALICE, body: 'x' })).status).toBe(403);
  });

  const ESCAPES = [
    '/one/../outside/secret.txt',
    '/one/dir/../../outside/secret.txt',
    '/one/%2e%2e/outside/secret.txt',
    '/one/%2E%2E%2Foutside%2Fsecret.txt',
    '/one/%252e%252e%252foutside%252fsecret.txt',
    '/one/..%5coutside%5csecret.txt',
    '/one/..\\outside\\secret.txt',
    '/one/dir/%00/../../outside/secret.txt',
    '/one/file.txt%00.jpg',
    '/one/link/secret.txt',
    '/one/filelink',
    '/one/link/new.txt',
  ];
  const METHODS = ['GET', 'HEAD', 'PUT', 'DELETE', 'MKCOL', 'PROPFIND', 'PROPPATCH', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'] as const;

  it('refuses every way out of the root, with every method', async () => {
    const seen: string[] = [];
    for (const path of ESCAPES)
      for (const m of METHODS) {
        const headers: Record<string, string> = { depth: '0' };
        if (m === 'COPY' || m === 'MOVE') headers.destination = '/one/dest.txt';
        if (m === 'UNLOCK') headers['lock-token'] = '<opaquelocktoken:x>';
        const body = m === 'PUT' ? 'pwned' : m === 'PROPPATCH' ? patchBody : m === 'LOCK' ? lockBody : undefined;
        const r = await dav(port, m, path, { auth: ALICE, headers, ...(body !== undefined ? { body } : {}) });
        seen.push(`${m} ${path} → ${r.status}`);
        expect(`${m} ${path} → ${r.status}`).toBe(`${m} ${path} → 403`);
        expect(r.body).not.toContain('secret');
      }
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    expect(existsSync(join(one, 'dest.txt'))).toBe(false);
    console.log(`traversal: ${seen.length} requests (${METHODS.length} methods × ${ESCAPES.length} paths) refused`);
  });

  it('refuses every way out through the Destination header', async () => {
    const dests = [...ESCAPES.map((p) => p.replace('secret.txt', 'escaped.txt')), `http://127.0.0.1:${port}/one/%2e%2e/outside/escaped.txt`, `http://127.0.0.1:${port}/one/../outside/escaped.txt`];
    for (const dest of dests)
      for (const m of ['COPY', 'MOVE'] as const) {
        const r = await dav(port, m, '/one/file.txt', { auth: ALICE, headers: { destination: dest, overwrite: 'T' } });
        expect(`${m} → ${dest} ${r.status}`).toBe(`${m} → ${dest} 403`);
      }
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(one, 'file.txt'), 'utf8')).toBe('inside');
    // Into a storage the user does not have: refused too.
    expect((await dav(port, 'COPY', '/one/file.txt', { auth: ALICE, headers: { destination: '/two/stolen.txt' } })).status).toBe(403);
    expect(readdirSync(join(base, 'two'))).toEqual([]);
  });
});
