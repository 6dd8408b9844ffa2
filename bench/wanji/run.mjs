// Wanji admin at scale: DEVICES simulated Lucky devices (small local HTTP servers answering like
// one: version, status, module list, whoami, five wake-on-LAN rules; the fakes the module's tests
// use) managed by the built daemon, all in one run:
//   1. poll cycles of the whole fleet (POST /api/wanji/refresh), per-device poll time p50/p99, next
//      to a bare client in this process (fetch, the same requests, the same concurrency, no
//      contracts, no state): the reference of what the requests themselves cost here;
//   2. the same with HANGING more devices that accept connections and never answer: the cycle must
//      stay bounded by the per-device timeout, the others' poll times unchanged;
//   3. the fleet list: the API's answer time and size, and, with Debian's chromium, the console
//      page drawing its first page of rows, then every row on one page (goal: under 1 s);
//   4. the daemon's RSS before any device, after the cycles (after a forced GC), and its peak.
// Usage: npm run bench -- wanji   (or: npm run build && node bench/wanji/run.mjs)
// DEVICES=200 HANGING=10 CYCLES=5 TIMEOUT=3 change the size.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { importTestHelper, mb, median, printTable, reaper, ROOT, rssOf, sleep, startBenchDaemon, withRss } from '../lib.mjs';
import { installBenchPackages } from '../packages.mjs';

const DEVICES = Number(process.env.DEVICES ?? 200);
const HANGING = Number(process.env.HANGING ?? 10);
const CYCLES = Number(process.env.CYCLES ?? 5);
const TIMEOUT = Number(process.env.TIMEOUT ?? 3);
const CONCURRENCY = 16;
const GOAL_RENDER_MS = 1000;
const PASSWORD = 'bench-password-1';
const TOKEN = `lk_${'b'.repeat(43)}`;
const CHROMIUM = '/usr/bin/chromium';

// Chromium draws the console's part; without it that part is skipped, so a failed install ends nothing.
installBenchPackages(['wanji']);
const reap = reaper();
const { fakeDevice } = await importTestHelper(join(ROOT, 'apps/daemon/src/modules/wanji/testing/fakedevice.ts'));
const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-wanji-'));
reap.atExit(() => rmSync(dir, { recursive: true, force: true }));

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const ms = (n) => `${Math.round(n)} ms`;

const fakes = [];
for (let i = 0; i < DEVICES; i++) fakes.push(await fakeDevice({ token: TOKEN, rules: 5, hostname: `dev${i}`, version: i % 10 === 0 ? '0.0.9' : '0.1.0' }));
const hanging = [];
for (let i = 0; i < HANGING; i++) hanging.push(await fakeDevice({ token: TOKEN, hang: true }));

