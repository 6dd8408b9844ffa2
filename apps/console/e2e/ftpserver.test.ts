// @vitest-environment node
/**
 * The FTP server in a real browser against the built daemon. Everything stays on this machine: the
 * storage is a temporary directory and the server listens on free loopback ports. Covered: the menu
 * entry and the empty list, a rule added through the form (a storage must be chosen; the passive
 * range checked), its row running and answering curl with the storage user's password, a port taken
 * by another program shown as the rule's error status, English after the language switch, delete.
 * Screenshots: ftpserver-*.png.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, openSubmenuEntry, pickOption as pick, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { makeStorage, setStorageUsers } from './storages';

const shot = shooter('ftpserver');

const USER = 'ftpuser';
const USER_PASSWORD = 'ftp-Pass-1';

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
let port = 0;
let busyPort = 0;
let squatter: Server | undefined;
let storage = '';
const pageErrors: string[] = [];

async function rules(): Promise<Array<Record<string, unknown>>> {
  return (await daemon.api('GET', '/api/ftpserver/rules', undefined, apiToken)).list as Array<Record<string, unknown>>;
}
const ruleNamed = async (name: string) => (await rules()).find((r) => r.name === name);

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="ftp-row"][data-name="${name}"]`);
const errorItems = async (p: Page) => p.getByTestId('ftp-form-error-item').allTextContents();
const formClosed = (p: Page) => expect.poll(() => p.getByTestId('ftp-name').count()).toBe(0);

/** A file fetched with curl as the storage user. */
function curlGet(url: string): Promise<string> {
  return new Promise((resolve) => execFile('curl', ['-sS', '--max-time', '10', '-u', `${USER}:${USER_PASSWORD}`, url], (_e, out) => resolve(String(out))));
}

/** Passive ranges far from each other and from the control ports. */
const FIRST = 41000 + Math.floor(Math.random() * 1000) * 10;
const RANGE_A = [FIRST, FIRST + 9] as const;

