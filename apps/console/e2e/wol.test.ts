// @vitest-environment node
/**
 * Wake-on-LAN in a real browser against the built daemon: a device with several broadcast targets
 * (the magic packets caught by UDP listeners the test opens on loopback), the online badge from a
 * TCP port the test opens, wake and wait, the shutdown command (it writes a file) behind its
 * confirmation with its result shown, the "schedule wake / shutdown" shortcut creating a task seen
 * in /cron, English. Screenshots: wol-*.png.
 */
import { createSocket, type Socket } from 'node:dgram';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, requirePrerequisites, shooter, shotOnFailure, sleep } from './harness';

const shot = shooter('wol', 300);

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];

const NAME = '书房电脑';
const MAC = '02:00:00:12:34:56';
const row = (p: Page): Locator => p.locator(`[data-testid="wol-row"][data-name="${NAME}"]`);

interface Listener {
  s: Socket;
  got: Buffer[];
}
async function udpOn(address: string, port = 0): Promise<Listener> {
  const s = createSocket('udp4');
  const got: Buffer[] = [];
  s.on('message', (m) => got.push(m));
  await new Promise<void>((r) => s.bind(port, address, () => r()));
  return { s, got };
}

const magic = (mac: string) => Buffer.concat([Buffer.alloc(6, 0xff), ...Array.from({ length: 16 }, () => Buffer.from(mac.replace(/:/g, ''), 'hex'))]);

