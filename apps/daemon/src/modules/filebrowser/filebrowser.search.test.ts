/**
 * Search by name from the storages' indexes, against a real daemon and real files: found after the
 * first walk (substring and pattern, any case), our own upload, rename, move and delete seen at
 * once, upload temporary files never shown, only storages the identity may read, and the memory
 * bound. The index on its own (real folders): others' writes found by the mtime check, a folder
 * replaced under the same name, the bound stopping a walk and the walk going on once there is room;
 * over a remote's listings (a fake remote): a few folders asked at once, a failure that keeps the
 * index, and the refresh that reads every folder again.
 */
import { mkdirSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FbEntry } from '@lucky/contracts';
import { makeStorage, setStorageUsers, tempDir } from '../../test/storages.js';
import type { RemoteEntry, RemoteFs, StorageGrant } from '../../core/services/storages.js';
import { MsgError } from '../../lib/msgerror.js';
import { diskSource, matcher, REMOTE_LISTS_AT_ONCE, remoteSource, SearchIndexes, StorageIndex } from './filebrowser.index.js';
import { api, q, raw, startFb } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;
type Hit = FbEntry & { path: string; storage: string };
interface Found {
  ret: number;
  msg?: string;
  results: Hit[];
  truncated: boolean;
  indexing: boolean;
  partial: boolean;
  indexed: number;
}

