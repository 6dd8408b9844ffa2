// Daemon start-up time and idle memory, next to a bare Node HTTP server measured in the same run.
//
// 1. Start-up and idle RSS of first starts (median of RUNS).
// 2. Idle RSS after start-up and a forced GC (GET /api/execgc), as the targets define it:
//    a fresh daemon with default settings (every module enabled) and no rules (target <= 80 MB), and
//    the same daemon with one enabled rule in every module (target <= 110 MB).
// The daemon runs as `npm start` runs it (the same NODE_OPTIONS, scripts/lib/daemon.mjs).
// Usage: npm run build && node bench/daemon/run.mjs
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_NODE_OPTIONS } from '../../scripts/lib/daemon.mjs';
import { adminApi, freePort, median, mb, printTable, rssOf, sleep, waitForOutput } from '../lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(root, 'apps/daemon/dist/main.js');
const RUNS = Number(process.env.RUNS ?? 5);
const PASSWORD = 'bench-password';

function startDaemon(port, dir, nodeOptions = DAEMON_NODE_OPTIONS) {
  return spawn(process.execPath, [MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LUCKY_ADMIN_PASSWORD: PASSWORD, NODE_OPTIONS: nodeOptions },
  });
}

async function stop(p) {
  p.kill('SIGKILL');
  await new Promise((r) => p.once('exit', r));
}

async function measure(makeProcess) {
  const times = [];
  const rss = [];
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-'));
    const t0 = performance.now();
    const { proc, ready } = makeProcess(port, dir);
    await waitForOutput(proc, ready);
    times.push(performance.now() - t0);
    await sleep(3000); // idle: let start-up garbage settle
    rss.push(rssOf(proc.pid));
    await stop(proc);
    rmSync(dir, { recursive: true, force: true });
  }
  return { start: median(times), rss: median(rss) };
}

const bare = await measure((port) => ({
  proc: spawn(process.execPath, ['-e', `require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1',()=>console.log('listening'))`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  }),
  ready: /listening/,
}));
// First start includes creating lucky_base.lkcf (scrypt) and lucky.db; later starts only open them.
const lucky = await measure((port, dir) => ({ proc: startDaemon(port, dir), ready: /listening on/ }));

printTable(`Daemon start-up and idle RSS (median of ${RUNS} first starts, Node ${process.versions.node})`, [
  ['', 'start-up', 'idle RSS'],
  ['bare node http server', `${bare.start.toFixed(0)} ms`, mb(bare.rss)],
  ['lucky daemon', `${lucky.start.toFixed(0)} ms`, mb(lucky.rss)],
  ['ratio lucky/bare', `${(lucky.start / bare.start).toFixed(2)}x`, `${(lucky.rss / bare.rss).toFixed(2)}x`],
]);

// ---------------------------------------------------------------- idle RSS after a forced GC

/** A logged-in client of a running daemon. */
async function client(port) {
  const base = `http://127.0.0.1:${port}`;
  return (await adminApi(base, PASSWORD)).call;
}

/** One enabled rule in every module, each doing its real work on loopback. */
async function oneRuleEach(call, receiverPort) {
  const rules = {
    wol: { name: 'NAS', macs: ['aa:bb:cc:dd:ee:ff'], broadcast: '127.0.0.1' },
    ddns: {
      name: 'home',
      provider: 'callback',
      domains: ['home.example.com'],
      ipv4: { urls: [`http://127.0.0.1:${receiverPort}/ip`] },
      callback: { url: `http://127.0.0.1:${receiverPort}/update?ip=#{ip}`, method: 'GET' },
    },
    web: { name: 'site', address: '127.0.0.1', port: await freePort() },
    portforward: { name: 'fwd', types: ['tcp', 'udp'], listenHost: '127.0.0.1', listenPorts: String(await freePort()), targets: ['127.0.0.1'], targetPorts: String(receiverPort) },
    // A loopback "server" that never answers: the engine runs and retries, and nothing leaves the machine.
    stun: { name: 'nat', protocol: 'udp', listenHost: '127.0.0.1', mode: 'forward', targetHost: '127.0.0.1', targetPort: receiverPort, stunServers: [`127.0.0.1:${receiverPort}`] },
  };
  for (const [m, rule] of Object.entries(rules)) {
    const r = await call('POST', `/api/${m}/rules`, rule);
    if (r.ret !== 0) throw new Error(`${m} rule refused: ${r.msg}`);
  }
  await sleep(2000);
  const states = [];
  for (const m of Object.keys(rules)) {
    const list = (await call('GET', `/api/${m}/rules`)).list;
    states.push(`${m} ${list.map((r) => r.status.state).join(',')}`);
  }
  return states.join('; ');
}

async function idleAfterGc(withRules, nodeOptions) {
  const receiver = createServer((req, res) => res.end(req.url === '/ip' ? '192.0.2.7' : 'ok'));
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-'));
    const proc = startDaemon(port, dir, nodeOptions);
    await waitForOutput(proc, /listening on/);
    const call = await client(port);
    const states = withRules ? await oneRuleEach(call, receiver.address().port) : '';
    await sleep(1000);
    await call('GET', '/api/execgc');
    await sleep(1000);
    out.push({ rss: rssOf(proc.pid), states });
    await stop(proc);
    rmSync(dir, { recursive: true, force: true });
  }
  receiver.close();
  const rss = median(out.map((o) => o.rss));
  return { rss, states: out[0].states };
}

const idle = await idleAfterGc(false);
const busy = await idleAfterGc(true);
const verdict = (rss, target) => `${rss / 1e6 <= target ? 'met' : 'NOT met'} (target <= ${target} MB)`;
printTable(`Idle RSS after start-up and a forced GC (median of ${RUNS}, every module enabled, NODE_OPTIONS="${DAEMON_NODE_OPTIONS}")`, [
  ['', 'RSS', 'vs bare node', 'goal'],
  ['no rules', mb(idle.rss), `${(idle.rss / bare.rss).toFixed(2)}x`, verdict(idle.rss, 80)],
  ['one enabled rule in every module', mb(busy.rss), `${(busy.rss / bare.rss).toFixed(2)}x`, verdict(busy.rss, 110)],
]);
console.log(`  rules: ${busy.states}`);
if (process.env.COMPARE_DEFAULT_V8 === '1') {
  const plain = await idleAfterGc(false, '');
  console.log(`  no rules, Node's default young generation: ${mb(plain.rss)}`);
}
