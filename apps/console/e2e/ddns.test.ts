// @vitest-environment node
/**
 * DDNS screens in a real browser against the built daemon: a local HTTP receiver on loopback is the
 * callback provider (and the webhook), the address comes from a command. Create a task through the
 * form, see it reach "update succeeded" and the receiver get the substituted values; validation of
 * an empty domain list; edit; log and history; settings; English once. Screenshots: ddns-*.png.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, openConsole, requirePrerequisites, shooter, shotOnFailure, withModuleOff } from './harness';

const shot = shooter('');

interface Hit {
  method: string;
  url: URL;
  body: string;
}

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let receiver: Server | undefined;
let receiverPort = 0;
const hits: Hit[] = [];
const pageErrors: string[] = [];

function startReceiver(): Promise<void> {
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: new URL(req.url ?? '/', 'http://127.0.0.1'), body: Buffer.concat(chunks).toString() });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('good 192.0.2.10');
    });
  });
  return new Promise((r) =>
    receiver!.listen(0, '127.0.0.1', () => {
      const a = receiver!.address();
      receiverPort = a && typeof a === 'object' ? a.port : 0;
      r();
    }),
  );
}

const callbacks = (path: string) => hits.filter((h) => h.url.pathname === path);

async function pick(p: Page, testId: string, option: string): Promise<void> {
  await p.getByTestId(testId).click();
  await p.getByRole('option', { name: option, exact: true }).click();
}

async function rowStatus(p: Page): Promise<string | null> {
  return p.getByTestId('ddns-status').first().getAttribute('data-status');
}

async function tasks(): Promise<Array<Record<string, unknown>>> {
  const r = await daemon.api('GET', '/api/ddns/rules', undefined, apiToken);
  return r.list as Array<Record<string, unknown>>;
}

describe('DDNS console e2e (chromium + built daemon + loopback receiver)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    await startReceiver();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1366, 1000, pageErrors));
  }, 90_000);

  afterEach(shotOnFailure('ddns', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  }, 30_000);

  it('creates a callback task through the form; it reaches "update succeeded" and the receiver gets the values', async () => {
    await page.goto(`${daemon.url}#/ddns`);
    await expect.poll(() => page.title()).toBe('Lucky | 动态域名');
    await page.getByTestId('ddns-empty').waitFor();
    await shot(page, 'ddns-01-empty');

    await page.getByTestId('ddns-add').click();
    await page.getByTestId('ddns-name').fill('家里');
    await pick(page, 'ddns-provider', '自定义回调 (Callback)');
    await page
      .getByTestId('ddns-callback-url')
      .fill(`http://127.0.0.1:${receiverPort}/cb?ip=#{ip}&domain=#{domain}&type=#{recordType}&ttl=#{ttl}`);
    await page.getByTestId('ddns-domains').fill('home.example.com');
    // Interface + rule: the daemon's interfaces and the rule's candidates (loopback exists everywhere).
    await pick(page, 'ddns-ipv4-type', '网卡获取');
    await page.getByTestId('ddns-ipv4-interface').click();
    await page.getByRole('option', { name: /^lo\b/ }).click();
    await page.getByTestId('ddns-ipv4-rule').fill('@1');
    await page.getByTestId('ddns-ipv4-test').click();
    await expect.poll(() => page.getByTestId('ddns-ipv4-test-result').textContent()).toContain('127.0.0.1');
    await page.getByTestId('ddns-ipv4-test-result').scrollIntoViewIfNeeded();
    await shot(page, 'ddns-02a-interface');
    await pick(page, 'ddns-ipv4-type', '命令获取');
    await page.getByTestId('ddns-ipv4-command').fill('echo 192.0.2.10');
    // The source's "test" asks the daemon what it returns now.
    await page.getByTestId('ddns-ipv4-test').click();
    await expect.poll(() => page.getByTestId('ddns-ipv4-test-result').textContent()).toContain('192.0.2.10');
    await shot(page, 'ddns-02-form-easy');
    // Easy mode hides the advanced settings.
    expect(await page.getByTestId('ddns-advanced').count()).toBe(0);

    await page.getByTestId('ddns-save').click();
    await page.getByTestId('ddns-row').first().waitFor();
    await expect.poll(() => rowStatus(page), { timeout: 20_000 }).toBe('updateSucceeded');
    await expect(page.getByTestId('ddns-status').first().textContent()).resolves.toBe('更新成功');
    await expect.poll(() => page.getByTestId('ddns-ip').first().textContent()).toContain('192.0.2.10');
    const cb = callbacks('/cb');
    expect(cb.length).toBeGreaterThanOrEqual(1);
    const q = cb[0]!.url.searchParams;
    expect(q.get('ip')).toBe('192.0.2.10');
    expect(q.get('domain')).toBe('home.example.com');
    expect(q.get('type')).toBe('A');
    expect(q.get('ttl')).toBe('600');
    expect(cb[0]!.method).toBe('GET');
    await shot(page, 'ddns-03-list');
  });

  it('an empty domain list is refused before sending, with the spec wording and the field named', async () => {
    let writes = 0;
    const count = (r: { method(): string; url(): string }) => {
      if (['PUT', 'POST'].includes(r.method()) && r.url().includes('/api/ddns/rules')) writes++;
    };
    page.on('request', count);
    await page.getByTestId('ddns-edit').first().click();
    await page.getByTestId('ddns-domains').fill('');
    await page.getByTestId('ddns-save').click();
    await expect(page.getByTestId('ddns-form-error-message').textContent()).resolves.toBe('域名列表不能为空');
    await expect(page.getByTestId('ddns-form-error-summary').textContent()).resolves.toContain('domains');
    // The textarea itself carries the message too.
    await expect(page.getByTestId('ddns-domains').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(page, 'ddns-04-validation');
    expect(writes).toBe(0);
    page.off('request', count);
    await page.getByRole('button', { name: '取消' }).click();
    await expect.poll(() => page.getByTestId('ddns-name').count()).toBe(0);
  });

  it('edits the task in customized mode: new address, webhook tested and called', async () => {
    const before = callbacks('/cb').length;
    await page.getByTestId('ddns-edit').first().click();
    await expect(page.getByTestId('ddns-domains').inputValue()).resolves.toBe('home.example.com');
    await page.getByTestId('ddns-mode').getByText('自定义模式').click();
    await page.getByTestId('ddns-advanced').waitFor();
    await page.getByTestId('ddns-ipv4-command').fill('echo 192.0.2.11');
    await page.getByTestId('ddns-domains').fill('home.example.com\nwww.example.com');
    // Bounds are checked before sending, with the contracts' message.
    await page.getByTestId('ddns-forcesync').fill('59');
    await page.getByTestId('ddns-save').click();
    await expect(page.getByTestId('ddns-form-error-message').textContent()).resolves.toBe('强制同步间隔必须在 60-3600 秒之间');
    await page.getByTestId('ddns-forcesync').fill('600');
    // Once fixed, the field stops showing the message.
    await expect.poll(() => page.getByTestId('ddns-form-error').count()).toBe(0);
    await expect(page.getByTestId('ddns-forcesync').getAttribute('aria-invalid')).resolves.not.toBe('true');

    await page.getByTestId('ddns-webhook-enable').click({ force: true });
    await page.getByTestId('ddns-webhook-url').fill(`http://127.0.0.1:${receiverPort}/hook?ip=#{ipAddr}&ok=#{successDomains}`);
    await page.getByTestId('ddns-webhook-test').click();
    await expect.poll(() => page.getByTestId('ddns-webhook-test-result').textContent()).toContain('HTTP 200');
    expect(callbacks('/hook').length).toBe(1);
    await page.getByTestId('ddns-webhook-test-result').scrollIntoViewIfNeeded();
    await shot(page, 'ddns-05-form-customized');

    await page.getByTestId('ddns-save').click();
    await expect.poll(() => page.getByTestId('ddns-name').count()).toBe(0);
    await expect.poll(() => page.getByTestId('ddns-ip').first().textContent(), { timeout: 20_000 }).toContain('192.0.2.11');
    await expect.poll(() => rowStatus(page), { timeout: 20_000 }).toBe('updateSucceeded');
    await expect.poll(() => callbacks('/cb').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(before + 2);
    const domains = callbacks('/cb')
      .slice(before)
      .map((h) => h.url.searchParams.get('domain'));
    expect(domains).toEqual(expect.arrayContaining(['home.example.com', 'www.example.com']));
    expect(callbacks('/cb').slice(before).every((h) => h.url.searchParams.get('ip') === '192.0.2.11')).toBe(true);
    // The task's own webhook is called after the change with the address.
    await expect.poll(() => callbacks('/hook').length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(callbacks('/hook').at(-1)!.url.searchParams.get('ip')).toBe('192.0.2.11');

    const [t] = await tasks();
    expect(t).toMatchObject({ mode: 'customized', forceSync: 600, domains: ['home.example.com', 'www.example.com'] });
  });

  it('manual sync, log, history and record states', async () => {
    const before = callbacks('/cb').length;
    await page.getByTestId('ddns-sync').first().click();
    await expect.poll(() => callbacks('/cb').length, { timeout: 15_000 }).toBeGreaterThan(before);
    await page.getByTestId('notice').filter({ hasText: '同步' }).first().waitFor();

    await page.getByTestId('ddns-log-open').first().click();
    await expect.poll(() => page.getByTestId('ddns-log-text').textContent(), { timeout: 10_000 }).toContain('192.0.2.11');
    await shot(page, 'ddns-06-log');
    await page.getByTestId('ddns-log-tab-history').click();
    await page.getByTestId('ddns-history').waitFor();
    await expect(page.getByTestId('ddns-history').textContent()).resolves.toContain('www.example.com');
    await shot(page, 'ddns-07-history');
    await page.getByTestId('ddns-log-tab-records').click();
    await page.getByTestId('ddns-records').waitFor();
    await expect(page.getByTestId('ddns-records').textContent()).resolves.toContain('home.example.com');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('ddns-records').count()).toBe(0);
  });

  it('module settings: interval presets and bounds', async () => {
    await page.getByTestId('ddns-settings-open').click();
    await page.getByTestId('ddns-set-firstdelay').waitFor();
    await pick(page, 'ddns-set-interval', '自定义');
    await page.getByTestId('ddns-set-interval-custom').fill('20');
    await page.getByTestId('ddns-settings-save').click();
    await expect(page.getByTestId('ddns-settings-error').textContent()).resolves.toContain('检测间隔必须在 30-3600 秒之间');
    await pick(page, 'ddns-set-interval', '10 分钟');
    await page.getByTestId('ddns-set-firstdelay').fill('5');
    await shot(page, 'ddns-08-settings');
    await page.getByTestId('ddns-settings-save').click();
    await expect.poll(() => page.getByTestId('ddns-set-firstdelay').count()).toBe(0);
    const r = await daemon.api('GET', '/api/ddns/configure', undefined, apiToken);
    expect(r.configure).toMatchObject({ interval: 600, firstDelay: 5 });
  });

  it('the switch stops the task', async () => {
    // The switch's input is visually hidden under its track: click it directly.
    await page.getByTestId('ddns-toggle').first().dispatchEvent('click');
    await expect.poll(() => rowStatus(page), { timeout: 15_000 }).toBe('syncStopped');
    expect((await tasks())[0]).toMatchObject({ enable: false });
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Dynamic DNS');
    await page.getByTestId('ddns-row').first().waitFor();
    await expect.poll(() => page.getByTestId('ddns-status').first().textContent()).toBe('Sync stopped');
    await expect(page.getByTestId('ddns-add').textContent()).resolves.toBe('Add task');
    await page.locator('[data-testid="left-menu"] [data-menu="ddns"]').waitFor();
    await shot(page, 'ddns-09-list-english');
    await page.getByTestId('ddns-edit').first().click();
    await page.getByTestId('ddns-domains').fill('');
    await page.getByTestId('ddns-save').click();
    await expect(page.getByTestId('ddns-form-error-message').textContent()).resolves.toBe('Domain list cannot be empty');
    await expect(page.getByTestId('ddns-form-error-summary').textContent()).resolves.toContain('domains');
    await shot(page, 'ddns-10-form-english');
    // At 768 px or narrower the form takes the whole window.
    await page.setViewportSize({ width: 700, height: 900 });
    await page.getByTestId('ddns-name').scrollIntoViewIfNeeded();
    await shot(page, 'ddns-11-form-narrow');
    await page.setViewportSize({ width: 1366, height: 1000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it('a disabled module shows the module-disabled message', async () => {
    await withModuleOff(daemon, apiToken, 'ddns', async () => {
      await page.reload();
      await page.getByTestId('module-disabled').waitFor();
      await expect(page.getByTestId('ddns-add').isDisabled()).resolves.toBe(true);
      expect(await page.getByTestId('ddns-table').count()).toBe(0);
    });
    await page.reload();
    await page.getByTestId('ddns-row').first().waitFor();
  });

  it('deletes the task', async () => {
    await page.getByTestId('ddns-delete').first().click();
    await page.getByTestId('ddns-delete-confirm').click();
    await page.getByTestId('ddns-empty').waitFor();
    expect(await tasks()).toEqual([]);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