// The daemon on one core, this process (the fakes, the reference client) on the other when there is one.
const d = await startBenchDaemon({ cpu: '0', dataDir: dir, password: PASSWORD });
reap.track(d.p);
try {
  await d.api('PUT', '/api/wanji/configure', { interval: 3600, timeout: TIMEOUT, concurrency: CONCURRENCY, expiryDays: 14 });
  await d.api('GET', '/api/execgc');
  await sleep(500);
  const rssBefore = rssOf(d.p.pid);

  // Created switched off (nothing is asked), then switched on: each starts its poller entry.
  const keys = [];
  for (const [i, f] of fakes.entries()) keys.push((await d.api('POST', '/api/wanji/rules', { name: `device ${i}`, enable: false, url: f.url, token: TOKEN, group: `site ${i % 8}` })).key);
  for (const k of keys) await d.api('PUT', `/api/wanji/rules/${k}/enable`, { enable: true });

  /** One full round through the daemon: its own cycle time, and every device's poll time from the list. */
  async function cycle() {
    const r = await d.api('POST', '/api/wanji/refresh?wait=120');
    if (!r.done) throw new Error('a poll cycle did not end within 120 s');
    const list = (await d.api('GET', '/api/wanji/rules')).list;
    return { ms: r.ms, online: r.online, latencies: list.filter((x) => x.state.latency !== null).map((x) => x.state.latency) };
  }

  await cycle(); // the first round: connections made, code warmed
  const measured = await withRss(d.p.pid, async () => {
    const rounds = [];
    for (let i = 0; i < CYCLES; i++) rounds.push(await cycle());
    return rounds;
  });
  const rounds = measured.value;
  const lat = rounds.flatMap((r) => r.latencies);

  // The reference: the same requests from a bare client, the same concurrency.
  async function bareCycle() {
    const t0 = performance.now();
    const times = [];
    let next = 0;
    const get = (url) => fetch(url, { headers: { authorization: `Bearer ${TOKEN}` }, signal: AbortSignal.timeout(TIMEOUT * 1000) }).then((r) => r.json());
    const worker = async () => {
      while (next < fakes.length) {
        const f = fakes[next++];
        const s = performance.now();
        await Promise.all(['/version', '/api/status', '/api/modules/list'].map((p) => get(f.url + p)));
        await get(`${f.url}/api/wol/rules`);
        times.push(performance.now() - s);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return { ms: performance.now() - t0, times };
  }
  await bareCycle();
  const bare = [];
  for (let i = 0; i < CYCLES; i++) bare.push(await bareCycle());
  const bareLat = bare.flatMap((b) => b.times);

  // Hanging devices among them: the round ends with their timeout, the others are polled as before.
  const hangKeys = [];
  for (const [i, h] of hanging.entries()) hangKeys.push((await d.api('POST', '/api/wanji/rules', { name: `hanging ${i}`, enable: false, url: h.url, token: TOKEN })).key);
  for (const k of hangKeys) await d.api('PUT', `/api/wanji/rules/${k}/enable`, { enable: true });
  const withHanging = [];
  for (let i = 0; i < Math.min(CYCLES, 3); i++) withHanging.push(await cycle());
  const hangLat = withHanging.flatMap((r) => r.latencies);
  const listed = (await d.api('GET', '/api/wanji/rules')).list;
  const offline = listed.filter((x) => x.state.online === 'offline').length;

  // The list as the console asks for it, while nothing polls.
  const listTimes = [];
  let listBytes = 0;
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const res = await fetch(`${d.base}/api/wanji/rules`, { headers: { 'lucky-admin-token': d.token } });
    listBytes = (await res.arrayBuffer()).byteLength;
    listTimes.push(performance.now() - t0);
  }

  // The console page, in headless chromium (when there is one): its first page of rows (50, the
  // default), then every row on one page.
  let render = null;
  if (existsSync(CHROMIUM)) {
    const { chromium } = createRequire(join(ROOT, 'apps/console/package.json'))('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
    const rows = (page, n) => page.waitForFunction((k) => document.querySelectorAll('[data-testid="wanji-row"]').length >= k, n, { timeout: 30_000, polling: 'raf' });
    try {
      const firstPage = [];
      const everyRow = [];
      const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
      await context.route((u) => u.hostname !== '127.0.0.1', (r) => r.abort('internetdisconnected'));
      await context.addInitScript((t) => localStorage.setItem('lucky', JSON.stringify({ token: t })), d.token);
      const page = await context.newPage();
      for (let i = 0; i < 5; i++) {
        // From another screen of the console, freshly loaded: nothing of the list cached, its code
        // in the browser's cache after the first run (a cold first visit is bench/console's measure).
        await page.goto(`${d.base}/#/status`);
        await page.reload();
        await page.waitForLoadState('networkidle');
        let t0 = performance.now();
        await page.evaluate(() => (location.hash = '#/wanjiadmin'));
        await rows(page, Math.min(50, DEVICES + HANGING));
        firstPage.push(performance.now() - t0);
        await page.getByTestId('wanji-page-size').click();
        const all = page.getByRole('option', { name: '全部显示' });
        await all.waitFor();
        t0 = performance.now();
        await all.click();
        await rows(page, DEVICES + HANGING);
        everyRow.push(performance.now() - t0);
      }
      await context.close();
      render = { first: firstPage[0], page: median(firstPage.slice(1)), all: median(everyRow.slice(1)) };
    } finally {
      await browser.close();
    }
  }

  const gc = await d.api('GET', '/api/execgc');
  await sleep(500);
  const rssAfter = rssOf(d.p.pid);
  const peak = Math.max(...measured.samples);

  const cycleMs = rounds.map((r) => r.ms);
  const bareMs = bare.map((b) => b.ms);
  printTable(`wanji: one poll round of ${DEVICES} devices (concurrency ${CONCURRENCY}, timeout ${TIMEOUT} s), median of ${CYCLES}`, [
    ['', 'round', 'per device p50', 'per device p99', 'devices online'],
    ['lucky daemon', ms(median(cycleMs)), ms(pct(lat, 50)), ms(pct(lat, 99)), `${rounds.at(-1).online} / ${DEVICES}`],
    ['bare fetch client (reference)', ms(median(bareMs)), ms(pct(bareLat, 50)), ms(pct(bareLat, 99)), ''],
    ['ratio lucky/bare', `${(median(cycleMs) / median(bareMs)).toFixed(2)}x`, `${(pct(lat, 50) / pct(bareLat, 50)).toFixed(2)}x`, `${(pct(lat, 99) / pct(bareLat, 99)).toFixed(2)}x`, ''],
  ]);
  const hangRound = median(withHanging.map((r) => r.ms));
  printTable(`with ${HANGING} more devices that never answer`, [
    ['', 'round', 'per device p50 (answering)', 'p99', 'offline', `bound: timeout ${TIMEOUT} s + a round`],
    ['lucky daemon', ms(hangRound), ms(pct(hangLat, 50)), ms(pct(hangLat, 99)), `${offline} / ${HANGING}`, hangRound <= TIMEOUT * 1000 + median(cycleMs) + 1000 ? 'held' : 'EXCEEDED'],
  ]);
  printTable(`the fleet list (${DEVICES + HANGING} devices)`, [
    ['', 'median', 'p99', 'size', `goal < ${GOAL_RENDER_MS} ms`],
    ['GET /api/wanji/rules', ms(median(listTimes)), ms(pct(listTimes, 99)), `${(listBytes / 1024).toFixed(0)} KB`, ''],
    ...(render
      ? [
          ['console page → first 50 rows drawn (chromium)', ms(render.page), `first ${ms(render.first)}`, '', render.page < GOAL_RENDER_MS ? 'met' : 'MISSED'],
          [`console page → all ${DEVICES + HANGING} rows on one page`, ms(render.all), '', '', render.all < GOAL_RENDER_MS ? 'met' : 'MISSED'],
        ]
      : [['console page', 'skipped: no chromium', '', '', '']]),
  ]);
  console.log(`  (load average at the end: ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${availableParallelism()} cores: other work on this machine slows the browser figures)`);
  printTable('daemon RSS', [
    ['before any device (after GC)', `after ${DEVICES + HANGING} devices and the rounds (after GC)`, 'of it JS heap in use', 'peak during the rounds', 'growth'],
    [mb(rssBefore), mb(rssAfter), mb(gc.after.heapUsed), mb(peak), mb(rssAfter - rssBefore)],
  ]);
} finally {
  reap.finish();
  await Promise.all([...fakes, ...hanging].map((f) => f.close()));
}
