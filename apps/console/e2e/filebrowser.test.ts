// @vitest-environment node
/**
 * FileBrowser in a real browser against the built daemon, on a temporary storage: browse (folders,
 * breadcrumbs), upload a file through the file picker (progress to done, on disk), rename, download
 * (the browser's download has the file's bytes), a share link made in the dialog and served to a
 * client without the session, revoked from the share list (404 at once), English after a language
 * switch. Screenshots: filebrowser-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, openConsole, openSubmenuEntry, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { makeStorage } from './storages';

const shot = shooter('filebrowser');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
let root = '';
const pageErrors: string[] = [];

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="fb-row"][data-name="${name}"]`);
async function rowAction(p: Page, name: string, action: string): Promise<void> {
  await row(p, name).getByTestId('fb-row-menu').click();
  await p.getByTestId(`fb-act-${action}`).click();
}

describe('FileBrowser console e2e (chromium + built daemon, temporary storage)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-fb-e2e-'));
    root = join(dir, 'files');
    mkdirSync(join(root, '文档', 'inner'), { recursive: true });
    writeFileSync(join(root, 'hello.txt'), 'hello from the storage\n');
    writeFileSync(join(root, '文档', 'inner', 'deep.txt'), 'deep');
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await enableModules(daemon, apiToken, ['storage', 'filebrowser']);
    await makeStorage(daemon, apiToken, 'Files', root);
  }, 90_000);

  afterEach(shotOnFailure('filebrowser', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the menu entry opens the storage: folders first, breadcrumbs follow', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'filebrowser');
    await row(page, 'hello.txt').waitFor();
    expect(await page.getByTestId('fb-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')))).toEqual(['文档', 'hello.txt']);
    await row(page, '文档').getByTestId('fb-open').click();
    await row(page, 'inner').waitFor();
    await expect.poll(() => page.getByTestId('fb-crumb').allTextContents()).toEqual(['文档']);
    await row(page, 'inner').getByTestId('fb-open').click();
    await row(page, 'deep.txt').waitFor();
    await expect.poll(() => page.getByTestId('fb-crumb').allTextContents()).toEqual(['文档', 'inner']);
    await shot(page, '01-folder');
    await page.getByTestId('fb-crumb-root').click();
    await row(page, 'hello.txt').waitFor();
  });

  it('uploads a file with the picker: progress to done, the file on disk', async () => {
    const data = Buffer.alloc(3 * 1024 * 1024 + 123, 'lucky ');
    await page.getByTestId('fb-upload-input').setInputFiles({ name: 'upload 上传.bin', mimeType: 'application/octet-stream', buffer: data });
    const item = page.locator('[data-testid="fb-upload-item"][data-path="/upload 上传.bin"]');
    await expect.poll(() => item.getAttribute('data-state'), { timeout: 20_000 }).toBe('done');
    await row(page, 'upload 上传.bin').waitFor();
    expect(readFileSync(join(root, 'upload 上传.bin')).equals(data)).toBe(true);
    await shot(page, '02-uploaded');
  });

  it('renames a file', async () => {
    await rowAction(page, 'upload 上传.bin', 'rename');
    await page.getByTestId('fb-name-input').fill('renamed.bin');
    await page.getByTestId('fb-name-save').click();
    await row(page, 'renamed.bin').waitFor();
    expect(existsSync(join(root, 'renamed.bin'))).toBe(true);
    expect(existsSync(join(root, 'upload 上传.bin'))).toBe(false);
  });

  it('downloads a file: the browser gets its bytes and its name', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), rowAction(page, 'hello.txt', 'download')]);
    expect(download.suggestedFilename()).toBe('hello.txt');
    const saved = join(dir, 'downloaded.txt');
    await download.saveAs(saved);
    expect(readFileSync(saved, 'utf8')).toBe('hello from the storage\n');
  });

  it('shares a file; the link works without a session until revoked', async () => {
    await rowAction(page, 'hello.txt', 'share');
    await page.getByTestId('fb-share-create').click();
    const url = await page.getByTestId('fb-share-url').inputValue();
    expect(url).toMatch(/\/share\/[A-Za-z0-9_-]{32}$/);
    await shot(page, '03-share');
    const got = await fetch(`${url}/dl`, { signal: AbortSignal.timeout(5000) });
    expect(got.status).toBe(200);
    expect(await got.text()).toBe('hello from the storage\n');
    await page.getByTestId('fb-share-close').click();
    await page.getByTestId('fb-tab-shares').click();
    const share = page.locator('[data-testid="fb-share-row"][data-name="hello.txt"]');
    await expect.poll(() => share.getAttribute('data-state')).toBe('active');
    await expect.poll(() => share.getByTestId('fb-share-link').getAttribute('data-url')).toBe(url);
    await shot(page, '04-shares');
    await share.getByTestId('fb-share-revoke').click();
    await page.getByTestId('fb-revoke-confirm').click();
    await expect.poll(() => share.count()).toBe(0);
    expect((await fetch(`${url}/dl`, { signal: AbortSignal.timeout(5000) })).status).toBe(404);
    expect(((await daemon.api('GET', '/api/filebrowser/rules', undefined, apiToken)).list as unknown[]).length).toBe(0);
    await page.getByTestId('fb-tab-files').click();
    await row(page, 'hello.txt').waitFor();
  });

  it('deletes after asking', async () => {
    await rowAction(page, 'renamed.bin', 'delete');
    await page.getByTestId('fb-delete-confirm').waitFor();
    expect(existsSync(join(root, 'renamed.bin'))).toBe(true);
    await page.getByTestId('fb-delete-confirm').click();
    await expect.poll(() => row(page, 'renamed.bin').count()).toBe(0);
    expect(existsSync(join(root, 'renamed.bin'))).toBe(false);
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.getByTestId('fb-tab-files').textContent(), { timeout: 15_000 }).toBe('Files');
    await expect.poll(() => page.getByTestId('fb-upload').textContent()).toBe('Upload files');
    await row(page, 'hello.txt').waitFor();
    await shot(page, '05-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.getByTestId('fb-tab-files').textContent(), { timeout: 15_000 }).toBe('文件');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
