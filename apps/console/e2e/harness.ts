/**
 * E2E plumbing: the built daemon as a child process on a free loopback port, Debian's chromium via
 * playwright-core, bounded waits, screenshots under $LUCKY_TEST_OUTPUT/screenshots.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const DAEMON = join(ROOT, 'apps/daemon/dist/main.js');
export const CONSOLE_DIST = join(ROOT, 'apps/console/dist');
export const CHROMIUM = '/usr/bin/chromium';
export const PASSWORD = 'e2e-Secret-pass-1';
export const SHOTS = join(resolve(ROOT, process.env.LUCKY_TEST_OUTPUT ?? 'test-output'), 'screenshots');

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? res(a.port) : rej(new Error('no port'))));
    });
  });
}

export function requirePrerequisites(): void {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); npm test does it when it can`);
  }
  if (!existsSync(DAEMON)) throw new Error(`${DAEMON} is missing: run npm run build first`);
  if (!existsSync(join(CONSOLE_DIST, 'index.html'))) throw new Error(`${CONSOLE_DIST}/index.html is missing: build the console first`);
}

export class Daemon {
  child: ChildProcess | undefined;
  output = '';
  readonly dataDir = mkdtempSync(join(tmpdir(), 'lucky-console-e2e-'));
  constructor(public port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/`;
  }

  async start(timeoutMs = 30_000): Promise<void> {
    const child = spawn(process.execPath, [DAEMON, '--port', String(this.port), '--host', '127.0.0.1', '--data-dir', this.dataDir], {
      cwd: ROOT,
      env: { ...process.env, LUCKY_ADMIN_PASSWORD: PASSWORD, LUCKY_ADMIN_USER: 'admin', LUCKY_CONSOLE_DIR: CONSOLE_DIST },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (b: Buffer) => (this.output += b.toString()));
    child.stderr!.on('data', (b: Buffer) => (this.output += b.toString()));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}:\n${this.output.slice(-2000)}`);
      try {
        const r = await fetch(`${this.url}version`, { signal: AbortSignal.timeout(1000) });
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`daemon did not answer within ${timeoutMs} ms:\n${this.output.slice(-2000)}`);
  }

  async stop(): Promise<void> {
    await this.end('SIGTERM', 8000);
  }

  /** Kill hard (no graceful close), as a crash or a supervisor restart would. */
  async kill(): Promise<void> {
    await this.end('SIGKILL');
  }

  /** Sends `signal` and waits for the exit; a SIGKILL follows after `graceMs` when given. */
  private async end(signal: NodeJS.Signals, graceMs?: number): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill(signal);
    const timer = graceMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  async api(method: string, path: string, body?: unknown, token?: string): Promise<Record<string, unknown>> {
    const r = await fetch(this.url + path.replace(/^\//, ''), {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { 'lucky-admin-token': token } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    return (await r.json()) as Record<string, unknown>;
  }

  async login(): Promise<string> {
    const r = await this.api('POST', '/api/login', { Account: 'admin', Password: PASSWORD });
    if (r.ret !== 0) throw new Error(`login failed: ${JSON.stringify(r)}`);
    return r.token as string;
  }

  cleanup(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: 60_000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** Only loopback: anything going out (which the console never should) is refused at once, and shows. */
export async function loopbackOnly(context: BrowserContext): Promise<void> {
  await context.route(
    (url) => !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname),
    (route) => route.abort('internetdisconnected'),
  );
}

/** The page's latest console errors and warnings, for the report of a failed test. */
const consoleErrors = new WeakMap<Page, string[]>();

export async function newPage(browser: Browser, width: number, height = 900): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height } });
  await loopbackOnly(context);
  const page = await context.newPage();
  const said: string[] = [];
  consoleErrors.set(page, said);
  page.on('console', (m) => {
    if (m.type() !== 'error' && m.type() !== 'warning') return;
    said.push(`${m.type()}: ${m.text().slice(0, 500)}`);
    if (said.length > 20) said.shift();
  });
  page.setDefaultTimeout(15_000);
  page.setDefaultNavigationTimeout(20_000);
  return { context, page };
}

/**
 * Screenshots are for people reading test-output/, not assertions: LUCKY_SCREENSHOTS=0 leaves them out
 * (npm test takes them in one of its two runs: the pages are the browser's, the same on either Node).
 */
const SHOOTING = process.env.LUCKY_SCREENSHOTS !== '0';

export async function shot(page: Page, name: string): Promise<void> {
  if (!SHOOTING) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
}

/** A file's own `shot`: names prefixed, taken once dialogs' opening transitions have ended (`settleMs`). */
export function shooter(prefix: string, settleMs = 400): (page: Page, name: string) => Promise<void> {
  return async (page, name) => {
    if (!SHOOTING) return;
    await sleep(settleMs);
    await shot(page, prefix ? `${prefix}-${name}` : name);
  };
}

