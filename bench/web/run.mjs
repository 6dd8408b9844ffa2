#!/usr/bin/env node
/**
 * Web services benchmark, loopback only, bounded in time.
 *
 * One small-response backend (nginx `return 200`) behind three reverse proxies at **equal cores**:
 * nginx proxy_pass with upstream keepalive and N workers, Caddy reverse_proxy with GOMAXPROCS=N,
 * and Lucky's web rule (the real daemon, built from this tree, the rule created through its API)
 * with N serving threads — for N = 1 and N = every core, each printed. At N = 1 each proxy is
 * pinned to core 0 and wrk to the others, so that the client never takes the measured core.
 * wrk measures each; the script prints req/s, p99 and the ratios against the goals, at 64 and at
 * 1 000 connections:
 *   req/s >= 0.65x nginx, p99 <= 2x nginx (and, for reading, Lucky against Caddy),
 * then HTTP/2 over TLS (h2load) against nginx with `http2` on (goal: req/s >= 0.5x nginx),
 * then holds 1 000 concurrent connections on Lucky (N = every core) for 30 s (goal: 0 errors, no fd growth).
 *
 * Each proxy is measured `rounds` times, interleaved; the medians of req/s and of p99 are printed and
 * the ratios are medians of per-round ratios, so that a burst of other work on a shared machine does
 * not decide them.
 * Then p50/p99 at one fixed offered load (h2load --rps) for each proxy.
 * Installs wrk, nginx, caddy and nghttp2-client (h2load) with apt-get when missing (service start-up
 * suppressed).
 * Usage: node bench/web/run.mjs [--duration 5] [--connections 64] [--threads 1] [--rounds 5] [--soak 30] [--rate 10000]
 *        [--parts h1,c1000,h2,fixed,soak]
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DAEMON_NODE_OPTIONS } from '../../scripts/lib/daemon.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, '..', '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    // One wrk thread drives nginx past 50k req/s here; a second would take CPU from the servers measured.
    threads: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '5' },
    soak: { type: 'string', default: '30' },
    'soak-connections': { type: 'string', default: '1000' },
    // The fixed load for the latency comparison: below Caddy's ceiling here (about 13-16k req/s).
    rate: { type: 'string', default: '10000' },
    parts: { type: 'string', default: 'h1,c1000,h2,fixed,soak' },
    // HTTP/2: connections and streams per connection of h2load.
    'h2-connections': { type: 'string', default: '32' },
    'h2-streams': { type: 'string', default: '8' },
  },
});
const DURATION = Number(values.duration);
const CONNS = Number(values.connections);
const THREADS = Number(values.threads);
const SOAK = Number(values.soak);
const ROUNDS = Number(values.rounds);
const SOAK_CONNS = Number(values['soak-connections']);
const PARTS = new Set(values.parts.split(','));

const children = [];
const tmp = mkdtempSync(join(tmpdir(), 'lucky-bench-web-'));

function log(...a) {
  console.log(...a);
}

function has(cmd) {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function ensureTools() {
  const tools = { wrk: 'wrk', nginx: 'nginx', caddy: 'caddy', h2load: 'nghttp2-client' };
  const missing = Object.keys(tools)
    .filter((c) => !has(c))
    .map((c) => tools[c]);
  if (missing.length === 0) return;
  log(`installing ${missing.join(', ')} with apt-get ...`);
  // Debian starts services from postinst; nothing may listen beyond loopback, so suppress that.
  const policy = '/usr/sbin/policy-rc.d';
  const ownPolicy = !existsSync(policy);
  if (ownPolicy) writeFileSync(policy, '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', timeout: 300_000 });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
      stdio: 'inherit',
      timeout: 600_000,
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } finally {
    if (ownPolicy) rmSync(policy, { force: true });
  }
  for (const c of Object.keys(tools)) if (!has(c)) throw new Error(`${c} is still missing after apt-get`);
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
}

/** `taskset -c cpus` before a command when `cpus` is set. */
const pinned = (cpus, argv) => (cpus ? ['taskset', '-c', cpus, ...argv] : argv);

