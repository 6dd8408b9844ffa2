// @vitest-environment node
/**
 * Nothing sent out unasked, in a real browser against the built daemon: with the default settings
 * every request the pages make (playwright's request events, from the first load on) goes to the
 * daemon alone, and the About page says nothing is fetched. With an info feed URL set in Settings
 * (a feed server of the test's own on loopback), the daemon reads it and the browser still asks the
 * daemon alone; emptied, nothing is read again.
 */
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, launchBrowser, newPage, PASSWORD, requirePrerequisites, shot, shotOnFailure } from './harness';

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let feed: Server;
let feedUrl = '';
const feedHits: Array<{ agent: string }> = [];
/** host:port of every request the browser made. */
const hosts = new Set<string>();
const pageErrors: string[] = [];

const FEED = { latestVersion: '99.0.0', notesUrl: 'https://feed.example.invalid/notes', messages: [{ level: 'warning', text: { zh_CN: '测试消息', en_US: 'a test message' } }] };

describe('about and settings: nothing sent out unasked (chromium + built daemon)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    feed = createServer((req, res) => {
      feedHits.push({ agent: String(req.headers['user-agent'] ?? '') });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(FEED));
    });
    const feedPort = await new Promise<number>((r) => feed.listen(0, '127.0.0.1', () => r((feed.address() as { port: number }).port)));
    feedUrl = `http://127.0.0.1:${feedPort}/lucky-feed.json`;
    daemon = new Daemon(await freePort());
    await daemon.start();
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, 1366));
    context.on('request', (r) => hosts.add(new URL(r.url()).host));
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  }, 90_000);

  afterEach(shotOnFailure('about', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    feed?.close();
  }, 30_000);

  it('with the default settings, login, overview, About and Settings ask the daemon alone', async () => {
    await page.goto(daemon.url + '#/login');
    await page.getByTestId('login-account').fill('admin');
    await page.getByTestId('login-password').fill(PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/#\/status$/);
    await page.getByTestId('status-proc-cpu').waitFor();
    await page.goto(`${daemon.url}#/about`);
    await expect.poll(() => page.getByTestId('about-outside').textContent(), { timeout: 10_000 }).toContain('不会从互联网获取任何内容');
    await expect(page.getByTestId('about-latest').count()).resolves.toBe(0);
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('set-feedurl').waitFor();
    expect(await page.getByTestId('set-feedurl').inputValue()).toBe('');
    await page.waitForLoadState('networkidle');
    expect([...hosts]).toEqual([`127.0.0.1:${daemon.port}`]);
    expect(feedHits).toEqual([]);
    await shot(page, 'about-01-nothing-fetched');
  });

  it('a feed URL set in Settings is read by the daemon; the browser still asks the daemon alone', async () => {
    await page.getByTestId('set-feedurl').fill('ftp://example.invalid/feed');
    await page.getByTestId('settings-save').click();
    await expect.poll(() => page.getByTestId('settings-error').textContent()).toContain('不是有效的 http(s) 地址');
    await page.getByTestId('set-feedurl').fill(feedUrl);
    await page.getByTestId('settings-save').click();
    await expect.poll(async () => ((await daemon.api('GET', '/api/baseconfigure', undefined, await daemon.login())).baseconfigure as { InfoFeedUrl: string }).InfoFeedUrl).toBe(feedUrl);
    expect(feedHits).toEqual([]); // saving reads nothing

    await page.goto(`${daemon.url}#/about`);
    // The daemon reads the feed when the page asks (its first read also loads the HTTP client): on a
    // loaded machine that has taken over 10 s. Either outcome is waited for, and a failure says why.
    await page.getByTestId('about-latest').or(page.getByTestId('about-feed-error')).waitFor({ timeout: 40_000 });
    expect(await page.getByTestId('about-feed-error').allTextContents()).toEqual([]);
    expect(await page.getByTestId('about-latest').textContent()).toBe('99.0.0');
    expect(await page.getByTestId('about-newer').textContent()).toBe('比当前版本新');
    expect(await page.getByTestId('about-feed-message').textContent()).toContain('测试消息');
    expect(await page.getByTestId('about-outside').textContent()).toContain(feedUrl);
    expect(feedHits).toHaveLength(1);
    expect(feedHits[0]!.agent).not.toMatch(/Chrom/); // the daemon asked, not the browser
    await shot(page, 'about-02-feed-read');
    await page.getByTestId('about-feed-refresh').click();
    await expect.poll(() => feedHits.length).toBe(2);
    await page.waitForLoadState('networkidle');
    expect([...hosts]).toEqual([`127.0.0.1:${daemon.port}`]);
  });

  it('emptied, the feed is read no more and the page says so again', async () => {
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('set-feedurl').fill('');
    await page.getByTestId('settings-save').click();
    await expect.poll(async () => ((await daemon.api('GET', '/api/baseconfigure', undefined, await daemon.login())).baseconfigure as { InfoFeedUrl: string }).InfoFeedUrl).toBe('');
    const before = feedHits.length;
    await page.goto(`${daemon.url}#/about`);
    await expect.poll(() => page.getByTestId('about-outside').textContent(), { timeout: 10_000 }).toContain('不会从互联网获取任何内容');
    await page.waitForLoadState('networkidle');
    expect(feedHits.length).toBe(before);
    expect([...hosts]).toEqual([`127.0.0.1:${daemon.port}`]);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
