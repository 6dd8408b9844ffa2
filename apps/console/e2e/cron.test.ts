// @vitest-environment node
/**
 * Scheduled tasks in a real browser against the built daemon: the menu entry, the form with its
 * next-runs preview (the daemon's own check of a bad expression), the action list (add, reorder,
 * remove), the row (schedule in words, next run), run now and the history drawer with the
 * command's output, the switch, English. Screenshots: cron-*.png.
 */
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, openConsole, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('cron', 300);

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];

const row = (p: Page, name: string): Locator => p.locator(`[data-testid="cron-row"][data-name="${name}"]`);
async function pick(p: Page, select: Locator, label: string): Promise<void> {
  await select.click();
  await p.getByRole('option', { name: label, exact: true }).click();
}
const tasks = async () => (await daemon.api('GET', '/api/cron/rules', undefined, apiToken)).list as Array<Record<string, unknown>>;

describe('scheduled tasks console e2e (chromium + built daemon)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
  }, 90_000);

  afterEach(shotOnFailure('cron', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
  }, 30_000);

  it('the menu entry opens the empty list', async () => {
    await page.locator('[data-testid="left-menu"] [data-menu="cron"]').click();
    await expect.poll(() => page.title()).toBe('Lucky | 计划任务');
    await page.getByTestId('cron-empty').waitFor();
  });

  it('adds a task: the preview follows the schedule, actions are added, moved and removed', async () => {
    await page.getByTestId('cron-add').click();
    await page.getByTestId('cron-name').fill('夜间任务');
    await page.getByTestId('cron-expr').fill('0 99 * * * *');
    await expect.poll(() => page.getByTestId('cron-nextruns-error').textContent()).toMatch(/^cron 表达式无效：/);
    await page.getByTestId('cron-expr').fill('0 30 2 * * *');
    await page.getByTestId('cron-timezone').fill('Asia/Shanghai');
    await expect.poll(() => page.getByTestId('cron-nextruns-text').textContent()).toBe('每天 02:30 (Asia/Shanghai)');
    await expect.poll(() => page.getByTestId('cron-nextruns-time').count()).toBe(5);
    // In the task's zone, whatever the browser's.
    for (const t of await page.getByTestId('cron-nextruns-time').allTextContents()) expect(t).toMatch(/^\d{4}-\d\d-\d\d 02:30:00$/);
    await page.getByTestId('cron-action-line').fill('echo hello-from-cron');
    // A second action, moved above the first, then removed.
    await page.getByTestId('cron-action-add').click();
    await pick(page, page.getByTestId('cron-action-type').nth(1), '写入配置备份');
    await page.getByTestId('cron-action-up').nth(1).click();
    await expect.poll(() => page.getByTestId('cron-action-type').first().inputValue()).toBe('写入配置备份');
    await shot(page, '01-form');
    await page.getByTestId('cron-save').click();
    // The backup needs its folder: the daemon's one line names the field.
    await expect.poll(() => page.getByTestId('cron-form-error').textContent()).toMatch(/actions\[0\]\.folder/);
    await page.getByTestId('cron-action-remove').first().click();
    await expect.poll(() => page.getByTestId('cron-action').count()).toBe(1);
    await page.getByTestId('cron-save').click();
    await expect.poll(() => page.getByTestId('cron-name').count()).toBe(0);
    const r = row(page, '夜间任务');
    await expect.poll(() => r.getByTestId('cron-schedule').textContent()).toBe('每天 02:30');
    await expect.poll(() => r.getByTestId('cron-next').textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:30:00$/);
    await expect.poll(() => r.getByTestId('cron-last').textContent()).toBe('尚未运行');
    expect((await tasks())[0]).toMatchObject({ name: '夜间任务', timezone: 'Asia/Shanghai', schedule: { kind: 'cron', expr: '0 30 2 * * *' }, actions: [{ type: 'command', line: 'echo hello-from-cron' }] });
  });

  it('runs now; the badge and the history drawer show the result and the output', async () => {
    const r = row(page, '夜间任务');
    await r.getByTestId('cron-run-now').click();
    await expect.poll(() => r.getByTestId('cron-last').getAttribute('data-result'), { timeout: 15_000 }).toBe('ok');
    await r.getByTestId('cron-history-open').click();
    await expect.poll(() => page.getByTestId('cron-history-run').count()).toBe(1);
    await expect.poll(() => page.getByTestId('cron-history-action').first().textContent()).toBe('1. 运行命令: 命令退出，退出码 0');
    await expect.poll(() => page.getByTestId('cron-history-output').first().textContent()).toBe('hello-from-cron\n');
    await shot(page, '02-history');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('cron-history-run').count()).toBe(0);
  });

  it('the switch turns the task off (no next run)', async () => {
    const r = row(page, '夜间任务');
    await r.getByTestId('cron-toggle').dispatchEvent('click');
    await expect.poll(async () => (await tasks())[0]!.enable).toBe(false);
    await expect.poll(() => r.getByTestId('cron-next').textContent()).toBe('—');
    await shot(page, '03-list');
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Scheduled tasks');
    const r = row(page, '夜间任务');
    await expect.poll(() => r.getByTestId('cron-schedule').textContent()).toBe('every day at 02:30');
    await expect.poll(() => r.getByTestId('cron-last').textContent()).toBe('OK');
    await expect(page.getByTestId('cron-add').textContent()).resolves.toBe('Add task');
    await r.getByTestId('cron-edit').click();
    await expect.poll(() => page.getByTestId('cron-nextruns-text').textContent()).toBe('every day at 02:30 (Asia/Shanghai)');
    await shot(page, '04-form-english');
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('lang-switch').selectOption('zh_CN');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | 计划任务');
  });

  it('deletes the task; no page errors', async () => {
    await row(page, '夜间任务').getByTestId('cron-delete').click();
    await page.getByTestId('cron-delete-confirm').click();
    await expect.poll(() => row(page, '夜间任务').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
