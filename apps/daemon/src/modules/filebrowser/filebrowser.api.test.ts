/**
 * The file browser's API against a real daemon and real files: browse, sort, details, search,
 * folders, files, rename, move, copy, delete, the text editor; bad input refused with nothing
 * changed on disk; the identity of the module's settings (a read-only storage user) applied; and no
 * path out of a storage through any endpoint.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FbEntry } from '@lucky/contracts';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, q, raw, startFb } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;

/** Every file and folder under `dir`, with file contents, to prove nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      const st = statSync(p, { throwIfNoEntry: false });
      if (st?.isDirectory() && !n.startsWith('link')) {
        out[`${rel}${n}/`] = '';
        walk(p, `${rel}${n}/`);
      } else out[`${rel}${n}`] = st?.isFile() ? readFileSync(p, 'utf8') : '?';
    }
  };
  walk(dir, '');
  return out;
}

describe('file browser API', () => {
  let d: D;
  let base: string;
  let root: string;
  let s1: string;
  let s2: string;
  let ro: string;

  beforeAll(async () => {
    d = await startFb();
    base = tempDir('api');
    root = join(base, 'one');
    mkdirSync(join(root, 'docs', 'deep', 'deeper'), { recursive: true });
    mkdirSync(join(base, 'two'));
    mkdirSync(join(base, 'ro'));
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
    writeFileSync(join(root, 'b-small.txt'), 'hi');
    writeFileSync(join(root, 'a-big.bin'), Buffer.alloc(5000));
    writeFileSync(join(root, 'c.txt'), 'hello text\n');
    writeFileSync(join(root, 'docs', 'Report-2024.txt'), 'r');
    writeFileSync(join(root, 'docs', 'deep', 'deeper', 'report-old.txt'), 'o');
    writeFileSync(join(base, 'ro', 'r.txt'), 'read me');
    symlinkSync(join(base, 'outside'), join(root, 'link-out'));
    s1 = await makeStorage(d, { name: 'one', path: root });
    s2 = await makeStorage(d, { name: 'two', path: join(base, 'two') });
    ro = await makeStorage(d, { name: 'ro', path: join(base, 'ro'), readOnly: true });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  const list = (path: string, sort = 'name', order = 'asc', storage = s1) =>
    api<{ entries: FbEntry[]; path: string; can: { write: boolean } }>(d, 'GET', `/api/filebrowser/list?${q({ storage, path, sort, order })}`);

  it('lists the storages and a folder, folders first, sorted by name, size or time', async () => {
    const st = await api<{ list: Array<{ key: string; name: string; readOnly: boolean; can: { write: boolean } }>; identity: { kind: string } }>(d, 'GET', '/api/filebrowser/storages');
    expect(st.identity.kind).toBe('admin');
    expect(st.list.map((s) => s.name).sort()).toEqual(['one', 'ro', 'two']);
    expect(st.list.find((s) => s.key === ro)).toMatchObject({ readOnly: true, can: { read: true, write: false, delete: false } });

    const byName = await list('/');
    expect(byName.ret).toBe(0);
    expect(byName.entries.map((e) => e.name)).toEqual(['docs', 'a-big.bin', 'b-small.txt', 'c.txt', 'link-out']);
    const big = byName.entries.find((e) => e.name === 'a-big.bin')!;
    expect(big).toMatchObject({ kind: 'file', size: 5000, link: false });
    expect(big.mode).toMatch(/^[r-][w-][x-]{1}[r-][w-][x-][r-][w-][x-]$/);
    expect(Math.abs(big.mtime - statSync(join(root, 'a-big.bin')).mtimeMs)).toBeLessThan(2);
    // A symlink leading out of the storage is shown as a bare link, with nothing of its target.
    expect(byName.entries.find((e) => e.name === 'link-out')).toMatchObject({ kind: 'link', size: 0 });
    const bySize = await list('/', 'size', 'desc');
    expect(bySize.entries.map((e) => e.name)).toEqual(['docs', 'a-big.bin', 'c.txt', 'b-small.txt', 'link-out']);
    const desc = await list('/', 'name', 'desc');
    expect(desc.entries[0]!.name).toBe('docs');
    expect(desc.entries[1]!.name).toBe('link-out');

    const stat = await api<{ entry: FbEntry; mime: string; items: number | null }>(d, 'GET', `/api/filebrowser/stat?${q({ storage: s1, path: '/c.txt' })}`);
    expect(stat).toMatchObject({ ret: 0, mime: 'text/plain; charset=utf-8', items: null, entry: { name: 'c.txt', size: 11 } });
    const dstat = await api<{ items: number }>(d, 'GET', `/api/filebrowser/stat?${q({ storage: s1, path: '/docs' })}`);
    expect(dstat.items).toBe(2);
  });

  it('searches names in a folder and below, case-insensitive, within the depth set', async () => {
    const r = await api<{ results: Array<{ path: string }>; truncated: boolean }>(d, 'GET', `/api/filebrowser/search?${q({ storage: s1, path: '/', q: 'REPORT' })}`);
    expect(r.results.map((x) => x.path).sort()).toEqual(['/docs/Report-2024.txt', '/docs/deep/deeper/report-old.txt']);
    expect(r.truncated).toBe(false);
    // Depth 2 reaches /docs/* but not /docs/deep/deeper/*.
    const conf = await api<{ configure: Record<string, unknown> }>(d, 'GET', '/api/filebrowser/configure');
    expect((await api(d, 'PUT', '/api/filebrowser/configure', { ...conf.configure, searchDepth: 2 })).ret).toBe(0);
    const shallow = await api<{ results: Array<{ path: string }> }>(d, 'GET', `/api/filebrowser/search?${q({ storage: s1, path: '/', q: 'report' })}`);
    expect(shallow.results.map((x) => x.path)).toEqual(['/docs/Report-2024.txt']);
    expect((await api(d, 'PUT', '/api/filebrowser/configure', conf.configure)).ret).toBe(0);
  });

  it('makes folders and files, renames, copies, moves and deletes', async () => {
    expect((await api(d, 'POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'drafts' })).ret).toBe(0);
    expect(statSync(join(root, 'drafts')).isDirectory()).toBe(true);
    expect((await api(d, 'POST', '/api/filebrowser/newfile', { storage: s1, path: '/drafts', name: 'notes 笔记.txt' })).ret).toBe(0);
    expect(readFileSync(join(root, 'drafts', 'notes 笔记.txt'), 'utf8')).toBe('');
    const saved = await api<{ size: number }>(d, 'PUT', '/api/filebrowser/text', { storage: s1, path: '/drafts/notes 笔记.txt', content: 'line 1\n第二行\n' });
    expect(saved).toMatchObject({ ret: 0, size: Buffer.byteLength('line 1\n第二行\n') });
    const read = await api<{ content: string }>(d, 'GET', `/api/filebrowser/text?${q({ storage: s1, path: '/drafts/notes 笔记.txt' })}`);
    expect(read.content).toBe('line 1\n第二行\n');
    expect((await api(d, 'GET', `/api/filebrowser/text?${q({ storage: s1, path: '/a-big.bin' })}`)).msg).toBe('this is not a text file');

    expect((await api(d, 'POST', '/api/filebrowser/rename', { storage: s1, path: '/drafts/notes 笔记.txt', name: 'notes.md' })).ret).toBe(0);
    expect(readdirSync(join(root, 'drafts'))).toEqual(['notes.md']);
    // Copy a folder (recursive) into another storage, and within this one.
    expect((await api(d, 'POST', '/api/filebrowser/copy', { storage: s1, paths: ['/docs'], to: '/', toStorage: s2 })).ret).toBe(0);
    expect(readFileSync(join(base, 'two', 'docs', 'deep', 'deeper', 'report-old.txt'), 'utf8')).toBe('o');
    expect((await api(d, 'POST', '/api/filebrowser/copy', { storage: s1, paths: ['/c.txt', '/docs'], to: '/drafts' })).ret).toBe(0);
    expect(readdirSync(join(root, 'drafts')).sort()).toEqual(['c.txt', 'docs', 'notes.md']);
    expect(readFileSync(join(root, 'c.txt'), 'utf8')).toBe('hello text\n');
    // Move, and an existing name refused unless overwrite.
    expect((await api(d, 'POST', '/api/filebrowser/move', { storage: s1, paths: ['/drafts/c.txt'], to: '/drafts/docs' })).ret).toBe(0);
    expect(existsSync(join(root, 'drafts', 'c.txt'))).toBe(false);
    expect(readFileSync(join(root, 'drafts', 'docs', 'c.txt'), 'utf8')).toBe('hello text\n');
    writeFileSync(join(root, 'drafts', 'c.txt'), 'other');
    const clash = await api(d, 'POST', '/api/filebrowser/move', { storage: s1, paths: ['/drafts/c.txt'], to: '/drafts/docs' });
    expect(clash).toEqual({ ret: 6, msg: 'a file or folder of that name exists already: /drafts/docs/c.txt' });
    expect((await api(d, 'POST', '/api/filebrowser/move', { storage: s1, paths: ['/drafts/c.txt'], to: '/drafts/docs', overwrite: true })).ret).toBe(0);
    expect(readFileSync(join(root, 'drafts', 'docs', 'c.txt'), 'utf8')).toBe('other');
    // Delete several at once.
    const del = await api<{ deleted: number }>(d, 'POST', '/api/filebrowser/delete', { storage: s1, paths: ['/drafts/docs', '/drafts/notes.md'] });
    expect(del.deleted).toBe(2);
    expect(readdirSync(join(root, 'drafts'))).toEqual([]);
    expect((await api(d, 'POST', '/api/filebrowser/delete', { storage: s1, paths: ['/drafts'] })).ret).toBe(0);
  });

  it('refuses bad input with a clear message and changes nothing on disk', async () => {
    const before = snapshot(root);
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/api/filebrowser/mkdir', { storage: 'nosuchstorage', path: '/', name: 'x' }, 3, /storage nosuchstorage does not exist/],
      ['GET', `/api/filebrowser/list?${q({ storage: 'nosuchstorage', path: '/' })}`, undefined, 3, /does not exist/],
      ['POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'a/b' }, 1, /invalid name/],
      ['POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'a\u0000b' }, 1, /invalid name/],
      ['POST', '/api/filebrowser/newfile', { storage: s1, path: '/', name: '..' }, 1, /invalid name/],
      ['POST', '/api/filebrowser/rename', { storage: s1, path: '/c.txt', name: 'x/y.txt' }, 1, /invalid name/],
      ['POST', '/api/filebrowser/rename', { storage: s1, path: '/c.txt', name: '' }, 1, /invalid name/],
      ['POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'docs' }, 6, /exists already: \/docs/],
      ['POST', '/api/filebrowser/move', { storage: s1, paths: ['/docs'], to: '/docs/deep' }, 1, /cannot be moved or copied into itself: \/docs/],
      ['POST', '/api/filebrowser/copy', { storage: s1, paths: ['/docs'], to: '/docs' }, 1, /into itself/],
      ['POST', '/api/filebrowser/move', { storage: s1, paths: ['/c.txt', '/nope.txt'], to: '/docs' }, 3, /no such file or folder: \/nope.txt/],
      ['POST', '/api/filebrowser/delete', { storage: s1, paths: ['/'] }, 1, /root of a storage/],
      ['POST', '/api/filebrowser/delete', { storage: s1, paths: ['/c.txt', '/missing'] }, 3, /no such file/],
      ['POST', '/api/filebrowser/uploads', { storage: s1, path: '/c.txt', size: 3 }, 6, /exists already/],
      ['POST', '/api/filebrowser/uploads', { storage: s1, path: '/', size: 3 }, 1, /root of a storage/],
      ['POST', '/api/filebrowser/mkdir', { storage: ro, path: '/', name: 'x' }, 2, /storage "ro" is read-only/],
      ['GET', `/api/filebrowser/list?${q({ storage: s1, path: '/c.txt' })}`, undefined, 1, /not a folder/],
    ];
    for (const [method, url, body, ret, msg] of cases) {
      const r = await api(d, method, url, body);
      expect(`${method} ${url} ${JSON.stringify(body)} → ${r.ret}`).toBe(`${method} ${url} ${JSON.stringify(body)} → ${ret}`);
      expect(r.msg).toMatch(msg);
    }
    expect(snapshot(root)).toEqual(before);
    // The same refusal in Chinese for a Chinese reader.
    const zh = await raw(d, 'POST', '/api/filebrowser/mkdir', { body: JSON.stringify({ storage: s1, path: '/', name: 'a/b' }), headers: { 'content-type': 'application/json', 'lucky-lang': 'zh_CN' } });
    expect(zh.json().msg).toMatch(/名称无效/);
  });

  it('refuses every way out of the storage, through every endpoint', async () => {
    const before = snapshot(base);
    const ESCAPES = [
      '/../outside/secret.txt',
      '/docs/../../outside/secret.txt',
      '/%2e%2e/outside/secret.txt',
      '/%252e%252e%252foutside%252fsecret.txt',
      '/..\\outside\\secret.txt',
      '/docs/\u0000/../../outside/secret.txt',
      '/link-out/secret.txt',
      '/link-out/new.txt',
    ];
    for (const p of ESCAPES) {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/api/filebrowser/list?${q({ storage: s1, path: p })}`],
        ['GET', `/api/filebrowser/stat?${q({ storage: s1, path: p })}`],
        ['GET', `/api/filebrowser/search?${q({ storage: s1, path: p, q: 'secret' })}`],
        ['GET', `/api/filebrowser/thumb?${q({ storage: s1, path: p })}`],
        ['GET', `/api/filebrowser/text?${q({ storage: s1, path: p })}`],
        ['GET', `/api/filebrowser/download?${q({ storage: s1, path: p })}`],
        ['POST', '/api/filebrowser/zip', { storage: s1, paths: [p] }],
        ['POST', '/api/filebrowser/ticket', { storage: s1, paths: [p] }],
        ['PUT', '/api/filebrowser/text', { storage: s1, path: p, content: 'x' }],
        ['POST', '/api/filebrowser/mkdir', { storage: s1, path: p, name: 'x' }],
        ['POST', '/api/filebrowser/newfile', { storage: s1, path: p, name: 'x' }],
        ['POST', '/api/filebrowser/rename', { storage: s1, path: p, name: 'x' }],
        ['POST', '/api/filebrowser/move', { storage: s1, paths: [p], to: '/' }],
        ['POST', '/api/filebrowser/move', { storage: s1, paths: ['/c.txt'], to: p }],
        ['POST', '/api/filebrowser/copy', { storage: s1, paths: [p], to: '/' }],
        ['POST', '/api/filebrowser/copy', { storage: s1, paths: ['/c.txt'], to: p }],
        ['POST', '/api/filebrowser/delete', { storage: s1, paths: [p] }],
        ['POST', '/api/filebrowser/uploads', { storage: s1, path: p, size: 1 }],
        ['POST', '/api/filebrowser/rules', { name: 'x', storage: s1, path: p }],
      ];
      for (const [m, u, b] of calls) {
        const r = await raw(d, m, u, b === undefined ? {} : { body: JSON.stringify(b), headers: { 'content-type': 'application/json' } });
        // Refused as JSON (never the file's bytes); the words say why.
        expect(`${m} ${u} ${r.status} ${r.text.includes('secret') && !r.text.includes('"msg"') ? 'LEAK' : ''}`).toBe(`${m} ${u} 200 `);
        const j = r.json();
        expect(`${m} ${u} ${JSON.stringify(b)} ret=${j.ret}`).not.toMatch(/ret=0$/);
        expect(j.msg).toMatch(/outside the storage|invalid path|no such file|not a folder|invalid name/);
      }
    }
    expect(snapshot(base)).toEqual(before);
  });

  it('acts with a chosen storage user’s permissions: read-only means read only', async () => {
    expect(
      (
        await api(d, 'PUT', '/api/storage/configure', {
          users: [{ account: 'reader', password: 'reader-pw', permissions: { [s1]: { read: true, write: false, delete: false } } }],
          anonymous: { enable: false, storages: [] },
        })
      ).ret,
    ).toBe(0);
    expect((await api(d, 'PUT', '/api/filebrowser/configure', { identity: 'user', account: 'reader' })).ret).toBe(0);
    try {
      const st = await api<{ identity: { kind: string; account: string }; list: Array<{ key: string; can: { write: boolean } }> }>(d, 'GET', '/api/filebrowser/storages');
      expect(st.identity).toEqual({ kind: 'user', account: 'reader' });
      expect(st.list.map((s) => s.key)).toEqual([s1]);
      expect((await list('/')).entries.length).toBeGreaterThan(0);
      const dl = await raw(d, 'GET', `/api/filebrowser/download?${q({ storage: s1, path: '/c.txt' })}`);
      expect(dl.text).toBe('hello text\n');
      const before = snapshot(root);
      const denied: Array<[string, string, unknown]> = [
        ['POST', '/api/filebrowser/mkdir', { storage: s1, path: '/', name: 'x' }],
        ['POST', '/api/filebrowser/newfile', { storage: s1, path: '/', name: 'x' }],
        ['POST', '/api/filebrowser/rename', { storage: s1, path: '/c.txt', name: 'x' }],
        ['POST', '/api/filebrowser/move', { storage: s1, paths: ['/c.txt'], to: '/docs' }],
        ['POST', '/api/filebrowser/copy', { storage: s1, paths: ['/c.txt'], to: '/docs' }],
        ['POST', '/api/filebrowser/delete', { storage: s1, paths: ['/c.txt'] }],
        ['PUT', '/api/filebrowser/text', { storage: s1, path: '/c.txt', content: 'x' }],
        ['POST', '/api/filebrowser/uploads', { storage: s1, path: '/new.bin', size: 1 }],
      ];
      for (const [m, u, b] of denied) {
        const r = await api(d, m, u, b);
        expect(`${m} ${u} ${r.ret} ${r.msg}`).toMatch(/ 2 no (write|delete) permission$/);
      }
      // Storages the user was not given do not exist for it.
      expect((await list('/', 'name', 'asc', s2)).ret).toBe(3);
      expect(snapshot(root)).toEqual(before);
    } finally {
      expect((await api(d, 'PUT', '/api/filebrowser/configure', { identity: 'admin', account: '' })).ret).toBe(0);
    }
  });
});
