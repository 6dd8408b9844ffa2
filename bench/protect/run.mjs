// What protecting a web rule costs per request: the same reverse proxy rule plain, behind Lucky login
// (every request carries a valid session cookie), with limits per client address that never refuse
// (a rate, a connection count and a body limit, all checked), and behind forward auth (nginx as the
// authorizer, answering 204), as a ratio to the plain rule (goal for the portal and the limits: >= 0.9x).
// The daemon, as `npm start` runs it (the native data plane), is alone on core 0; wrk, the backend
// nginx (also the authorizer) and this script share core 1. Rounds are interleaved; medians are printed,
// and the backend nginx asked directly, the ceiling of any proxy here. Beside each rate, requests per
// CPU second of the daemon: when core 1 (client and backend) is the limit, the cost per request still shows.
// Usage: npm run bench -- protect   (or: npm run build && node bench/protect/run.mjs)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSecondsOf, freePort, median, printTable, reaper, sleep, startBenchDaemon } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

requireBenchPackages('protect');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNS = 64;
const reap = reaper();

/** One HTTP request; resolves with status, headers and body. */
function send(port, { method = 'GET', path = '/', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, agent: false, headers: { host: 'app.bench.test', ...headers } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * Requests per second, and requests per CPU second of `pid` (the daemon): a row whose client or
 * backend side limited it still shows what each request cost the server.
 */
function measured(port, headers, pid) {
  const before = pid ? cpuSecondsOf(pid) : 0;
  const total = wrk(port, headers) * SECONDS;
  const cpu = pid ? cpuSecondsOf(pid) - before : 0;
  return { rps: total / SECONDS, perCpu: cpu > 0 ? total / cpu : NaN };
}

function wrk(port, headers) {
  const argv = ['-c', '1', 'wrk', '-t1', `-c${CONNS}`, `-d${SECONDS}s`, '--latency', ...headers.flatMap((h) => ['-H', h]), `http://127.0.0.1:${port}/`];
  const r = spawnSync('taskset', argv, { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1] ?? NaN);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1] ?? 0);
  if (non2xx > 0) throw new Error(`wrk saw ${non2xx} answers that were not 2xx on port ${port}:\n${r.stdout}`);
  return rps;
}

// The backend (and the forward-auth row's authorizer): nginx answering a fixed text, on core 1.
const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-protect-'));
reap.atExit(() => rmSync(dir, { recursive: true, force: true }));
const backendPort = await freePort();
writeFileSync(
  join(dir, 'nginx.conf'),
  `worker_processes 1; daemon off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${backendPort}; keepalive_requests 1000000;
    location / { return 200 "backend\\n"; }
    # The forward-auth row's authorizer: every request may pass, as bench.
    location = /auth { add_header Remote-User bench always; return 204; } } }
`,
);
reap.track(spawn('taskset', ['-c', '1', 'nginx', '-c', join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' }));

spawnSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

const d = await startBenchDaemon({ cpu: '0', dataDir: join(dir, 'data'), password: 'bench-password' });
reap.track(d.p);
const proxy = { type: 'proxy', targets: [`http://127.0.0.1:${backendPort}`] };
const rules = {};
for (const [name, extra] of Object.entries({
  plain: {},
  portal: { portal: { enable: true } },
  limits: { limits: { rate: 1_000_000, burst: 1_000_000, connections: 10_000, maxBodyBytes: 1 << 30 } },
  forwardAuth: { forwardAuth: { enable: true, url: `http://127.0.0.1:${backendPort}/auth` } },
})) {
  const port = await freePort();
  await d.api('POST', '/api/web/rules', { name, protocol: 'http', address: '127.0.0.1', port, defaultService: proxy, ...extra });
  rules[name] = port;
}
await d.api('POST', '/api/portal/rules', { name: 'bench', password: 'bench-pass' });
await sleep(500);

// A session for the portal row, signed in through the rule's own form.
const form = await send(rules.portal, { path: '/.lucky/login' });
const formValue = /name="form" value="([^"]+)"/.exec(form.body)[1];
const formCookie = form.headers['set-cookie'].find((l) => l.startsWith('lucky_portal_form=')).split(';')[0];
const signed = await send(rules.portal, {
  method: 'POST',
  path: '/.lucky/login',
  headers: { cookie: formCookie, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ form: formValue, user: 'bench', password: 'bench-pass', rd: '/' }).toString(),
});
if (signed.status !== 303) throw new Error(`the bench user could not sign in: ${signed.status} ${signed.body}`);
const session = signed.headers['set-cookie'].find((l) => l.startsWith('lucky_portal=')).split(';')[0];

const rows = { nginx: [], plain: [], portal: [], limits: [], forwardAuth: [] };
const host = ['Host: app.bench.test'];
for (let round = 0; round < ROUNDS; round++) {
  rows.nginx.push(measured(backendPort, [], 0));
  rows.plain.push(measured(rules.plain, host, d.p.pid));
  rows.portal.push(measured(rules.portal, [...host, `Cookie: ${session}`], d.p.pid));
  rows.limits.push(measured(rules.limits, host, d.p.pid));
  rows.forwardAuth.push(measured(rules.forwardAuth, host, d.p.pid));
}
const rps = (name) => median(rows[name].map((r) => r.rps));
const perCpu = (name) => median(rows[name].map((r) => r.perCpu));
const k = (x) => `${(x / 1000).toFixed(1)}k`;
const row = (label, name, goal) => [label, `${k(rps(name))} req/s`, `${(rps(name) / rps('plain')).toFixed(2)}x`, `${k(perCpu(name))}`, `${(perCpu(name) / perCpu('plain')).toFixed(2)}x`, goal];
printTable(`Protection per request: HTTP/1.1 reverse proxy, wrk -c${CONNS} keep-alive, ${SECONDS} s x ${ROUNDS} rounds (medians); daemon alone on core 0, wrk + backend + authorizer on core 1`, [
  ['rule', 'throughput', 'ratio', 'req per daemon CPU s', 'ratio', 'goal'],
  ['backend nginx, asked directly (ceiling)', `${k(rps('nginx'))} req/s`, '', '', '', ''],
  row('plain', 'plain', ''),
  row('Lucky login (valid session)', 'portal', '>= 0.9x'),
  row('limits (rate, connections, body; never refused)', 'limits', '>= 0.9x'),
  row('forward auth (authorizer answers 204)', 'forwardAuth', ''),
]);
process.exit(0);
