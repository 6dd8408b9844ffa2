// @vitest-environment node
/**
 * Wanji admin in a real browser: three built daemons on loopback, the one in the browser managing
 * the other two with their API tokens. A device added through the form (tested first, a wrong token
 * refused), the fleet list with both online and their small graphs, a rule pushed to both from the
 * fleet dialog (each one's own API has it), the comparison and the version check, a device's page
 * switching a rule and waking a device there, a backup downloaded, the second daemon stopped and
 * shown offline while the first stays online, and the list in English. Screenshots: wanji-*.png.
 */
import type { Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, openConsole, pickOption, requirePrerequisites, shot as rawShot, shotOnFailure, sleep, type OpenConsole } from './harness';

const shot = (p: Page, name: string) => sleep(300).then(() => rawShot(p, `wanji-${name}`));

/** The console in the browser and the daemon it talks to (the managing one). */
let ui: OpenConsole | undefined;
let page: Page;
const pageErrors: string[] = [];
const managed: Daemon[] = [];
const tokens: Record<'a' | 'b', string> = { a: '', b: '' };
const sessions: Record<'a' | 'b', string> = { a: '', b: '' };

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="wanji-row"][data-name="${name}"]`);

describe('Wanji admin console e2e (chromium + three built daemons)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    const [pa, pb] = [await freePort(), await freePort()];
    managed.push(new Daemon(pa), new Daemon(pb));
    ui = await openConsole(1400, 900, pageErrors);
    page = ui.page;
    await Promise.all(managed.map((d) => d.start()));
    for (const [i, k] of (['a', 'b'] as const).entries()) {
      sessions[k] = await managed[i]!.login();
      const t = await managed[i]!.api('POST', '/api/safe/tokens', { name: 'fleet', scope: 'full' }, sessions[k]);
      tokens[k] = t.token as string;
    }
    // A's own rule, to see in the drill-down and the comparison.
    expect((await managed[0]!.api('POST', '/api/wol/rules', { name: 'printer', macs: ['02:00:00:00:00:aa'], broadcast: '127.0.0.1' }, sessions.a)).ret).toBe(0);
    // Short polls: "offline within one poll" is seconds here.
    expect((await ui.daemon.api('PUT', '/api/wanji/configure', { interval: 5, timeout: 2, concurrency: 16, expiryDays: 14 }, ui.apiToken)).ret).toBe(0);
  }, 120_000);

  afterEach(shotOnFailure('wanji', () => page));

  afterAll(async () => {
    await closeConsole(ui ?? {});
    for (const d of managed) {
      await d.stop().catch(() => undefined);
      d.cleanup();
    }
  }, 30_000);

  it('adds a device through the form: a wrong token refused by the test and the save, the right one tested and saved', async () => {
    await page.goto(`${ui!.daemon.url}#/wanjiadmin`);
    await page.reload();
    await page.getByTestId('wanji-empty').waitFor();
    await page.getByTestId('wanji-add').click();
    await page.getByTestId('wanji-name').fill('路由器 A');
    await page.getByTestId('wanji-url').fill(managed[0]!.url);
    await page.getByTestId('wanji-token').fill(`lk_${'x'.repeat(43)}`);
    await page.getByTestId('wanji-test').click();
    await expect.poll(() => page.getByTestId('wanji-test-result').textContent()).toContain('设备不接受此 API 令牌');
    await page.getByTestId('wanji-save').click();
    await expect.poll(() => page.getByTestId('wanji-form-server-error').textContent()).toContain('设备不接受此 API 令牌');
    await page.getByTestId('wanji-token').fill(tokens.a);
    await page.getByTestId('wanji-group').fill('家里');
    await page.getByTestId('wanji-test').click();
    await expect.poll(() => page.getByTestId('wanji-test-result').textContent()).toMatch(/^连接成功：.+，版本 .+，令牌权限：完全，用时 \d+ 毫秒$/);
    await shot(page, '01-form');
    await page.getByTestId('wanji-save').click();
    await expect.poll(() => page.getByTestId('wanji-name').count()).toBe(0);
    await row(page, '路由器 A').waitFor();
    // B through the API, as a script would.
    expect((await ui!.daemon.api('POST', '/api/wanji/rules', { name: 'NAS B', url: managed[1]!.url, token: tokens.b, tags: ['office'] }, ui!.apiToken)).ret).toBe(0);
  });

  it('shows both devices online with version, load graphs, modules and rule counts', async () => {
    await page.getByTestId('wanji-refresh').click();
    for (const name of ['路由器 A', 'NAS B']) {
      const r = row(page, name);
      await expect.poll(() => r.getAttribute('data-online'), { timeout: 15_000 }).toBe('online');
      await expect.poll(() => r.getByTestId('wanji-online').textContent()).toBe('在线');
      await expect.poll(async () => Number(await r.getByTestId('wanji-spark-cpu').getAttribute('data-points')), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
      expect(await r.getByTestId('wanji-modules').getAttribute('data-modules')).toContain('wol');
    }
    await expect.poll(() => row(page, '路由器 A').getByTestId('wanji-health').getAttribute('data-rules')).toBe('1');
    // A second sample draws a line.
    await expect.poll(async () => Number(await row(page, 'NAS B').getByTestId('wanji-spark-cpu').getAttribute('data-points')), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
    await shot(page, '02-fleet');
    // A long fleet is searched and paged; here the search keeps one of the two.
    await page.getByTestId('wanji-search').fill('office');
    await expect.poll(() => page.getByTestId('wanji-row').count()).toBe(1);
    await row(page, 'NAS B').waitFor();
    await expect.poll(() => page.getByTestId('wanji-shown').textContent()).toBe('显示 1 台（符合条件 1 台，共 2 台）');
    await page.getByTestId('wanji-search').fill('');
    await expect.poll(() => page.getByTestId('wanji-row').count()).toBe(2);
    // The token never reaches the browser.
    const html = await page.content();
    expect(html).not.toContain(tokens.a);
    expect(html).not.toContain(tokens.b);
  });

  it('pushes a rule to both devices from the fleet dialog, each with its result; each device has it', async () => {
    await page.getByTestId('wanji-fleet-open').click();
    await page.getByTestId('wanji-fleet-tab-push').waitFor();
    await page.getByTestId('wanji-push-json').fill(JSON.stringify({ name: 'NAS', macs: ['02:00:00:00:00:01'], broadcast: '127.0.0.1' }));
    await page.getByTestId('wanji-pick-all').click();
    await page.getByTestId('wanji-push-run').click();
    const results = page.getByTestId('wanji-push-results').getByTestId('wanji-result');
    await expect.poll(() => results.count()).toBe(2);
    for (const name of ['路由器 A', 'NAS B']) {
      await expect.poll(() => results.filter({ has: page.locator(`text=${name}`) }).first().getAttribute('data-ok')).toBe('true');
    }
    await expect.poll(() => page.getByTestId('wanji-push-results').textContent()).toContain('已创建');
    await shot(page, '03-push');
    for (const [i, k] of (['a', 'b'] as const).entries()) {
      const own = (await managed[i]!.api('GET', '/api/wol/rules', undefined, sessions[k])).list as { name: string }[];
      expect(own.map((r) => r.name)).toContain('NAS');
    }
  });

  it('compares the rules of the two devices, and checks their versions', async () => {
    await page.getByTestId('wanji-fleet-tab-compare').click();
    await pickOption(page, page.getByTestId('wanji-compare-a'), '路由器 A');
    await pickOption(page, page.getByTestId('wanji-compare-b'), 'NAS B');
    await page.getByTestId('wanji-compare-run').click();
    const rows = page.getByTestId('wanji-compare-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await page.locator('[data-testid="wanji-compare-row"][data-name="NAS"]').getAttribute('data-state')).toBe('same');
    expect(await page.locator('[data-testid="wanji-compare-row"][data-name="printer"]').getAttribute('data-state')).toBe('onlyA');
    await expect.poll(() => page.locator('[data-testid="wanji-compare-row"][data-name="printer"]').textContent()).toContain('只在 路由器 A');
    await shot(page, '04-compare');
    await page.getByTestId('wanji-fleet-tab-versions').click();
    await page.getByTestId('wanji-versions-run').click();
    const versions = page.getByTestId('wanji-versions-results').getByTestId('wanji-result');
    await expect.poll(() => versions.count()).toBe(2);
    for (const el of await versions.all()) {
      expect(await el.getAttribute('data-ok')).toBe('true');
      expect(await el.getAttribute('data-behind')).toBe('false');
    }
    await expect.poll(() => page.getByTestId('wanji-versions-newest').textContent()).toMatch(/^最新版本：/);
    await page.keyboard.press('Escape');
    await page.getByTestId('wanji-fleet-tab-push').waitFor({ state: 'hidden' });
  });

  it("on a device's page: its rules, a rule switched off there, a device woken, a backup downloaded", async () => {
    await row(page, '路由器 A').getByTestId('wanji-open').click();
    await page.waitForURL(/#\/wanjiadmin\/[\w-]+$/);
    await page.getByTestId('wanji-device').waitFor();
    await page.getByTestId('wanji-module-wol').click();
    const printer = page.locator('[data-testid="wanji-remote-row"][data-name="printer"]');
    await printer.waitFor();
    expect(await printer.getAttribute('data-enable')).toBe('true');
    await printer.getByTestId('wanji-remote-toggle').dispatchEvent('click');
    await page.getByTestId('notice').filter({ hasText: '已停用' }).first().waitFor();
    await expect.poll(() => printer.getAttribute('data-enable'), { timeout: 10_000 }).toBe('false');
    const own = (await managed[0]!.api('GET', '/api/wol/rules', undefined, sessions.a)).list as { name: string; enable: boolean }[];
    expect(own.find((r) => r.name === 'printer')!.enable).toBe(false);
    await page.locator('[data-testid="wanji-remote-row"][data-name="NAS"]').getByTestId('wanji-remote-wake').click();
    await page.getByTestId('notice').filter({ hasText: '唤醒包' }).first().waitFor();
    const download = page.waitForEvent('download');
    await page.getByTestId('wanji-backup').click();
    expect((await download).suggestedFilename()).toMatch(/^[\w-]+-lucky-backup-\d{14}\.json$/);
    await page.getByTestId('notice').filter({ hasText: '已保存' }).first().waitFor();
    await shot(page, '05-device');
    // The device's log says what was done there.
    await expect.poll(() => page.getByTestId('wanji-log-text').textContent()).toContain('下载备份');
    await page.getByTestId('wanji-back').click();
    await page.waitForURL(/#\/wanjiadmin$/);
  });

  it('a stopped device is offline within one poll; the other stays online', async () => {
    await managed[1]!.stop();
    const b = row(page, 'NAS B');
    await expect.poll(() => b.getAttribute('data-online'), { timeout: 15_000 }).toBe('offline');
    await expect.poll(() => b.getByTestId('wanji-error').textContent()).toMatch(/^无法连接 http:\/\/127\.0\.0\.1:\d+/);
    expect(await row(page, '路由器 A').getAttribute('data-online')).toBe('online');
    await shot(page, '06-offline');
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Wanji admin');
    await expect.poll(() => row(page, 'NAS B').getByTestId('wanji-online').textContent(), { timeout: 15_000 }).toBe('Offline');
    await expect.poll(() => row(page, 'NAS B').getByTestId('wanji-error').textContent()).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:\d+/);
    await expect.poll(() => row(page, '路由器 A').getByTestId('wanji-online').textContent()).toBe('Online');
    await expect(page.getByTestId('wanji-fleet-open').textContent()).resolves.toBe('Fleet actions');
    await shot(page, '07-english');
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 万吉管理');
    expect(pageErrors).toEqual([]);
  });
});
