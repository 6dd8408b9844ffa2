/**
 * Share links through real sockets, without the session token: a file and a folder shared, listed,
 * downloaded and zipped; a password asked for and checked; a link that stops working the moment
 * it is switched off, deleted or expires; no way out of the shared folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FbShareView } from '@lucky/contracts';
import { makeStorage, tempDir } from '../../test/storages.js';
import { api, q, raw, startFb } from './testing/fb.js';

type D = Awaited<ReturnType<typeof startFb>>;

describe('share links', () => {
  let d: D;
  let base: string;
  let root: string;
  let s1: string;

  const share = async (body: Record<string, unknown>) => {
    const r = await api<{ key: string }>(d, 'POST', '/api/filebrowser/rules', { storage: s1, ...body });
    if (r.ret !== 0) throw new Error(`share not saved: ${r.msg}`);
    const v = await api<{ rule: FbShareView }>(d, 'GET', `/api/filebrowser/rules/${r.key}`);
    return v.rule;
  };
  const get = (path: string, headers: Record<string, string> = {}) => raw(d, 'GET', `/${path}`, { anonymous: true, headers });

  beforeAll(async () => {
    d = await startFb();
    base = tempDir('share');
    root = join(base, 'one');
    mkdirSync(join(root, 'pub', 'sub'), { recursive: true });
    mkdirSync(join(base, 'secret'));
    writeFileSync(join(base, 'secret', 'x.txt'), 'nope');
    writeFileSync(join(root, 'pub', 'hello.txt'), 'hello world');
    writeFileSync(join(root, 'pub', 'sub', 'deep.txt'), 'deep');
    writeFileSync(join(root, 'private.txt'), 'private');
    s1 = await makeStorage(d, { name: 'one', path: root });
  });
  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('shares a folder read-only: a page, a JSON listing, files and a zip, nothing above it', async () => {
    const v = await share({ name: 'Public stuff', path: '/pub' });
    expect(v).toMatchObject({ target: 'dir', expired: false, hasPassword: false, enable: true });
    expect(v.url).toMatch(/^share\/[A-Za-z0-9_-]{32}$/);
    // The token is the daemon's; one sent by the client is ignored.
    const chosen = await share({ name: 'x', path: '/pub', token: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
    expect(chosen.token).not.toBe('aaaaaaaaaaaaaaaaaaaaaaaa');

    const pageR = await get(v.url, { 'accept-language': 'en' });
    expect(pageR.status).toBe(200);
    expect(pageR.headers['content-type']).toMatch(/^text\/html/);
    expect(pageR.text).toContain('hello.txt');
    expect(pageR.text).toContain('Download all (zip)');
    expect(pageR.text).not.toContain('private.txt');
    const zhPage = await get(v.url, { 'lucky-lang': 'zh_CN' });
    expect(zhPage.text).toContain('下载全部（zip）');

    const list = (await get(`${v.url}/list?${q({ path: '/sub' })}`)).json<{ entries: Array<{ name: string }>; path: string }>();
    expect(list.path).toBe('/sub');
    expect(list.entries.map((e) => e.name)).toEqual(['deep.txt']);
    const file = await get(`${v.url}/dl?${q({ path: '/hello.txt' })}`);
    expect(file.status).toBe(200);
    expect(file.text).toBe('hello world');
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename="hello.txt"/);
    const range = await get(`${v.url}/dl?${q({ path: '/hello.txt' })}`, { range: 'bytes=6-' });
    expect(range.status).toBe(206);
    expect(range.text).toBe('world');

    const zip = await get(`${v.url}/zip`);
    expect(zip.status).toBe(200);
    writeFileSync(join(base, 'pub.zip'), zip.body);
    const out = join(base, 'pub-out');
    expect(spawnSync('unzip', ['-q', join(base, 'pub.zip'), '-d', out]).status).toBe(0);
    expect(readdirSync(join(out, 'pub')).sort()).toEqual(['hello.txt', 'sub']);

    // No way above the shared folder, nor out of the storage.
    for (const p of ['/../private.txt', '/sub/../../private.txt', '/%2e%2e/private.txt', '/..\\private.txt', '/../../secret/x.txt']) {
      const r = await get(`${v.url}/dl?${q({ path: p })}`);
      expect(`${p} ${r.status}`).toBe(`${p} 403`);
      expect(r.text).not.toMatch(/private|nope/);
    }
    // Read-only: the public side has no method that writes.
    expect((await raw(d, 'PUT', `/${v.url}/dl?${q({ path: '/hello.txt' })}`, { anonymous: true, body: 'x' })).status).toBe(404);
    expect((await raw(d, 'DELETE', `/${v.url}`, { anonymous: true })).status).toBe(404);
    // Downloads are counted in the share list (the file, its range, the zip; refusals are not).
    const listed = await api<{ list: FbShareView[] }>(d, 'GET', '/api/filebrowser/rules');
    expect(listed.list.find((s) => s.key === v.key)!.downloads).toBe(3);
  });

  it('stops working at once when switched off, deleted or expired', async () => {
    const v = await share({ name: 'hello', path: '/pub/hello.txt' });
    expect(v.target).toBe('file');
    expect((await get(`${v.url}/dl`)).text).toBe('hello world');
    expect((await get(v.url)).text).toContain('hello.txt');
    // Switched off: 404, back on: served again.
    expect((await api(d, 'PUT', `/api/filebrowser/rules/${v.key}/enable`, { enable: false })).ret).toBe(0);
    expect((await get(`${v.url}/dl`)).status).toBe(404);
    expect((await get(v.url)).status).toBe(404);
    expect((await api(d, 'PUT', `/api/filebrowser/rules/${v.key}/enable`, { enable: true })).ret).toBe(0);
    expect((await get(`${v.url}/dl`)).status).toBe(200);
    // Revoked (deleted): 404 for every route of the link.
    expect((await api(d, 'DELETE', `/api/filebrowser/rules/${v.key}`)).ret).toBe(0);
    for (const p of ['', '/dl', '/zip', '/list']) {
      const r = await get(`${v.url}${p}`, { 'accept-language': 'en' });
      expect(`${p} ${r.status}`).toBe(`${p} 404`);
      expect(r.text).toMatch(/does not exist or was revoked/);
    }
    // Expired: 410, at the moment it passes.
    const soon = await share({ name: 'soon', path: '/pub/hello.txt', expires: Date.now() + 1500 });
    expect((await get(`${soon.url}/dl`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    const gone = await get(`${soon.url}/dl`, { 'accept-language': 'en' });
    expect(gone.status).toBe(410);
    expect(gone.text).toBe('this share link has expired');
    const view = await api<{ rule: FbShareView }>(d, 'GET', `/api/filebrowser/rules/${soon.key}`);
    expect(view.rule.expired).toBe(true);
    // Its status says so too (the engine's timer).
    for (let i = 0; i < 40 && !/expired/.test(view.rule.status.message); i++) {
      await new Promise((r) => setTimeout(r, 50));
      view.rule = (await api<{ rule: FbShareView }>(d, 'GET', `/api/filebrowser/rules/${soon.key}`, undefined)).rule;
    }
    expect(view.rule.status.message).toMatch(/expired|已过期/);
    // Unknown tokens look like revoked ones.
    expect((await get('share/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/dl')).status).toBe(404);
  });

  it('asks for a password, checks it with scrypt, and gives a key for the rest', async () => {
    const v = await share({ name: 'locked', path: '/pub', password: 'open sesame' });
    expect(v.hasPassword).toBe(true);
    expect(v.password).toBe('******');
    const asked = await get(v.url, { 'accept-language': 'en' });
    expect(asked.status).toBe(401);
    expect(asked.text).toContain('this share needs a password');
    expect((await get(`${v.url}/dl?${q({ path: '/hello.txt' })}`)).status).toBe(401);
    // The page's form posts text/plain; a wrong password shows the form again.
    const wrong = await raw(d, 'POST', `/${v.url}`, { anonymous: true, body: 'password=nope\r\n', headers: { 'content-type': 'text/plain', 'accept-language': 'en' } });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('wrong password');
    const right = await raw(d, 'POST', `/${v.url}`, { anonymous: true, body: 'password=open sesame\r\n', headers: { 'content-type': 'text/plain' } });
    expect(right.status).toBe(303);
    const loc = String(right.headers.location);
    const k = new URLSearchParams(loc.slice(loc.indexOf('?') + 1)).get('k')!;
    expect(k).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);
    expect((await get(`${v.url}?${q({ k })}`)).text).toContain('hello.txt');
    expect((await get(`${v.url}/dl?${q({ path: '/hello.txt', k })}`)).text).toBe('hello world');
    // JSON works too, for scripts.
    const j = await raw(d, 'POST', `/${v.url}`, { anonymous: true, body: JSON.stringify({ password: 'open sesame' }), headers: { 'content-type': 'application/json' } });
    expect(j.json<{ k: string }>().k).toMatch(/^\d+\./);
    // A forged or altered key is refused; a new password voids the keys given out.
    expect((await get(`${v.url}/dl?${q({ path: '/hello.txt', k: k.slice(0, -2) + 'xx' })}`)).status).toBe(401);
    expect((await api(d, 'PUT', `/api/filebrowser/rules/${v.key}`, { name: 'locked', storage: s1, path: '/pub', password: 'another one' })).ret).toBe(0);
    expect((await get(`${v.url}/dl?${q({ path: '/hello.txt', k })}`)).status).toBe(401);
  });

  it('refuses a share of what is not there or not the storage’s', async () => {
    const missing = await api(d, 'POST', '/api/filebrowser/rules', { name: 'x', storage: s1, path: '/nope' });
    expect(missing.ret).toBe(1);
    expect(missing.msg).toMatch(/不存在|no such file/);
    const out = await api(d, 'POST', '/api/filebrowser/rules', { name: 'x', storage: s1, path: '/../secret' });
    expect(out.ret).not.toBe(0);
    const unknown = await api(d, 'POST', '/api/filebrowser/rules', { name: 'x', storage: 'nosuch', path: '/' });
    expect(unknown.ret).toBe(3);
  });
});