describe('file browser search', () => {
  let d: D;
  let base: string;
  let one: string;
  let s1: string;
  let s2: string;

  const search = (query: Record<string, string>) => api<Found>(d, 'GET', `/api/filebrowser/search?${q(query)}`);
  const paths = (f: Found) => f.results.map((r) => r.path).sort();
  const configure = async (patch: Record<string, unknown>) => {
    const conf = await api<{ configure: Record<string, unknown> }>(d, 'GET', '/api/filebrowser/configure');
    expect((await api(d, 'PUT', '/api/filebrowser/configure', { ...conf.configure, ...patch })).ret).toBe(0);
  };

  beforeAll(async () => {
    d = await startFb();
    base = tempDir('search');
    one = join(base, 'one');
    mkdirSync(join(one, 'Photos', '2024', 'Summer'), { recursive: true });
    mkdirSync(join(base, 'two'));
    writeFileSync(join(one, 'Photos', '2024', 'Summer', 'Beach-01.JPG'), 'x');
    writeFileSync(join(one, 'Photos', '2024', 'beach-notes.txt'), 'x');
    writeFileSync(join(one, 'report.txt'), 'x');
    // Another service's upload on its way: never a result.
    writeFileSync(join(one, '.lucky-upload-dav-beach.jpg'), 'x');
    writeFileSync(join(base, 'two', 'beach-two.jpg'), 'x');
    s1 = await makeStorage(d, { name: 'one', path: one });
    s2 = await makeStorage(d, { name: 'two', path: join(base, 'two') });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('finds names after the first walk: any case, a substring or a pattern, with what each is now', async () => {
    const f = await search({ storage: s1, q: 'BEACH' });
    expect(f).toMatchObject({ ret: 0, truncated: false, indexing: false, partial: false });
    expect(paths(f)).toEqual(['/Photos/2024/Summer/Beach-01.JPG', '/Photos/2024/beach-notes.txt']);
    expect(f.indexed).toBe(6); // Photos, 2024, Summer, the two beach files, report.txt; the temp file left out
    expect(f.results.find((r) => r.name === 'Beach-01.JPG')).toMatchObject({ kind: 'file', size: 1, storage: s1 });
    expect(paths(await search({ storage: s1, q: 'b*.jpg' }))).toEqual(['/Photos/2024/Summer/Beach-01.JPG']);
    expect(paths(await search({ storage: s1, q: '?eport.*' }))).toEqual(['/report.txt']);
    // Under a folder only.
    expect(paths(await search({ storage: s1, path: '/Photos/2024/Summer', q: 'beach' }))).toEqual(['/Photos/2024/Summer/Beach-01.JPG']);
    expect((await search({ storage: s1, q: 'lucky-upload' })).results).toEqual([]);
    // Results capped, with the "more" flag.
    await configure({ searchMax: 10 });
    for (let i = 0; i < 12; i++) writeFileSync(join(one, `many-${i}.txt`), '');
    expect((await api(d, 'POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'touch' })).ret).toBe(0);
    const capped = await search({ storage: s1, q: 'many-' });
    expect(capped.results).toHaveLength(10);
    expect(capped.truncated).toBe(true);
    await configure({ searchMax: 500 });
  });

  it('sees our own upload, rename, move and delete at once; an upload on its way is never found', async () => {
    const up = await api<{ upload: { id: string } }>(d, 'POST', '/api/filebrowser/uploads', { storage: s1, path: '/new/deep/sunset.png', size: 3 });
    expect(up.ret).toBe(0);
    expect((await search({ storage: s1, q: 'lucky-upload' })).results).toEqual([]);
    const r = await raw(d, 'PATCH', `/api/filebrowser/uploads/${up.upload.id}?offset=0`, { body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    expect(r.json().ret).toBe(0);
    expect((await api(d, 'POST', `/api/filebrowser/uploads/${up.upload.id}/complete`)).ret).toBe(0);
    expect(paths(await search({ storage: s1, q: 'sunset' }))).toEqual(['/new/deep/sunset.png']);

    expect((await api(d, 'POST', '/api/filebrowser/rename', { storage: s1, path: '/new/deep/sunset.png', name: 'dusk.png' })).ret).toBe(0);
    expect((await search({ storage: s1, q: 'sunset' })).results).toEqual([]);
    expect(paths(await search({ storage: s1, q: 'dusk' }))).toEqual(['/new/deep/dusk.png']);

    expect((await api(d, 'POST', '/api/filebrowser/move', { storage: s1, paths: ['/new/deep'], to: '/Photos' })).ret).toBe(0);
    expect(paths(await search({ storage: s1, q: 'dusk' }))).toEqual(['/Photos/deep/dusk.png']);
    expect((await api(d, 'POST', '/api/filebrowser/copy', { storage: s1, paths: ['/Photos/deep'], to: '/', toStorage: s2 })).ret).toBe(0);
    expect(paths(await search({ storage: s2, q: 'dusk' }))).toEqual(['/deep/dusk.png']);

    expect((await api(d, 'POST', '/api/filebrowser/delete', { storage: s1, paths: ['/Photos'] })).ret).toBe(0);
    expect((await search({ storage: s1, q: 'dusk' })).results).toEqual([]);
    expect((await search({ storage: s1, q: 'beach' })).results).toEqual([]);
    expect(paths(await search({ storage: s1, q: 'report' }))).toEqual(['/report.txt']);
  });

  it('searches only storages the identity may read, and checks the folder like a listing', async () => {
    // Every storage at once: both.
    const all = await search({ q: 'dusk' });
    expect(all.results.map((r) => `${r.storage}:${r.path}`)).toEqual([`${s2}:/deep/dusk.png`]);
    expect((await search({ q: 'report' })).results.map((r) => r.storage)).toEqual([s1]);

    await setStorageUsers(d, [{ account: 'reader', password: 'pw-reader-1', permissions: { [s1]: { read: true } } }]);
    await configure({ identity: 'user', account: 'reader' });
    try {
      expect((await search({ q: 'dusk' })).results).toEqual([]);
      expect((await search({ q: 'report' })).results.map((r) => r.storage)).toEqual([s1]);
      const other = await search({ storage: s2, q: 'dusk' });
      expect(other.ret).toBe(3);
      expect(other.msg).toMatch(/storage/i);
      const escape = await search({ storage: s1, path: '/../two', q: 'dusk' });
      expect(escape.ret).toBe(1);
      expect((await search({ storage: s1, q: '' })).ret).toBe(1);
    } finally {
      await configure({ identity: 'admin', account: '' });
    }
  });

  it('keeps at most indexMax names: past it a storage is searched in the part indexed, and says so', async () => {
    const big = join(base, 'big');
    mkdirSync(join(big, 'a'), { recursive: true });
    mkdirSync(join(big, 'b'), { recursive: true });
    for (let i = 0; i < 80; i++) writeFileSync(join(big, 'a', `item-${i}.txt`), '');
    for (let i = 0; i < 80; i++) writeFileSync(join(big, 'b', `item-b${i}.txt`), '');
    const s3 = await makeStorage(d, { name: 'big', path: big });
    await configure({ indexMax: 100 });
    try {
      const f = await search({ storage: s3, q: 'item-' });
      expect(f.partial).toBe(true);
      expect(f.indexed).toBeLessThanOrEqual(100);
      // The root and the folder walked first (82 names) fit; the other's 80 do not.
      expect(f.results).toHaveLength(80);
      expect(new Set(f.results.map((r) => r.path.split('/')[1])).size).toBe(1);
    } finally {
      await configure({ indexMax: 200_000 });
    }
  });
});

describe('the name index on its own', () => {
  it('finds others\' writes by the folders\' mtimes, replaced folders too, and drops what went', async () => {
    const root = tempDir('index');
    try {
      mkdirSync(join(root, 'x', 'y'), { recursive: true });
      writeFileSync(join(root, 'x', 'y', 'old.txt'), '');
      const idx = new StorageIndex('s', diskSource(root), () => 1000);
      await idx.ready;
      const find = (s: string) => idx.search('/', matcher(s), 64, 100).paths;
      expect(find('old')).toEqual(['/x/y/old.txt']);
      // Written by someone else (WebDAV, a shell): a new tree, a rename, a folder replaced by another of its name.
      mkdirSync(join(root, 'x', 'z', 'w'), { recursive: true });
      writeFileSync(join(root, 'x', 'z', 'w', 'fresh.txt'), '');
      renameSync(join(root, 'x', 'y', 'old.txt'), join(root, 'x', 'y', 'older.txt'));
      await idx.check();
      expect(find('fresh')).toEqual(['/x/z/w/fresh.txt']);
      expect(find('old')).toEqual(['/x/y/older.txt']);
      rmSync(join(root, 'x', 'y'), { recursive: true });
      mkdirSync(join(root, 'x', 'y'));
      writeFileSync(join(root, 'x', 'y', 'other.txt'), '');
      await idx.check();
      expect(find('old')).toEqual([]);
      expect(find('other')).toEqual(['/x/y/other.txt']);
      rmSync(join(root, 'x'), { recursive: true });
      await idx.check();
      expect(idx.dirs.size).toBe(1);
      expect(idx.count).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('stops walking at the bound and goes on where it stopped once there is room', async () => {
    const root = tempDir('bound');
    try {
      for (const dir of ['a', 'b', 'c']) {
        mkdirSync(join(root, dir));
        for (let i = 0; i < 30; i++) writeFileSync(join(root, dir, `${dir}${i}`), '');
      }
      let room = 70;
      const idx = new StorageIndex('s', diskSource(root), () => room - idx.count);
      await idx.ready;
      expect(idx.partial).toBe(true);
      expect(idx.count).toBe(63); // the root's 3 names and two of the folders
      const left = ['a', 'b', 'c'].filter((n) => !idx.dirs.has(`/${n}`));
      expect(left).toHaveLength(1);
      expect(idx.search('/', matcher(`${left[0]}1`), 64, 100).paths).toEqual([]);
      room = 1000;
      await idx.check();
      expect(idx.partial).toBe(false);
      expect(idx.count).toBe(93);
      expect(idx.search('/', matcher(`${left[0]}1`), 64, 100).paths.length).toBe(11);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('walks a remote by its listings, a few folders at once; a remote that fails keeps the index, and the refresh reads every folder again', async () => {
    const file = (name: string): RemoteEntry => ({ name, kind: 'file', size: 1, mtimeMs: 0 });
    const dir = (name: string): RemoteEntry => ({ name, kind: 'dir', size: 0, mtimeMs: 0 });
    const tree = new Map<string, RemoteEntry[]>([['/', [...Array.from({ length: 10 }, (_, i) => dir(`d${i}`)), file('top.txt')]]]);
    for (let i = 0; i < 10; i++) tree.set(`/d${i}`, [file(`f${i}-a`), file(`f${i}-b`)]);
    tree.get('/d0')!.push(dir('sub'), file('.lucky-upload-x'));
    tree.set('/d0/sub', [file('deep.txt')]);
    let now = 0;
    let most = 0;
    let down: string | null = null;
    const fs = {
      async list(path: string): Promise<RemoteEntry[]> {
        most = Math.max(most, ++now);
        await new Promise((res) => setTimeout(res, 3));
        now--;
        if (path === down) throw new MsgError({ key: 'rawText', vars: { text: 'remote down' } });
        const e = tree.get(path);
        if (!e) throw new MsgError({ key: 'storageNotFound' });
        return e;
      },
    } as unknown as RemoteFs;
    const idx = new StorageIndex('s', remoteSource(fs), () => 1000);
    await idx.ready;
    const find = (s: string) => idx.search('/', matcher(s), 64, 100).paths;
    expect(most).toBe(REMOTE_LISTS_AT_ONCE);
    expect(idx.count).toBe(11 + 21 + 1); // the root, its folders (d0 also `sub`, its temp file left out), `sub`
    expect(find('deep')).toEqual(['/d0/sub/deep.txt']);
    expect(find('lucky-upload')).toEqual([]);

    // Changed on the remote by others; the refresh fails half way: what it did not reach is kept.
    tree.set('/', tree.get('/')!.filter((e) => e.name !== 'd5'));
    tree.delete('/d5');
    tree.set('/d3', [file('f3-renamed')]);
    tree.set('/d8', [file('f8-new')]);
    down = '/d7';
    await expect(idx.check()).rejects.toThrow('remote down');
    expect(find('f5-')).toEqual([]);
    expect(find('f3-')).toEqual(['/d3/f3-renamed']);
    expect(find('f8-')).toEqual(['/d8/f8-a', '/d8/f8-b']);
    expect(find('deep')).toEqual(['/d0/sub/deep.txt']);
    down = null;
    await idx.check();
    expect(find('f8-')).toEqual(['/d8/f8-new']);
    expect(idx.count).toBe(10 + 17 + 1);

    // Our own write: the folder listed again at once.
    tree.get('/d0/sub')!.push(file('ours.txt'));
    await idx.touch('/d0/sub');
    expect(find('ours')).toEqual(['/d0/sub/ours.txt']);

    // A remote down from the start: the first walk ends (nothing found), without an error.
    down = '/';
    const none = new StorageIndex('t', remoteSource(fs), () => 1000);
    await none.ready;
    expect([none.built, none.count]).toEqual([true, 0]);
  });

  it('drops the index of a storage that was deleted at its next check', async () => {
    const root = tempDir('fb-index-gone');
    writeFileSync(join(root, 'a.txt'), 'a');
    let there = true;
    const indexes = new SearchIndexes(() => there);
    try {
      const g = { storage: 'gone', root, remote: null } as unknown as StorageGrant;
      await indexes.of(g).ready;
      await indexes.tick();
      expect(indexes.peek('gone')).toBeDefined();
      there = false;
      await indexes.tick();
      expect(indexes.peek('gone')).toBeUndefined();
    } finally {
      indexes.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
