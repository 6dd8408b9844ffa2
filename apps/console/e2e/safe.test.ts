// @vitest-environment node
/**
 * Security management and the system panel in a real browser against the built daemon: 2FA enrolment
 * with a code generated here, logins with a code and with a recovery code, API tokens used from this
 * test, sessions, access lists, audit log, the safe entry path, and backup → restore with its summary.
 * Screenshots go to $LUCKY_TEST_OUTPUT/screenshots/safe-*.png.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, freePort, launchBrowser, newPage, PASSWORD, ROOT, requirePrerequisites, shot, shotOnFailure, sleep } from './harness';

// otpauth is a daemon dependency; the test makes codes the way an authenticator app would.
const { Secret, TOTP } = createRequire(join(ROOT, 'apps/daemon/package.json'))('otpauth') as typeof import('otpauth');
const totp = (secret: string, timestamp = Date.now()) =>
  new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({ timestamp });

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let secret = '';
let recovery: string[] = [];
const pageErrors: string[] = [];

const safeShot = (name: string) => shot(page, `safe-${name}`);

async function tab(id: string): Promise<void> {
  await page.getByTestId(`safe-tab-${id}`).click();
}

async function logout(): Promise<void> {
  await page.locator('[data-testid="left-menu"] [data-menu="logout"]').click();
  await page.getByTestId('logout-confirm').click();
  await page.waitForURL(/#\/login$/);
}

async function fillLogin(code?: string): Promise<void> {
  await page.getByTestId('login-account').fill('admin');
  await page.getByTestId('login-password').fill(PASSWORD);
  if (code !== undefined) await page.getByTestId('login-2fa').fill(code);
  await page.getByTestId('login-submit').click();
}

async function openSafe(base = daemon.url): Promise<void> {
  await page.goto(`${base}#/safe`);
  await page.getByTestId('safe-page').waitFor();
  await page.getByTestId('safe-ov-2fa').waitFor();
}

describe('security management e2e (chromium + built daemon)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    // This test is the supervisor: a restart makes the daemon exit (75) and the test starts it again.
    process.env.LUCKY_SUPERVISOR = 'e2e';
    daemon = new Daemon(await freePort());
    await daemon.start();
    apiToken = await daemon.login();
    browser = await launchBrowser();
    ({ context, page } = await newPage(browser, 1366));
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(daemon.url + '#/login');
    await fillLogin();
    await page.waitForURL(/#\/status$/);
  }, 90_000);

  afterEach(shotOnFailure('safe', () => page, () => daemon));

  afterAll(() => closeConsole({ daemon, browser, context }), 30_000);

  it('shows the security page with the state at a glance', async () => {
    await openSafe();
    await expect.poll(() => page.title()).toBe('Lucky | 安全管理');
    await expect(page.getByTestId('safe-ov-2fa').textContent()).resolves.toBe('未开启');
    await expect(page.getByTestId('safe-2fa-state').getAttribute('data-on')).resolves.toBe('false');
    await safeShot('01-overview');
  });

  it('enrols 2FA: QR code and secret, a wrong code refused, the right one switches it on, 8 recovery codes', async () => {
    await page.getByTestId('safe-2fa-enable').click();
    await page.getByTestId('safe-2fa-qr').waitFor();
    secret = ((await page.getByTestId('safe-2fa-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    expect(await page.getByTestId('safe-2fa-qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    await sleep(300); // let the modal finish opening
    await safeShot('02-2fa-enrol');

    // Not six digits: refused here, nothing sent.
    await page.getByTestId('safe-2fa-code').fill('12ab');
    await page.getByTestId('safe-2fa-confirm').click();
    await expect(page.getByTestId('safe-2fa-error').textContent()).resolves.toBeTruthy();
    // A code from another step: the daemon refuses it.
    await page.getByTestId('safe-2fa-code').fill(totp(secret, Date.now() - 10 * 60_000));
    await page.getByTestId('safe-2fa-confirm').click();
    await expect.poll(() => page.getByTestId('safe-2fa-error').textContent()).toBe('两步验证码不正确');

    await page.getByTestId('safe-2fa-code').fill(totp(secret));
    await page.getByTestId('safe-2fa-confirm').click();
    await page.getByTestId('safe-recovery-codes').waitFor();
    recovery = await page.getByTestId('safe-recovery-code').allTextContents();
    expect(recovery).toHaveLength(8);
    for (const c of recovery) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    await sleep(300);
    await safeShot('03-2fa-recovery-codes');
    await page.getByTestId('safe-recovery-done').click();
    await expect.poll(() => page.getByTestId('safe-2fa-state').getAttribute('data-on')).toBe('true');
    await expect(page.getByTestId('safe-2fa-codes-left').textContent()).resolves.toContain('8');
    expect((await daemon.api('GET', '/version')).twoFAEnable).toBe(true);
  });

  it('logs in with password + a generated code, then with a recovery code (used once)', async () => {
    await logout();
    await page.getByTestId('login-2fa').waitFor();
    // Without the code: refused.
    await fillLogin('');
    await expect.poll(() => page.getByTestId('login-error').isVisible()).toBe(true);
    await fillLogin(totp(secret));
    await page.waitForURL(/#\/status$/);
    await logout();
    await page.getByTestId('login-2fa').waitFor();
    await safeShot('04-login-2fa');
    await fillLogin(recovery[0]!);
    await page.waitForURL(/#\/status$/);
    await logout();
    // The same recovery code twice: refused.
    await fillLogin(recovery[0]!);
    await expect.poll(() => page.getByTestId('login-error').isVisible()).toBe(true);
    await fillLogin(recovery[1]!);
    await page.waitForURL(/#\/status$/);
    await openSafe();
    await expect.poll(() => page.getByTestId('safe-2fa-codes-left').textContent()).toContain('6');
  });

  it('regenerates recovery codes and switches 2FA off with the admin password', async () => {
    await page.getByTestId('safe-2fa-regenerate').click();
    await page.getByTestId('safe-2fa-password').fill('not-the-password');
    await page.getByTestId('safe-2fa-password-submit').click();
    await expect.poll(() => page.getByTestId('safe-2fa-password-error').textContent()).toBe('密码不正确');
    await page.getByTestId('safe-2fa-password').fill(PASSWORD);
    await page.getByTestId('safe-2fa-password-submit').click();
    await expect.poll(() => page.getByTestId('safe-recovery-code').count()).toBe(8);
    await page.getByTestId('safe-recovery-done').click();
    await expect.poll(() => page.getByTestId('safe-2fa-codes-left').textContent()).toContain('8');

    await page.getByTestId('safe-2fa-disable').click();
    await page.getByTestId('safe-2fa-password').fill(PASSWORD);
    await page.getByTestId('safe-2fa-password-submit').click();
    await expect.poll(() => page.getByTestId('safe-2fa-state').getAttribute('data-on')).toBe('false');
    expect((await daemon.api('GET', '/version')).twoFAEnable).toBe(false);
  });

  it('creates an API token shown once, which works from a script until revoked', async () => {
    await tab('tokens');
    await page.getByTestId('safe-token-create').click();
    await expect(page.getByTestId('safe-token-error').textContent()).resolves.toContain('name');
    await page.getByTestId('safe-token-name').fill('e2e script');
    await page.getByTestId('safe-token-create').click();
    await page.getByTestId('safe-token-value').waitFor();
    const token = ((await page.getByTestId('safe-token-value').textContent()) ?? '').trim();
    expect(token.length).toBeGreaterThan(20);
    await sleep(300);
    await safeShot('05-token-created');
    await page.getByTestId('safe-token-done').click();
    await expect.poll(() => page.getByTestId('safe-token-row').count()).toBe(1);

    const bearer = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(daemon.url + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(10_000),
      });
      return (await r.json()) as { ret: number; msg?: string };
    };
    expect((await bearer('GET', 'api/status')).ret).toBe(0);
    // Read-only (the default scope): no changes, and never security management.
    expect((await bearer('PUT', 'api/baseconfigure', { LogLevel: 4 })).ret).toBe(2);
    expect((await bearer('GET', 'api/safe/tokens')).ret).toBe(2);

    await page.getByTestId('safe-token-revoke').click();
    await page.getByTestId('safe-token-revoke-confirm').click();
    await expect.poll(() => page.getByTestId('safe-tokens-empty').count()).toBe(1);
    expect((await bearer('GET', 'api/status')).ret).toBe(-1);
  });

  it('lists sessions with this one marked, ends the others', async () => {
    const other = await daemon.login();
    await tab('sessions');
    await page.getByRole('button', { name: '刷新' }).last().click();
    await expect.poll(() => page.getByTestId('safe-session-row').count()).toBeGreaterThanOrEqual(2);
    await expect(page.getByTestId('safe-session-current').count()).resolves.toBe(1);
    await safeShot('06-sessions');
    await page.getByTestId('safe-sessions-revoke-others').click();
    await page.getByTestId('safe-sessions-revoke-others-confirm').click();
    await expect.poll(() => page.getByTestId('safe-session-row').count()).toBe(1);
    expect((await daemon.api('GET', '/api/status', undefined, other)).ret).toBe(-1);
    apiToken = await daemon.login();
  });

  it('edits the access lists: a bad range is named before sending, a good one is saved', async () => {
    await tab('access');
    // The WAN switch is the base setting AllowInternetAccess; turning it off asks first.
    await page.getByTestId('safe-wan').click();
    await expect.poll(() => page.getByTestId('safe-ov-wan').textContent()).toBe('允许');
    expect(((await daemon.api('GET', '/api/baseconfigure', undefined, apiToken)).baseconfigure as { AllowInternetAccess: boolean }).AllowInternetAccess).toBe(true);
    await page.getByTestId('safe-wan').click();
    await page.getByTestId('safe-wan-off-confirm').click();
    await expect.poll(() => page.getByTestId('safe-ov-wan').textContent()).toBe('禁止');
    await page.getByTestId('safe-whitelist-add').click();
    await page.getByTestId('safe-whitelist-cidr').fill('300.1.2.3/40');
    await page.getByTestId('safe-access-save').click();
    await expect(page.getByTestId('safe-access-error').textContent()).resolves.toContain('whitelist[0].cidr');
    await page.getByTestId('safe-whitelist-cidr').fill('203.0.113.0/24');
    await page.getByTestId('safe-blacklist-add').click();
    await page.getByTestId('safe-blacklist-cidr').fill('198.51.100.7');
    await page.getByTestId('safe-access-save').click();
    await expect
      .poll(async () => ((await daemon.api('GET', '/api/safe/access', undefined, apiToken)).access as { whitelist: { cidr: string }[] }).whitelist)
      .toEqual([expect.objectContaining({ cidr: '203.0.113.0/24', expires: 0 })]);
    await safeShot('07-access');
    // Put it back as it was.
    await page.getByRole('button', { name: '删除' }).first().click();
    await page.getByRole('button', { name: '删除' }).first().click();
    await page.getByTestId('safe-access-save').click();
    await expect
      .poll(async () => ((await daemon.api('GET', '/api/safe/access', undefined, apiToken)).access as { whitelist: unknown[] }).whitelist)
      .toEqual([]);
  });

  it('shows login protection, lifts one lock, saves the allow list, and clears the list', async () => {
    for (let i = 0; i < 2; i++) await daemon.api('POST', '/api/login', { Account: 'admin', Password: 'wrong' });
    await tab('login');
    await expect.poll(() => page.getByTestId('safe-lockout-row').count(), { timeout: 10_000 }).toBe(1);
    await safeShot('08-login-protection');
    // One address lifted by its own button.
    await page.getByTestId('safe-lockout-lift').click();
    await page.getByTestId('safe-lockouts-empty').waitFor();
    // The allow list, one network a line, saved with the rest.
    await page.getByTestId('safe-lp-allowList').fill('192.0.2.0/24\n\n198.51.100.9');
    await page.getByTestId('safe-lp-save').click();
    await expect
      .poll(async () => ((await daemon.api('GET', '/api/safe/loginprotection', undefined, apiToken)).loginProtection as { allowList: string[] }).allowList)
      .toEqual(['192.0.2.0/24', '198.51.100.9']);
    // The form takes the saved settings back once they are read again (the blank line gone): only
    // then is an edit the user's and not overwritten by that.
    await expect.poll(() => page.getByTestId('safe-lp-allowList').inputValue(), { timeout: 10_000 }).toBe('192.0.2.0/24\n198.51.100.9');
    await page.getByTestId('safe-lp-allowList').fill('');
    await page.getByTestId('safe-lp-save').click();
    await expect
      .poll(async () => ((await daemon.api('GET', '/api/safe/loginprotection', undefined, apiToken)).loginProtection as { allowList: string[] }).allowList)
      .toEqual([]);
    for (let i = 0; i < 2; i++) await daemon.api('POST', '/api/login', { Account: 'admin', Password: 'wrong' });
    await expect.poll(() => page.getByTestId('safe-lockout-row').count(), { timeout: 10_000 }).toBe(1);
    await page.getByTestId('safe-lockouts-clear').click();
    await page.getByTestId('safe-lockouts-clear-confirm').click();
    await page.getByTestId('safe-lockouts-empty').waitFor();
  });

  it('shows the audit log newest first', async () => {
    await tab('audit');
    await page.getByTestId('safe-audit-row').first().waitFor();
    const ids = (await page.getByTestId('safe-audit-row').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))) as number[];
    expect(ids.length).toBeGreaterThan(5);
    expect([...ids].sort((a, b) => b - a)).toEqual(ids);
    expect(await page.getByTestId('safe-audit-action').allTextContents()).toContain('DELETE /api/safe/lockouts');
    await safeShot('09-audit');
  });

  it('moves the console to a safe entry path: the old address shows nothing, the new one works; then clears it', async () => {
    await tab('safeUrl');
    await page.getByTestId('safe-url-input').fill('bad path!');
    await page.getByTestId('safe-url-set').click();
    await page.getByTestId('safe-url-error').waitFor();
    await page.getByTestId('safe-url-input').fill('e2e-door');
    await page.getByTestId('safe-url-set').click();
    await page.getByTestId('safe-url-moved').waitFor();
    const next = `${daemon.url}e2e-door/`;
    await expect(page.getByTestId('safe-url-new').textContent()).resolves.toBe(next);
    await sleep(300);
    await safeShot('10-safe-url-moved');
    await page.getByTestId('safe-url-go').click();
    await page.waitForURL(`${next}#/safe`);
    await page.getByTestId('safe-ov-safeurl').waitFor();
    await tab('safeUrl');
    await expect(page.getByTestId('safe-url-current').textContent()).resolves.toBe(next);

    // The old address: the bare 404 of an empty server, for the page and the API alike.
    const old = await (await browser!.newContext()).newPage();
    try {
      const res = await old.goto(daemon.url);
      expect(res?.status()).toBe(404);
      await expect(old.locator('body').textContent()).resolves.toBe('404 page not found');
      expect(await old.locator('#root').count()).toBe(0);
      await shot(old, 'safe-11-old-address');
    } finally {
      await old.context().close();
    }
    expect((await fetch(`${daemon.url}version`)).status).toBe(404);
    expect((await (await fetch(`${next}version`)).json()).ret).toBe(0);

    await tab('safeUrl');
    await page.getByTestId('safe-url-clear').click();
    await page.getByTestId('safe-url-moved').waitFor();
    await expect(page.getByTestId('safe-url-new').textContent()).resolves.toBe(daemon.url);
    await page.getByTestId('safe-url-go').click();
    await page.waitForURL(`${daemon.url}#/safe`);
    await page.getByTestId('safe-ov-safeurl').waitFor();
    await expect(page.getByTestId('safe-ov-safeurl').textContent()).resolves.toBe('未设置');
  });

  it('settings: backup download, restore upload with its summary, confirm', async () => {
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('system-panel').waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('sys-backup').click()]);
    expect(download.suggestedFilename()).toMatch(/^lucky-backup-\d+\.json$/);
    const file = join(daemon.dataDir, 'e2e-backup.json');
    await download.saveAs(file);
    const backup = JSON.parse(readFileSync(file, 'utf8')) as { secrets: boolean; base: Record<string, unknown> };
    expect(backup.secrets).toBe(false);
    expect(backup.base.AdminPasswordHash).toBeUndefined();

    // Change things after the backup: a base setting and a new Wake-on-LAN device.
    const logMax = backup.base.LogMaxSize as number;
    expect((await daemon.api('PUT', '/api/baseconfigure', { LogMaxSize: logMax + 7 }, apiToken)).ret).toBe(0);
    const created = await daemon.api('POST', '/api/wol/rules', { name: 'after backup', macs: ['00:11:22:33:44:55'] }, apiToken);
    expect(created.ret).toBe(0);

    // A file that is not a backup changes nothing and says why.
    await page.getByTestId('sys-restore-input').setInputFiles({ name: 'nope.json', mimeType: 'application/json', buffer: Buffer.from('{"hello":1}') });
    await expect.poll(() => page.getByTestId('sys-error').textContent()).toContain('备份文件无效');

    await page.getByTestId('sys-restore-input').setInputFiles(file);
    await page.getByTestId('sys-restore-summary').waitFor();
    await expect(page.getByTestId('sys-restore-base').textContent()).resolves.toContain('日志保留行数');
    const wol = page.locator('[data-testid="sys-restore-module"][data-module="wol"]');
    await expect(wol.getByTestId('sys-restore-remove').textContent()).resolves.toBe('1');
    await sleep(300);
    await safeShot('12-restore-summary');
    await page.getByTestId('sys-restore-confirm').click();
    await page.getByTestId('sys-restore-summary').waitFor({ state: 'detached' });
    await expect
      .poll(async () => ((await daemon.api('GET', '/api/baseconfigure', undefined, apiToken)).baseconfigure as { LogMaxSize: number }).LogMaxSize)
      .toBe(logMax);
    expect(((await daemon.api('GET', '/api/wol/rules', undefined, apiToken)).list as unknown[]).length).toBe(0);
  });

  it('settings: a file that is not a release archive is refused, nothing staged', async () => {
    await page.getByTestId('sys-update-input').setInputFiles({ name: 'lucky.tar.gz', mimeType: 'application/gzip', buffer: Buffer.from('not a gzip at all') });
    await expect.poll(() => page.getByTestId('sys-error').textContent()).toContain('更新包无效');
    expect(await page.getByTestId('sys-update-info').count()).toBe(0);
    expect((await daemon.api('GET', '/api/update/cancel', undefined, apiToken)).ret).toBe(3);
  });

  it('settings: service status explains itself, GC shows freed memory', async () => {
    await page.getByTestId('sys-service-status').click();
    await page.getByTestId('sys-service-result').waitFor();
    await page.getByTestId('sys-gc').click();
    await expect.poll(() => page.getByTestId('sys-gc-result').textContent()).toMatch(/B/);
    await page.getByTestId('system-panel').scrollIntoViewIfNeeded();
    await safeShot('13-system-panel');
    expect(pageErrors).toEqual([]);
  });

  it('settings: restart waits for the daemon to answer again, then reloads the page', async () => {
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('system-panel').waitFor();
    const child = daemon.child!;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await page.getByTestId('sys-restart').click();
    await page.getByTestId('sys-restart-confirm').click();
    await page.getByTestId('sys-restart-wait').waitFor();
    await sleep(300);
    await safeShot('14-restarting');
    expect(await Promise.race([exited, sleep(20_000).then(() => 'still running')])).toBe(75);
    await sleep(2500); // a few failed polls while nothing listens
    expect(await page.getByTestId('sys-restart-wait').getAttribute('data-state')).toBe('waiting');
    expect(page.url()).toMatch(/#\/set$/);
    const reloaded = page.waitForEvent('load', { timeout: 30_000 });
    await daemon.start();
    await reloaded;
    // The session survives the restart: the settings page comes back, not the login page.
    await page.getByTestId('system-panel').waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('sys-restart-wait').count()).toBe(0);
  });

  it('reads in English as well (screenshots of each tab)', async () => {
    await page.evaluate(() => {
      const v = JSON.parse(localStorage.getItem('lucky') ?? '{}') as Record<string, unknown>;
      localStorage.setItem('lucky', JSON.stringify({ ...v, lang: 'en_US' }));
    });
    await page.goto(`${daemon.url}#/safe`);
    await page.reload();
    await page.getByTestId('safe-ov-2fa').waitFor();
    await expect(page.getByTestId('safe-ov-2fa').textContent()).resolves.toBe('Off');
    await safeShot('en-01-2fa');
    for (const [id, n] of [['access', 2], ['login', 3], ['safeUrl', 4], ['tokens', 5], ['sessions', 6], ['audit', 7]] as const) {
      await tab(id);
      await page.getByTestId(`safe-tab-${id}`).and(page.locator('[aria-selected="true"]')).waitFor();
      await sleep(200);
      await safeShot(`en-0${n}-${id}`);
    }
    // Narrow: the top-bar menu layout, tabs and tables still usable.
    await page.setViewportSize({ width: 760, height: 900 });
    await tab('access');
    await page.getByTestId('safe-whitelist-add').click();
    await sleep(200);
    await safeShot('en-09-narrow-access');
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(`${daemon.url}#/set`);
    await page.getByTestId('system-panel').scrollIntoViewIfNeeded();
    await page.getByTestId('sys-service-status').click();
    await page.getByTestId('sys-service-result').waitFor();
    await safeShot('en-08-system-panel');
    expect(pageErrors).toEqual([]);
  });
});
