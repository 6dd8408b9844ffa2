// Console load budget: gzipped JS the login page and the overview page load, and the time from
// navigation to an interactive login form in headless Chromium on loopback (cold cache, median).
// Usage: npm run build && node bench/console/run.mjs   (RUNS=5 by default)
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { freePort, median, printTable, waitForOutput } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(root, 'apps/daemon/dist/main.js');
const CHROMIUM = '/usr/bin/chromium';
const RUNS = Number(process.env.RUNS ?? 5);
const PASSWORD = 'bench-password-1';
const BUDGET_KB = 250;
const GOAL_MS = 1000;
const { chromium } = createRequire(join(root, 'apps/console/package.json'))('playwright-core');

requireBenchPackages('console');
for (const f of [MAIN, join(root, 'apps/console/dist/index.html'), CHROMIUM]) {
  if (!existsSync(f)) {
    console.error(`missing ${f}: run npm run build`);
    process.exit(1);
  }
}

const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-console-'));
const daemon = spawn(process.execPath, [MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, LUCKY_ADMIN_PASSWORD: PASSWORD, LUCKY_CONSOLE_DIR: join(root, 'apps/console/dist') },
});
const base = `http://127.0.0.1:${port}/`;
let browser;
try {
  await waitForOutput(daemon, /listening on/);
  const login = await (
    await fetch(base + 'api/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Account: 'admin', Password: PASSWORD }) })
  ).json();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });

  /** One cold visit: JS files fetched (raw and gzip -9 sizes) and ms until `ready` is usable. */
  async function visit(hash, ready, token) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    // Loopback only: the remote-info probe is refused at once, as without network.
    await context.route((u) => u.hostname !== '127.0.0.1', (r) => r.abort('internetdisconnected'));
    if (token) await context.addInitScript((t) => localStorage.setItem('lucky', JSON.stringify({ token: t })), token);
    const page = await context.newPage();
    const js = new Map();
    page.on('response', async (res) => {
      if (!res.url().endsWith('.js')) return;
      const body = await res.body().catch(() => null);
      if (body) js.set(res.url(), { raw: body.length, gz: gzipSync(body, { level: 9 }).length });
    });
    const t0 = performance.now();
    await page.goto(base + hash, { waitUntil: 'commit' });
    const el = page.locator(ready);
    await el.waitFor({ state: 'visible', timeout: 30_000 });
    if (ready.includes('login')) await page.waitForFunction((sel) => !document.querySelector(sel)?.hasAttribute('disabled'), ready);
    const ms = performance.now() - t0;
    await page.waitForLoadState('networkidle').catch(() => undefined);
    await context.close();
    const files = [...js.values()];
    return { ms, files: files.length, raw: files.reduce((a, f) => a + f.raw, 0), gz: files.reduce((a, f) => a + f.gz, 0) };
  }

  await visit('#/login', '[data-testid="login-submit"]'); // warm the daemon's file cache, not the browser's
  const logins = [];
  for (let i = 0; i < RUNS; i++) logins.push(await visit('#/login', '[data-testid="login-submit"]'));
  const overview = await visit('#/status', '[data-testid="status-proc-cpu"]', login.token);
  const loginSize = logins[0];
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const t = median(logins.map((l) => l.ms));
  printTable('console: JS loaded (gzip -9) and time to an interactive login form', [
    ['page', 'JS files', 'raw', 'gzip', `budget ${BUDGET_KB} KB gz`],
    ['login', loginSize.files, kb(loginSize.raw), kb(loginSize.gz), loginSize.gz / 1024 <= BUDGET_KB ? 'within' : 'OVER'],
    ['overview', overview.files, kb(overview.raw), kb(overview.gz), overview.gz / 1024 <= BUDGET_KB ? 'within' : 'OVER'],
  ]);
  printTable('', [
    ['navigation → interactive login form', 'median', 'min', 'max', `goal < ${GOAL_MS} ms`],
    ['', `${t.toFixed(0)} ms`, `${Math.min(...logins.map((l) => l.ms)).toFixed(0)} ms`, `${Math.max(...logins.map((l) => l.ms)).toFixed(0)} ms`, t < GOAL_MS ? 'met' : 'MISSED'],
  ]);
  console.log(`  (${RUNS} cold runs, loopback, headless Chromium; ratio to goal ${(t / GOAL_MS).toFixed(2)}, JS ratio to budget ${(loginSize.gz / 1024 / BUDGET_KB).toFixed(2)})`);
} finally {
  await browser?.close().catch(() => undefined);
  daemon.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}
