// @vitest-environment node
/**
 * Publish in a real browser against the built daemon, every peer real and on loopback: BIND holds
 * the zone (the template DDNS task writes it by RFC 2136), pebble issues the certificate (HTTP-01
 * on the service's HTTP port), a node:http server is the LAN service. A service published from the
 * form turns its five lights green with its address shown; its parts are listed in their modules
 * with its badge; the card and the settings read in Chinese after the switch; deleting it leaves
 * the template task alone. The router is left out (forwarded by hand): the daemon's NAT lab test
 * does it. Screenshots: publish-*.png.
 */
import { createServer, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBind, type Bind } from '../../daemon/src/lib/dns/testing/bind';
import { startPebble, type Pebble } from '../../daemon/src/test/pebble';
import { closeConsole, Daemon, freePort, openConsole, requirePrerequisites, shooter, shotOnFailure } from './harness';
import { fillPublishForm } from './publishform';

const shot = shooter('publish');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];
let bind: Bind | undefined;
let pebble: Pebble | undefined;
let backend: Server | undefined;
let backendPort = 0;
let httpsPort = 0;
let httpPort = 0;

const TEMPLATE = 'zone example.test';
const card = () => page.locator('[data-testid="publish-card"][data-name="Home Assistant"]');
const lights = (color: string) => card().locator(`[data-testid="publish-light"][data-color="${color}"]`).count();

async function api(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await daemon.api(method, path, body, apiToken);
  expect(r.ret, String(r.msg)).toBe(0);
  return r;
}

describe('Publish console e2e (chromium + built daemon + BIND + pebble + a LAN service)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    bind = await startBind('example.test');
    backend = createServer((req, res) => res.end(`backend saw ${req.headers.host} ${req.url}\n`));
    backendPort = await freePort();
    await new Promise<void>((r) => backend!.listen(backendPort, '127.0.0.1', r));
    httpsPort = await freePort();
    httpPort = await freePort();
    pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}` });
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    // Automatic certificates from pebble; every link looked at every 5 s.
    await api('PUT', '/api/acme/configure', { auto: { ca: 'custom', directoryUrl: pebble.directory, caRoot: pebble.tlsCa } });
    await api('PUT', '/api/publish/configure', { checkInterval: 5 });
    // The user's own task for the zone: a published service's task takes its provider account.
    await api('POST', '/api/ddns/rules', {
      name: TEMPLATE,
      provider: 'rfc2136',
      recordType: 'A',
      credentials: { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` },
      domains: ['home.example.test'],
      ipv4: { type: 'command', command: 'echo 127.0.0.1' },
      ttl: 60,
    });
  }, 90_000);

  afterEach(shotOnFailure('publish', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    await pebble?.stop();
    await bind?.stop();
    await new Promise<void>((r) => (backend ? backend.close(() => r()) : r()));
  }, 30_000);

  it('publishes a LAN service from the form; its five lights turn green and its address shows', async () => {
    // Forwarded by hand: nothing is asked of a router (there is none here).
    await fillPublishForm(page, { target: `http://127.0.0.1:${backendPort}`, name: 'ha.example.test', task: `${TEMPLATE} (rfc2136)`, mapRouter: false, httpsPort, httpPort });
    await shot(page, 'form');
    await page.getByTestId('publish-save').click();

    await card().waitFor();
    await expect.poll(() => lights('green'), { timeout: 40_000 }).toBe(5);
    await expect(card().getByTestId('publish-url').textContent()).resolves.toBe('https://ha.example.test/');
    await expect(card().getByTestId('publish-open').getAttribute('href')).resolves.toBe('https://ha.example.test/');
    await expect(card().getByTestId('publish-copy').textContent()).resolves.toBe('Copy');
    await expect(card().getByTestId('publish-status').getAttribute('data-state')).resolves.toBe('running');
    const checks = card().getByTestId('publish-check');
    await expect(checks.evaluateAll((els) => els.map((e) => e.getAttribute('data-check')))).resolves.toEqual(['dns', 'certificate', 'web', 'target', 'router']);
    await expect(checks.first().getByTestId('publish-check-message').textContent()).resolves.toBe(`ha.example.test resolve to 127.0.0.1 at the authoritative servers 127.0.0.1:${bind!.port}`);
    expect(await card().getByTestId('publish-check-hint').count()).toBe(0);
    await shot(page, 'green');
  });

  it("its DDNS task is listed in the DDNS module with the service's badge", async () => {
    await card().getByTestId('publish-part-ddns').click();
    await page.waitForURL(/#\/ddns$/);
    const own = page.locator('[data-testid="ddns-row"]').filter({ has: page.getByTestId('ddns-owner') });
    await expect.poll(() => page.getByTestId('ddns-row').count()).toBe(2);
    await expect(own.getByTestId('ddns-owner').textContent()).resolves.toBe('Publish: Home Assistant');
    await page.locator('[data-testid="left-menu"] [data-menu="publish"]').click();
    await card().waitFor();
  });

  it('reads in Chinese after the language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 发布服务');
    await expect.poll(() => card().getByTestId('publish-check').first().getByTestId('publish-check-message').textContent()).toBe(`ha.example.test 在权威服务器 127.0.0.1:${bind!.port} 上解析到 127.0.0.1`);
    await expect(card().getByTestId('publish-copy').textContent()).resolves.toBe('复制');
    await expect(card().getByText('域名解析', { exact: true }).count()).resolves.toBe(1);
    expect(await lights('green')).toBe(5);
    await shot(page, 'zh');
    // The module settings show what the API set.
    await page.getByTestId('publish-settings-open').click();
    await expect.poll(() => page.getByTestId('publish-set-checkInterval').inputValue()).toBe('5');
    await page.getByTestId('publish-settings').getByRole('button', { name: '取消' }).click();
    await page.getByTestId('publish-set-checkInterval').waitFor({ state: 'detached' });
  });

  it('deleting the service deletes its parts: the DDNS list is back to the template alone', async () => {
    await card().getByTestId('publish-delete').click();
    await page.getByTestId('publish-delete-confirm').click();
    await page.getByTestId('publish-empty').waitFor();
    await page.locator('[data-testid="left-menu"] [data-menu="ddns"]').click();
    await expect.poll(() => page.getByTestId('ddns-row').evaluateAll((els) => els.map((e) => e.getAttribute('data-name')))).toEqual([TEMPLATE]);
    await shot(page, 'ddns-after');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
