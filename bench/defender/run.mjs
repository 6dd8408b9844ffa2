// The defender of every login under a flood of guesses: how many guesses one address gets refused
// per second, and what a legitimate login costs meanwhile, next to the same daemon with its locks out
// of the way (only the two-checks-at-once bound per address left) and the idle figure.
//
// Two surfaces: the console's login (POST /api/login) and a web rule's basic auth. The daemon is
// alone on core 0; the flooding client (127.0.0.2, 32 guesses in flight) and the legitimate client
// (127.0.0.1, one login at a time) share core 1.
// Usage: npm run bench -- defender   (or: npm run build && node bench/defender/run.mjs)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, median, printTable, reaper, sleep, startBenchDaemon } from '../lib.mjs';

const SECONDS = Number(process.env.FLOOD_SECONDS ?? 8);
const PASSWORD = 'bench-password';
const reap = reaper();

/** One request; resolves with its status and milliseconds. */
function send(port, o) {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, agent: false, localAddress: o.from, method: o.method ?? 'GET', path: o.path ?? '/', headers: o.headers ?? {} }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - t0, lockedMsg: false }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(o.body);
  });
}

/** The flooding client: a process of its own on core 1, guessing from 127.0.0.2 for `seconds`. */
function flood(port, surface, seconds) {
  const script = `
const http = require('node:http');
const [port, surface, seconds] = process.argv.slice(1);
const end = Date.now() + Number(seconds) * 1000;
let sent = 0, refused = 0, checked = 0, i = 0;
const agent = new http.Agent({ keepAlive: true, maxSockets: 32, localAddress: '127.0.0.2' });
function one() {
  if (Date.now() > end) return Promise.resolve();
  const n = i++;
  const body = surface === 'console' ? JSON.stringify({ Account: 'admin', Password: 'guess-' + n }) : undefined;
  const headers = surface === 'console'
    ? { 'content-type': 'application/json', 'lucky-lang': 'en_US' }
    : { authorization: 'Basic ' + Buffer.from('alice:guess-' + n).toString('base64') };
  return new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port: Number(port), agent, method: surface === 'console' ? 'POST' : 'GET', path: surface === 'console' ? '/api/login' : '/', headers }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        sent++;
        if (res.statusCode === 429 || /Too many failed|at once/.test(text)) refused++; else checked++;
        resolve();
      });
    });
    req.on('error', () => resolve());
    req.end(body);
  }).then(one);
}
Promise.all(Array.from({ length: 32 }, one)).then(() => { console.log(JSON.stringify({ sent, refused, checked })); process.exit(0); });
`;
  const p = reap.track(spawn('taskset', ['-c', '1', process.execPath, '-e', script, String(port), surface, String(seconds)], { stdio: ['ignore', 'pipe', 'inherit'] }));
  let out = '';
  p.stdout.on('data', (c) => (out += c));
  return new Promise((resolve) => p.once('exit', () => resolve(JSON.parse(out || '{"sent":0,"refused":0,"checked":0}'))));
}

/** A legitimate client's logins, one at a time, for `ms` (or `n` of them). */
async function legit(port, surface, { ms, n }) {
  const times = [];
  const end = performance.now() + (ms ?? Infinity);
  while (performance.now() < end && times.length < (n ?? Infinity)) {
    const r =
      surface === 'console'
        ? await send(port, { from: '127.0.0.1', method: 'POST', path: '/api/login', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ Account: 'admin', Password: PASSWORD }) })
        : await send(port, { from: '127.0.0.1', headers: { authorization: `Basic ${Buffer.from('alice:wonderland').toString('base64')}` } });
    if (r.status !== 200) throw new Error(`the legitimate ${surface} login failed: ${r.status}`);
    times.push(r.ms);
  }
  return times;
}

const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

async function measure(defended) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lucky-bench-defender-'));
  reap.atExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const d = await startBenchDaemon({ cpu: '0', dataDir, password: PASSWORD });
  reap.track(d.p);
  // Locks off: an address may fail as often as the settings allow at most.
  await d.api('PUT', '/api/safe/loginprotection', defended ? { freeFailures: 5, baseLockSeconds: 600, maxLockSeconds: 3600, globalFailuresPerMinute: 10000 } : { freeFailures: 100, baseLockSeconds: 1, maxLockSeconds: 1, globalFailuresPerMinute: 10000 });
  const webPort = await freePort();
  await d.api('POST', '/api/web/rules', {
    name: 'guarded',
    protocol: 'http',
    address: '127.0.0.1',
    port: webPort,
    basicAuth: { enable: true, users: [{ user: 'alice', password: 'wonderland' }] },
    defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'in\n' },
  });
  await sleep(500);
  const rows = [];
  for (const surface of ['console', 'web']) {
    const port = surface === 'console' ? d.port : webPort;
    const idle = await legit(port, surface, { n: 20 });
    const flooding = flood(port, surface, SECONDS);
    await sleep(300);
    const during = await legit(port, surface, { ms: (SECONDS - 1) * 1000 });
    const f = await flooding;
    // A lock outlives the flood: the next run of this surface starts from a clean slate.
    await d.api('DELETE', '/api/safe/lockouts');
    rows.push({ surface, idle, during, flood: f });
  }
  d.p.kill('SIGKILL');
  return rows;
}

const withDefender = await measure(true);
const without = await measure(false);
const fmt = (x) => `${x.toFixed(1)} ms`;
const rows = [];
for (const [i, w] of withDefender.entries()) {
  const o = without[i];
  rows.push([
    w.surface,
    `${Math.round(w.flood.refused / SECONDS)}/s refused, ${w.flood.checked} checked`,
    `${fmt(median(w.idle))} / ${fmt(median(w.during))} (p99 ${fmt(p99(w.during))})`,
    `${Math.round(o.flood.sent / SECONDS)}/s answered, ${o.flood.checked} checked`,
    `${fmt(median(o.idle))} / ${fmt(median(o.during))} (p99 ${fmt(p99(o.during))})`,
    `${(median(w.during) / median(w.idle)).toFixed(2)}× vs ${(median(o.during) / median(o.idle)).toFixed(2)}×`,
  ]);
}
printTable(`Guess flood from one address (${SECONDS} s, 32 in flight) with the defender's locks on and off; daemon alone on core 0`, [
  ['surface', 'guesses (defended)', 'legit login idle / during (defended)', 'guesses (locks off)', 'legit login idle / during (locks off)', 'legit slowdown, locks on vs off'],
  ...rows,
]);
process.exit(0);
