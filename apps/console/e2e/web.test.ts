// @vitest-environment node
/**
 * Web service screens in a real browser against the built daemon. A tiny HTTP backend on loopback
 * sits behind a rule created through the form (a reverse-proxy sub rule for a domain, a text-output
 * default); requests go through the rule with a Host header. Also: the sub rule's empty-domain
 * message, live figures in the list, an engine error (port in use) in the list, batch domain
 * replace, access and service logs, the switch (connection refused, then served again), settings,
 * English once, delete, an HTTPS rule with an automatic certificate (saved switched off: nothing is
 * ordered). Screenshots: web-*.png.
 */
import { createServer, request, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeConsole, Daemon, flip, freePort, openConsole, openFold, requirePrerequisites, shooter, shotOnFailure } from './harness';

const shot = shooter('');

let daemon: Daemon;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
let page: Page;
let apiToken = '';
let backend: Server | undefined;
let backendPort = 0;
let blocker: TcpServer | undefined;
let blockedPort = 0;
let rulePort = 0;
const backendHits: string[] = [];
const pageErrors: string[] = [];

function listen(server: Server | TcpServer): Promise<number> {
  return new Promise((r, rej) => {
    server.once('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      r(a && typeof a === 'object' ? a.port : 0);
    });
  });
}

/** One request through the rule with the given Host; `refused` when nothing listens. */
function get(host: string, path = '/'): Promise<{ status: number; body: string } | 'refused'> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port: rulePort, path, agent: false, headers: { host }, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNREFUSED' ? resolve('refused') : reject(e)));
    r.end();
  });
}
function getAuth(host: string, auth: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { host, authorization: `Basic ${Buffer.from(auth).toString('base64')}` };
    const r = request({ host: '127.0.0.1', port: rulePort, path: '/', agent: false, headers, timeout: 5000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    r.on('timeout', () => r.destroy(new Error('timeout')));
    r.on('error', reject);
    r.end();
  });
}
const bodyOf = async (host: string, path = '/') => {
  const r = await get(host, path);
  return r === 'refused' ? 'refused' : r.body;
};

async function rules(): Promise<Array<Record<string, unknown>>> {
  const r = await daemon.api('GET', '/api/web/rules', undefined, apiToken);
  return r.list as Array<Record<string, unknown>>;
}

const row = (p: Page, name: string) => p.getByTestId('web-row').filter({ has: p.getByTestId('web-row-name').getByText(name, { exact: true }) });
const rowState = (p: Page, name: string) => row(p, name).getByTestId('web-status').getAttribute('data-state');
const rowRequests = async (p: Page, name: string) => {
  const el = row(p, name).getByTestId('web-fig-requests');
  return (await el.count()) ? Number(await el.getAttribute('data-value')) : 0;
};

