// @vitest-environment node
/**
 * Certificates in a real browser against the built daemon: the menu entry after STUN, a pasted PEM
 * refused when the key is another certificate's (the daemon's own words), then saved with its names
 * and expiry in the row; a web services rule picks it by name from the store. Screenshots: acme-*.png.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, enableModules, freePort, openConsole, requirePrerequisites, shot as rawShot, shotOnFailure, sleep } from './harness';

async function shot(p: Page, name: string): Promise<void> {
  await sleep(300);
  await rawShot(p, `acme-${name}`);
}

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
    await enableModules(daemon, apiToken, ['web', 'acme']);
  }, 90_000);

  afterEach(shotOnFailure('acme', () => page));

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
    expect(site.certs).toEqual([{ source: 'store', cert: 'site-a', key: '', domains: [] }]);
    await expect.poll(async () => ((await daemon.api('GET', '/api/web/rules', undefined, apiToken)).list as typeof rules).find((r) => r.name === 'https-site')!.status.state).toBe('running');
    expect(pageErrors).toEqual([]);
  });
});
