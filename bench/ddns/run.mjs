// DDNS sync engine at scale: 200 tasks against the local provider servers (the same signature-
// checking fakes the tests use), driven through the daemon's API. Prints the time of one full
// sync cycle, the requests it made, and the daemon's RSS before and after 50 cycles; and how often
// the one IP source all tasks share was fetched: in the first sync, a forced sync of all, and a
// periodic check (the module's timer, set to its shortest interval, 30 s: PERIODIC=0 skips it).
// Usage: npm run bench ddns   (or: npm run build && node bench/ddns/run.mjs)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { adminApi, freePort, importTestHelper, mb, median, printTable, rssOf, sleep, waitForOutput } from '../lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(root, 'apps/daemon/dist/main.js');
const fakes = await importTestHelper(join(root, 'apps/daemon/src/lib/dns/testing/fakes.ts'));
const TASKS = Number(process.env.TASKS ?? 200);
const CYCLES = Number(process.env.CYCLES ?? 50);
/** Cycles run before the measured ones, e.g. to fill the per-task log buffers (256 lines each). */
const WARMUP = Number(process.env.WARMUP ?? 0);
/** SAME=1: the address never changes in the measured cycles (forced reads only, nothing logged). */
const SAME = process.env.SAME === '1';
const PERIODIC = process.env.PERIODIC !== '0';
const PASSWORD = 'bench-password';

const creds = {
  cloudflare: { id: '', secret: 'cf-bench-token' },
  alidns: { id: 'LTAIbench', secret: 'ali-bench-secret' },
  dnspod: { id: 'AKIDbench', secret: 'tc3-bench-secret' },
  huaweicloud: { id: 'HWbench', secret: 'hw-bench-secret' },
  baiducloud: { id: 'bce-bench', secret: 'bce-bench-secret' },
};
const starters = {
  cloudflare: fakes.fakeCloudflare,
  alidns: fakes.fakeAliDns,
  dnspod: fakes.fakeDnspod,
  huaweicloud: fakes.fakeHuawei,
  baiducloud: fakes.fakeBaidu,
};
const providers = Object.keys(creds);
const servers = {};
for (const p of providers) servers[p] = await starters[p](creds[p]);
const ip = await fakes.fakeIpServer('203.0.113.1', '2001:db8::1');