describe('web service console e2e (chromium + built daemon + loopback backend)', () => {
  beforeAll(async () => {
    requirePrerequisites();
    backend = createServer((req, res) => {
      backendHits.push(`${req.method} ${req.headers.host} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`backend says hi to ${req.headers.host}${req.url}`);
    });
    backendPort = await listen(backend);
    blocker = createTcpServer((s) => s.destroy());
    blockedPort = await listen(blocker);
    rulePort = await freePort();
    ({ daemon, apiToken, browser, context, page } = await openConsole(1366, 1000, pageErrors));
  }, 90_000);

  afterEach(shotOnFailure('web', () => page, () => daemon));

  afterAll(async () => {
    await closeConsole({ daemon, browser, context });
    await new Promise<void>((r) => (backend ? backend.close(() => r()) : r()));
    await new Promise<void>((r) => (blocker ? blocker.close(() => r()) : r()));
  }, 30_000);

  it('creates a rule through the form: a reverse-proxy sub rule for a domain and a text-output default', async () => {
    await page.goto(`${daemon.url}#/web`);
    await expect.poll(() => page.title()).toBe('Lucky | Web服务');
    await page.getByTestId('web-empty').waitFor();
    await shot(page, 'web-01-empty');

    await page.getByTestId('web-add').click();
    await page.getByTestId('web-name').fill('站点');
    await page.getByTestId('web-address').fill('127.0.0.1');
    await page.getByTestId('web-port').fill(String(rulePort));
    await shot(page, 'web-02-form-basic');

    await page.getByTestId('web-tab-service').click();
    await expect(page.getByTestId('web-default-type').inputValue()).resolves.toBe('文本输出');
    await page.getByTestId('web-default-status').fill('200');
    await page.getByTestId('web-default-body').fill('default text for {clientIP}');

    await page.getByTestId('web-tab-subrules').click();
    await page.getByTestId('web-sub-empty').waitFor();
    await page.getByTestId('web-sub-add').click();
    await page.getByTestId('web-sub-name').fill('应用');
    // Spec section 5: the sub rule's domain cannot be empty; nothing is added.
    await page.getByTestId('web-sub-done').click();
    await expect(page.getByTestId('web-sub-error-message').textContent()).resolves.toBe('域名不能为空');
    await expect(page.getByTestId('web-sub-domains').getAttribute('aria-invalid')).resolves.toBe('true');
    await shot(page, 'web-03-sub-validation');

    // After a refused OK the form is checked on every change: the next problem is the backend list.
    await page.getByTestId('web-sub-domains').fill('app.example.com');
    await expect.poll(() => page.getByTestId('web-sub-error-message').textContent()).toBe('后端地址不能为空');
    await expect(page.getByTestId('web-sub-domains').getAttribute('aria-invalid')).resolves.not.toBe('true');
    await expect(page.getByTestId('web-sub-service-type').inputValue()).resolves.toBe('反向代理');
    await page.getByTestId('web-sub-service-targets').fill(`http://127.0.0.1:${backendPort}`);
    await expect.poll(() => page.getByTestId('web-sub-error').count()).toBe(0);
    await shot(page, 'web-04-sub-form');
    await page.getByTestId('web-sub-done').click();
    await expect.poll(() => page.getByTestId('web-sub-name').count()).toBe(0);
    await expect(page.getByTestId('web-sub-row').count()).resolves.toBe(1);
    await expect(page.getByTestId('web-sub-table').textContent()).resolves.toContain('app.example.com');
    await shot(page, 'web-05-form-subrules');

    await page.getByTestId('web-tab-access').click();
    await openFold(page.getByTestId('web-access-cors'));
    await flip(page.getByTestId('web-access-cors-enable'), true);
    await expect(page.getByTestId('web-access-cors-methods').inputValue()).resolves.toBe('POST, GET, PUT, OPTIONS, DELETE');
    await flip(page.getByTestId('web-access-cors-enable'), false);
    await shot(page, 'web-06-form-access');

    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    await row(page, '站点').waitFor();
    await expect.poll(() => rowState(page, '站点'), { timeout: 15_000 }).toBe('running');

    expect(await bodyOf('app.example.com', '/hello')).toBe(`backend says hi to app.example.com/hello`);
    expect(backendHits.at(-1)).toBe('GET app.example.com /hello');
    expect(await bodyOf('other.test')).toBe('default text for 127.0.0.1');

    const [r] = await rules();
    expect(r).toMatchObject({ name: '站点', address: '127.0.0.1', port: rulePort, defaultService: { type: 'text', status: 200 } });
    expect((r!.subRules as Array<Record<string, unknown>>)[0]).toMatchObject({ name: '应用', domains: ['app.example.com'], service: { type: 'proxy' } });
  });

  it('the list shows the figures growing', async () => {
    for (let i = 0; i < 5; i++) await get('app.example.com', `/n${i}`);
    await get('missing.test');
    await expect.poll(() => rowRequests(page, '站点'), { timeout: 10_000 }).toBeGreaterThanOrEqual(8);
    const figures = row(page, '站点').getByTestId('web-figures');
    await expect(figures.getByTestId('web-fig-code').first().getAttribute('data-code')).resolves.toBe('200');
    await expect(figures.getByTestId('web-fig-out').textContent()).resolves.toMatch(/\d(\.\d+)? (B|KB)/);
    const before = await rowRequests(page, '站点');
    for (let i = 0; i < 3; i++) await get('app.example.com');
    await expect.poll(() => rowRequests(page, '站点'), { timeout: 10_000 }).toBe(before + 3);
    await shot(page, 'web-07-list-figures');
  });

  it("an engine error shows as that rule's status", async () => {
    const r = await daemon.api('POST', '/api/web/rules', { name: 'busy', address: '127.0.0.1', port: blockedPort }, apiToken);
    expect(r.ret).toBe(0);
    await expect.poll(() => rowState(page, 'busy'), { timeout: 15_000 }).toBe('error');
    // In the console's language (Chinese here), from the engine's message keys.
    await expect(row(page, 'busy').getByTestId('web-status-message').textContent()).resolves.toBe(`端口 ${blockedPort} 已被占用（127.0.0.1:${blockedPort}）`);
    // The other rule keeps serving.
    expect(await bodyOf('other.test')).toBe('default text for 127.0.0.1');
    await shot(page, 'web-08-list-error');
  });

  it('rule form checks bounds before sending', async () => {
    let writes = 0;
    const count = (q: { method(): string; url(): string }) => {
      if (['PUT', 'POST'].includes(q.method()) && q.url().includes('/api/web/rules')) writes++;
    };
    page.on('request', count);
    await row(page, '站点').getByTestId('web-edit').click();
    await expect(page.getByTestId('web-name').inputValue()).resolves.toBe('站点');
    await page.getByTestId('web-port').fill('70000');
    await page.getByTestId('web-tab-access').click();
    await page.getByTestId('web-accesslog-capacity').fill('200000');
    await page.getByTestId('web-save').click();
    // The first problem is the port: the form goes back to its tab.
    await expect(page.getByTestId('web-form-error-message').textContent()).resolves.toMatch(/^监听端口/);
    await expect(page.getByTestId('web-port').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByTestId('web-port').fill(String(rulePort));
    await expect.poll(() => page.getByTestId('web-form-error-message').textContent()).toMatch(/^访问日志容量/);
    await shot(page, 'web-09-form-validation');
    expect(writes).toBe(0);
    page.off('request', count);
    await page.getByRole('button', { name: '取消' }).click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
  });

  it('batch domain replace: empty refused, then the domain moves and is served', async () => {
    await page.getByTestId('web-replace-open').click();
    await page.getByTestId('web-replace-run').click();
    await expect(page.getByTestId('web-replace').getByText('原域名不能为空')).toBeTruthy();
    await page.getByTestId('web-replace').getByText('原域名不能为空').waitFor();
    await page.getByTestId('web-replace-from').fill('app.example.com');
    await page.getByTestId('web-replace-to').fill('app2.example.com');
    await page.getByTestId('web-replace-rules').click();
    await page.getByRole('option', { name: '站点', exact: true }).click();
    await page.keyboard.press('Escape');
    await shot(page, 'web-10-replace');
    await page.getByTestId('web-replace-run').click();
    await expect.poll(() => page.getByTestId('web-replace-from').count()).toBe(0);
    await page.getByTestId('notice').filter({ hasText: '已替换' }).first().waitFor();
    await expect.poll(() => row(page, '站点').getByTestId('web-row-domains').textContent()).toBe('app2.example.com');
    await expect.poll(() => bodyOf('app2.example.com', '/moved'), { timeout: 10_000 }).toBe('backend says hi to app2.example.com/moved');
    expect(await bodyOf('app.example.com')).toBe('default text for 127.0.0.1');
  });

  it('access log with a chosen count, and the service log', async () => {
    await row(page, '站点').getByTestId('web-log-open').click();
    await page.getByTestId('web-access-table').waitFor();
    await expect.poll(() => page.getByTestId('web-access-row').first().textContent()).toContain('app.example.com');
    await expect(page.getByTestId('web-access-table').textContent()).resolves.toContain('app2.example.com');
    await expect(page.getByTestId('web-access-table').textContent()).resolves.toContain('应用');
    await shot(page, 'web-11-access-log');
    await page.getByTestId('web-log-count').fill('2');
    await expect.poll(() => page.getByTestId('web-access-row').count(), { timeout: 10_000 }).toBe(2);
    await page.getByTestId('web-log-tab-log').click();
    // The rule's log in the console's language too (it keeps message keys, not text).
    await expect.poll(() => page.getByTestId('web-log-text').textContent(), { timeout: 10_000 }).toContain(`正在监听 http://127.0.0.1:${rulePort}`);
    await shot(page, 'web-12-service-log');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('web-log-text').count()).toBe(0);
  });

  it('basic auth on the sub rule; a blank password on a later save keeps the stored one', async () => {
    await row(page, '站点').getByTestId('web-edit').click();
    await page.getByTestId('web-tab-subrules').click();
    await page.getByTestId('web-sub-edit').first().click();
    await openFold(page.getByTestId('web-sub-access-basicAuth'));
    await flip(page.getByTestId('web-sub-access-auth-enable'), true);
    await page.getByTestId('web-sub-access-user-add').click();
    await page.getByTestId('web-sub-access-user').fill('alice');
    // A new user without a password is refused before sending.
    await page.getByTestId('web-sub-done').click();
    await expect(page.getByTestId('web-sub-error-message').textContent()).resolves.toBe('用户 alice 的密码不能为空');
    await page.getByTestId('web-sub-access-password').fill('pw-Alice-1');
    await shot(page, 'web-13a-basic-auth');
    await page.getByTestId('web-sub-done').click();
    await expect.poll(() => page.getByTestId('web-sub-name').count()).toBe(0);
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    const status = async () => {
      const r = await get('app2.example.com');
      return r === 'refused' ? 0 : r.status;
    };
    await expect.poll(status, { timeout: 10_000 }).toBe(401);
    expect((await getAuth('app2.example.com', 'alice:pw-Alice-1')).body).toBe('backend says hi to app2.example.com/');
    expect((await getAuth('app2.example.com', 'alice:wrong')).status).toBe(401);
    // The API shows the stored password as the secret mask, never the hash.
    const stored = ((await rules())[0]!.subRules as Array<{ basicAuth: { users: Array<{ password: string }> } }>)[0]!.basicAuth.users[0]!;
    expect(stored.password).toBe('******');

    // Saved again without touching the password: it stays what it was.
    await row(page, '站点').getByTestId('web-edit').click();
    await page.getByTestId('web-tab-subrules').click();
    await page.getByTestId('web-sub-edit').first().click();
    await openFold(page.getByTestId('web-sub-access-basicAuth'));
    await expect(page.getByTestId('web-sub-access-password').inputValue()).resolves.toBe('');
    await expect(page.getByTestId('web-sub-access-password').getAttribute('placeholder')).resolves.toBe('留空不修改');
    await page.getByTestId('web-sub-name').fill('应用 2');
    await page.getByTestId('web-sub-done').click();
    await expect.poll(() => page.getByTestId('web-sub-name').count()).toBe(0);
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    await expect.poll(async () => ((await rules())[0]!.subRules as Array<{ name: string }>)[0]!.name).toBe('应用 2');
    expect((await getAuth('app2.example.com', 'alice:pw-Alice-1')).status).toBe(200);

    // And off again for the rest of the run.
    await row(page, '站点').getByTestId('web-edit').click();
    await page.getByTestId('web-tab-subrules').click();
    await page.getByTestId('web-sub-edit').first().click();
    await openFold(page.getByTestId('web-sub-access-basicAuth'));
    await flip(page.getByTestId('web-sub-access-auth-enable'), false);
    await page.getByTestId('web-sub-done').click();
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    await expect.poll(() => bodyOf('app2.example.com'), { timeout: 10_000 }).toBe('backend says hi to app2.example.com/');
  });

  it('the switch closes the port (connection refused) and opens it again', async () => {
    // The switch's input is visually hidden under its track: click it directly.
    await row(page, '站点').getByTestId('web-toggle').dispatchEvent('click');
    await expect.poll(() => rowState(page, '站点'), { timeout: 15_000 }).not.toBe('running');
    await expect.poll(() => bodyOf('other.test'), { timeout: 10_000 }).toBe('refused');
    await shot(page, 'web-13-list-off');
    await row(page, '站点').getByTestId('web-toggle').dispatchEvent('click');
    await expect.poll(() => rowState(page, '站点'), { timeout: 15_000 }).toBe('running');
    await expect.poll(() => bodyOf('other.test'), { timeout: 10_000 }).toBe('default text for 127.0.0.1');
  });

  it('module settings: access log entries shown (1-256), serving threads (0-16)', async () => {
    await page.getByTestId('web-settings-open').click();
    await page.getByTestId('web-set-show').fill('300');
    await page.getByTestId('web-settings-save').click();
    await expect.poll(() => page.getByTestId('web-set-show').getAttribute('aria-invalid')).toBe('true');
    await page.getByTestId('web-set-show').fill('20');
    await page.getByTestId('web-set-threads').fill('17');
    await page.getByTestId('web-settings-save').click();
    await expect.poll(() => page.getByTestId('web-set-threads').getAttribute('aria-invalid')).toBe('true');
    // The main thread only: the rules move over and keep serving.
    await page.getByTestId('web-set-threads').fill('1');
    await page.getByTestId('web-settings-save').click();
    await expect.poll(() => page.getByTestId('web-set-show').count()).toBe(0);
    const r = await daemon.api('GET', '/api/web/configure', undefined, apiToken);
    expect(r.configure).toMatchObject({ accessLogShow: 20, servingThreads: 1 });
    await expect.poll(() => bodyOf('other.test'), { timeout: 10_000 }).toBe('default text for 127.0.0.1');
    await expect.poll(() => rowState(page, '站点'), { timeout: 10_000 }).toBe('running');
  });

  it('in English after a language switch', async () => {
    await page.getByTestId('lang-switch').selectOption('en_US');
    await expect.poll(() => page.title(), { timeout: 15_000 }).toBe('Lucky | Web service');
    await row(page, '站点').waitFor();
    await expect.poll(() => row(page, '站点').getByTestId('web-status').textContent()).toBe('Running');
    // The engine's own status message follows the language too.
    await expect
      .poll(() => row(page, 'busy').getByTestId('web-status-message').textContent())
      .toBe(`port ${blockedPort} in use (127.0.0.1:${blockedPort})`);
    await expect(page.getByTestId('web-add').textContent()).resolves.toBe('Add rule');
    await shot(page, 'web-14-list-english');
    await row(page, '站点').getByTestId('web-edit').click();
    await page.getByTestId('web-tab-subrules').click();
    await page.getByTestId('web-sub-edit').first().click();
    await expect(page.getByTestId('web-sub-domains').inputValue()).resolves.toBe('app2.example.com');
    await page.getByTestId('web-sub-domains').fill('');
    await page.getByTestId('web-sub-done').click();
    await expect(page.getByTestId('web-sub-error-message').textContent()).resolves.toBe('Domain cannot be empty');
    await shot(page, 'web-15-sub-english');
    await page.getByTestId('web-sub-form').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('web-sub-domains').count()).toBe(0);
    await page.getByTestId('web-tab-service').click();
    await shot(page, 'web-16-form-english');
    await page.getByTestId('web-tab-https').click();
    await page.getByTestId('web-cert-add').click();
    await page.getByTestId('web-cert-0-cert').waitFor();
    await shot(page, 'web-16b-https-english');
    // At 768 px or narrower the form takes the whole window.
    await page.setViewportSize({ width: 700, height: 900 });
    await page.getByTestId('web-tab-basic').click();
    await shot(page, 'web-17-form-narrow');
    await page.setViewportSize({ width: 1366, height: 1000 });
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);
    await row(page, 'busy').getByTestId('web-log-open').click();
    await page.getByTestId('web-log-tab-log').click();
    await page.getByTestId('web-log-text').waitFor();
    await expect.poll(() => page.getByTestId('web-log-text').textContent()).toContain(`could not start: port ${blockedPort} in use (127.0.0.1:${blockedPort})`);
    await shot(page, 'web-18-log-english');
    await page.keyboard.press('Escape');
  });

  it('deletes a rule', async () => {
    await row(page, 'busy').getByTestId('web-delete').click();
    await page.getByTestId('web-delete-confirm').click();
    await expect.poll(() => row(page, 'busy').count()).toBe(0);
    expect((await rules()).map((r) => r.name)).toEqual(['站点']);
  });

  it('an HTTPS rule with an automatic certificate: the HTTP redirect port is set to 80 on the pick, the rule saved as auto', async () => {
    await page.getByTestId('web-add').click();
    await page.getByTestId('web-name').fill('auto-https');
    // Kept off: a running rule would order its certificate from the CA of the settings (a public one by default).
    await flip(page.getByTestId('web-enable'), false);
    await page.getByTestId('web-address').fill('127.0.0.1');
    await page.getByTestId('web-port').fill(String(await freePort()));
    await page.getByTestId('web-protocol').getByText('HTTPS').click();
    await page.getByTestId('web-tab-https').click();
    await expect(page.getByTestId('web-redirect-port').inputValue()).resolves.toBe('0');
    await page.getByTestId('web-cert-add').click();
    await page.getByTestId('web-cert-0-source').getByText('Automatic (ACME)').click();
    await expect.poll(() => page.getByTestId('web-redirect-port').inputValue()).toBe('80');
    // Ordered, not given: no certificate or key to fill in.
    await expect.poll(() => page.getByTestId('web-cert-0-cert').count()).toBe(0);
    await expect(page.getByTestId('web-cert-0-key').count()).resolves.toBe(0);
    // DNS-01 asks for the DDNS task writing its records; back to HTTP-01, answered on the redirect port.
    await page.getByTestId('web-cert-0-challenge').getByText('DNS-01').click();
    await page.getByTestId('web-cert-0-dnstask').waitFor();
    await shot(page, 'web-19a-auto-cert-dns01');
    await page.getByTestId('web-cert-0-challenge').getByText('HTTP-01').click();
    await expect.poll(() => page.getByTestId('web-cert-0-dnstask').count()).toBe(0);
    // No sub rules: the names are the certificate's own.
    await page.getByTestId('web-cert-0-domains').fill('auto.example.com');
    await shot(page, 'web-19b-auto-cert');
    await page.getByTestId('web-save').click();
    await expect.poll(() => page.getByTestId('web-name').count()).toBe(0);

    const key = (await rules()).find((r) => r.name === 'auto-https')!.key as string;
    const saved = (await daemon.api('GET', `/api/web/rules/${key}`, undefined, apiToken)).rule as { protocol: string; enable: boolean; httpRedirectPort: number; certs: Array<Record<string, unknown>> };
    expect(saved).toMatchObject({ protocol: 'https', enable: false, httpRedirectPort: 80 });
    expect(saved.certs).toEqual([{ source: 'auto', cert: '', key: '', domains: ['auto.example.com'], challenge: 'http-01', dnsTask: '' }]);
    await expect.poll(() => row(page, 'auto-https').getByTestId('web-row-cert').textContent()).toBe('Automatic certificate: auto.example.com');
    await shot(page, 'web-20-list-auto-cert');
    expect((await daemon.api('DELETE', `/api/web/rules/${key}`, undefined, apiToken)).ret).toBe(0);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
