// @vitest-environment node
/**
 * The console in a real browser against the built daemon: login, titles, menu by enabled modules,
 * wide/narrow layout, program log polling and restart detection, logout, language switch, a session
 * revoked on the server, and Wake-on-LAN end to end. Screenshots go to test-output/screenshots.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, launchBrowser, newPage, PASSWORD, requirePrerequisites, shot, shotOnFailure, sleep } from './harness';

const WIDE = 1366;
const NARROW = 1000;

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];

async function storedToken(p: Page): Promise<string> {
  return p.evaluate(() => (JSON.parse(localStorage.getItem('lucky') ?? '{}') as { token?: string }).token ?? '');
}

async function login(p: Page): Promise<void> {
  await p.goto(daemon.url + '#/login');
  await p.getByTestId('login-account').fill('admin');
  await p.getByTestId('login-password').fill(PASSWORD);
  await p.getByTestId('login-submit').click();
  await p.waitForURL(/#\/status$/);
}

async function setModules(modules: string[]): Promise<void> {
  const r = await daemon.api('PUT', '/api/baseconfigure', { EnabledModules: modules }, apiToken);
  expect(r.ret).toBe(0);
}

async function menuIds(p: Page): Promise<string[]> {
  return p.locator('[data-testid="left-menu"] [data-menu]').evaluateAll((els) => els.map((e) => e.getAttribute('data-menu') ?? ''));
}

describe('console e2e (chromium + built daemon)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    daemon = new Daemon(await freePort());
    await daemon.start();
    apiToken = await daemon.login();
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, WIDE));
    page.on('pageerror', (e) => pageErrors.push(String(e)));
  }, 90_000);

  afterEach(shotOnFailure('console', () => page, () => daemon));

  afterAll(() => closeConsole({ daemon, browser, context }), 30_000);

  it('redirects to /login without a token and titles the page', async () => {
    const consoleErrors: string[] = [];
    const onConsole = (m: { type(): string; text(): string }) => {
      if (m.type() === 'error') consoleErrors.push(m.text());
    };
    page.on('console', onConsole);
    await page.goto(daemon.url);
    await page.waitForURL(/#\/login$/);
    await expect.poll(() => page.title()).toBe('Lucky | 登录');
    await expect(page.getByTestId('left-menu').count()).resolves.toBe(0);
    await expect(page.getByTestId('top-menu').count()).resolves.toBe(0);
    await expect(page.getByTestId('login-reset-hint').textContent()).resolves.toContain('lucky_base.lkcf');
    await shot(page, '01-login');
    // The console asks nobody but the daemon, so nothing is refused and nothing is said.
    await sleep(1500);
    page.off('console', onConsole);
    expect(consoleErrors).toEqual([]);
  });

  it('login: empty, wrong, right', async () => {
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error').textContent()).resolves.toBe('账号或密码不能为空');
    await page.getByTestId('login-account').fill('admin');
    await page.getByTestId('login-password').fill('wrong-password');
    await page.getByTestId('login-submit').click();
    await expect.poll(() => page.getByTestId('login-error').textContent()).toBe('登录失败');
    await shot(page, '02-login-failed');
    await page.getByTestId('login-password').fill(PASSWORD);
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/#\/status$/);
    expect(await storedToken(page)).toMatch(/.{16,}/);
    await expect.poll(() => page.title()).toBe('Lucky | 总览');
    await page.getByTestId('status-proc-cpu').waitFor();
    await expect(page.getByTestId('app-title').textContent()).resolves.toMatch(/^Lucky \d/);
    await expect(page.getByTestId('app-title').getAttribute('target')).resolves.toBe('_blank');
    await shot(page, '03-overview');
  });

  it('titles every route of the table; / goes to /about; the Wanji admin screen is there', async () => {
    const table: [string, string][] = [
      ['/about', '关于'],
      ['/set', '设置'],
      ['/safe', '安全管理'],
      ['/status', '总览'],
      ['/ftpserver', 'FTP服务'],
      ['/sftpserver', 'SFTP服务'],
      ['/cron', '计划任务'],
      ['/wol', '网络唤醒'],
      ['/webdav', 'WebDAV'],
      ['/filebrowser', 'FileBrowser'],
      ['/storagemanagement', '存储管理'],
      ['/ddns', '动态域名'],
      ['/web', 'Web服务'],
      ['/stun', 'STUN内网穿透'],
      ['/portforward', '端口转发'],
      ['/acme', '证书'],
    ];
    for (const [path, title] of table) {
      await page.goto(`${daemon.url}#${path}`);
      await expect.poll(() => page.title(), { timeout: 10_000 }).toBe(`Lucky | ${title}`);
    }
    // The Wanji admin screen (the menu links to it; spec section 2): its list of managed devices.
    await page.goto(`${daemon.url}#/wanjiadmin`);
    await expect.poll(() => page.title()).toBe('Lucky | 万吉管理');
    await page.getByTestId('wanji-page').waitFor();
    await shot(page, '04-wanji');
    await page.goto(daemon.url + '#/');
    await page.waitForURL(/#\/about$/);
    await page.getByTestId('about-page').waitFor();
    // No info feed set: the page says nothing is fetched (about.test.ts checks that nothing is).
    await expect.poll(() => page.getByTestId('about-outside').textContent(), { timeout: 10_000 }).toContain('不会从互联网获取任何内容');
    await shot(page, '05-about');
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('set-port').waitFor();
    await shot(page, '06-settings');
  });

  it('shows menu items only for enabled modules, with the storage submenu rule', async () => {
    await setModules(['wol']);
    await page.goto(`${daemon.url}#/about`);
    await page.reload();
    await page.getByTestId('left-menu').waitFor();
    await expect.poll(() => menuIds(page)).toEqual(['status', 'log', 'wol', 'safe', 'set', 'about', 'logout']);

    await setModules(['ddns', 'web', 'webdav', 'ftpserver', 'wol', 'cron', 'wanji']);
    await page.reload();
    await expect
      .poll(() => menuIds(page))
      .toEqual(['status', 'log', 'ddns', 'web', 'storage', 'webdav', 'ftpserver', 'wanjiadmin', 'wol', 'cron', 'safe', 'set', 'about', 'logout']);
    await shot(page, '07-menu-modules');
    // The storage submenu opens by itself unless FrontendDisableAutoExpandLeftMenu is on.
    await page.locator('[data-testid="left-menu"] [data-menu="webdav"]').waitFor();
    expect((await daemon.api('PUT', '/api/baseconfigure', { FrontendDisableAutoExpandLeftMenu: true }, apiToken)).ret).toBe(0);
    await page.reload();
    await page.locator('[data-testid="left-menu"] [data-menu="storage"]').waitFor();
    await page.locator('[data-testid="left-menu"] [data-menu="webdav"]').waitFor({ state: 'hidden' });
    await page.locator('[data-testid="left-menu"] [data-menu="storage"]').first().click();
    await page.locator('[data-testid="left-menu"] [data-menu="webdav"]').waitFor();
    expect((await daemon.api('PUT', '/api/baseconfigure', { FrontendDisableAutoExpandLeftMenu: false }, apiToken)).ret).toBe(0);

    // FTP alone does not bring the storage submenu: it needs WebDAV or FileBrowser.
    await setModules(['ftpserver', 'filebrowser', 'storage']);
    await page.reload();
    await expect
      .poll(() => menuIds(page))
      .toEqual(['status', 'log', 'storage', 'storagemanagement', 'ftpserver', 'filebrowser', 'safe', 'set', 'about', 'logout']);
    await setModules(['ftpserver']);
    await page.reload();
    await expect.poll(() => menuIds(page)).toEqual(['status', 'log', 'safe', 'set', 'about', 'logout']);
    await setModules(['ddns', 'web', 'portforward', 'stun', 'storage', 'webdav', 'ftpserver', 'filebrowser', 'wol', 'cron']);
  });

  it('left menu above 1200 px, top-bar menu at 1200 px or narrower', async () => {
    await page.reload();
    await page.getByTestId('left-menu').waitFor();
    expect(await page.getByTestId('top-menu').count()).toBe(0);
    await page.setViewportSize({ width: 1200, height: 900 });
    await page.getByTestId('top-menu').waitFor();
    await expect.poll(() => page.getByTestId('left-menu').count()).toBe(0);
    await page.setViewportSize({ width: NARROW, height: 900 });
    await page.getByTestId('top-menu').click();
    await page.getByTestId('top-menu-dropdown').waitFor();
    await sleep(400); // let the opening transition finish before the screenshot
    await expect(page.locator('[data-testid="top-menu-dropdown"] [data-menu="wol"]').count()).resolves.toBe(1);
    await shot(page, '08-narrow-menu');
    await page.locator('[data-testid="top-menu-dropdown"] [data-menu="about"]').click();
    await page.waitForURL(/#\/about$/);
    await page.setViewportSize({ width: 1201, height: 900 });
    await page.getByTestId('left-menu').waitFor();
    await expect.poll(() => page.getByTestId('top-menu').count()).toBe(0);
    await page.setViewportSize({ width: WIDE, height: 900 });
  });

  it('program log: polls with pre, detects a restart, stops when closed', async () => {
    let logCalls = 0;
    const pres: number[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/logs?')) {
        logCalls++;
        pres.push(Number(new URL(r.url()).searchParams.get('pre')));
      }
    });
    await page.locator('[data-testid="left-menu"] [data-menu="log"]').click();
    await page.getByText('程序日志').first().waitFor();
    await page.getByTestId('log-text').waitFor();
    // A line made now shows up through the 1 s polling.
    const marker = `marker-${Date.now()}`;
    await daemon.api('POST', '/api/login', { Account: marker, Password: 'x' });
    await expect.poll(() => page.getByTestId('log-text').textContent(), { timeout: 15_000 }).toContain(marker);
    expect(pres.some((p) => p > 0)).toBe(true);
    await shot(page, '09-log-dialog');
    // Follows the end while the user is there; stays put once they scroll up.
    const logLines = async (n: number) => {
      for (let i = 0; i < n; i++) await daemon.api('PUT', '/api/baseconfigure', { LogLevel: 4 }, apiToken);
    };
    const scrollState = () =>
      page.getByTestId('log-text').evaluate((el) => ({ top: el.scrollTop, bottomGap: el.scrollHeight - el.clientHeight - el.scrollTop, overflow: el.scrollHeight - el.clientHeight }));
    await logLines(40);
    // Well past one screen, so "scrolled to the top" is clearly not "at the end".
    await expect.poll(async () => (await scrollState()).overflow, { timeout: 15_000 }).toBeGreaterThan(200);
    await expect.poll(async () => (await scrollState()).bottomGap, { timeout: 10_000 }).toBeLessThan(10);
    await page.getByTestId('log-text').evaluate((el) => {
      el.scrollTop = 0;
    });
    await sleep(300); // the browser's own scroll event tells the dialog the user left the end
    const linesBefore = ((await page.getByTestId('log-text').textContent()) ?? '').split('\n').length;
    await logLines(5);
    await expect.poll(async () => ((await page.getByTestId('log-text').textContent()) ?? '').split('\n').length, { timeout: 10_000 }).toBeGreaterThan(linesBefore);
    expect((await scrollState()).top).toBe(0);
    await page.getByTestId('log-text').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    });
    await sleep(300);
    await logLines(5);
    await expect.poll(async () => (await scrollState()).bottomGap, { timeout: 10_000 }).toBeLessThan(10);

    // Draggable by its title bar.
    const box0 = (await page.getByTestId('log-dialog-content').boundingBox())!;
    const head = (await page.getByTestId('log-dialog-header').boundingBox())!;
    await page.mouse.move(head.x + 40, head.y + head.height / 2);
    await page.mouse.down();
    await page.mouse.move(head.x + 140, head.y + head.height / 2 + 30, { steps: 5 });
    await page.mouse.up();
    const box1 = (await page.getByTestId('log-dialog-content').boundingBox())!;
    expect(Math.round(box1.x - box0.x)).toBe(100);
    expect(Math.round(box1.y - box0.y)).toBe(30);

    // Restart: kill the daemon and start it again on the same port and data dir. Log requests made
    // while it is down are held until it is back, so the client's failure counter does not log us out.
    const before = Number(await page.getByTestId('log-text').getAttribute('data-starttime'));
    let release!: () => void;
    const back = new Promise<void>((r) => (release = r));
    const hold = async (route: Route) => {
      await back;
      await route.continue().catch(() => undefined);
    };
    await page.route('**/api/logs?*', hold);
    await sleep(1500); // let the poll in flight settle into the hold
    await daemon.kill();
    await daemon.start();
    release();
    await page.unroute('**/api/logs?*', hold);
    await expect
      .poll(async () => Number(await page.getByTestId('log-text').getAttribute('data-starttime')), { timeout: 20_000 })
      .not.toBe(before);
    // The text started over: the marker from before the restart is gone.
    await expect.poll(() => page.getByTestId('log-text').textContent(), { timeout: 10_000 }).not.toContain(marker);
    expect(page.url()).toMatch(/#\/about$/);

    await page.getByRole('button', { name: '关闭' }).click();
    await expect.poll(() => page.getByTestId('log-text').count()).toBe(0);
    await sleep(500);
    const afterClose = logCalls;
    await sleep(2500);
    expect(logCalls).toBe(afterClose);

    // Closing by clicking outside.
    await page.locator('[data-testid="left-menu"] [data-menu="log"]').click();
    await page.getByTestId('log-text').waitFor();
    await page.mouse.click(5, 400);
    await expect.poll(() => page.getByTestId('log-text').count()).toBe(0);
  });

  it('logout: cancel keeps the session, confirm ends it', async () => {
    await page.goto(`${daemon.url}#/about`);
    if (!(await storedToken(page))) await login(page);
    await page.goto(`${daemon.url}#/about`);
    const token = await storedToken(page);
    await page.locator('[data-testid="left-menu"] [data-menu="logout"]').click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Warning').waitFor();
    await dialog.getByText('确定要注销登录?').waitFor();
    await shot(page, '10-logout-dialog');
    await dialog.getByRole('button', { name: '点错了' }).click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(page.url()).toMatch(/#\/about$/);
    expect((await daemon.api('GET', '/api/modules/list', undefined, token)).ret).toBe(0);

    await page.locator('[data-testid="left-menu"] [data-menu="logout"]').click();
    await page.getByRole('dialog').getByRole('button', { name: '确认' }).click();
    await page.waitForURL(/#\/login$/);
    await expect.poll(async () => (await daemon.api('GET', '/api/modules/list', undefined, token)).ret).toBe(-1);
  });

  it('a session revoked on the server sends the console back to /login', async () => {
    await page.goto(`${daemon.url}#/login`);
    await login(page);
    await page.locator('[data-testid="left-menu"] [data-menu="about"]').click();
    await page.getByTestId('about-page').waitFor();
    const token = await storedToken(page);
    expect((await daemon.api('PUT', '/api/logout', undefined, token)).ret).toBe(0);
    // The next call the console makes finds the session gone: the user's click on Settings, or a
    // query of the About page still in flight. Either way the console must end up on /login.
    await page
      .locator('[data-testid="left-menu"] [data-menu="set"]')
      .click({ timeout: 5000 })
      .catch(() => undefined);
    await page.waitForURL(/#\/login$/, { timeout: 15_000 });
    expect(await storedToken(page)).toBe('');
  });

  it('Wake-on-LAN: create a device and wake it (packets arrive on loopback)', async () => {
    const udp: Socket = createSocket('udp4');
    const packets: Buffer[] = [];
    udp.on('message', (m) => packets.push(m));
    await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
    const udpPort = udp.address().port;
    try {
      await page.goto(`${daemon.url}#/login`);
      await login(page);
      await page.goto(`${daemon.url}#/wol`);
      await page.getByTestId('wol-add').click();
      await page.getByTestId('wol-name').fill('NAS');
      await page.getByTestId('wol-macs').fill('00:11:22:33:44:55');
      await page.getByTestId('wol-broadcast').fill('127.0.0.1');
      await page.getByTestId('wol-port').fill(String(udpPort));
      // Client-side validation names the field before anything is sent.
      await page.getByTestId('wol-secureon').fill('zz');
      await page.getByTestId('wol-save').click();
      await expect(page.getByTestId('wol-form-error').textContent()).resolves.toContain('secureOn');
      await page.getByTestId('wol-secureon').fill('');
      await page.getByTestId('wol-repeat').fill('2');
      await shot(page, '11-wol-form');
      await page.getByTestId('wol-save').click();
      await page.getByTestId('wol-row').first().waitFor();
      await page.getByTestId('wol-wake').first().click();
      await expect.poll(() => packets.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      expect(packets[0]!.length).toBe(102);
      expect(packets[0]!.subarray(6, 12).toString('hex')).toBe('001122334455');
      await expect.poll(() => page.getByTestId('wol-lastwake').first().textContent()).not.toBe('从未');
      await page.getByTestId('wol-logs').first().click();
      await expect.poll(() => page.getByTestId('wol-log-text').textContent()).toContain(`127.0.0.1:${udpPort}`);
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('wol-log-text').count()).toBe(0);
      await shot(page, '12-wol-list');
    } finally {
      udp.close();
    }
  });

  it('language switch: English saved, page reloads, texts follow', async () => {
    await page.goto(`${daemon.url}#/about`);
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | About');
    expect(await page.evaluate(() => (JSON.parse(localStorage.getItem('lucky') ?? '{}') as { lang?: string }).lang)).toBe('en_US');
    await page.getByTestId('left-menu').getByText('Wake-on-LAN').waitFor();
    await shot(page, '13-about-english');
    await page.goto(`${daemon.url}#/status`);
    await page.getByTestId('status-proc-cpu').waitFor();
    await shot(page, '14-overview-english');
    await page.locator('[data-testid="left-menu"] [data-menu="logout"]').click();
    await page.getByRole('dialog').getByText('Do you really want to log out?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Confirm' }).click();
    await page.waitForURL(/#\/login$/);
    await page.getByTestId('login-submit').click();
    await expect(page.getByTestId('login-error').textContent()).resolves.toBe('Account or password cannot be empty');
    await shot(page, '15-login-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 登录');
  });

  it('the 3rd transport failure in a row sends the console to /login', async () => {
    await page.goto(`${daemon.url}#/login`);
    await login(page);
    // The overview polls /api/status every 2 s. Stop the daemon only once that screen (and the menu)
    // is really there: a chunk still loading would fail instead, and a failed chunk is not an API
    // call, so nothing would count toward the logout.
    await page.getByTestId('status-proc-cpu').waitFor();
    await page.getByTestId('left-menu').waitFor();
    await page.evaluate(() => ((window as { e2eSameDocument?: boolean }).e2eSameDocument = true));
    let failed = 0;
    let failedBeforeLogin = -1;
    const onFailed = (r: { url(): string }) => {
      if (r.url().startsWith(daemon.url) && !r.url().includes('/assets/')) failed++;
    };
    const onNavigated = (f: { url(): string }) => {
      if (f === page.mainFrame() && /#\/login$/.test(f.url()) && failedBeforeLogin < 0) failedBeforeLogin = failed;
    };
    page.on('requestfailed', onFailed);
    page.on('framenavigated', onNavigated);
    await daemon.kill();
    try {
      // Polled, not page.waitForURL: with the daemon down any document load makes waitForURL throw
      // net::ERR_CONNECTION_REFUSED; whether the page was reloaded is checked below instead.
      await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/#\/login$/);
    } finally {
      page.off('requestfailed', onFailed);
      page.off('framenavigated', onNavigated);
      await daemon.start();
    }
    // The console moved itself to its /login route (no reload of the page), after at least three
    // failed requests, and forgot the session.
    expect(await page.evaluate(() => (window as { e2eSameDocument?: boolean }).e2eSameDocument)).toBe(true);
    expect(failedBeforeLogin).toBeGreaterThanOrEqual(3);
    expect(await storedToken(page)).toBe('');
  });

  it('settings: validated before sending; a new admin port tells the user the new address', async () => {
    await page.goto(`${daemon.url}#/login`);
    await login(page);
    await page.goto(`${daemon.url}#/set`);
    const port = page.getByTestId('set-port');
    await port.waitFor();
    let puts = 0;
    page.on('request', (r) => {
      if (r.method() === 'PUT' && r.url().includes('/api/baseconfigure')) puts++;
    });
    await page.getByTestId('set-logmax').fill('50');
    await page.getByTestId('settings-save').click();
    await expect(page.getByTestId('settings-error').textContent()).resolves.toContain('LogMaxSize');
    expect(puts).toBe(0);
    await page.getByTestId('set-logmax').fill('2000');

    const next = await freePort();
    await port.fill(String(next));
    // The save moves the page to the new port: the result is polled below rather than awaited as a navigation.
    await page.getByTestId('settings-save').click({ noWaitAfter: true });
    const moved = `http://127.0.0.1:${next}/`;
    await expect.poll(() => page.getByTestId('settings-moved').textContent(), { timeout: 15_000 }).toContain(moved);
    await shot(page, '16-settings-moved');
    daemon.port = next;
    const r = await fetch(`${moved}version`, { signal: AbortSignal.timeout(5000) });
    expect(r.ok).toBe(true);
    const cfg = await daemon.api('GET', '/api/baseconfigure', undefined, apiToken);
    expect((cfg.baseconfigure as { LogMaxSize: number }).LogMaxSize).toBe(2000);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
