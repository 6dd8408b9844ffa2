// @vitest-environment node
/**
 * A remote storage in a real browser against the built daemon: a WebDAV remote (`rclone serve webdav`
 * on loopback, serving a temporary directory, with a login) added through the storage form — the kind
 * chosen, the server's fields, "Test connection" answering in green — saved and seen running with its
 * server in the list; then, in English, edited: "Test connection" with the stored (masked) password
 * still connects, and with a wrong password says why it cannot. Screenshots: remotestorage-*.png.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, openSubmenuEntry, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('remotestorage');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let dir = '';
let rclone: ChildProcess | undefined;
let url = '';
const pageErrors: string[] = [];

/** `rclone serve webdav` of `root` on loopback, its own directory cache off, user u / password p; resolves once it serves. */
async function serveWebdav(root: string, port: number): Promise<ChildProcess> {
  const p = spawn('rclone', ['serve', 'webdav', '--config', '/dev/null', '--dir-cache-time', '0s', '--addr', `127.0.0.1:${port}`, '--user', 'u', '--pass', 'p', root], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`rclone did not start: ${out}`)), 15_000);
    const on = (c: Buffer) => {
      out += c.toString();
      if (/WebDav Server started|Serving on|listening/i.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    p.stdout!.on('data', on);
    p.stderr!.on('data', on);
    p.once('error', (e) => reject(e));
    p.once('exit', () => reject(new Error(`rclone exited: ${out}`)));
  });
  return p;
}

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="storage-row"][data-name="${name}"]`);
const answer = (p: Page) => p.getByTestId('storage-test-answer');

describe('remote storage console e2e (chromium + built daemon, rclone serve webdav on loopback)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-remotestorage-e2e-'));
    mkdirSync(join(dir, 'photos'));
    writeFileSync(join(dir, 'hello.txt'), 'hello');
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    [rclone, { daemon, apiToken, browser, context, page }] = await Promise.all([serveWebdav(dir, port), openConsole(1440, 1000, pageErrors)]);
    await enableModules(daemon, apiToken, ['storage']);
  }, 90_000);

  afterEach(shotOnFailure('remotestorage', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    rclone?.kill('SIGTERM');
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('adds a WebDAV remote: the test connects, the storage runs, the list shows its server', async () => {
    await openSubmenuEntry(page, daemon, 'storage', 'storagemanagement');
    await page.getByTestId('storage-add').click();
    await page.getByTestId('storage-name').fill('nas');
    await page.getByTestId('storage-kind').getByText('WebDAV').click();
    await page.getByTestId('storage-webdav-url').fill(url);
    expect(await page.getByTestId('storage-path').count()).toBe(0);
    await page.getByTestId('storage-webdav-username').fill('u');
    await page.getByTestId('storage-webdav-password').fill('p');
    await expect(page.getByTestId('storage-test').textContent()).resolves.toBe('测试连接');
    await page.getByTestId('storage-test').click();
    await expect.poll(() => answer(page).getAttribute('data-ok')).toBe('true');
    await expect(page.getByTestId('storage-test-result').textContent()).resolves.toBe('连接成功，根目录下有 2 项');
    await shot(page, '01-tested');
    await page.getByTestId('storage-save').click();
    await expect.poll(() => page.getByTestId('storage-name').count()).toBe(0);
    const r = row(page, 'nas');
    await expect.poll(() => r.getByTestId('storage-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('running');
    await expect(r.getByTestId('storage-row-kind').getAttribute('data-kind')).resolves.toBe('webdav');
    await expect(r.getByTestId('storage-row-path').textContent()).resolves.toBe(url);
    await r.getByTestId('storage-usage-remote').waitFor();
    await shot(page, '02-running');
  });

  it('in English, edited: the stored password still connects; a wrong one is refused, said in red', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Storage');
    await row(page, 'nas').getByTestId('storage-edit').click();
    await expect(page.getByTestId('storage-webdav-password').inputValue()).resolves.toBe('******');
    await expect(page.getByTestId('storage-test').textContent()).resolves.toBe('Test connection');
    await page.getByTestId('storage-test').click();
    await expect.poll(() => answer(page).getAttribute('data-ok')).toBe('true');
    await expect(page.getByTestId('storage-test-result').textContent()).resolves.toBe('connected: 2 entries at the root');
    await page.getByTestId('storage-webdav-password').fill('wrong');
    await page.getByTestId('storage-test').click();
    await expect.poll(() => answer(page).getAttribute('data-ok')).toBe('false');
    await expect(page.getByTestId('storage-test-result').textContent()).resolves.toMatch(/^cannot connect: .*401/);
    await shot(page, '03-refused');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('storage-name').count()).toBe(0);
    // Nothing saved: the storage still runs with its own password.
    const listed = (await daemon.api('GET', '/api/storage/rules', undefined, apiToken)).list as Array<{ name: string; kind: string; webdav: { url: string; password: string }; status: { state: string } }>;
    expect(listed.find((s) => s.name === 'nas')).toMatchObject({ kind: 'webdav', webdav: { url, password: '******' }, status: { state: 'running' } });
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