describe('FTP server console e2e (chromium + built daemon, loopback listener, temporary storage)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-ftp-e2e-'));
    port = await freePort();
    busyPort = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await enableModules(daemon, apiToken, ['storage', 'ftpserver']);
    const path = mkdtempSync(join(dir, 'files-'));
    writeFileSync(join(path, 'hello.txt'), 'hello ftp');
    storage = await makeStorage(daemon, apiToken, 'Files', path);
    await setStorageUsers(daemon, apiToken, [{ account: USER, password: USER_PASSWORD, permissions: { [storage]: { read: true, write: true, delete: true } } }]);
  }, 90_000);

  afterEach(shotOnFailure('ftpserver', () => page, () => daemon));

  afterAll(async () => {
    await new Promise<void>((r) => (squatter ? squatter.close(() => r()) : r()));
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the menu entry opens the empty list', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'ftpserver');
    await expect.poll(() => page.title()).toBe('Lucky | FTP服务');
    await page.getByTestId('ftp-empty').waitFor();
    await shot(page, '01-empty');
  });

  it('adds a server with one storage at the root on a loopback port; it runs and answers curl', async () => {
    await page.getByTestId('ftp-add').click();
    await page.getByTestId('ftp-name').fill('家庭');
    await page.getByTestId('ftp-address').fill('127.0.0.1');
    await page.getByTestId('ftp-port').fill(String(port));
    await page.getByTestId('ftp-pasv-min').fill(String(RANGE_A[1]));
    await page.getByTestId('ftp-pasv-max').fill(String(RANGE_A[0]));
    await page.getByTestId('ftp-save').click();
    await expect.poll(() => errorItems(page)).toEqual(expect.arrayContaining(['挂载的存储不能为空', expect.stringMatching(/被动端口结束.*起始端口不能大于结束端口/)]));
    await page.getByTestId('ftp-pasv-min').fill(String(RANGE_A[0]));
    await page.getByTestId('ftp-pasv-max').fill(String(RANGE_A[1]));
    await pick(page, page.getByTestId('ftp-root-storage'), 'Files');
    await shot(page, '02-form');
    await page.getByTestId('ftp-save').click();
    await formClosed(page);
    const r = row(page, '家庭');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('ftp-row-listen').textContent()).toBe(`127.0.0.1:${port}`);
    await expect.poll(() => r.getByTestId('ftp-row-passive').textContent()).toBe(`被动端口 ${RANGE_A[0]}-${RANGE_A[1]}`);
    await expect.poll(() => r.getByTestId('ftp-row-scheme').textContent()).toBe('FTP');
    await expect.poll(() => r.getByTestId('ftp-row-mounts').textContent()).toBe('根目录 → Files');
    await expect.poll(() => r.getByTestId('ftp-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    expect(await ruleNamed('家庭')).toMatchObject({ address: '127.0.0.1', port, pasvMin: RANGE_A[0], pasvMax: RANGE_A[1], tls: 'off', anonymous: false, mounts: [{ name: '', storage }] });
    const url = (await r.getByTestId('ftp-url').getAttribute('data-url'))!;
    expect(url).toBe(`ftp://127.0.0.1:${port}/`);
    expect(await curlGet(`${url}hello.txt`)).toBe('hello ftp');
    await expect.poll(() => r.getByTestId('ftp-figures').textContent(), { timeout: 10_000 }).toMatch(/下载 9 B/);
    await shot(page, '03-list');
  });

  it('shows a port taken by another program as the rule error status', async () => {
    squatter = createServer();
    await new Promise<void>((res) => squatter!.listen(busyPort, '127.0.0.1', res));
    await page.getByTestId('ftp-add').click();
    await page.getByTestId('ftp-name').fill('busy');
    await page.getByTestId('ftp-address').fill('127.0.0.1');
    await page.getByTestId('ftp-port').fill(String(busyPort));
    await page.getByTestId('ftp-pasv-min').fill(String(RANGE_A[1] + 100));
    await page.getByTestId('ftp-pasv-max').fill(String(RANGE_A[1] + 110));
    await pick(page, page.getByTestId('ftp-root-storage'), 'Files');
    await page.getByTestId('ftp-save').click();
    await formClosed(page);
    const r = row(page, 'busy');
    await expect.poll(() => r.getByTestId('ftp-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('error');
    await expect.poll(() => r.getByTestId('ftp-status-message').textContent()).toMatch(new RegExp(`端口 ${busyPort}`));
    await shot(page, '04-busy');
  });

  it('the log opens in the kit dialog', async () => {
    await row(page, '家庭').getByTestId('ftp-log-open').click();
    await page.getByTestId('ftp-log-text').waitFor();
    await expect.poll(() => page.getByTestId('ftp-log-text').textContent()).toMatch(/以 ftpuser 登录/);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('ftp-log-text').count()).toBe(0);
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.getByTestId('ftp-add').textContent(), { timeout: 15_000 }).toBe('Add FTP server');
    await expect.poll(() => row(page, '家庭').getByTestId('ftp-status').textContent()).toBe('Running');
    await expect.poll(() => row(page, 'busy').getByTestId('ftp-status-message').textContent()).toMatch(new RegExp(`port ${busyPort} in use`));
    await expect.poll(() => row(page, '家庭').getByTestId('ftp-row-passive').textContent()).toBe(`passive ports ${RANGE_A[0]}-${RANGE_A[1]}`);
    await shot(page, '05-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.getByTestId('ftp-add').textContent(), { timeout: 15_000 }).toBe('添加 FTP 服务');
  });

  it('deletes the servers: the port is closed', async () => {
    for (const name of ['busy', '家庭']) {
      await row(page, name).getByTestId('ftp-delete').click();
      await page.getByTestId('ftp-delete-confirm').click();
      await expect.poll(async () => (await ruleNamed(name)) === undefined).toBe(true);
    }
    await page.getByTestId('ftp-empty').waitFor();
    expect(await curlGet(`ftp://127.0.0.1:${port}/hello.txt`)).toBe('');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
