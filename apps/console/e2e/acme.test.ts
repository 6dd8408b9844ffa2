// @vitest-environment node
/**
 * Certificates in a real browser against the built daemon: the menu entry after STUN, a pasted PEM
 * refused when the key is another certificate's (the daemon's own words), then saved with its names
 * and expiry in the row; a web services rule and a port forwarding rule pick it by name from the
 * store; exported as a PFX the TLS stack opens; the module settings with the webhook and its events,
 * and the automatic certificates' CA.
 * Screenshots: acme-*.png.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext } from 'node:tls';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, pickOption, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('acme', 300);

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
const pageErrors: string[] = [];
let dir = '';

/** A self-signed EC certificate for the names, made by OpenSSL. */
function makeCert(file: string, names: string[]): { cert: string; key: string } {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, `${file}.key`), '-out', join(dir, `${file}.crt`), '-days', '30', '-subj', `/CN=${names[0]}`, '-addext', `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`], { stdio: 'ignore' });
  return { cert: readFileSync(join(dir, `${file}.crt`), 'utf8'), key: readFileSync(join(dir, `${file}.key`), 'utf8') };
}

describe('certificates console e2e (chromium + built daemon)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    dir = mkdtempSync(join(tmpdir(), 'lucky-acme-e2e-'));
    ({ daemon, apiToken, browser, context, page } = await openConsole(1440, 1000, pageErrors));
    await enableModules(daemon, apiToken, ['web', 'acme', 'portforward']);
  }, 90_000);

  afterEach(shotOnFailure('acme', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it('the menu entry comes after STUN and opens the empty list', async () => {
    await page.reload();
    await page.locator('[data-testid="left-menu"] [data-menu="acme"]').click();
    await expect.poll(() => page.title()).toBe('Lucky | 证书');
    await page.getByTestId('acme-empty').waitFor();
  });

  it('a pasted certificate with the wrong key is refused in the daemon\'s words; the right one is saved with its names and expiry', async () => {
    const a = makeCert('a', ['a.example.test', 'www.a.example.test']);
    const b = makeCert('b', ['b.example.test']);
    await page.getByTestId('acme-add').click();
    await page.getByTestId('acme-name').fill('site-a');
    await page.getByTestId('acme-source').getByText('粘贴 PEM').click();
    await page.getByTestId('acme-cert').fill(a.cert);
    await page.getByTestId('acme-key').fill(b.key);
    await page.getByTestId('acme-save').click();
    await expect.poll(() => page.getByTestId('acme-form-server-error').textContent()).toContain('私钥与证书不匹配');
    await shot(page, 'mismatch');
    await page.getByTestId('acme-key').fill(a.key);
    await page.getByTestId('acme-save').click();
    const row = page.locator('[data-testid="acme-row"][data-name="site-a"]');
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('www.a.example.test');
    const list = (await daemon.api('GET', '/api/acme/rules', undefined, apiToken)).list as Array<{ certificate: { notAfter: number } | null }>;
    expect(list[0]!.certificate!.notAfter).toBeGreaterThan(Date.now() + 29 * 86_400_000);
    await expect.poll(() => row.getByTestId('acme-expires').textContent()).not.toBe('—');
    await shot(page, 'list');
  });

  it('a web services rule picks the stored certificate by name', async () => {
    await page.locator('[data-testid="left-menu"] [data-menu="web"]').click();
    await expect.poll(() => page.title()).toBe('Lucky | Web服务');
    await page.getByTestId('web-add').click();
    await page.getByTestId('web-name').fill('https-site');
    await page.getByTestId('web-address').fill('127.0.0.1');
    await page.getByTestId('web-port').fill(String(await freePort()));
    await page.getByTestId('web-protocol').getByText('HTTPS').click();
    await page.getByTestId('web-tab-https').click();
    await page.getByTestId('web-cert-add').click();
    await page.getByTestId('web-cert-0').getByText('证书模块中的证书').click();
    await page.getByTestId('web-cert-0-cert').click();
    // The store's certificates are offered with their names.
    await page.getByRole('option', { name: 'site-a (a.example.test, www.a.example.test)' }).click();
    await expect(page.getByTestId('web-cert-0-cert').inputValue()).resolves.toBe('site-a');
    await shot(page, 'web-pick');
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    const rules = (await daemon.api('GET', '/api/web/rules', undefined, apiToken)).list as Array<{ name: string; certs: unknown[]; status: { state: string } }>;
    const site = rules.find((r) => r.name === 'https-site')!;
    expect(site.certs).toEqual([{ source: 'store', cert: 'site-a', key: '', domains: [], challenge: 'http-01', dnsTask: '' }]);
    await expect.poll(async () => ((await daemon.api('GET', '/api/web/rules', undefined, apiToken)).list as typeof rules).find((r) => r.name === 'https-site')!.status.state).toBe('running');
    expect(pageErrors).toEqual([]);
  });

  it('a port forwarding rule terminates TLS with certificates of the store, chosen by name', async () => {
    await page.locator('[data-testid="left-menu"] [data-menu="portforward"]').click();
    await page.getByTestId('pf-add').click();
    await page.getByTestId('pf-name').fill('tls-forward');
    await page.getByTestId('pf-type-udp').uncheck();
    await page.getByTestId('pf-listen-ports').fill(String(await freePort()));
    await page.getByTestId('pf-targets').fill('127.0.0.1');
    await page.getByTestId('pf-target-ports').fill(String(await freePort()));
    await page.getByTestId('pf-tab-tls').click();
    await page.getByTestId('pf-tls-listen').dispatchEvent('click');
    await page.getByTestId('pf-tls-source').getByText('“证书”页面中的证书').click();
    await page.getByTestId('pf-tls-names').click();
    await page.getByRole('option', { name: 'site-a (a.example.test, www.a.example.test)' }).click();
    await shot(page, 'pf-pick');
    await page.getByTestId('pf-save').click();
    await expect.poll(() => page.getByTestId('pf-name').count()).toBe(0);
    const rules = async () => (await daemon.api('GET', '/api/portforward/rules', undefined, apiToken)).list as Array<{ name: string; tls: { certSource: string; certNames: string[] }; status: { state: string } }>;
    expect((await rules()).find((r) => r.name === 'tls-forward')!.tls).toMatchObject({ certSource: 'store', certNames: ['site-a'] });
    await expect.poll(async () => (await rules()).find((r) => r.name === 'tls-forward')!.status.state).toBe('running');
  });

  it('exports the certificate as a PFX under a password, which the TLS stack opens', async () => {
    await page.locator('[data-testid="left-menu"] [data-menu="acme"]').click();
    const row = page.locator('[data-testid="acme-row"][data-name="site-a"]');
    await row.getByTestId('acme-export').click();
    await page.getByTestId('acme-export-pfx').click();
    // No password, no PFX.
    await expect(page.getByTestId('acme-export-save').isDisabled()).resolves.toBe(true);
    await page.getByTestId('acme-export-password').fill('pfx-pass-7');
    await shot(page, 'export');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('acme-export-save').click()]);
    expect(download.suggestedFilename()).toBe('site-a.pfx');
    const saved = join(dir, 'site-a.pfx');
    await download.saveAs(saved);
    expect(() => createSecureContext({ pfx: readFileSync(saved), passphrase: 'pfx-pass-7' })).not.toThrow();
    await expect.poll(() => page.getByTestId('acme-export-dialog').count()).toBe(0);
  });

  it("module settings: expiry warning days, the webhook with its events, the automatic certificates' CA", async () => {
    await page.getByTestId('acme-settings-open').click();
    await page.getByTestId('acme-set-warnDays').fill('0');
    await page.getByTestId('acme-settings-save').click();
    await expect.poll(() => page.getByTestId('acme-settings-error').count()).toBe(1);
    await page.getByTestId('acme-set-warnDays').fill('10');
    await page.getByTestId('acme-set-webhook-enable').dispatchEvent('click');
    await page.getByTestId('acme-set-webhook-url').fill('http://127.0.0.1:9/hook?name=#{name}&event=#{event}');
    await page.getByTestId('acme-set-event-issued').check();
    // Automatic certificates: a CA of one's own (nothing is ordered: no web rule asks for one here).
    await pickOption(page, page.getByTestId('acme-set-auto-ca'), '自定义 ACME 目录');
    await page.getByTestId('acme-set-auto-directory').fill('https://127.0.0.1:14000/dir');
    await page.getByTestId('acme-set-auto-renewdays').fill('20');
    await shot(page, 'settings');
    await page.getByTestId('acme-settings-save').click();
    await expect.poll(() => page.getByTestId('acme-set-warnDays').count()).toBe(0);
    const r = await daemon.api('GET', '/api/acme/configure', undefined, apiToken);
    expect(r.configure).toMatchObject({
      warnDays: 10,
      webhookEvents: ['expiring', 'failed', 'issued'],
      webhook: { enable: true, url: 'http://127.0.0.1:9/hook?name=#{name}&event=#{event}' },
      auto: { ca: 'custom', directoryUrl: 'https://127.0.0.1:14000/dir', renewBeforeDays: 20 },
    });
    expect(pageErrors).toEqual([]);
  });
});
