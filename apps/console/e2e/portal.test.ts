// @vitest-environment node
/**
 * The login portal in a real browser against the built daemon: a portal user added in the console with
 * a second factor enrolled from the QR dialog (codes made here as an authenticator app would), a
 * visitor sent to a protected web rule's own sign-in page who signs in with password and code and
 * reaches the app as that user, the session listed in the console and ended there, after which the
 * visitor is asked to sign in again; then single sign-on set up in Security management against an
 * OpenID provider this test starts on loopback (oidc-provider), and the console signed in to through it.
 * Screenshots go to $LUCKY_TEST_OUTPUT/screenshots/portal-*.png.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, freePort, newPage, openConsole, openFold, ROOT, shooter, shotOnFailure, type OpenConsole } from './harness';

// otpauth is a daemon dependency; the test makes codes the way an authenticator app would.
const { Secret, TOTP } = createRequire(join(ROOT, 'apps/daemon/package.json'))('otpauth') as typeof import('otpauth');
const totp = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();

const shot = shooter('portal');
let c: OpenConsole;
let page: Page;
let visitor: { context: BrowserContext; page: Page } | undefined;
let backend: Server;
let provider: Server | undefined;
let webPort = 0;
const pageErrors: string[] = [];

describe('login portal and single sign-on e2e (chromium + built daemon)', () => {
  beforeAll(async () => {
    c = await openConsole(1366, 900, pageErrors);
    page = c.page;
    // The app behind the rule says who it was told the user is.
    backend = createServer((req, res) => res.end(`app for ${String(req.headers['remote-user'] ?? 'nobody')}`));
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    webPort = await freePort();
    const made = await c.daemon.api(
      'POST',
      '/api/web/rules',
      { name: 'family photos', protocol: 'http', address: '127.0.0.1', port: webPort, portal: { enable: true }, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${(backend.address() as AddressInfo).port}`] } },
      c.apiToken,
    );
    expect(made.ret, String(made.msg)).toBe(0);
  }, 90_000);

  afterEach(shotOnFailure('portal', () => page, () => c?.daemon));

  afterAll(async () => {
    await visitor?.context.close().catch(() => undefined);
    await closeConsole(c ?? {});
    backend?.close();
    provider?.close();
  }, 30_000);

  it('adds a portal user with a second factor enrolled from its QR code', async () => {
    await page.goto(`${c.daemon.url}#/portal`);
    await page.getByTestId('portal-page').waitFor();
    await page.getByTestId('portal-add').click();
    await page.getByTestId('portal-name').fill('alice');
    await page.getByTestId('portal-password').fill('wonderland-1');
    await page.getByTestId('portal-totp-start').click();
    await page.getByTestId('portal-totp-qr').waitFor();
    expect(await page.getByTestId('portal-totp-qr').getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    const secret = ((await page.getByTestId('portal-totp-secret').textContent()) ?? '').replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await shot(page, '01-user-2fa');
    await page.getByTestId('portal-totp-code').fill(totp(secret));
    await page.getByTestId('portal-totp-check').click();
    await expect.poll(() => page.getByTestId('portal-totp-state').getAttribute('data-state')).toBe('new');
    await page.getByTestId('portal-save').click();
    const row = page.getByTestId('portal-row').filter({ hasText: 'alice' });
    await row.waitFor();
    await expect.poll(() => row.getByTestId('portal-row-totp').getAttribute('data-state')).toBe('on');
    // Kept for the visitor: the secret as the app has it.
    process.env.LUCKY_E2E_PORTAL_SECRET = secret;
  });

  it('sends a visitor to the rule’s sign-in page, and lets them in with password and code as alice', async () => {
    visitor = await newPage(c.browser, 1024, 760);
    const v = visitor.page;
    await v.goto(`http://127.0.0.1:${webPort}/albums?year=2026`);
    await v.waitForURL(/\/\.lucky\/login\?rd=%2Falbums%3Fyear%3D2026$/);
    await v.locator('#user').waitFor();
    await shot(v, '02-sign-in-page');
    await v.locator('#user').fill('alice');
    await v.locator('#password').fill('wrong-password');
    await v.locator('button[type=submit]').click();
    await expect.poll(async () => (await v.locator('p.error').textContent()) ?? '').toMatch(/错误|wrong/);
    await v.locator('#password').fill('wonderland-1');
    await v.locator('#code').fill(totp(process.env.LUCKY_E2E_PORTAL_SECRET!));
    await v.locator('button[type=submit]').click();
    await v.waitForURL(new RegExp(`127\\.0\\.0\\.1:${webPort}/albums\\?year=2026$`));
    await expect.poll(() => v.locator('body').textContent()).toBe('app for alice');
  });

  it('lists the visitor’s session in the console; ending it asks the visitor to sign in again', async () => {
    await page.goto(`${c.daemon.url}#/portal`);
    const session = page.locator('[data-testid="portal-session-row"][data-user="alice"]').first();
    await session.waitFor();
    await shot(page, '03-sessions');
    await session.getByTestId('portal-session-end').click();
    await expect.poll(() => page.locator('[data-testid="portal-session-row"][data-user="alice"]').count()).toBe(0);
    const v = visitor!.page;
    await v.reload();
    await v.waitForURL(/\/\.lucky\/login\?rd=/);
  });

  it('shows the rule’s protection in its editor; limits set there answer 429 past the rate', async () => {
    await page.goto(`${c.daemon.url}#/web`);
    const row = page.getByTestId('web-row').filter({ has: page.getByTestId('web-row-name').getByText('family photos', { exact: true }) });
    await row.getByTestId('web-edit').click();
    await page.getByTestId('web-tab-access').click();
    await openFold(page.getByTestId('web-access-portal'));
    await expect.poll(() => page.getByTestId('web-access-portal-enable').isChecked()).toBe(true);
    await page.getByTestId('web-limits-rate').fill('0.05');
    await page.getByTestId('web-limits-burst').fill('1');
    await shot(page, '04-rule-protection');
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    const saved = (await c.daemon.api('GET', '/api/web/rules', undefined, c.apiToken)) as { list: Array<{ name: string; limits: { rate: number; burst: number } }> };
    expect(saved.list.find((r) => r.name === 'family photos')!.limits).toMatchObject({ rate: 0.05, burst: 1 });
    // Two requests of the burst (sent to sign in), then the rate's refusal.
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`http://127.0.0.1:${webPort}/`, { redirect: 'manual' })).status);
    expect(statuses.slice(-1)).toEqual([429]);
  });

  it('sets up single sign-on in Security management and signs in to the console through the provider', async () => {
    // The provider: oidc-provider (a daemon dev dependency, ESM) with its development sign-in pages.
    const { default: Provider } = (await import(pathToFileURL(join(ROOT, 'apps/daemon/node_modules/oidc-provider/lib/index.js')).href)) as {
      default: new (issuer: string, config: Record<string, unknown>) => { listen(port: number): Server };
    };
    const providerPort = await freePort();
    const issuer = `http://127.0.0.1:${providerPort}`;
    provider = new Provider(issuer, {
      clients: [{ client_id: 'lucky', client_secret: 'lucky-secret', redirect_uris: [`${c.daemon.url}api/oidc/callback`], grant_types: ['authorization_code'], response_types: ['code'] }],
      findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub, preferred_username: sub, groups: sub === 'alice' ? ['admins'] : [] }) }),
      claims: { openid: ['sub'], profile: ['preferred_username'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'groups'],
      features: { devInteractions: { enabled: true } },
      cookies: { keys: ['e2e-only-cookie-key'] },
    }).listen(providerPort);

    await page.goto(`${c.daemon.url}#/safe`);
    await page.getByTestId('safe-tab-sso').click();
    await page.getByTestId('safe-sso').waitFor();
    await page.getByTestId('safe-sso-enable').check();
    await page.getByTestId('safe-sso-issuer').fill(issuer);
    await page.getByTestId('safe-sso-clientId').fill('lucky');
    await page.getByTestId('safe-sso-clientSecret').fill('lucky-secret');
    await page.getByTestId('safe-sso-label').fill('Home ID');
    await page.getByTestId('safe-sso-adminGroups').fill('admins');
    await page.getByTestId('safe-sso-adminGroups').press('Enter');
    await page.getByTestId('safe-sso-save').click();
    await expect.poll(async () => ((await c.daemon.api('GET', '/api/oidc')) as { enable?: boolean }).enable).toBe(true);
    await shot(page, '05-sso-settings');

    // Signed out, the login page offers the provider; its pages sign alice in and send her back.
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${c.daemon.url}#/login`);
    await page.getByTestId('login-sso').waitFor();
    expect(await page.getByTestId('login-sso').textContent()).toContain('Home ID');
    await page.getByTestId('login-sso').click();
    await page.waitForURL((u) => u.origin === issuer);
    await page.locator('input[name=login]').fill('alice');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await page.locator('button[type=submit]').click();
    await page.waitForURL(/#\/status$/);
    await expect.poll(async () => ((await c.daemon.api('GET', '/api/safe/audit?limit=20', undefined, c.apiToken)) as { list?: Array<{ actor: string }> }).list?.some((a) => a.actor === 'sso:alice')).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
