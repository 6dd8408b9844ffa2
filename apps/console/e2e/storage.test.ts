// @vitest-environment node
/**
 * Storage management in a real browser against the built daemon. Everything stays on this machine:
 * storages are temporary directories, the WebDAV rule that uses one listens on a free loopback port.
 * Covered: the empty list, a storage added through the form (the directory check first refusing a
 * missing directory), its row (path, badges, the disk's bar), a user added (a new user needs a
 * password) and edited (the password kept by the mask), the permission matrix (write and delete
 * closed on a read-only storage), anonymous access, deleting a storage a WebDAV rule uses (the
 * daemon's question, then ?confirm=1), English. Screenshots: storage-*.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, openSubmenuEntry, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('storage');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
const pageErrors: string[] = [];

interface StorageRow {
  key: string;
  name: string;
  path: string;
  readOnly: boolean;
  quota: number | null;
}
interface Settings {
  users: Array<{ account: string; password: string; enable: boolean; permissions: Record<string, { read: boolean; write: boolean; delete: boolean }>; note: string }>;
  anonymous: { enable: boolean; storages: string[] };
}

const storages = async () => (await daemon.api('GET', '/api/storage/rules', undefined, apiToken)).list as StorageRow[];
const storageNamed = async (name: string) => (await storages()).find((s) => s.name === name);
const settings = async () => (await daemon.api('GET', '/api/storage/configure', undefined, apiToken)).configure as Settings;

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="storage-row"][data-name="${name}"]`);
const userRow = (p: Page, account: string): Locator => p.locator(`[data-testid="storage-user-row"][data-account="${account}"]`);
const perm = (r: Locator, storage: string, op: string) => r.locator(`[data-testid="storage-perm"][data-storage="${storage}"][data-op="${op}"]`);
const formClosed = (p: Page, testId: string) => expect.poll(() => p.getByTestId(testId).count()).toBe(0);

describe('storage management console e2e (chromium + built daemon, temporary directories only)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-storage-e2e-'));
    mkdirSync(join(dir, 'data'));
    mkdirSync(join(dir, 'archive'));
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    // Storage management and WebDAV switched on: the storage submenu shows.
    await enableModules(daemon, apiToken, ['storage', 'webdav']);
  }, 90_000);

  afterEach(shotOnFailure('storage', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the storage submenu opens the empty list, with no users yet', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'storagemanagement');
    await expect.poll(() => page.title()).toBe('Lucky | 存储管理');
    await page.getByTestId('storage-empty').waitFor();
    await page.getByTestId('storage-users-empty').waitFor();
    await page.getByTestId('storage-users-no-storages').waitFor();
    await shot(page, '01-empty');
  });

  it('adds a storage: the directory check says what is wrong, then what it found', async () => {
    await page.getByTestId('storage-add').click();
    await page.getByTestId('storage-name').fill('数据');
    await page.getByTestId('storage-path').fill(join(dir, 'missing'));
    await page.getByTestId('storage-check').click();
    await expect.poll(() => page.getByTestId('storage-check-result').getAttribute('data-ok')).toBe('false');
    await page.getByTestId('storage-path').fill(join(dir, 'data'));
    await page.getByTestId('storage-check').click();
    await expect.poll(() => page.getByTestId('storage-check-result').getAttribute('data-ok')).toBe('true');
    await expect.poll(() => page.getByTestId('storage-check-result').getAttribute('data-writable')).toBe('true');
    await page.getByTestId('storage-quota').fill('2');
    await page.getByTestId('storage-note').fill('temp dir');
    await shot(page, '02-form');
    await page.getByTestId('storage-save').click();
    await formClosed(page, 'storage-name');
    const r = row(page, '数据');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('storage-row-path').textContent()).toBe(join(dir, 'data'));
    await expect.poll(() => r.getByTestId('storage-row-quota').getAttribute('data-value')).toBe('2000000000');
    await expect.poll(async () => Number(await r.getByTestId('storage-usage-fs').getAttribute('data-total'))).toBeGreaterThan(0);
    await expect.poll(() => r.getByTestId('storage-used-by').getAttribute('data-services')).toBe('');
    expect(await storageNamed('数据')).toMatchObject({ path: join(dir, 'data'), readOnly: false, quota: 2e9, note: 'temp dir' });
  });

  it('a missing directory is refused by the daemon, nothing saved', async () => {
    await page.getByTestId('storage-add').click();
    await page.getByTestId('storage-name').fill('nope');
    await page.getByTestId('storage-path').fill(join(dir, 'missing'));
    await page.getByTestId('storage-save').click();
    await page.getByTestId('storage-form-server-error').waitFor();
    await page.getByRole('button', { name: '取消' }).click();
    await formClosed(page, 'storage-name');
    expect(await storageNamed('nope')).toBeUndefined();
  });

  it('adds a read-only storage: its badge, and only read in the matrix', async () => {
    await page.getByTestId('storage-add').click();
    await page.getByTestId('storage-name').fill('archive');
    await page.getByTestId('storage-path').fill(join(dir, 'archive'));
    await page.getByTestId('storage-readonly').check({ force: true });
    await page.getByTestId('storage-save').click();
    await formClosed(page, 'storage-name');
    await row(page, 'archive').getByTestId('storage-row-readonly').waitFor();
  });

  it('adds a user: a password is required, then the user is listed', async () => {
    await page.getByTestId('storage-user-add').click();
    await page.getByTestId('storage-user-account').fill('alice');
    await page.getByTestId('storage-user-save').click();
    await expect.poll(() => page.getByTestId('storage-user-password').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('storage-user-password').fill('alice-pass-1');
    await page.getByTestId('storage-user-note').fill('family');
    await shot(page, '03-user-form');
    await page.getByTestId('storage-user-save').click();
    await formClosed(page, 'storage-user-account');
    await userRow(page, 'alice').waitFor();
    const u = (await settings()).users.find((x) => x.account === 'alice');
    expect(u).toMatchObject({ account: 'alice', password: '******', enable: true, permissions: {}, note: 'family' });
  });

  it('the permission matrix: read and write on one storage; write and delete closed on the read-only one', async () => {
    const data = (await storageNamed('数据'))!.key;
    const archive = (await storageNamed('archive'))!.key;
    const r = userRow(page, 'alice');
    await expect(perm(r, archive, 'write').isDisabled()).resolves.toBe(true);
    await expect(perm(r, archive, 'delete').isDisabled()).resolves.toBe(true);
    await perm(r, data, 'write').check({ force: true });
    await expect.poll(async () => (await settings()).users[0]?.permissions[data]).toEqual({ read: true, write: true, delete: false });
    await perm(r, archive, 'read').check({ force: true });
    await expect.poll(async () => (await settings()).users[0]?.permissions[archive]).toEqual({ read: true, write: false, delete: false });
    await shot(page, '04-matrix');
  });

  it('editing a user keeps the password shown as the mask', async () => {
    const before = (await settings()).users[0]!;
    await userRow(page, 'alice').getByTestId('storage-user-edit').click();
    await expect(page.getByTestId('storage-user-password').inputValue()).resolves.toBe('******');
    await page.getByTestId('storage-user-note').fill('family, edited');
    await page.getByTestId('storage-user-save').click();
    await formClosed(page, 'storage-user-account');
    await expect.poll(async () => (await settings()).users[0]).toEqual({ ...before, note: 'family, edited' });
  });

  it('anonymous access: on, reading one storage', async () => {
    const archive = (await storageNamed('archive'))!.key;
    await page.getByTestId('storage-anon-enable').check({ force: true });
    await expect.poll(async () => (await settings()).anonymous.enable).toBe(true);
    await page.locator(`[data-testid="storage-anon-read"][data-storage="${archive}"]`).check({ force: true });
    await expect.poll(async () => (await settings()).anonymous).toEqual({ enable: true, storages: [archive] });
  });

  it('deleting a storage a WebDAV rule uses asks first, naming the service; confirming deletes it', async () => {
    const data = (await storageNamed('数据'))!.key;
    const port = await freePort();
    const made = await daemon.api('POST', '/api/webdav/rules', { name: 'dav', enable: true, address: '127.0.0.1', port, mounts: [{ name: '', storage: data }] }, apiToken);
    expect(made.ret).toBe(0);
    const r = row(page, '数据');
    await expect.poll(() => r.getByTestId('storage-used-by').getAttribute('data-services'), { timeout: 10_000 }).toContain('webdav');
    await r.getByTestId('storage-delete').click();
    await page.getByTestId('storage-delete-confirm').click();
    await expect.poll(() => page.getByTestId('storage-delete-asked').textContent()).toContain('webdav');
    await shot(page, '05-delete-asked');
    expect(await storageNamed('数据')).toBeDefined();
    await page.getByTestId('storage-delete-force').click();
    await expect.poll(() => r.count()).toBe(0);
    expect(await storageNamed('数据')).toBeUndefined();
    expect((await daemon.api('DELETE', `/api/webdav/rules/${made.key as string}`, undefined, apiToken)).ret).toBe(0);
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Storage');
    await expect(page.getByTestId('storage-add').textContent()).resolves.toBe('Add storage');
    await expect(page.getByTestId('storage-user-add').textContent()).resolves.toBe('Add user');
    await expect(row(page, 'archive').getByTestId('storage-row-readonly').textContent()).resolves.toBe('Read-only');
    await shot(page, '06-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 存储管理');
  });

  it('deletes the user and the storage', async () => {
    await userRow(page, 'alice').getByTestId('storage-user-delete').click();
    await page.getByTestId('storage-user-delete-confirm').click();
    await expect.poll(() => userRow(page, 'alice').count()).toBe(0);
    await row(page, 'archive').getByTestId('storage-delete').click();
    await page.getByTestId('storage-delete-confirm').click();
    await page.getByTestId('storage-empty').waitFor();
    expect(await storages()).toEqual([]);
    expect((await settings()).users).toEqual([]);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