export interface OpenConsole {
  daemon: Daemon;
  /** A session token for setting things up through the API. */
  apiToken: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * What every screen suite starts from: the built daemon on a free port, chromium, and a page logged in
 * through the form and landed on /status. Page errors go into `pageErrors`.
 */
export async function openConsole(width: number, height: number, pageErrors: string[]): Promise<OpenConsole> {
  const daemon = new Daemon(await freePort());
  await daemon.start();
  const apiToken = await daemon.login();
  const browser = await launchBrowser();
  const { context, page } = await newPage(browser, width, height);
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  await page.goto(daemon.url + '#/login');
  await page.getByTestId('login-account').fill('admin');
  await page.getByTestId('login-password').fill(PASSWORD);
  await page.getByTestId('login-submit').click();
  await page.waitForURL(/#\/status$/);
  return { daemon, apiToken, browser, context, page };
}

/** Closes what openConsole opened; each part may be missing when setup failed half-way. */
export async function closeConsole(c: Partial<OpenConsole>): Promise<void> {
  await c.context?.close().catch(() => undefined);
  await c.browser?.close().catch(() => undefined);
  await c.daemon?.stop().catch(() => undefined);
  c.daemon?.cleanup();
}

/**
 * An afterEach hook that keeps a screenshot of the page when a test failed, and prints what the page
 * showed (address, open dialogs, its latest console errors) and the daemon's last log lines: CI keeps
 * the log, not the screenshot.
 */
export function shotOnFailure(prefix: string, page: () => Page | undefined, daemon?: () => Daemon | undefined) {
  return async (ctx: { task: { name: string; result?: { state?: string } } }) => {
    const p = page();
    if (ctx.task.result?.state === 'fail' && p) {
      await shot(p, `${prefix}-FAILED-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
      const dialogs = await p
        .locator('[role=dialog]')
        .evaluateAll((els) => els.map((e) => (e.textContent ?? '').replace(/\s+/g, ' ').slice(0, 400)))
        .catch((err: Error) => [`(could not read: ${err.message})`]);
      const logTail = (daemon?.()?.output ?? '').trim().split('\n').slice(-15).map((l) => `daemon: ${l.slice(0, 300)}`);
      // Which of the console's remembered items the page still had (names only: no token in logs).
      const stored = await p
        .evaluate(() => Object.keys(JSON.parse(localStorage.getItem('lucky') ?? '{}') as object).join(','))
        .catch((err: Error) => `(could not read: ${err.message})`);
      const lines = [`page ${p.url()}`, `stored: ${stored}`, ...dialogs.map((d) => `dialog: ${d}`), ...(consoleErrors.get(p) ?? []), ...logTail];
      process.stderr.write(`[${prefix}] after the failure of "${ctx.task.name}":\n  ${lines.join('\n  ')}\n`);
    }
  };
}

/** Switches `module` off in the daemon while `check` runs, then on again; both changes must take. */
export async function withModuleOff(daemon: Daemon, apiToken: string, module: string, check: () => Promise<void>): Promise<void> {
  const cfg = await daemon.api('GET', '/api/baseconfigure', undefined, apiToken);
  const all = (cfg.baseconfigure as { EnabledModules: string[] }).EnabledModules;
  expect((await daemon.api('PUT', '/api/baseconfigure', { EnabledModules: all.filter((m) => m !== module) }, apiToken)).ret).toBe(0);
  try {
    await check();
  } finally {
    expect((await daemon.api('PUT', '/api/baseconfigure', { EnabledModules: all }, apiToken)).ret).toBe(0);
  }
}

/** Switches modules on (beside those already on); the menu shows them after a reload. */
export async function enableModules(daemon: Daemon, apiToken: string, modules: readonly string[]): Promise<void> {
  const cfg = (await daemon.api('GET', '/api/baseconfigure', undefined, apiToken)).baseconfigure as { EnabledModules: string[] };
  expect((await daemon.api('PUT', '/api/baseconfigure', { EnabledModules: [...new Set([...cfg.EnabledModules, ...modules])] }, apiToken)).ret).toBe(0);
}

/** Opens a submenu entry of the left menu from /status (reloaded, so the module list is fresh). */
export async function openSubmenuEntry(page: Page, daemon: Daemon, group: string, entry: string): Promise<void> {
  await page.goto(`${daemon.url}#/status`);
  await page.reload();
  const item = page.locator(`[data-testid="left-menu"] [data-menu="${entry}"]`);
  await page.locator(`[data-testid="left-menu"] [data-menu="${group}"]`).waitFor();
  // The submenu may already be open (it opens by itself while one of its entries is enabled); a click would fold it.
  if (!(await item.isVisible())) await page.locator(`[data-testid="left-menu"] [data-menu="${group}"]`).click();
  await item.click();
  await page.waitForURL(new RegExp(`#/${entry}$`));
}

/** A Mantine Select: open it, pick the option by its label. */
export async function pickOption(p: Page, select: Locator, label: string): Promise<void> {
  await select.click();
  await p.getByRole('option', { name: label, exact: true }).click();
}

/**
 * A Mantine switch's input sits hidden under its track, so it is clicked directly; the state is
 * awaited so that the next action does not race the form's update (a click right after could be
 * overwritten by the switch's change, computed from the form before it).
 */
export async function flip(sw: Locator, on: boolean): Promise<void> {
  await sw.dispatchEvent('click');
  await expect.poll(() => sw.isChecked()).toBe(on);
}

/**
 * Opens an access-control fold and waits for its opening transition to end: the fold's content is
 * shown at once but is measured and grown over 200 ms, and the next action waits for it to settle.
 */
export async function openFold(control: Locator): Promise<void> {
  await control.click();
  const region = control.page().locator(`[id="${await control.getAttribute('aria-controls')}"]`);
  await expect.poll(() => region.evaluate((e) => e.getAttribute('aria-hidden') !== 'true' && (e as HTMLElement).style.height === '')).toBe(true);
}