describe('wake-on-LAN console e2e (chromium + built daemon)', () => {
  let a: Listener;
  let b: Listener;
  let checkPort: number;
  let up: Server | undefined;
  let work: string;
  let deviceKey = '';

  beforeAll(async () => {
    requirePrerequisites();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await enableModules(daemon, apiToken, ['wol', 'cron']);
    a = await udpOn('127.0.0.1');
    b = await udpOn('127.0.0.2', a.s.address().port);
    checkPort = await freePort();
    work = mkdtempSync(join(tmpdir(), 'lucky-wol-e2e-'));
  }, 90_000);

  afterEach(shotOnFailure('wol', () => page, () => daemon));

  afterAll(async () => {
    a?.s.close();
    b?.s.close();
    up?.close();
    await closeConsole({ daemon, browser, context });
    if (work) rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('adds a device with two broadcast targets, a check port and a shutdown command (an empty one refused first)', async () => {
    await page.goto(`${daemon.url}#/wol`);
    await page.reload();
    await page.getByTestId('wol-add').click();
    await page.getByTestId('wol-name').fill(NAME);
    await page.getByTestId('wol-macs').fill(MAC);
    await page.getByTestId('wol-broadcast').fill('127.0.0.1');
    await page.getByTestId('wol-port').fill(String(a.s.address().port));
    await page.getByTestId('wol-targets').fill('127.0.0.2');
    await page.getByTestId('wol-repeat').fill('1');
    await page.getByTestId('wol-checkhost').fill('127.0.0.1');
    await page.getByTestId('wol-checkport').fill(String(checkPort));
    // A new device cannot be scheduled yet.
    await page.getByTestId('wol-schedule-savefirst').waitFor();
    await page.getByTestId('wol-shutdown-kind').getByText('在本机运行命令').click();
    await page.getByTestId('wol-save').click();
    await expect.poll(() => page.getByTestId('wol-form-error').textContent()).toMatch(/shutdown\.command.*不能为空/);
    await page.getByTestId('wol-shutdown-command').fill(`echo "$LUCKY_DEVICE" > ${join(work, 'off')}; echo bye`);
    await page.getByTestId('wol-shutdown-timeout').fill('10');
    await shot(page, '01-form');
    await page.getByTestId('wol-save').click();
    await expect.poll(() => page.getByTestId('wol-name').count()).toBe(0);
    await row(page).waitFor();
    const list = (await daemon.api('GET', '/api/wol/rules', undefined, apiToken)).list as Array<{ key: string; targets: string[]; shutdown: Record<string, unknown> }>;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ targets: ['127.0.0.2'], shutdown: { kind: 'command', timeout: 10 } });
    deviceKey = list[0]!.key;
  });

  it('wakes: the magic packet reaches both broadcast targets; the badge says offline while nothing answers', async () => {
    const r = row(page);
    await expect.poll(() => r.getByTestId('wol-online').getAttribute('data-state'), { timeout: 15_000 }).toBe('offline');
    await expect.poll(() => r.getByTestId('wol-online').textContent()).toBe('离线');
    await r.getByTestId('wol-wake').click();
    await expect.poll(() => a.got.length + b.got.length, { timeout: 10_000 }).toBe(2);
    expect(a.got[0]!.equals(magic(MAC))).toBe(true);
    expect(b.got[0]!.equals(magic(MAC))).toBe(true);
  });

  it('wakes and waits: the "device" opens its port when the packet comes, the badge turns online', async () => {
    a.s.once('message', () => {
      up = createServer((c) => c.on('error', () => undefined).end());
      up.listen(checkPort, '127.0.0.1');
    });
    const r = row(page);
    await r.getByTestId('wol-wakewait').click();
    await expect.poll(() => page.getByTestId('notice').filter({ hasText: '设备已在线' }).count(), { timeout: 20_000 }).toBe(1);
    await expect.poll(() => r.getByTestId('wol-online').getAttribute('data-state'), { timeout: 15_000 }).toBe('online');
    await expect.poll(() => r.getByTestId('wol-online').textContent()).toBe('在线');
    await shot(page, '02-online');
  });

  it('shuts down only after the confirmation, and shows the exit code and the output', async () => {
    const r = row(page);
    const file = join(work, 'off');
    await r.getByTestId('wol-shutdown').click();
    await expect.poll(() => page.getByTestId('wol-shutdown-question').textContent()).toBe(`确定关闭设备“${NAME}”吗？`);
    await page.getByTestId('wol-shutdown-cancel').click();
    await expect.poll(() => page.getByTestId('wol-shutdown-question').count()).toBe(0);
    await sleep(300);
    expect(existsSync(file)).toBe(false);
    await r.getByTestId('wol-shutdown').click();
    await page.getByTestId('wol-shutdown-confirm').click();
    await expect.poll(() => page.getByTestId('wol-shutdown-msg').textContent(), { timeout: 15_000 }).toBe('关机：命令退出，退出码 0');
    await expect.poll(() => page.getByTestId('wol-shutdown-exitcode').textContent()).toBe('退出码: 0');
    await expect.poll(() => page.getByTestId('wol-shutdown-output').textContent()).toBe('bye\n');
    expect(readFileSync(file, 'utf8')).toBe(`${NAME}\n`);
    await shot(page, '03-shutdown-result');
    await page.getByTestId('wol-shutdown-close').click();
    // The device's log keeps it.
    await r.getByTestId('wol-logs').click();
    await expect.poll(() => page.getByTestId('wol-log-text').textContent()).toContain('关机：命令退出，退出码 0');
    await page.keyboard.press('Escape');
  });

  it('schedules its shutdown from the device form: the task is created through /api/cron and shown in /cron', async () => {
    await row(page).getByTestId('wol-edit').click();
    const sched = page.getByTestId('wol-schedule');
    await sched.waitFor();
    await sched.getByTestId('wol-schedule-op').getByText('关机').click();
    await page.getByTestId('wol-schedule-time').fill('22:15');
    // Monday to Friday are chosen already; Saturday too, then not again.
    await page.getByTestId('wol-schedule-day-6').click();
    await page.getByTestId('wol-schedule-day-6').click();
    await shot(page, '04-schedule');
    await page.getByTestId('wol-schedule-create').click();
    const link = page.getByTestId('wol-schedule-link');
    await expect.poll(() => link.textContent()).toBe(`关机 ${NAME} 22:15 周一、二、三、四、五`);
    const tasks = (await daemon.api('GET', '/api/cron/rules', undefined, apiToken)).list as Array<Record<string, unknown>>;
    expect(tasks).toHaveLength(1);
    expect(tasks[0]).toMatchObject({
      name: `关机 ${NAME} 22:15 周一、二、三、四、五`,
      enable: true,
      schedule: { kind: 'cron', expr: '0 15 22 * * 1-5' },
      actions: [{ type: 'wolShutdown', device: deviceKey }],
    });
    await link.click();
    await page.waitForURL(/#\/cron$/);
    const cronRow = page.locator(`[data-testid="cron-row"][data-name="关机 ${NAME} 22:15 周一、二、三、四、五"]`);
    await expect.poll(() => cronRow.getByTestId('cron-schedule').textContent()).toBe('每周一至周五 22:15');
    await shot(page, '05-cron');
    await cronRow.getByTestId('cron-edit').click();
    await expect.poll(() => page.getByTestId('cron-action-type').first().inputValue()).toBe('网络唤醒设备关机');
    await expect.poll(() => page.getByTestId('cron-action-target').first().inputValue()).toBe(NAME);
    await page.getByRole('button', { name: '取消' }).click();
  });

  it('in English after a language switch', async () => {
    await page.goto(`${daemon.url}#/wol`);
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Wake-on-LAN');
    const r = row(page);
    await expect.poll(() => r.getByTestId('wol-online').textContent(), { timeout: 15_000 }).toBe('online');
    await expect(r.getByTestId('wol-shutdown').textContent()).resolves.toBe('Shut down');
    await r.getByTestId('wol-shutdown').click();
    await expect.poll(() => page.getByTestId('wol-shutdown-question').textContent()).toBe(`Shut down the device "${NAME}"?`);
    await page.getByTestId('wol-shutdown-cancel').click();
    await r.getByTestId('wol-edit').click();
    await expect.poll(() => page.getByTestId('wol-schedule').getByText('Schedule wake / shutdown').count()).toBe(1);
    await expect.poll(() => page.getByTestId('wol-shutdown-kind').getByText('A command run here').count()).toBe(1);
    await shot(page, '06-form-english');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 网络唤醒');
    expect(pageErrors).toEqual([]);
  });
});
