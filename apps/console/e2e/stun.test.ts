// @vitest-environment node
/**
 * STUN screens in a real browser against the built daemon. Nothing is sent outside: every rule names
 * a loopback STUN server (127.0.0.1:3478) and stays disabled or in mode none, so no running engine is
 * needed. Covered: the empty list, a mode-none rule and a forward rule added through the form (the
 * mode hiding and showing the target), edit, the switch, the rule log, settings (bounds, the whole
 * object saved, the defaults shown in a rule's placeholders), the NAT test dialog, English.
 * Screenshots: stun-*.png.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, openConsole, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('stun');

const LOOPBACK_STUN = '127.0.0.1:3478';

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let localPort = 0;
const pageErrors: string[] = [];

async function rules(): Promise<Array<Record<string, unknown>>> {
  const r = await daemon.api('GET', '/api/stun/rules', undefined, apiToken);
  return r.list as Array<Record<string, unknown>>;
}
const ruleNamed = async (name: string) => (await rules()).find((r) => r.name === name);

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="stun-row"][data-name="${name}"]`);
const errorItems = async (p: Page) => p.getByTestId('stun-form-error-item').allTextContents();
/** A SegmentedControl choice by its value. */
const choose = (p: Page, testId: string, value: string) => p.getByTestId(testId).locator(`input[value="${value}"]`).dispatchEvent('click');
const formClosed = (p: Page) => expect.poll(() => p.getByTestId('stun-name').count()).toBe(0);