const port = await freePort();
const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-ddns-'));
const daemon = spawn(process.execPath, [MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: {
    ...process.env,
    NODE_ENV: 'test',
    LUCKY_ADMIN_PASSWORD: PASSWORD,
    LUCKY_DDNS_TEST_ENDPOINTS: JSON.stringify(Object.fromEntries(providers.map((p) => [p, servers[p].url]))),
  },
});
let done = false;
const cleanup = async () => {
  if (done) return;
  done = true;
  daemon.kill('SIGKILL');
  for (const s of Object.values(servers)) await s.close();
  await ip.close();
  rmSync(dir, { recursive: true, force: true });
};
try {
  await waitForOutput(daemon, /listening on/);
  const base = `http://127.0.0.1:${port}`;
  const { call } = await adminApi(base, PASSWORD);
  const requests = () => Object.values(servers).reduce((n, s) => n + s.requests, 0) + ip.hits;
  const rejected = () => Object.values(servers).reduce((n, s) => n + s.rejected, 0);

  // 200 tasks, created disabled so that creation is not measured; then switched on together.
  const keys = [];
  for (let i = 0; i < TASKS; i++) {
    const p = providers[i % providers.length];
    const r = await call('POST', '/api/ddns/rules', {
      name: `bench ${i}`,
      enable: false,
      provider: p,
      credentials: creds[p],
      domains: [`h${i}.example.com`],
      ipv4: { urls: [`${ip.url}/`] },
      httpTimeout: 10,
    });
    if (r.ret !== 0) throw new Error(`create failed: ${r.msg}`);
    keys.push(r.key);
  }
  // RSS after a full GC (GET /api/execgc) when the daemon has it, so that figures show what is kept.
  const settledRss = async () => {
    await call('GET', '/api/execgc').catch(() => undefined);
    await sleep(200);
    return rssOf(daemon.pid);
  };
  const rssStart = await settledRss();

  // One full cycle = every task synced (manual sync, i.e. forced: the provider is asked every time).
  // A "sync now" takes an address fetched in the last 2 s (the previous cycle's last fetch may come at
  // its end): a changed address shows in a cycle that starts 2 s after the previous one ended.
  let lastEnd = 0;
  const cycle = async () => {
    await sleep(Math.max(0, lastEnd + 2100 - performance.now()));
    const r0 = requests();
    const h0 = ip.hits;
    const t0 = performance.now();
    const results = await Promise.all(keys.map((k) => call('POST', `/api/ddns/rules/${k}/sync?wait=60`)));
    lastEnd = performance.now();
    const ms = lastEnd - t0;
    const fetches = ip.hits - h0;
    const statuses = {};
    for (const r of results) {
      if (r.ret !== 0) throw new Error(`sync failed: ${r.msg}`);
      statuses[r.sync.status] = (statuses[r.sync.status] ?? 0) + 1;
    }
    return { ms, requests: requests() - r0, fetches, statuses };
  };

  // Switched on together (as the daemon starts them): the first sync.
  const first0 = { hits: ip.hits, t: performance.now() };
  await Promise.all(keys.map((k) => call('PUT', `/api/ddns/rules/${k}/enable`, { enable: true })));
  // Wait for the runs that enabling started (records created), bounded.
  const deadline = Date.now() + 60_000;
  while (Object.values(servers).reduce((n, s) => n + s.records.size, 0) < TASKS) {
    if (Date.now() > deadline) throw new Error('records were not created within 60 s');
    await sleep(20);
  }
  const first = { ms: performance.now() - first0.t, fetches: ip.hits - first0.hits };
  await sleep(500);
  const same = await cycle(); // nothing changed: read, compare, leave
  ip.ipv4 = '198.51.100.1';
  const changed = await cycle(); // new address: read and update every record
  for (let c = 0; c < WARMUP; c++) {
    ip.ipv4 = `198.51.100.${(c % 200) + 2}`;
    await cycle();
  }
  const rssBefore = await settledRss();
  const samples = [];
  const times = [];
  let reqs = 0;
  let fetched = 0;
  const want = SAME ? 'providerRecordSame' : 'updateSucceeded';
  for (let c = 0; c < CYCLES; c++) {
    if (!SAME) ip.ipv4 = `198.51.100.${(c % 200) + 2}`;
    const r = await cycle();
    if (r.statuses[want] !== TASKS) throw new Error(`cycle ${c}: ${JSON.stringify(r.statuses)}`);
    times.push(r.ms);
    reqs += r.requests;
    fetched += r.fetches;
    if ((c + 1) % 10 === 0) samples.push(`${c + 1}: ${mb(await settledRss())}`);
  }
  const rssAfter = await settledRss();

  // A periodic check: the timer restarts with the new interval; every task is checked once, on a new address.
  let periodic = null;
  if (PERIODIC) {
    const due = Date.now() + 30_000;
    const r = await call('PUT', '/api/ddns/configure', { interval: 30 });
    if (r.ret !== 0) throw new Error(`configure failed: ${r.msg}`);
    ip.ipv4 = '192.0.2.200';
    const h0 = ip.hits;
    const r0 = requests();
    const end = due + 60_000;
    let last = 0;
    for (;;) {
      if (Date.now() > end) throw new Error('the periodic check did not finish within 60 s of its time');
      await sleep(200);
      const list = (await call('GET', '/api/ddns/rules')).list;
      const done = list.filter((t) => t.sync.ipv4 === ip.ipv4 && t.sync.status === 'updateSucceeded');
      if (done.length === TASKS) {
        last = Math.max(...done.map((t) => t.sync.lastCheck));
        break;
      }
    }
    // From the timer's due time to the last task's check (timers run late by a few ms at most).
    periodic = { ms: last - due, fetches: ip.hits - h0, requests: requests() - r0 };
  }
  if (rejected() !== 0) throw new Error(`${rejected()} requests were refused by the fakes`);

  printTable(`DDNS: ${TASKS} tasks (${providers.join(', ')}; one A record each), Node ${process.versions.node}`, [
    ['', 'cycle time', 'requests', 'statuses'],
    ['cycle, address unchanged (forced)', `${same.ms.toFixed(0)} ms`, same.requests, JSON.stringify(same.statuses)],
    ['cycle, address changed', `${changed.ms.toFixed(0)} ms`, changed.requests, JSON.stringify(changed.statuses)],
    [`${CYCLES} ${SAME ? 'unchanged' : 'changed'} cycles: median / max`, `${median(times).toFixed(0)} / ${Math.max(...times).toFixed(0)} ms`, `${(reqs / CYCLES).toFixed(0)} per cycle`, ''],
  ]);
  printTable(`IP source lookups: ${TASKS} tasks sharing one URL source`, [
    ['', 'sync time', 'fetches of the source'],
    ['first sync (all switched on together)', `${first.ms.toFixed(0)} ms`, first.fetches],
    ['forced sync of all, address unchanged', `${same.ms.toFixed(0)} ms`, same.fetches],
    ['forced sync of all, address changed', `${changed.ms.toFixed(0)} ms`, changed.fetches],
    [`${CYCLES} ${SAME ? 'unchanged' : 'changed'} forced cycles: median time, fetches per cycle`, `${median(times).toFixed(0)} ms`, (fetched / CYCLES).toFixed(1)],
    ...(periodic ? [['periodic check (timer), address changed', `${periodic.ms.toFixed(0)} ms`, periodic.fetches]] : []),
  ]);
  printTable('Daemon RSS', [
    ['after creating tasks', mb(rssStart)],
    [`before the ${CYCLES} cycles${WARMUP ? ` (after ${WARMUP} warm-up cycles)` : ''}`, mb(rssBefore)],
    [`after the ${CYCLES} cycles`, mb(rssAfter)],
    ['growth', `${(((rssAfter - rssBefore) / rssBefore) * 100).toFixed(1)} %`],
    ['every 10 cycles', samples.join(', ')],
  ]);
} finally {
  await cleanup();
}
