// @vitest-environment node
/**
 * FileBrowser in a real browser against the built daemon, on a temporary storage: browse (folders,
 * breadcrumbs), upload a file through the file picker (progress to done, on disk), rename, download
 * (the browser's download has the file's bytes), a share link made in the dialog and served to a
 * client without the session, revoked from the share list (404 at once), English after a language
 * switch; an image's thumbnail in its folder, a search by name whose result opens the folder it is in
 * (marked there). Screenshots: filebrowser-*.png.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
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

/** A real 64 × 48 PNG (a colour gradient), written without an image library. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rows.set([x * 4, y * 5, 128], y * (width * 3 + 1) + 1 + x * 3);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

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
    writeFileSync(join(root, '文档', 'inner', 'sunset 日落.png'), png(64, 48));
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

  it('shows an image\'s thumbnail; a search by name finds it deep down and opens its folder', async () => {
    await row(page, '文档').getByTestId('fb-open').click();
    await row(page, 'inner').getByTestId('fb-open').click();
    const thumb = row(page, 'sunset 日落.png').getByTestId('fb-thumb');
    await thumb.waitFor();
    // The daemon's WebP of the 64 × 48 image (never enlarged), decoded by the browser.
    await expect.poll(() => thumb.evaluate((img: HTMLImageElement) => `${img.naturalWidth}x${img.naturalHeight}`)).toBe('64x48');
    expect(await row(page, 'deep.txt').getByTestId('fb-thumb').count()).toBe(0);
    await shot(page, '01b-thumbnail');
    await page.getByTestId('fb-crumb-root').click();
    await row(page, 'hello.txt').waitFor();

    await page.getByTestId('fb-search').fill('日落');
    await page.getByTestId('fb-search').press('Enter');
    const hit = row(page, 'sunset 日落.png');
    await hit.waitFor();
    expect(await page.getByTestId('fb-row').count()).toBe(1);
    await expect.poll(() => page.getByTestId('fb-search-summary').textContent()).toContain('1');
    await hit.getByTestId('fb-thumb').waitFor();
    await expect.poll(() => hit.getByTestId('fb-result-folder').textContent()).toBe('/文档/inner');
    await shot(page, '01c-search');
    await hit.getByTestId('fb-result-folder').click();
    await expect.poll(() => page.getByTestId('fb-crumb').allTextContents()).toEqual(['文档', 'inner']);
    await expect.poll(() => row(page, 'sunset 日落.png').getAttribute('data-marked')).toBe('true');
    await row(page, 'deep.txt').waitFor();
    // A pattern, from the root: both files of inner whose names end so, nothing else.
    await page.getByTestId('fb-crumb-root').click();
    await row(page, 'hello.txt').waitFor();
    await page.getByTestId('fb-search').fill('*.TXT');
    await page.getByTestId('fb-search').press('Enter');
    await expect.poll(async () => (await page.getByTestId('fb-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')))).sort()).toEqual(['deep.txt', 'hello.txt']);
    await page.getByTestId('fb-search-clear').click();
    await page.getByTestId('fb-search').fill('');
    await row(page, '文档').waitFor();
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