describe('STUN console e2e (chromium + built daemon, loopback STUN server only)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    localPort = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    // Outside servers must never be asked, whatever a rule leaves empty.
    expect((await daemon.api('PUT', '/api/stun/configure', { stunServers: [LOOPBACK_STUN], keepaliveInterval: 30, keepaliveUrl: 'http://127.0.0.1/', logLines: 32 }, apiToken)).ret).toBe(0);
  }, 90_000);

  afterEach(shotOnFailure('stun', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
  }, 30_000);

  it('the menu entry opens the empty list', async () => {
    await page.goto(`${daemon.url}#/status`);
    await page.locator('[data-testid="left-menu"] [data-menu="stun"]').click();
    await page.waitForURL(/#\/stun$/);
    await expect.poll(() => page.title()).toBe('Lucky | STUN内网穿透');
    await page.getByTestId('stun-empty').waitFor();
    await shot(page, '01-empty');
  });

  it('adds a rule in mode none: the target fields hide, no target is asked for', async () => {
    await page.getByTestId('stun-add').click();
    await page.getByTestId('stun-name').fill('路由器映射');
    // Forward is the default: the target is required.
    await page.getByTestId('stun-target-host').waitFor();
    await page.getByTestId('stun-save').click();
    await expect.poll(() => errorItems(page)).toEqual(['目标地址不能为空', '目标端口：端口必须在 1-65535 之间']);
    await choose(page, 'stun-mode', 'none');
    await expect.poll(() => page.getByTestId('stun-target-host').count()).toBe(0);
    await expect.poll(() => page.getByTestId('stun-tab-forward').count()).toBe(0);
    await expect.poll(() => page.getByTestId('stun-form-error').count()).toBe(0);
    // Stays off: no engine, no packet sent.
    await page.getByTestId('stun-enable').uncheck({ force: true });
    await page.getByTestId('stun-tab-stun').click();
    await expect(page.getByTestId('stun-servers').getAttribute('placeholder')).resolves.toBe(LOOPBACK_STUN);
    await page.getByTestId('stun-servers').fill(LOOPBACK_STUN);
    await page.getByTestId('stun-tab-mapping').click();
    await page.getByTestId('stun-upnp').dispatchEvent('click');
    await page.getByTestId('stun-upnp-lease').waitFor();
    // A gateway of our own: a rule that discovers one would search the machine's real LAN.
    await page.getByTestId('stun-upnp-gateway').fill('http://127.0.0.1:9/rootDesc.xml');
    await shot(page, '02-none-form');
    await page.getByTestId('stun-save').click();
    await formClosed(page);
    const r = row(page, '路由器映射');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('stun-row-mode').getAttribute('data-mode')).toBe('none');
    await expect.poll(() => r.getByTestId('stun-status').getAttribute('data-state')).toBe('disabled');
    expect(await ruleNamed('路由器映射')).toMatchObject({ mode: 'none', enable: false, protocol: 'udp', localPort: 0, stunServers: [LOOPBACK_STUN], upnp: { enable: true, gatewayUrl: 'http://127.0.0.1:9/rootDesc.xml' } });
  });

  it('adds a forward rule: target, limits, filter, webhook and DDNS tasks', async () => {
    await page.getByTestId('stun-add').click();
    await page.getByTestId('stun-name').fill('nas');
    await page.getByTestId('stun-enable').uncheck({ force: true });
    await choose(page, 'stun-protocol', 'tcp');
    await page.getByTestId('stun-listen-host').fill('127.0.0.1');
    await page.getByTestId('stun-local-port').fill(String(localPort));
    await page.getByTestId('stun-target-host').fill('127.0.0.1');
    await page.getByTestId('stun-target-port').fill('8080');
    await page.getByTestId('stun-note').fill('loopback only');
    await page.getByTestId('stun-tab-stun').click();
    await page.getByTestId('stun-servers').fill(LOOPBACK_STUN);
    await page.getByTestId('stun-keepalive-interval').fill('4');
    await page.getByTestId('stun-keepalive-url').fill('http://127.0.0.1/');
    await page.getByTestId('stun-save').click();
    // The bound is named, and its tab opened.
    await expect.poll(() => errorItems(page)).toEqual([expect.stringContaining('保活间隔（秒）')]);
    await page.getByTestId('stun-keepalive-interval').fill('25');
    await page.getByTestId('stun-tab-forward').click();
    await page.getByTestId('stun-limit-tcpMaxConnections').fill('5');
    await page.getByTestId('stun-filter-mode').getByText('白名单').click();
    await page.getByTestId('stun-filter-list').fill('127.0.0.0/8');
    await page.getByTestId('stun-tab-notify').click();
    await page.getByTestId('stun-webhook-enable').dispatchEvent('click');
    await page.getByTestId('stun-webhook-url').fill('http://127.0.0.1:9/hook?addr=#{addr}');
    await expect(page.getByText('#{ip} #{port} #{addr} #{ruleName} #{localPort} #{protocol}', { exact: false }).count()).resolves.toBeGreaterThan(0);
    await page.getByTestId('stun-ddns-tasks').waitFor();
    await shot(page, '03-forward-form');
    await page.getByTestId('stun-save').click();
    await formClosed(page);
    const r = row(page, 'nas');
    await r.waitFor();
    await expect.poll(() => r.getByTestId('stun-row-local').textContent()).toBe(`127.0.0.1:${localPort}`);
    await expect.poll(() => r.getByTestId('stun-row-target').textContent()).toBe('→ 127.0.0.1:8080');
    await shot(page, '04-list');
    expect(await ruleNamed('nas')).toMatchObject({
      protocol: 'tcp',
      mode: 'forward',
      listenHost: '127.0.0.1',
      localPort,
      targetHost: '127.0.0.1',
      targetPort: 8080,
      keepaliveInterval: 25,
      keepaliveUrl: 'http://127.0.0.1/',
      limits: { tcpMaxConnections: 5 },
      filter: { mode: 'whitelist', list: ['127.0.0.0/8'] },
      webhook: { enable: true, url: 'http://127.0.0.1:9/hook?addr=#{addr}' },
      note: 'loopback only',
    });
  });

  it('edits a rule: the saved values come back, a change is saved', async () => {
    await row(page, 'nas').getByTestId('stun-edit').click();
    await expect(page.getByTestId('stun-target-port').inputValue()).resolves.toBe('8080');
    await page.getByTestId('stun-target-port').fill('8081');
    await page.getByTestId('stun-save').click();
    await formClosed(page);
    await expect.poll(() => row(page, 'nas').getByTestId('stun-row-target').textContent()).toBe('→ 127.0.0.1:8081');
    await expect.poll(async () => (await ruleNamed('nas'))?.targetPort).toBe(8081);
  });

  it('the switch turns a mode-none rule on and off', async () => {
    const r = row(page, '路由器映射');
    await r.getByTestId('stun-toggle').dispatchEvent('click');
    await expect.poll(async () => (await ruleNamed('路由器映射'))?.enable).toBe(true);
    await expect.poll(() => r.getByTestId('stun-status').getAttribute('data-state'), { timeout: 10_000 }).not.toBe('disabled');
    await shot(page, '05-switched-on');
    await r.getByTestId('stun-toggle').dispatchEvent('click');
    await expect.poll(async () => (await ruleNamed('路由器映射'))?.enable).toBe(false);
    await expect.poll(() => r.getByTestId('stun-status').getAttribute('data-state'), { timeout: 10_000 }).toBe('disabled');
  });

  it('the rule log opens in the kit dialog', async () => {
    await row(page, '路由器映射').getByTestId('stun-log-open').click();
    await page.getByTestId('stun-log-text').waitFor();
    await shot(page, '06-log');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('stun-log-text').count()).toBe(0);
  });

  it('settings: bounds checked (latest logs 1-64), the whole object saved, defaults shown in a rule', async () => {
    const before = (await daemon.api('GET', '/api/stun/configure', undefined, apiToken)).configure as Record<string, unknown>;
    await page.getByTestId('stun-settings-open').click();
    await expect(page.getByTestId('stun-set-stunServers').inputValue()).resolves.toBe(LOOPBACK_STUN);
    await page.getByTestId('stun-set-logLines').fill('65');
    await page.getByTestId('stun-settings-save').click();
    await expect.poll(() => page.getByTestId('stun-settings-error').textContent()).toContain('最近日志显示条数');
    await page.getByTestId('stun-set-logLines').fill('16');
    await page.getByTestId('stun-set-keepaliveInterval').fill('40');
    await shot(page, '07-settings');
    await page.getByTestId('stun-settings-save').click();
    await expect.poll(() => page.getByTestId('stun-set-logLines').count()).toBe(0);
    const after = (await daemon.api('GET', '/api/stun/configure', undefined, apiToken)).configure;
    expect(after).toEqual({ ...before, logLines: 16, keepaliveInterval: 40 });
    await row(page, '路由器映射').getByTestId('stun-edit').click();
    await page.getByTestId('stun-tab-stun').click();
    await expect.poll(() => page.getByTestId('stun-keepalive-interval').getAttribute('placeholder')).toBe('默认 40');
    await page.getByRole('button', { name: '取消' }).click();
    await formClosed(page);
  });

  it('the NAT test dialog opens and checks its fields before calling', async () => {
    let calls = 0;
    const count = (r: { url(): string }) => {
      if (r.url().includes('/api/stun/nattest')) calls++;
    };
    page.on('request', count);
    await page.getByTestId('stun-nattest-open').click();
    await page.getByTestId('stun-nattest-server').waitFor();
    // Refused before any call: nothing goes out.
    await page.getByTestId('stun-nattest-server').fill('bad host!');
    await page.getByTestId('stun-nattest-run').click();
    await page.getByTestId('stun-nattest-result').waitFor();
    await page.getByTestId('stun-nattest-local').fill('1.2.3');
    await shot(page, '08-nattest');
    expect(calls).toBe(0);
    page.off('request', count);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('stun-nattest-server').count()).toBe(0);
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | STUN tunnelling');
    await expect.poll(() => row(page, 'nas').getByTestId('stun-status').textContent()).toBe('Disabled');
    await expect(page.getByTestId('stun-add').textContent()).resolves.toBe('Add rule');
    await expect(page.getByTestId('stun-nattest-open').textContent()).resolves.toBe('NAT type test');
    await expect(row(page, '路由器映射').getByTestId('stun-row-mode').textContent()).resolves.toBe('mapping only');
    await page.getByTestId('stun-add').click();
    await page.getByTestId('stun-name').fill('x');
    await page.getByTestId('stun-save').click();
    await expect.poll(() => errorItems(page)).toEqual(['Target address cannot be empty', 'Target port: port must be between 1 and 65535']);
    await shot(page, '09-form-english');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | STUN内网穿透');
  });

  it('deletes the rules', async () => {
    for (const name of ['nas', '路由器映射']) {
      await row(page, name).getByTestId('stun-delete').click();
      await page.getByTestId('stun-delete-confirm').click();
      await expect.poll(() => row(page, name).count()).toBe(0);
    }
    await page.getByTestId('stun-empty').waitFor();
    expect(await rules()).toEqual([]);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
