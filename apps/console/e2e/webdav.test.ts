// @vitest-environment node
/**
 * WebDAV in a real browser against the built daemon. Everything stays on this machine: the storage is
 * a temporary directory and the server listens on a free loopback port. Covered: the empty list, a
 * rule added through the form (a storage must be chosen; one storage at the root), its row (address,
 * scheme, mounts, the mount URL to copy), the server answering a PROPFIND with the storage user's
 * password and the live figures following, storages as folders, the switch, the log, settings,
 * English. Screenshots: webdav-*.png.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, openSubmenuEntry, pickOption as pick, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { makeStorage, setStorageUsers } from './storages';

const shot = shooter('webdav');

const USER = 'davuser';
const USER_PASSWORD = 'dav-Pass-1';

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
let port = 0;
let photos = '';
let docs = '';
const pageErrors: string[] = [];

async function rules(): Promise<Array<Record<string, unknown>>> {
  return (await daemon.api('GET', '/api/webdav/rules', undefined, apiToken)).list as Array<Record<string, unknown>>;
}
const ruleNamed = async (name: string) => (await rules()).find((r) => r.name === name);

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="webdav-row"][data-name="${name}"]`);
const errorItems = async (p: Page) => p.getByTestId('webdav-form-error-item').allTextContents();
const choose = (p: Page, testId: string, value: string) => p.getByTestId(testId).locator(`input[value="${value}"]`).dispatchEvent('click');
const formClosed = (p: Page) => expect.poll(() => p.getByTestId('webdav-name').count()).toBe(0);

/** A PROPFIND of the root as the storage user: the HTTP status. */
async function propfind(url: string): Promise<number> {
  const r = await fetch(url, {
    method: 'PROPFIND',
    headers: { depth: '1', authorization: `Basic ${Buffer.from(`${USER}:${USER_PASSWORD}`).toString('base64')}` },
    signal: AbortSignal.timeout(5000),
  });
  await r.arrayBuffer();
  return r.status;
}