function start(name, cmd, args, opts = {}) {
  // A high descriptor limit for 1 000 connections and their backend sides.
  const child = spawn('sh', ['-c', 'ulimit -n 65536 2>/dev/null; exec "$@"', 'sh', ...pinned(opts.cpus, [cmd, ...args])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...opts,
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  child.output = () => out;
  child.name = name;
  child.on('exit', (code) => {
    if (!child.stopping) log(`  [${name}] exited with ${code}\n${out.slice(-2000)}`);
  });
  children.push(child);
  return child;
}

async function waitPort(port, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((r) => {
      const s = createServer();
      s.once('error', () => r(true)); // in use = somebody listens
      s.listen(port, '127.0.0.1', () => s.close(() => r(false)));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  const who = children.map((c) => `${c.name}: ${c.output().slice(-500)}`).join('\n');
  throw new Error(`nothing listens on ${port} after ${ms} ms\n${who}`);
}

function wrk(url, { conns = CONNS, threads = THREADS, duration = DURATION, timeout = 5, cpus = '' } = {}) {
  const out = execFileSync(
    'sh',
    ['-c', `ulimit -n 65536 2>/dev/null; exec ${pinned(cpus, ['wrk']).join(' ')} -t${threads} -c${conns} -d${duration}s --timeout ${timeout}s --latency ${url}`],
    { encoding: 'utf8', timeout: (duration + 60) * 1000 },
  );
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const unit = (v, u) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[u] ?? 1);
  const p99m = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = p99m ? unit(p99m[1], p99m[2]) : NaN;
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).map(Number).reduce((a, b) => a + b, 0) : 0;
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return { rps, p99, errors, non2xx, total, sockErrors: sock ? sock[0] : 'Socket errors: none', raw: out };
}

/**
 * Latency at a fixed offered load (h2load --rps over HTTP/1.1, the same connections as wrk): wrk
 * drives each server to saturation, where latency is mostly queueing (connections / throughput);
 * this shows what a client waits at a rate every proxy here sustains. Returns p50/p99 in ms.
 */
function fixedRate(url, totalRps, { conns = CONNS, duration = DURATION, cpus = '' } = {}) {
  const file = join(tmp, `h2load-${Date.now()}.log`);
  execFileSync(
    'sh',
    ['-c', `ulimit -n 65536 2>/dev/null; exec ${pinned(cpus, ['h2load']).join(' ')} --h1 -c${conns} -m1 --rps ${Math.ceil(totalRps / conns)} -D ${duration} --log-file ${file} ${url}`],
    { encoding: 'utf8', timeout: (duration + 60) * 1000 },
  );
  const us = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split('\t'))
    .filter((f) => f[1] === '200')
    .map((f) => Number(f[2]))
    .sort((a, b) => a - b);
  rmSync(file, { force: true });
  const at = (q) => (us.length ? us[Math.min(us.length - 1, Math.floor(q * us.length))] / 1000 : NaN);
  return { p50: at(0.5), p99: at(0.99), n: us.length };
}

function fdCount(pid) {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/**
 * One admin API call on a connection of its own: wrk runs synchronously here, so a kept-alive
 * connection would sit unread past the daemon's keep-alive timeout and fail the next call.
 */
function api(port, method, path, body, token) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        timeout: 10_000,
        headers: { 'content-type': 'application/json', 'lucky-lang': 'en_US', ...(token ? { 'lucky-admin-token': token } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          try {
            resolve(JSON.parse(text));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end(data);
  });
}

function nginxConf(dir, body, workers = 1) {
  mkdirSync(dir, { recursive: true });
  const conf = `worker_processes ${workers};
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_rlimit_nofile 65536;
events { worker_connections 16384; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  keepalive_requests 100000;
${body}
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  return join(dir, 'nginx.conf');
}

function fmt(n, d = 0) {
  return Number.isFinite(n) ? n.toFixed(d) : 'n/a';
}

async function main() {
  const t0 = Date.now();
  ensureTools();
  log(`versions: ${execFileSync('sh', ['-c', 'nginx -v 2>&1; caddy version 2>&1 | head -1; wrk -v 2>&1 | head -1; node -v'], { encoding: 'utf8' }).trim().replace(/\n/g, ' | ')}`);
  log(`cpus: ${execFileSync('nproc', { encoding: 'utf8' }).trim()}; wrk -t${THREADS} -c${CONNS} -d${DURATION}s`);

  // The daemon as `npm start` runs it: contracts and daemon built from this tree (with the native
  // addon and the web serving-thread worker).
  log('building (npm run build) ...');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
  const daemonMain = join(ROOT, 'apps', 'daemon', 'dist', 'main.js');
  if (!existsSync(daemonMain)) throw new Error('daemon build failed');

  const CPUS = Number(execFileSync('nproc', { encoding: 'utf8' }).trim());
  // Equal cores: each proxy gets N workers / threads / Go procs, for one core and for all of them.
  const LEVELS = [...new Set([1, CPUS])];
  const pBackend = await freePort();

  // The backend: a tiny fixed answer, with every core so that it is never what is measured.
  const backendConf = nginxConf(join(tmp, 'backend'), `  server { listen 127.0.0.1:${pBackend}; location / { default_type text/plain; return 200 "hello world\\n"; } }`, CPUS);
  start('backend', 'nginx', ['-c', backendConf, '-p', join(tmp, 'backend'), '-e', join(tmp, 'backend', 'error.log')]);

  // One self-signed certificate for the HTTPS servers (h2 part).
  const certFile = join(tmp, 'cert.pem');
  const keyFile = join(tmp, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=bench.test'], { stdio: 'ignore' });

  // At N = 1 the server has core 0 and the client the others; at every core nobody is pinned.
  const serverCpus = (n) => (n === 1 && CPUS > 1 ? '0' : '');
  const clientCpus = (n) => (n === 1 && CPUS > 1 ? `1-${CPUS - 1}` : '');

  async function startNginx(n) {
    const [port, h2port] = [await freePort(), await freePort()];
    const dir = join(tmp, `nginx-${n}`);
    const location = `    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Real-IP $remote_addr;
    }`;
    const conf = nginxConf(
      dir,
      `  upstream backend { server 127.0.0.1:${pBackend}; keepalive 128; }
  server {
    listen 127.0.0.1:${port};
${location}
  }
  server {
    listen 127.0.0.1:${h2port} ssl http2;
    ssl_certificate ${certFile};
    ssl_certificate_key ${keyFile};
${location}
  }`,
      n,
    );
    start(`nginx-${n}`, 'nginx', ['-c', conf, '-p', dir, '-e', join(dir, 'error.log')], { cpus: serverCpus(n) });
    return { port, h2port };
  }

  async function startCaddy(n) {
    const port = await freePort();
    const dir = join(tmp, `caddy-${n}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'Caddyfile'),
      `{
  admin off
  auto_https off
}
http://127.0.0.1:${port} {
  bind 127.0.0.1
  reverse_proxy 127.0.0.1:${pBackend}
}
`,
    );
    start(`caddy-${n}`, 'caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, GOMAXPROCS: String(n) },
      cpus: serverCpus(n),
    });
    return port;
  }

  // Reference only (no ratio): the ceiling of one Node thread here, a node:http server answering
  // the same body itself. A proxy does this work plus a backend round trip.
  const pHello = await freePort();
  start(
    'node hello',
    process.execPath,
    ['-e', `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'text/plain', 'content-length': '12' }); s.end('hello world\\n'); }).listen(${pHello}, '127.0.0.1')`],
    { cpus: serverCpus(1) },
  );

  // Lucky as npm start runs it: a plain HTTP rule and an HTTPS one (HTTP/2 on, the same certificate
  // as nginx's). N = 1 is the automatic setting on one core (the daemon pinned to it), which moves
  // to one serving thread once busy; N > 1 asks for N serving threads.
  async function startLucky(n) {
    const name = `lucky-${n}`;
    const [admin, port, h2port] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = { ...process.env, LUCKY_ADMIN_USER: 'bench', LUCKY_ADMIN_PASSWORD: 'bench-password-1', NODE_ENV: 'production', NODE_OPTIONS: DAEMON_NODE_OPTIONS };
    if (n > 1) env.LUCKY_WEB_THREADS = String(n);
    const child = start(name, process.execPath, [daemonMain, '--port', String(admin), '--host', '127.0.0.1', '--data-dir', join(tmp, name)], { env, cpus: serverCpus(n) });
    await waitPort(admin, 60_000);
    const login = await api(admin, 'POST', '/api/login', { Account: 'bench', Password: 'bench-password-1' });
    if (login.ret !== 0) throw new Error(`login failed: ${JSON.stringify(login)}`);
    const proxy = { type: 'proxy', targets: [`http://127.0.0.1:${pBackend}`] };
    for (const rule of [
      { name: 'bench', address: '127.0.0.1', port, defaultService: proxy },
      { name: 'bench-h2', address: '127.0.0.1', port: h2port, protocol: 'https', certs: [{ source: 'file', cert: certFile, key: keyFile }], defaultService: proxy },
    ]) {
      const created = await api(admin, 'POST', '/api/web/rules', rule, login.token);
      if (created.ret !== 0) throw new Error(`rule not created: ${JSON.stringify(created)}`);
    }
    await Promise.all([waitPort(port), waitPort(h2port)]);
    const status = await api(admin, 'GET', '/api/web/rules', undefined, login.token);
    for (const r of status.list ?? []) log(`${name} rule ${r.name ?? r.rule?.name ?? ''}: ${r.status?.state ?? '?'} ${r.status?.message ?? ''}`);
    // The daemon's child is `sh` exec'ing node (or taskset exec'ing it): same pid.
    return { pid: child.pid, admin, port, h2port, token: login.token };
  }

  // name, port, the client's cores, N (0: not a proxy under comparison)
  const targets = [
    { name: 'backend (direct)', port: pBackend, client: '', n: 0 },
    { name: 'node:http hello (ref)', port: pHello, client: clientCpus(1), n: 0 },
  ];
  const lucky = {};
  const nginx = {};
  for (const n of LEVELS) {
    nginx[n] = await startNginx(n);
    const pCaddy = await startCaddy(n);
    lucky[n] = await startLucky(n);
    await Promise.all([waitPort(nginx[n].port), waitPort(nginx[n].h2port), waitPort(pCaddy)]);
    const client = clientCpus(n);
    targets.push({ name: `nginx x${n}`, port: nginx[n].port, client, n }, { name: `caddy x${n}`, port: pCaddy, client, n }, { name: `lucky x${n}`, port: lucky[n].port, client, n });
  }
  await Promise.all([waitPort(pBackend), waitPort(pHello)]);
  const pLucky = lucky[CPUS].port;
  const luckyPid = lucky[CPUS].pid;
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  for (const t of targets) {
    const url = `http://127.0.0.1:${t.port}/`;
    const probe = await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.text());
    if (probe !== 'hello world\n') throw new Error(`${t.name} answered ${JSON.stringify(probe)}`);
    wrk(url, { duration: 3, cpus: t.client }); // warm-up (JIT, pools)
  }
  // The automatic setting moves to a serving thread after 5 busy seconds: a longer warm-up for it.
  if (lucky[1]) {
    const moved = async () => {
      const { logs = [] } = await api(lucky[1].admin, 'GET', '/api/logs?limit=500', undefined, lucky[1].token);
      return logs.some((l) => /web rules moved to/.test(l.log));
    };
    for (let i = 0; i < 4 && !(await moved()); i++) wrk(`http://127.0.0.1:${lucky[1].port}/`, { duration: 4, cpus: clientCpus(1) });
    log(`lucky x1: ${(await moved()) ? 'moved to its serving thread' : 'still on the main thread (it never stayed busy long enough)'}`);
  }

  /** `ROUNDS` interleaved rounds of wrk over `list`; medians per target, and per-round ratios per N. */
  function compare(title, list, conns, timeout = 5) {
    const rounds = {};
    for (const t of list) rounds[t.name] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of list) {
        const r = wrk(`http://127.0.0.1:${t.port}/`, { conns, timeout, cpus: t.client });
        rounds[t.name].push(r);
        log(`  round ${round} ${t.name.padEnd(22)} ${fmt(r.rps).padStart(8)} req/s   p99 ${fmt(r.p99, 2).padStart(7)} ms`);
      }
    }
    log('');
    log(`${title}: median of ${ROUNDS} rounds (load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}):`);
    for (const t of list) {
      const rs = rounds[t.name];
      // Medians of each figure on its own: one slow round moves neither.
      const errors = rs.reduce((a, x) => a + x.errors, 0);
      const non2xx = rs.reduce((a, x) => a + x.non2xx, 0);
      log(`${t.name.padEnd(22)} ${fmt(median(rs.map((x) => x.rps))).padStart(8)} req/s   p99 ${fmt(median(rs.map((x) => x.p99)), 2).padStart(7)} ms   errors ${errors}   non-2xx ${non2xx}   (all rounds)`);
    }
    // Ratios per round (the runs of one round are back to back, so they saw much the same machine),
    // then the median of those: steadier than a ratio of medians when others share the CPUs.
    for (const n of LEVELS) {
      const L = rounds[`lucky x${n}`];
      const N = rounds[`nginx x${n}`];
      const C = rounds[`caddy x${n}`];
      const vsNginx = median(L.map((x, i) => x.rps / N[i].rps));
      const p99Ratio = median(L.map((x, i) => x.p99 / N[i].p99));
      log('');
      log(`${title}, N = ${n} (lucky ${n} serving thread${n > 1 ? 's' : ''}, nginx ${n} worker${n > 1 ? 's' : ''}${C ? `, caddy GOMAXPROCS=${n}` : ''}${serverCpus(n) ? ', each on core 0, wrk on the others' : ''}); per-round ratios (lucky/nginx req/s, lucky/nginx p99${C ? ', lucky/caddy req/s' : ''}):`);
      L.forEach((x, i) => log(`  round ${i + 1}: ${fmt(x.rps / N[i].rps, 2)}  ${fmt(x.p99 / N[i].p99, 2)}${C ? `  ${fmt(x.rps / C[i].rps, 2)}` : ''}`));
      log(`  ratio req/s lucky/nginx  ${fmt(vsNginx, 2)}  (goal >= 0.65)  ${vsNginx >= 0.65 ? 'met' : 'NOT met'}`);
      log(`  ratio p99   lucky/nginx  ${fmt(p99Ratio, 2)}  (goal <= 2.0)  ${p99Ratio <= 2 ? 'met' : 'NOT met'}`);
      if (C) log(`  ratio req/s lucky/caddy  ${fmt(median(L.map((x, i) => x.rps / C[i].rps)), 2)}  (for reading)`);
    }
  }

  if (PARTS.has('h1')) compare(`HTTP/1.1, ${CONNS} connections`, targets, CONNS);
  if (PARTS.has('c1000')) {
    log('');
    compare(`HTTP/1.1, ${SOAK_CONNS} connections`, targets.filter((t) => t.name.startsWith('nginx') || t.name.startsWith('lucky')), SOAK_CONNS, 10);
  }

  // HTTP/2 over TLS: h2load, the same connections and streams for each.
  if (PARTS.has('h2')) {
    const H2C = Number(values['h2-connections']);
    const H2M = Number(values['h2-streams']);
    const h2load = (port, client) => {
      const out = execFileSync('sh', ['-c', `ulimit -n 65536 2>/dev/null; exec ${pinned(client, ['h2load']).join(' ')} -c${H2C} -m${H2M} -D ${DURATION} https://127.0.0.1:${port}/`], { encoding: 'utf8', timeout: (DURATION + 60) * 1000 });
      const rps = Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(out)?.[1] ?? 0);
      const m = /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out);
      const proto = /Application protocol: (\S+)/.exec(out)?.[1] ?? '?';
      return { rps, ok: Number(m?.[1] ?? 0), bad: Number(m?.[2] ?? 0) + Number(m?.[3] ?? 0), proto };
    };
    log('');
    log(`HTTP/2 over TLS (h2load -c${H2C} -m${H2M} -D ${DURATION}, ECDSA P-256), ${ROUNDS} interleaved rounds:`);
    const h2 = {};
    for (const n of LEVELS) for (const who of ['nginx', 'lucky']) h2[`${who} x${n}`] = [];
    for (const n of LEVELS) for (const who of ['nginx', 'lucky']) h2load(who === 'nginx' ? nginx[n].h2port : lucky[n].h2port, clientCpus(n)); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      for (const n of LEVELS) {
        for (const who of ['nginx', 'lucky']) {
          const r = h2load(who === 'nginx' ? nginx[n].h2port : lucky[n].h2port, clientCpus(n));
          h2[`${who} x${n}`].push(r);
          log(`  round ${round} ${`${who} x${n}`.padEnd(10)} ${fmt(r.rps).padStart(8)} req/s   ${r.proto}   failed ${r.bad}`);
        }
      }
    }
    for (const n of LEVELS) {
      const L = h2[`lucky x${n}`];
      const N = h2[`nginx x${n}`];
      const ratio = median(L.map((x, i) => x.rps / N[i].rps));
      log(`h2, N = ${n}: nginx ${fmt(median(N.map((x) => x.rps)))} req/s, lucky ${fmt(median(L.map((x) => x.rps)))} req/s; ratio lucky/nginx ${fmt(ratio, 2)}  (goal >= 0.5)  ${ratio >= 0.5 ? 'met' : 'NOT met'}; failed ${L.reduce((a, x) => a + x.bad, 0)}`);
    }
  }

  // The same question at a fixed load, below every proxy's ceiling here.
  if (PARTS.has('fixed')) {
    const RATE = Number(values.rate);
    log('');
    log(`latency at a fixed ${RATE} req/s (h2load --h1 --rps, ${CONNS} connections, ${DURATION} s; medians of ${ROUNDS} rounds):`);
    const fixed = {};
    const compared = targets.filter((t) => t.n > 0);
    for (const t of compared) fixed[t.name] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of compared) fixed[t.name].push(fixedRate(`http://127.0.0.1:${t.port}/`, RATE, { cpus: t.client }));
    }
    for (const t of compared) {
      const rs = fixed[t.name];
      log(`${t.name.padEnd(22)} p50 ${fmt(median(rs.map((x) => x.p50)), 2).padStart(6)} ms   p99 ${fmt(median(rs.map((x) => x.p99)), 2).padStart(6)} ms   (${rs.reduce((a, x) => a + x.n, 0)} answers)`);
    }
    for (const n of LEVELS) {
      const fixedRatio = median(fixed[`lucky x${n}`].map((x, i) => x.p99 / fixed[`nginx x${n}`][i].p99));
      log(`ratio p99 at ${RATE} req/s lucky/nginx, N = ${n}: ${fmt(fixedRatio, 2)}  (for reading beside the saturated ratio above)`);
    }
  }

  if (!PARTS.has('soak')) return log(`\ntotal ${Math.round((Date.now() - t0) / 1000)} s`);
  // Soak: 1 000 concurrent connections.
  await new Promise((r) => setTimeout(r, 1000));
  const fdBefore = fdCount(luckyPid);
  log('');
  log(`soak: ${SOAK_CONNS} connections for ${SOAK} s on lucky x${CPUS} ...`);
  const soak = wrk(`http://127.0.0.1:${pLucky}/`, { conns: SOAK_CONNS, duration: SOAK, timeout: 10 });
  const fdRightAfter = fdCount(luckyPid);
  // Client connections close with wrk; backend keep-alive connections idle out (bounded wait).
  let fdSettled = fdCount(luckyPid);
  const settleEnd = Date.now() + 45_000;
  while (fdSettled > fdBefore && Date.now() < settleEnd) {
    await new Promise((r) => setTimeout(r, 1000));
    fdSettled = fdCount(luckyPid);
  }
  const figures = (await api(lucky[CPUS].admin, 'GET', '/api/web/rules', undefined, lucky[CPUS].token)).list?.find((r) => (r.name ?? r.rule?.name) === 'bench')?.figures;
  log(`soak: ${fmt(soak.rps)} req/s, p99 ${fmt(soak.p99, 2)} ms, ${soak.total} requests, ${soak.sockErrors}, non-2xx ${soak.non2xx}`);
  log(`soak errors: ${soak.errors + soak.non2xx}  (goal 0)  ${soak.errors + soak.non2xx === 0 ? 'met' : 'NOT met'}`);
  log(`lucky fds: before ${fdBefore}, right after ${fdRightAfter}, settled ${fdSettled}  (goal: no growth)  ${fdSettled <= fdBefore ? 'met' : 'NOT met'}`);
  if (figures) log(`rule figures: requests ${figures.requests}, connections now ${figures.connections}, codes ${JSON.stringify(figures.codes)}`);
  log(`\ntotal ${Math.round((Date.now() - t0) / 1000)} s`);
}

function cleanup() {
  for (const c of children) {
    c.stopping = true;
    try {
      c.kill('SIGTERM');
    } catch {
      /* gone */
    }
  }
  setTimeout(() => {
    for (const c of children) {
      try {
        c.kill('SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(tmp, { recursive: true, force: true });
  }, 2000).unref();
}

const guard = setTimeout(() => {
  log('benchmark took too long: stopping');
  cleanup();
  process.exitCode = 1;
}, 25 * 60_000);
guard.unref();

main()
  .catch((err) => {
    console.error(`benchmark failed: ${err.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    clearTimeout(guard);
    cleanup();
  });