describe('WebDAV console e2e (chromium + built daemon, loopback listener, temporary storage)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-webdav-e2e-'));
    port = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await enableModules(daemon, apiToken, ['storage', 'webdav']);
    const photosPath = mkdtempSync(join(dir, 'photos-'));
    writeFileSync(join(photosPath, 'hello.txt'), 'hello');
    photos = await makeStorage(daemon, apiToken, 'Photos', photosPath);
    docs = await makeStorage(daemon, apiToken, 'Docs', mkdtempSync(join(dir, 'docs-')));
    await setStorageUsers(daemon, apiToken, [{ account: USER, password: USER_PASSWORD, permissions: { [photos]: { read: true, write: true, delete: false }, [docs]: { read: true } } }]);
  }, 90_000);

  afterEach(shotOnFailure('webdav', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the menu entry opens the empty list', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'webdav');
    await expect.poll(() => page.title()).toBe('Lucky | WebDAV');
    await page.getByTestId('webdav-empty').waitFor();
    await shot(page, '01-empty');
  });

  it('adds a server with one storage at the root on a loopback port', async () => {
    await page.getByTestId('webdav-add').click();
    await page.getByTestId('webdav-name').fill('家庭');
    await page.getByTestId('webdav-address').fill('127.0.0.1');
    await page.getByTestId('webdav-port').fill(String(port));
    await page.getByTestId('webdav-save').click();
    await expect.poll(() => errorItems(page)).toEqual(['挂载的存储不能为空']);
    await pick(page, page.getByTestId('webdav-root-storage'), 'Photos');
    await page.getByTestId('webdav-prefix').fill('/dav');
    await shot(page, '02-form');
    await page.getByTestId('webdav-save').click();
    await formClosed(page);
    const r = row(page, '家庭');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('webdav-row-listen').textContent()).toBe(`127.0.0.1:${port}`);
    await expect.poll(() => r.getByTestId('webdav-row-scheme').textContent()).toBe('HTTP');
    await expect.poll(() => r.getByTestId('webdav-row-mounts').textContent()).toBe('根目录 → Photos');
    await expect.poll(() => r.getByTestId('webdav-url').getAttribute('data-url')).toContain(`:${port}/dav`);
    await expect.poll(() => r.getByTestId('webdav-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    expect(await ruleNamed('家庭')).toMatchObject({ address: '127.0.0.1', port, tls: false, prefix: '/dav', mounts: [{ name: '', storage: photos }], lockTimeout: 3600 });
  });

  it('answers the storage user; the live figures follow', async () => {
    const r = row(page, '家庭');
    const url = (await r.getByTestId('webdav-url').getAttribute('data-url'))!;
    expect(new URL(url).hostname).toBe('127.0.0.1');
    expect(await propfind(url)).toBe(207);
    await expect.poll(async () => Number(await r.getByTestId('webdav-fig-requests').getAttribute('data-value')), { timeout: 10_000 }).toBeGreaterThan(0);
    await shot(page, '03-list');
  });

  it('edits: storages as folders', async () => {
    await row(page, '家庭').getByTestId('webdav-edit').click();
    await choose(page, 'webdav-mount-mode', 'folders');
    await page.getByTestId('webdav-folder-name').first().fill('photos');
    await page.getByTestId('webdav-folder-add').click();
    await page.getByTestId('webdav-folder-name').nth(1).fill('docs');
    await pick(page, page.getByTestId('webdav-folder-storage').nth(1), 'Docs');
    await page.getByTestId('webdav-save').click();
    await formClosed(page);
    await expect.poll(() => row(page, '家庭').getByTestId('webdav-row-mounts').textContent()).toBe('photos → Photosdocs → Docs');
    expect((await ruleNamed('家庭'))?.mounts).toEqual([
      { name: 'photos', storage: photos },
      { name: 'docs', storage: docs },
    ]);
  });

  it('the switch turns the server off and on', async () => {
    const r = row(page, '家庭');
    await r.getByTestId('webdav-toggle').dispatchEvent('click');
    await expect.poll(() => r.getByTestId('webdav-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('disabled');
    await r.getByTestId('webdav-toggle').dispatchEvent('click');
    await expect.poll(() => r.getByTestId('webdav-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
  });

  it('the log opens in the kit dialog', async () => {
    await row(page, '家庭').getByTestId('webdav-log-open').click();
    await page.getByTestId('webdav-log-text').waitFor();
    await shot(page, '04-log');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('webdav-log-text').count()).toBe(0);
  });

  it('settings: bounds checked, the whole object saved', async () => {
    await page.getByTestId('webdav-settings-open').click();
    await page.getByTestId('webdav-set-accessLogLines').fill('1001');
    await page.getByTestId('webdav-settings-save').click();
    await page.getByTestId('webdav-settings-error').waitFor();
    await page.getByTestId('webdav-set-accessLogLines').fill('50');
    await page.getByTestId('webdav-settings-save').click();
    await expect.poll(() => page.getByTestId('webdav-set-accessLogLines').count()).toBe(0);
    expect((await daemon.api('GET', '/api/webdav/configure', undefined, apiToken)).configure).toEqual({ accessLogLines: 50 });
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    // The switch reloads the page: the texts are polled until the new one is there.
    await expect.poll(() => page.getByTestId('webdav-add').textContent(), { timeout: 15_000 }).toBe('Add WebDAV server');
    await expect.poll(() => row(page, '家庭').getByTestId('webdav-status').textContent()).toBe('Running');
    await shot(page, '05-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.getByTestId('webdav-add').textContent(), { timeout: 15_000 }).toBe('添加 WebDAV 服务');
  });

  it('deletes the server: the port is closed', async () => {
    await row(page, '家庭').getByTestId('webdav-delete').click();
    await page.getByTestId('webdav-delete-confirm').click();
    await page.getByTestId('webdav-empty').waitFor();
    expect(await rules()).toEqual([]);
    await expect(propfind(`http://127.0.0.1:${port}/dav/`)).rejects.toThrow();
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
