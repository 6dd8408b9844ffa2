#!/usr/bin/env node
/**
 * Web services benchmark (issue 28), loopback only, bounded in time.
 *
 * Lucky's web rules (the real daemon, built from this tree, rules created through its API) against
 * nginx at **equal cores**, Caddy beside, for N = 1 and N = every core:
 *   - N = 1: each server under test alone on core 0 (nginx 1 worker, Caddy GOMAXPROCS=1, the whole
 *     Lucky process with its automatic serving threads, as `npm start` runs it). The backend nginx,
 *     wrk/h2load and this script run on cores 1..n-1. The backend is one nginx shared by every
 *     target: it is re-pinned (taskset -a -p) whenever the level changes, so that at N = 1 it never
 *     takes time from core 0 (that cost nginx, which needs more backend answers, far more than us).
 *   - N = all: nginx N workers, Caddy GOMAXPROCS=N, Lucky LUCKY_WEB_THREADS=N; nothing pinned.
 * Lucky is measured twice: `lucky` (its default web engine) and `lucky (node engine)`
 * (LUCKY_WEB_ENGINE=node); ratios and goals are for `lucky`.
 *
 * Rows, each with nginx, Lucky, the ratio and whether the goal is met:
 *   h1     HTTP/1.1 reverse proxy, wrk keep-alive, 64 connections: req/s >= 0.85x nginx, p99 <= 1.5x
 *   c1000  the same at 1 000 connections
 *   tls    TLS 1.3 full handshakes (ECDSA P-256, `Connection: close`, 32 connections), every server
 *          answering a fixed text itself: handshakes/s >= 1.0x nginx. wrk runs with noresume.c
 *          preloaded so it never offers a session; each run first checks that against an nginx
 *          logging $ssl_session_reused (and that the check sees resumption without the shim).
 *          The client's half of a full handshake (an ECDSA verify) costs more than the server's (a
 *          sign), so at N = 1 on 2 cores the client core may be the limit: see the busy figures.
 *   h2     HTTP/2 over TLS, h2load -c32 -m8: a text answer and the proxy, each >= 0.7x nginx
 *   and Caddy below Lucky in every row.
 *   ref    the platform's ceilings on core 0, no ratio: bare node:http "hello world" and nginx
 *          `return 200` (HTTP/1.1 keep-alive, 64 connections).
 *   move   part 2 of the issue: a fresh daemon (node engine, automatic, not pinned), one proxy rule;
 *          idle RSS, then wrk -c1000 for 15 s from cold (serving moves to threads during the run:
 *          goal 0 socket errors and non-2xx), then up to 90 s without load with RSS every 10 s (goal:
 *          back within 15 MB of idle, and the program log saying serving moved back), then the same
 *          load again (serving moves again if it had moved back: goal 0 errors).
 *   fixed  (not in the default run) p50/p99 at one offered load (h2load --h1 --rps) for the h1 targets.
 *
 * Each row: `rounds` interleaved rounds (every target of every level once per round); the medians
 * of req/s and p99, and ratios that are medians of per-round ratios, so that a burst of other work
 * on a shared machine decides none of them. During each run the server's cores are sampled
 * (/proc/stat, the middle 80% of the run): at N = 1 a core 0 below 90% busy means the client side
 * (wrk, the backend and loopback softirq on the other cores) limited the figure, not the server, and
 * a warning line says so; another one when core 0 was busy with other processes than the server.
 * A final table sums everything up in the issue's format. The default run takes about 20 minutes
 * (a guard stops it at 25).
 *
 * Installs wrk, nginx, caddy, nghttp2-client (h2load) and libssl-dev (for the shim) when missing
 * (bench/packages.mjs; service start-up suppressed).
 * Usage: node bench/web/run.mjs [--duration 4] [--rounds 5] [--connections 64] [--many 1000] [--threads 1]
 *        [--tls-connections 32] [--h2-connections 32] [--h2-streams 8] [--move-seconds 15] [--move-idle 90]
 *        [--rate 10000] [--parts h1,c1000,tls,h2,ref,move] (add `fixed` for the fixed-load latencies)
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CLK_TCK, freePort, median, rssOf, sleep } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(here, '..', '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    many: { type: 'string', default: '1000' },
    // One wrk thread drives nginx past 60k req/s here; a second would only take the client core's time.
    threads: { type: 'string', default: '1' },
    'tls-connections': { type: 'string', default: '32' },
    'h2-connections': { type: 'string', default: '32' },
    'h2-streams': { type: 'string', default: '8' },
    'move-seconds': { type: 'string', default: '15' },
    'move-idle': { type: 'string', default: '90' },
    // The fixed load of `fixed`: below Caddy's ceiling here (about 13-16k req/s).
    rate: { type: 'string', default: '10000' },
    parts: { type: 'string', default: 'h1,c1000,tls,h2,ref,move' },
  },
});
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNS = Number(values.connections);
const MANY = Number(values.many);
const THREADS = Number(values.threads);
const TLS_CONNS = Number(values['tls-connections']);
const H2C = Number(values['h2-connections']);
const H2M = Number(values['h2-streams']);
const MOVE_SECONDS = Number(values['move-seconds']);
const MOVE_IDLE = Number(values['move-idle']);
const PARTS = new Set(values.parts.split(',').map((p) => p.trim()));
for (const p of PARTS) if (!['h1', 'c1000', 'tls', 'h2', 'ref', 'move', 'fixed'].includes(p)) throw new Error(`unknown part ${p}`);

/** Below this share of the server's cores busy, the figure was not limited by the server. */
const BUSY_ENOUGH = 0.9;
const BODY = 'hello world\n';
/** Seconds of each unmeasured warm-up run: tens of thousands of requests, enough for the JIT and the pools. */
const WARM = 1;

const CPUS = availableParallelism();
const ALL_CPUS = `0-${CPUS - 1}`;
const LEVELS = [...new Set([1, CPUS])];
const PINNING = CPUS > 1;
// At N = 1 the server has core 0 and everything else the other cores; at N = all every process may
// run anywhere, said explicitly since children inherit this script's affinity (pinned at N = 1).
const serverCpus = (n) => (n === 1 && PINNING ? '0' : ALL_CPUS);
const clientCpus = (n) => (n === 1 && PINNING ? `1-${CPUS - 1}` : ALL_CPUS);

const children = [];
const tools = new Set();
const tmp = mkdtempSync(join(tmpdir(), 'lucky-bench-web-'));

const log = (...a) => console.log(...a);

/** `taskset -c cpus` before a command when `cpus` is set. */
const pinned = (cpus, argv) => (cpus ? ['taskset', '-c', cpus, ...argv] : argv);
/** Through sh for a descriptor limit high enough for 1 000 connections and their backend sides; exec keeps the pid. */
const shArgs = (argv) => ['-c', 'ulimit -n 65536 2>/dev/null; exec "$@"', 'sh', ...argv];

function start(name, cmd, args, opts = {}) {
  const child = spawn('sh', shArgs(pinned(opts.cpus, [cmd, ...args])), { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  let out = '';
  const keep = (d) => (out = (out + d).slice(-20_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.output = () => out;
  child.name = name;
  child.exited = new Promise((r) => child.once('exit', r));
  child.on('exit', (code) => {
    if (!child.stopping) log(`  [${name}] exited with ${code}\n${out.slice(-2000)}`);
  });
  children.push(child);
  return child;
}

async function stopChild(child, graceMs = 5000) {
  child.stopping = true;
  child.kill('SIGTERM');
  await Promise.race([child.exited, sleep(graceMs)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

async function waitPort(port, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((r) => {
      const s = httpRequest({ host: '127.0.0.1', port, method: 'HEAD', path: '/', agent: false, timeout: 1000 });
      s.on('response', (res) => (res.resume(), r(true)));
      // A TLS listener drops a plain request or answers 400: either way somebody listens.
      s.on('error', (err) => r(err.code !== 'ECONNREFUSED'));
      s.on('timeout', () => (s.destroy(), r(false)));
      s.end();
    });
    if (ok) return;
    await sleep(100);
  }
  const who = children.map((c) => `${c.name}: ${c.output().slice(-500)}`).join('\n');
  throw new Error(`nothing listens on ${port} after ${ms} ms\n${who}`);
}

// ---- CPU accounting ------------------------------------------------------------------------

/** Busy and total jiffies of each core since boot. */
function coreTimes() {
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d+ /.test(l))
    .map((l) => {
      // user nice system idle iowait irq softirq steal (guest time is inside user already)
      const f = l.trim().split(/\s+/).slice(1, 9).map(Number);
      const total = f.reduce((a, b) => a + b, 0);
      return { busy: total - f[3] - f[4], total };
    });
}

/** "1-3,5" → [1, 2, 3, 5]; "" → every core. */
function coreList(spec) {
  if (!spec) return [...Array(CPUS).keys()];
  return spec.split(',').flatMap((part) => {
    const [a, b = a] = part.split('-').map(Number);
    return Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
}

function procStat(pid) {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
}

/** The pid and every process below it (nginx's workers). */
function processTree(pid) {
  const kids = new Map();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const { ppid } = procStat(e);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  const out = [];
  const walk = (p) => {
    out.push(p);
    for (const k of kids.get(p) ?? []) walk(k);
  };
  walk(pid);
  return out;
}

/** CPU time of a process and its children (threads included), in clock ticks. */
function treeTicks(pid) {
  let sum = 0;
  for (const p of processTree(pid)) {
    try {
      sum += procStat(p).ticks;
    } catch {
      // gone meanwhile
    }
  }
  return sum;
}

function busyShare(a, b, cores) {
  let busy = 0;
  let total = 0;
  for (const c of cores) {
    busy += b[c].busy - a[c].busy;
    total += b[c].total - a[c].total;
  }
  return total > 0 ? busy / total : NaN;
}

// ---- pinning of the shared parts -------------------------------------------------------------

let placedAt = null;
let backendPid = 0;
/**
 * The backend nginx (master and workers) and this script go where the load generator goes: the
 * other cores at N = 1, every core at N = all.
 */
function placeShared(n) {
  const cpus = clientCpus(n);
  if (!PINNING || placedAt === cpus) return;
  for (const pid of [...(backendPid ? processTree(backendPid) : []), process.pid]) {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
  }
  placedAt = cpus;
}

// ---- load generators -----------------------------------------------------------------------

/**
 * Runs a load generator to its end, sampling the CPU between 10% and 90% of `seconds` (the ramp
 * up and the teardown left out): the share of the server's cores busy, of the client's, and the
 * cores the server's own processes used.
 */
function runTool(argv, { seconds, cpus = '', env, server }) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('sh', shArgs(pinned(cpus, argv)), { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    tools.add(child);
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const samples = [];
    const take = () => {
      try {
        samples.push({ at: performance.now(), cores: coreTimes(), ticks: server?.pid ? treeTicks(server.pid) : 0 });
      } catch {
        // a sample lost is a figure shown as n/a
      }
    };
    const first = setTimeout(take, seconds * 100);
    const last = setTimeout(take, seconds * 900);
    const killer = setTimeout(() => child.kill('SIGKILL'), (seconds + 90) * 1000);
    child.on('close', (code) => {
      tools.delete(child);
      for (const t of [first, last, killer]) clearTimeout(t);
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited with ${code}:\n${out.slice(-3000)}`));
      let cpu = { server: NaN, client: NaN, proc: NaN };
      if (samples.length >= 2) {
        const [a, b] = [samples[0], samples[samples.length - 1]];
        const secs = (b.at - a.at) / 1000;
        cpu = {
          server: busyShare(a.cores, b.cores, coreList(server?.cores ?? '')),
          client: busyShare(a.cores, b.cores, coreList(cpus)),
          proc: server?.pid ? (b.ticks - a.ticks) / CLK_TCK / secs : NaN,
        };
      }
      resolvePromise({ out, cpu });
    });
  });
}

const unitMs = (v, u) => Number(v) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 }[u] ?? 1);

function parseWrk(out) {
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p99m = /\s99%\s+([\d.]+)(us|ms|s|m)\b/.exec(out);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = sock ? sock.slice(1).map(Number).reduce((a, b) => a + b, 0) : 0;
  return {
    rps,
    p99: p99m ? unitMs(p99m[1], p99m[2]) : NaN,
    errors,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    total: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
    sockErrors: sock ? sock[0] : 'Socket errors: none',
  };
}

function parseH2load(out) {
  const m = /requests: \d+ total, \d+ started, \d+ done, \d+ succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(out);
  return {
    rps: Number(/finished in [\d.]+\w*, ([\d.]+) req\/s/.exec(out)?.[1] ?? NaN),
    p99: NaN,
    errors: Number(m?.[1] ?? 0) + Number(m?.[2] ?? 0) + Number(m?.[3] ?? 0),
    non2xx: Number(/status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out)?.slice(1).reduce((a, b) => a + Number(b), 0) ?? 0),
    tls: ['TLS Protocol', 'Cipher', 'Server Temp Key', 'Application protocol'].map((k) => new RegExp(`${k}: (.+)`).exec(out)?.[1] ?? '?').join(', '),
  };
}

let shim = '';

async function wrk(url, { conns, seconds = DURATION, timeout = 5, cpus = '', server, close = false }) {
  const argv = ['wrk', `-t${THREADS}`, `-c${conns}`, `-d${seconds}s`, '--timeout', `${timeout}s`, '--latency'];
  if (close) argv.push('-H', 'Connection: close');
  const { out, cpu } = await runTool(close ? ['env', `LD_PRELOAD=${shim}`, ...argv, url] : [...argv, url], { seconds, cpus, server });
  return { ...parseWrk(out), cpu };
}

async function h2load(url, { seconds = DURATION, cpus = '', server }) {
  const { out, cpu } = await runTool(['h2load', `-c${H2C}`, `-m${H2M}`, '-D', String(seconds), url], { seconds, cpus, server });
  return { ...parseH2load(out), cpu };
}

// ---- the admin API and probes --------------------------------------------------------------

/**
 * One admin API call on a connection of its own: a kept-alive connection would sit unread during a
 * run past the daemon's keep-alive timeout and fail the next call.
 */
function api(port, method, path, body, token) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolvePromise, reject) => {
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
            resolvePromise(JSON.parse(text));
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

/** The body a server answers at `url` (TLS without verification: a self-signed test certificate). */
function getBody(url) {
  return new Promise((resolvePromise, reject) => {
    const req = (url.startsWith('https') ? httpsRequest : httpRequest)(url, { agent: false, rejectUnauthorized: false, timeout: 5000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolvePromise(text));
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: no answer in 5 s`)));
    req.on('error', reject);
    req.end();
  });
}

// ---- nginx configuration, figures ----------------------------------------------------------

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

const startNginxProcess = (name, dir, body, workers, cpus) => start(name, 'nginx', ['-c', nginxConf(dir, body, workers), '-p', dir, '-e', join(dir, 'error.log')], { cpus });

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const fmtK = (n) => (!Number.isFinite(n) ? 'n/a' : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : n.toFixed(0));
const pct = (x) => (Number.isFinite(x) ? `${Math.round(x * 100)}%` : 'n/a');
const coresName = (spec) => {
  const list = coreList(spec);
  return list.length === 1 ? `core ${list[0]}` : list.length === CPUS ? 'all cores' : `cores ${spec}`;
};

// ---- the servers ---------------------------------------------------------------------------

/** Set by main once built: the certificate, the backend's port, the daemon to run and its Node options. */
const ctx = { certFile: '', keyFile: '', pBackend: 0, daemonMain: '', nodeOptions: '' };
const textLocation = () => `location / { default_type text/plain; return 200 "${BODY.replace('\n', '\\n')}"; }`;
const nginxTls = () => `  ssl_certificate ${ctx.certFile};
  ssl_certificate_key ${ctx.keyFile};
  ssl_protocols TLSv1.3;`;

/**
 * The ceilings, alone on core 0: nginx `return 200` with one worker (which also serves the
 * resumption probe: a TLS server logging $ssl_session_reused) and a bare node:http server.
 */
async function startReferences() {
  const [h1, probe, hello] = [await freePort(), await freePort(), await freePort()];
  const dir = join(tmp, 'nginx-ref');
  const nginx = startNginxProcess(
    'nginx-ref',
    dir,
    `${nginxTls()}
  log_format reused '$ssl_protocol $ssl_session_reused';
  server { listen 127.0.0.1:${h1}; ${textLocation()} }
  server { listen 127.0.0.1:${probe} ssl; access_log ${dir}/probe.log reused; ${textLocation()} }`,
    1,
    serverCpus(1),
  );
  const node = start(
    'node hello',
    process.execPath,
    ['-e', `require('node:http').createServer((q, s) => { s.writeHead(200, { 'content-type': 'text/plain', 'content-length': '${BODY.length}' }); s.end(${JSON.stringify(BODY)}); }).listen(${hello}, '127.0.0.1')`],
    { cpus: serverCpus(1) },
  );
  await Promise.all([h1, probe, hello].map((p) => waitPort(p)));
  return { nginx: { pid: nginx.pid, port: h1 }, node: { pid: node.pid, port: hello }, probe: { port: probe, log: join(dir, 'probe.log') } };
}

/** Each server of a level listens on four ports: the rows `h1`/`c1000`, `tls`, `h2text`, `h2proxy`. */
const fourPorts = async () => ({ h1: await freePort(), tls: await freePort(), h2text: await freePort(), h2proxy: await freePort() });

async function startNginx(n) {
  const ports = await fourPorts();
  const proxy = `location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Real-IP $remote_addr;
    }`;
  const child = startNginxProcess(
    `nginx-${n}`,
    join(tmp, `nginx-${n}`),
    `${nginxTls()}
  upstream backend { server 127.0.0.1:${ctx.pBackend}; keepalive 128; }
  server { listen 127.0.0.1:${ports.h1}; ${proxy} }
  server { listen 127.0.0.1:${ports.tls} ssl; ${textLocation()} }
  server { listen 127.0.0.1:${ports.h2text} ssl http2; ${textLocation()} }
  server { listen 127.0.0.1:${ports.h2proxy} ssl http2; ${proxy} }`,
    n,
    serverCpus(n),
  );
  await Promise.all(Object.values(ports).map((p) => waitPort(p)));
  return { pid: child.pid, ports };
}

async function startCaddy(n) {
  const ports = await fourPorts();
  const dir = join(tmp, `caddy-${n}`);
  mkdirSync(dir, { recursive: true });
  const tls = `tls ${ctx.certFile} ${ctx.keyFile} {
		protocols tls1.3
	}`;
  // h2load sends no SNI to an address: default_sni lets Caddy pick the site's certificate anyway.
  // The quoted body spans two lines, its newline being part of it (as in nginx's "\n").
  writeFileSync(
    join(dir, 'Caddyfile'),
    `{
	admin off
	auto_https off
	default_sni 127.0.0.1
	servers {
		protocols h1 h2
	}
}
http://127.0.0.1:${ports.h1} {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:${ctx.pBackend}
}
https://127.0.0.1:${ports.tls}, https://127.0.0.1:${ports.h2text} {
	bind 127.0.0.1
	${tls}
	respond "${BODY}" 200
}
https://127.0.0.1:${ports.h2proxy} {
	bind 127.0.0.1
	${tls}
	reverse_proxy 127.0.0.1:${ctx.pBackend}
}
`,
  );
  const child = start(`caddy-${n}`, 'caddy', ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, GOMAXPROCS: String(n) },
    cpus: serverCpus(n),
  });
  await Promise.all(Object.values(ports).map((p) => waitPort(p)));
  return { pid: child.pid, ports };
}

/**
 * Lucky as `npm start` runs it, logged in, its rules created through the API. `threads` unset is the
 * automatic setting; `engine` unset is the default web engine.
 */
async function startLuckyDaemon(name, { cpus, engine, threads }) {
  const admin = await freePort();
  const env = { ...process.env, LUCKY_ADMIN_USER: 'bench', LUCKY_ADMIN_PASSWORD: 'bench-password-1', NODE_ENV: 'production', NODE_OPTIONS: ctx.nodeOptions };
  delete env.LUCKY_WEB_ENGINE;
  delete env.LUCKY_WEB_THREADS;
  if (engine) env.LUCKY_WEB_ENGINE = engine;
  if (threads) env.LUCKY_WEB_THREADS = String(threads);
  const child = start(name, process.execPath, [ctx.daemonMain, '--port', String(admin), '--host', '127.0.0.1', '--data-dir', join(tmp, name)], { env, cpus });
  await waitPort(admin, 60_000);
  const login = await api(admin, 'POST', '/api/login', { Account: 'bench', Password: 'bench-password-1' });
  if (login.ret !== 0) throw new Error(`${name}: login failed: ${JSON.stringify(login)}`);
  const d = {
    name,
    child,
    // sh exec'ing node (or taskset exec'ing it): the daemon's own pid.
    pid: child.pid,
    admin,
    token: login.token,
    call: (method, path, body) => api(admin, method, path, body, login.token),
    async rule(rule) {
      const created = await d.call('POST', '/api/web/rules', { address: '127.0.0.1', ...rule });
      if (created.ret !== 0) throw new Error(`${name}: rule ${rule.name} not created: ${JSON.stringify(created)}`);
      await waitPort(rule.port);
    },
    /** Program log lines (in English) newer than `t` (ms). */
    logs: async (t = 0) => ((await d.call('GET', `/api/logs?pre=${t}`)).logs ?? []).filter((l) => l.timestamp > t),
  };
  return d;
}

const backendProxy = () => ({ type: 'proxy', targets: [`http://127.0.0.1:${ctx.pBackend}`] });

/** N = 1: the automatic setting on core 0 (it moves to one serving thread once busy); N > 1: N serving threads. */
async function startLucky(n, engine) {
  const d = await startLuckyDaemon(`lucky-${n}${engine ? `-${engine}` : ''}`, { cpus: serverCpus(n), engine, threads: n > 1 ? n : 0 });
  const ports = await fourPorts();
  const text = { type: 'text', status: 200, contentType: 'text/plain', body: BODY };
  const https = { protocol: 'https', minTls: '1.3', certs: [{ source: 'file', cert: ctx.certFile, key: ctx.keyFile }] };
  await d.rule({ name: 'h1', port: ports.h1, defaultService: backendProxy() });
  // HTTP/1.1 only, as nginx's server of this row (wrk offers no ALPN anyway).
  await d.rule({ name: 'tls', port: ports.tls, ...https, http2: false, defaultService: text });
  await d.rule({ name: 'h2text', port: ports.h2text, ...https, defaultService: text });
  await d.rule({ name: 'h2proxy', port: ports.h2proxy, ...https, defaultService: backendProxy() });
  return Object.assign(d, { ports });
}

// The automatic setting says where it serves in the program log. The move back (after a quiet
// minute) is being written: its line is expected to say "back" or to name the main thread as where
// rules are served again; check these words when it lands.
const MOVED_TO = /web rules moved to \d+ serving thread/;
const MOVED_BACK = /moved back|back to the main thread|to the main thread|main thread .*again/i;

async function servesFromThreads(d) {
  let state = false;
  for (const l of await d.logs()) {
    if (MOVED_TO.test(l.log)) state = true;
    else if (MOVED_BACK.test(l.log)) state = false;
  }
  return state;
}

/**
 * The automatic setting serves from its thread only after 5 busy seconds: load it (`tries` runs of
 * 4 s at most) until it has moved. Says where it serves.
 */
async function ensureMoved(d, name, tries) {
  if (await servesFromThreads(d)) return true;
  placeShared(1);
  for (let i = 0; i < tries; i++) {
    await wrk(`http://127.0.0.1:${d.ports.h1}/`, { conns: CONNS, seconds: 4, cpus: clientCpus(1) });
    if (await servesFromThreads(d)) break;
  }
  const moved = await servesFromThreads(d);
  if (tries > 0) log(`  ${name}: ${moved ? 'serves from its serving thread' : `still on the main thread after ${tries * 4} s of load`}`);
  return moved;
}

// ---- the comparison rows -------------------------------------------------------------------

const ROLES = ['nginx', 'caddy', 'lucky', 'luckyNode'];
const label = (role, n) =>
  ({
    nginx: `nginx ${n} worker${n > 1 ? 's' : ''}`,
    caddy: `caddy GOMAXPROCS=${n}`,
    lucky: n === 1 ? 'lucky (automatic)' : `lucky ${n} threads`,
    luckyNode: n === 1 ? 'lucky (node engine, automatic)' : `lucky (node engine) ${n} threads`,
  })[role];

const KINDS = {
  h1: {
    title: `HTTP/1.1 reverse proxy, wrk -c${CONNS} keep-alive`,
    short: `HTTP/1.1 proxy, ${CONNS} conns`,
    port: 'h1',
    goal: { rps: 0.85, p99: 1.5 },
    run: (port, o) => wrk(`http://127.0.0.1:${port}/`, { ...o, conns: CONNS }),
  },
  c1000: {
    title: `HTTP/1.1 reverse proxy, wrk -c${MANY} keep-alive`,
    short: `HTTP/1.1 proxy, ${MANY} conns`,
    port: 'h1',
    goal: { rps: 0.85, p99: 1.5 },
    run: (port, o) => wrk(`http://127.0.0.1:${port}/`, { ...o, conns: MANY, timeout: 10 }),
  },
  tls: {
    title: `TLS 1.3 full handshakes (ECDSA P-256, Connection: close, no resumption), wrk -c${TLS_CONNS}; every server answers a fixed text itself (no backend)`,
    short: `TLS 1.3 full handshakes/s, ${TLS_CONNS} conns`,
    port: 'tls',
    goal: { rps: 1.0 },
    run: (port, o) => wrk(`https://127.0.0.1:${port}/`, { ...o, conns: TLS_CONNS, close: true }),
  },
  h2text: {
    title: `HTTP/2 over TLS, h2load -c${H2C} -m${H2M}, a short text answer (Lucky's text service, nginx return 200, Caddy respond)`,
    short: `HTTP/2 text answer, h2load -c${H2C} -m${H2M}`,
    port: 'h2text',
    goal: { rps: 0.7 },
    run: (port, o) => h2load(`https://127.0.0.1:${port}/`, o),
  },
  h2proxy: {
    title: `HTTP/2 over TLS, h2load -c${H2C} -m${H2M}, reverse proxy (HTTP/1.1 to the backend)`,
    short: `HTTP/2 proxy, h2load -c${H2C} -m${H2M}`,
    port: 'h2proxy',
    goal: { rps: 0.7 },
    run: (port, o) => h2load(`https://127.0.0.1:${port}/`, o),
  },
};

/** Rows of the final table, in the issue's format. */
const summary = [];
const ceilings = [];

const runOpts = (t) => ({ cpus: clientCpus(t.n), server: { pid: t.server.pid, cores: serverCpus(t.n) } });
const p99Text = (ms) => (Number.isFinite(ms) ? `   p99 ${fmt(ms, 2).padStart(7)} ms` : '');
const cpuNote = (r, n) =>
  n === 1 && PINNING
    ? `core 0 ${pct(r.cpu.server).padStart(4)} | ${coresName(clientCpus(1))} ${pct(r.cpu.client).padStart(4)} | server ${fmt(r.cpu.proc, 2)} cpu`
    : `all cores ${pct(r.cpu.server).padStart(4)} | server ${fmt(r.cpu.proc, 2)} cpu`;

/** The marks of a summary cell: `*` the server's cores not busy enough, `†` core 0 shared with other processes. */
const marks = (n, r) => `${r.busy < BUSY_ENOUGH ? ' *' : ''}${n === 1 && PINNING && r.busy >= BUSY_ENOUGH && r.proc < 0.7 ? ' †' : ''}`;

/**
 * The warnings of one level's medians: the server's core(s) not busy enough (the client side was
 * the limit), or, at N = 1, core 0 busy with something else than the server (a machine not quiet).
 */
function cpuWarnings(n, rows) {
  const low = rows.filter((r) => r.busy < BUSY_ENOUGH).map((r) => `${r.name} ${pct(r.busy)}`);
  const out = [];
  if (low.length) {
    out.push(
      n === 1 && PINNING
        ? `WARNING: core 0 was below ${pct(BUSY_ENOUGH)} busy for ${low.join(', ')}: the client side (${coresName(clientCpus(1))}: the load generator, the backend, loopback softirq) limited these figures, not the server under test.`
        : `WARNING: the machine was below ${pct(BUSY_ENOUGH)} busy for ${low.join(', ')}: something else than CPU (latency, the client) limited these figures.`,
    );
  }
  // Interrupts on core 0 are not the server's own time, so only a large gap says "not quiet".
  const shared = n === 1 && PINNING ? rows.filter((r) => r.busy >= BUSY_ENOUGH && r.proc < 0.7).map((r) => `${r.name} ${fmt(r.proc, 2)}`) : [];
  if (shared.length) out.push(`WARNING: the server itself used little of a busy core 0 (${shared.join(', ')} cpu): other processes took it, the machine was not quiet.`);
  return out;
}

/** `ROUNDS` interleaved rounds of one kind over every target of every level; a summary row per level. */
async function compare(kindKey, servers) {
  const kind = KINDS[kindKey];
  const t0 = Date.now();
  const targets = LEVELS.flatMap((n) => ROLES.map((role) => ({ role, n, name: label(role, n), server: servers[n][role] })));
  // Lucky at N = 1 is measured serving from its thread, as a busy daemon does: loaded until it moves
  // before the part, and again during it only if it had moved and went back (a quiet minute).
  // Only the Node path moves: the native engine serves from its own threads from the start.
  const autoRoles = servers[1] ? ['luckyNode'] : [];
  const moved = {};
  const ensureAllMoved = async (warmUp) => {
    for (const role of autoRoles) moved[role] = await ensureMoved(servers[1][role], label(role, 1), warmUp ? 5 : moved[role] ? 2 : 0);
  };
  log('');
  log(`== ${kind.title}: ${ROUNDS} interleaved rounds of ${DURATION} s`);
  // Warm-up (JIT, pools, TLS contexts): a short unmeasured run each. Lucky's automatic setting at
  // N = 1 is loaded until it serves from its thread first (ensureMoved).
  for (const n of LEVELS) {
    placeShared(n);
    if (n === 1) await ensureAllMoved(true);
    for (const t of targets.filter((x) => x.n === n)) {
      const r = await kind.run(t.server.ports[kind.port], { ...runOpts(t), seconds: WARM });
      if (r.tls !== undefined) {
        if (!/h2$/.test(r.tls)) throw new Error(`${t.name} did not speak h2: ${r.tls}`);
        log(`  ${t.name.padEnd(34)} ${r.tls}`);
      }
    }
  }
  const results = new Map(targets.map((t) => [t, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const n of LEVELS) {
      placeShared(n);
      if (n === 1) await ensureAllMoved(false);
      for (const t of targets.filter((x) => x.n === n)) {
        const r = await kind.run(t.server.ports[kind.port], runOpts(t));
        if (n === 1 && autoRoles.includes(t.role)) r.onThread = moved[t.role];
        results.get(t).push(r);
        const errs = r.errors + r.non2xx ? `   errors ${r.errors} non-2xx ${r.non2xx}` : '';
        log(`  round ${round} N=${n} ${t.name.padEnd(34)} ${fmtK(r.rps).padStart(7)} req/s${p99Text(r.p99)}   ${cpuNote(r, n)}${errs}`);
      }
    }
  }
  for (const n of LEVELS) {
    const of = (role) => results.get(targets.find((t) => t.role === role && t.n === n));
    const med = (role, f) => median(of(role).map(f));
    const [L, N, C] = [of('lucky'), of('nginx'), of('caddy')];
    // Ratios per round (the runs of one round are back to back, so they saw much the same machine),
    // then their median: steadier than a ratio of medians when others share the CPUs.
    const ratio = median(L.map((x, i) => x.rps / N[i].rps));
    const p99Ratio = median(L.map((x, i) => x.p99 / N[i].p99));
    const vsCaddy = median(C.map((x, i) => x.rps / L[i].rps));
    // Requests per CPU second the server itself spent: where the client side capped the rate
    // (core 0 idle part of the time), what each server could carry on the same CPU.
    const perCpu = (x) => x.rps / Math.max(x.cpu.proc, 0.01);
    const cpuRatio = median(L.map((x, i) => perCpu(x) / perCpu(N[i])));
    const cpuVsCaddy = median(C.map((x, i) => perCpu(x) / perCpu(L[i])));
    const setup = n === 1 && PINNING ? `each server alone on core 0; backend, client and this script on ${coresName(clientCpus(1))}` : 'nothing pinned';
    log('');
    log(`${kind.title}, N = ${n} (${setup}); medians (load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}):`);
    const rows = ROLES.map((role) => ({ role, name: label(role, n), busy: med(role, (x) => x.cpu.server), proc: med(role, (x) => x.cpu.proc) }));
    for (const { role, name, busy, proc } of rows) {
      const rs = of(role);
      const errs = rs.reduce((a, x) => a + x.errors, 0);
      const non2xx = rs.reduce((a, x) => a + x.non2xx, 0);
      log(`  ${name.padEnd(34)} ${fmtK(med(role, (x) => x.rps)).padStart(7)} req/s${p99Text(med(role, (x) => x.p99))}   ${n === 1 && PINNING ? 'core 0' : 'all cores'} ${pct(busy)} busy, server ${fmt(proc, 2)} cpu   errors ${errs} non-2xx ${non2xx}`);
    }
    for (const role of n === 1 ? autoRoles : []) {
      const on = of(role).filter((x) => x.onThread).length;
      if (on < ROUNDS) log(`  NOTE: ${label(role, 1)} served from the main thread in ${ROUNDS - on} of ${ROUNDS} rounds (the automatic setting had not moved).`);
    }
    log(`  per round lucky/nginx req/s: ${L.map((x, i) => fmt(x.rps / N[i].rps, 2)).join(' ')}`);
    const goals = [];
    const verdict = (title, value, text, met) => {
      log(`  ${title.padEnd(24)} ${fmt(value, 2)}  (goal ${text})  ${met ? 'met' : 'NOT met'}`);
      goals.push(`${text} ${met ? 'met' : 'NOT met'}`);
    };
    verdict('ratio req/s lucky/nginx', ratio, `>= ${kind.goal.rps}x`, ratio >= kind.goal.rps);
    if (kind.goal.p99) verdict('ratio p99 lucky/nginx', p99Ratio, `p99 <= ${kind.goal.p99}x`, p99Ratio <= kind.goal.p99);
    verdict('ratio req/s caddy/lucky', vsCaddy, 'Caddy below', vsCaddy < 1);
    const limited = cpuWarnings(n, rows);
    for (const w of limited) log(`  ${w}`);
    log(`  per round lucky/nginx req/s per server CPU second: ${L.map((x, i) => fmt(perCpu(x) / perCpu(N[i]), 2)).join(' ')}`);
    log(`  ratio req/s per server CPU lucky/nginx  ${fmt(cpuRatio, 2)}, caddy/lucky ${fmt(cpuVsCaddy, 2)}${limited.length ? '  (the fairer figure here: the client side limited the rate)' : ''}`);
    const cell = (role) => {
      const p99 = kind.goal.p99 ? `, p99 ${fmt(med(role, (x) => x.p99), 1)} ms` : '';
      return `${fmtK(med(role, (x) => x.rps))}${p99}${marks(n, rows.find((r) => r.role === role))}`;
    };
    summary.push({
      row: `${kind.short}, N = ${n}`,
      nginx: cell('nginx'),
      lucky: cell('lucky'),
      ratio: `${fmt(ratio, 2)}x${kind.goal.p99 ? `, p99 ${fmt(p99Ratio, 2)}x` : ''}; per CPU ${fmt(cpuRatio, 2)}x`,
      goal: goals.join('; '),
      node: cell('luckyNode'),
      caddy: cell('caddy'),
    });
  }
  log(`  (${kindKey}: ${Math.round((Date.now() - t0) / 1000)} s)`);
}

/**
 * Full handshakes only: wrk, like h2load, keeps the last session across its reconnects and offers
 * it (measured here: nearly every connection resumed), so the TLS row preloads noresume.c. This
 * checks both against nginx's $ssl_session_reused on every run, and stops the run if the shim
 * did not hold.
 */
async function checkFullHandshakes(probe) {
  shim = join(tmp, 'noresume.so');
  execFileSync('cc', ['-shared', '-fPIC', '-O2', '-o', shim, join(here, 'noresume.c'), '-ldl'], { stdio: 'inherit' });
  placeShared(1);
  const count = async (preload) => {
    writeFileSync(probe.log, '');
    const argv = ['wrk', '-t1', '-c4', '-d1s', '-H', 'Connection: close', `https://127.0.0.1:${probe.port}/`];
    await runTool(preload ? ['env', `LD_PRELOAD=${shim}`, ...argv] : argv, { seconds: 1, cpus: clientCpus(1) });
    await sleep(200);
    const lines = readFileSync(probe.log, 'utf8').trim().split('\n').filter(Boolean);
    return { all: lines.length, reused: lines.filter((l) => / r$/.test(l)).length, tls13: lines.filter((l) => l.startsWith('TLSv1.3 ')).length };
  };
  const plain = await count(false);
  const fresh = await count(true);
  log('');
  log(`full handshakes (nginx's $ssl_session_reused, wrk -c4 -H 'Connection: close'): plain wrk resumed ${plain.reused} of ${plain.all} connections; with noresume.c preloaded ${fresh.reused} of ${fresh.all} (TLS 1.3: ${fresh.tls13})`);
  if (fresh.all === 0 || fresh.reused > 0 || fresh.tls13 !== fresh.all) throw new Error('the TLS client resumed sessions (or the probe saw no connection): the handshake row would not measure full handshakes');
}

/** The platform's ceilings on core 0, no ratio: what a server answering the text itself reaches. */
async function ceilingPart(refs) {
  const t0 = Date.now();
  placeShared(1);
  const list = [
    { name: 'nginx return 200, 1 worker', ...refs.nginx },
    { name: 'bare node:http hello world', ...refs.node },
  ];
  log('');
  log(`== ceilings on core 0 (HTTP/1.1, wrk -c${CONNS} keep-alive, a text answer, no backend): ${ROUNDS} interleaved rounds`);
  for (const r of list) await wrk(`http://127.0.0.1:${r.port}/`, { conns: CONNS, seconds: WARM, cpus: clientCpus(1) });
  const res = list.map(() => []);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, r] of list.entries()) {
      const x = await wrk(`http://127.0.0.1:${r.port}/`, { conns: CONNS, cpus: clientCpus(1), server: { pid: r.pid, cores: serverCpus(1) } });
      res[i].push(x);
      log(`  round ${round} ${r.name.padEnd(30)} ${fmtK(x.rps).padStart(7)} req/s${p99Text(x.p99)}   ${cpuNote(x, 1)}`);
    }
  }
  const rows = list.map((r, i) => ({ name: r.name, rps: median(res[i].map((x) => x.rps)), busy: median(res[i].map((x) => x.cpu.server)), proc: median(res[i].map((x) => x.cpu.proc)) }));
  for (const [i, r] of rows.entries()) {
    log(`  ${r.name.padEnd(30)} ${fmtK(r.rps).padStart(7)} req/s${p99Text(median(res[i].map((x) => x.p99)))}   core 0 ${pct(r.busy)} busy, server ${fmt(r.proc, 2)} cpu`);
    ceilings.push(`${fmtK(r.rps)}${marks(1, r)}`);
  }
  for (const w of cpuWarnings(1, rows)) log(`  ${w}`);
  log(`  (ref: ${Math.round((Date.now() - t0) / 1000)} s)`);
}

/** Latency at one offered load below every proxy's ceiling here, for reading beside the saturated p99. */
async function fixedPart(servers) {
  const RATE = Number(values.rate);
  log('');
  log(`== latency at a fixed ${RATE} req/s (h2load --h1 --rps, ${CONNS} connections, ${DURATION} s; medians of ${ROUNDS} rounds):`);
  const fixed = new Map();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const n of LEVELS) {
      placeShared(n);
      for (const role of ROLES) {
        const file = join(tmp, `h2load-${Date.now()}.log`);
        await runTool(['h2load', '--h1', `-c${CONNS}`, '-m1', '--rps', String(Math.ceil(RATE / CONNS)), '-D', String(DURATION), '--log-file', file, `http://127.0.0.1:${servers[n][role].ports.h1}/`], { seconds: DURATION, cpus: clientCpus(n) });
        const us = readFileSync(file, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split('\t'))
          .filter((f) => f[1] === '200')
          .map((f) => Number(f[2]))
          .sort((a, b) => a - b);
        rmSync(file, { force: true });
        const at = (q) => (us.length ? us[Math.min(us.length - 1, Math.floor(q * us.length))] / 1000 : NaN);
        const name = `N=${n} ${label(role, n)}`;
        if (!fixed.has(name)) fixed.set(name, []);
        fixed.get(name).push({ p50: at(0.5), p99: at(0.99), n: us.length });
      }
    }
  }
  for (const [name, rs] of fixed) {
    log(`  ${name.padEnd(38)} p50 ${fmt(median(rs.map((x) => x.p50)), 2).padStart(6)} ms   p99 ${fmt(median(rs.map((x) => x.p99)), 2).padStart(6)} ms   (${rs.reduce((a, x) => a + x.n, 0)} answers)`);
  }
}

/**
 * Part 2 of the issue: serving moves from the main thread to its threads under 1 000 connections
 * (no request may fail), and back after a quiet minute (threads and their memory released).
 */
async function movePart() {
  const t0 = Date.now();
  placeShared(CPUS);
  log('');
  log(`== move: a fresh daemon (node engine, automatic serving threads, not pinned), one proxy rule, wrk -c${MANY} for ${MOVE_SECONDS} s from cold`);
  const d = await startLuckyDaemon('lucky-move', { cpus: ALL_CPUS, engine: 'node' });
  const port = await freePort();
  await d.rule({ name: 'move', port, defaultService: backendProxy() });
  for (let i = 0; i < 5; i++) if ((await getBody(`http://127.0.0.1:${port}/`)) !== BODY) throw new Error('the move rule answers something else');

  const MB = 1024 * 1024;
  const threadsOf = () => Number(/Threads:\s+(\d+)/.exec(readFileSync(`/proc/${d.pid}/status`, 'utf8'))?.[1] ?? NaN);
  const fds = () => readdirSync(`/proc/${d.pid}/fd`).length;

  // Idle: what the daemon holds with its rule and nothing to do, once start-up has settled.
  await sleep(5000);
  const samples = [];
  for (let i = 0; i < 5; i++) {
    samples.push(rssOf(d.pid));
    await sleep(1000);
  }
  const idle = median(samples);
  const idleThreads = threadsOf();
  log(`  idle: RSS ${fmt(idle / MB, 1)} MB, ${idleThreads} OS threads, ${fds()} fds`);
  const overIdle = (rss) => `${rss >= idle ? '+' : ''}${fmt((rss - idle) / MB, 1)} MB over idle`;

  async function loadRun(title) {
    const started = Date.now();
    const { out } = await runTool(['wrk', `-t${THREADS}`, `-c${MANY}`, `-d${MOVE_SECONDS}s`, '--timeout', '10s', '--latency', `http://127.0.0.1:${port}/`], { seconds: MOVE_SECONDS, cpus: ALL_CPUS });
    const r = parseWrk(out);
    const move = (await d.logs(started - 1)).find((l) => MOVED_TO.test(l.log));
    const bad = r.errors + r.non2xx;
    log(`  ${title}: ${fmtK(r.rps)} req/s, p99 ${fmt(r.p99, 1)} ms, ${r.total} requests; ${r.sockErrors}; non-2xx ${r.non2xx}; ${move ? `serving moved to threads at +${fmt((move.timestamp - started) / 1000, 1)} s ("${move.log}")` : 'serving did not move during the run'}`);
    log(`  ${title}: failed requests ${bad}  (goal 0)  ${bad === 0 ? 'met' : 'NOT met'}`);
    const rss = rssOf(d.pid);
    log(`  right after: RSS ${fmt(rss / MB, 1)} MB (${overIdle(rss)}), ${threadsOf()} OS threads, ${fds()} fds`);
    return { bad, moved: Boolean(move) };
  }

  const a = await loadRun('cold start');
  summary.push({ row: `move to threads under ${MANY} conns (cold start, ${MOVE_SECONDS} s): failed requests`, lucky: `${a.bad}${a.moved ? '' : ' (no move seen)'}`, goal: `0 ${a.bad === 0 ? 'met' : 'NOT met'}` });

  // Without load: the threads should go, and their memory with them.
  const quietFrom = Date.now();
  let back = null;
  let rss = NaN;
  let since = null;
  for (let s = 10; s <= MOVE_IDLE; s += 10) {
    await sleep(Math.max(0, quietFrom + s * 1000 - Date.now()));
    rss = rssOf(d.pid);
    back ??= (await d.logs(quietFrom)).find((l) => MOVED_BACK.test(l.log) && !MOVED_TO.test(l.log)) ?? null;
    const close = rss - idle <= 15 * MB;
    since = close ? (since ?? s) : null;
    log(`  +${String(s).padStart(2)} s without load: RSS ${fmt(rss / MB, 1)} MB (${overIdle(rss)}), ${threadsOf()} OS threads, ${fds()} fds${back ? `; moved back at +${fmt((back.timestamp - quietFrom) / 1000, 0)} s` : ''}`);
    if (back && close && s >= 60) break;
  }
  const quiet = Math.round((Date.now() - quietFrom) / 1000);
  const rssMet = rss - idle <= 15 * MB;
  log(`  RSS within 15 MB of idle after ${quiet} s: ${overIdle(rss)}${since ? ` (since +${since} s)` : ''}  ${rssMet ? 'met' : 'NOT met'}`);
  log(`  the program log says serving moved back: ${back ? `"${back.log}"  met` : 'no such line  NOT met'}; OS threads ${threadsOf()} (idle ${idleThreads})`);
  summary.push({ row: `${quiet} s without load after it: RSS over idle`, lucky: `${fmt((rss - idle) / MB, 1)} MB`, goal: `<= 15 MB ${rssMet ? 'met' : 'NOT met'}` });
  summary.push({ row: 'serving moved back to the main thread (program log)', lucky: back ? `yes, +${fmt((back.timestamp - quietFrom) / 1000, 0)} s` : 'no', goal: back ? 'met' : 'NOT met' });

  // Cold again if serving moved back: then this load makes it move once more, the load going on.
  const b = await loadRun(back ? 'after the move back' : 'second load (serving still on threads)');
  summary.push({ row: `second load, ${MANY} conns${b.moved ? ' (serving moved again)' : ' (no move)'}: failed requests`, lucky: String(b.bad), goal: `0 ${b.bad === 0 ? 'met' : 'NOT met'}` });
  await stopChild(d.child);
  log(`  (move: ${Math.round((Date.now() - t0) / 1000)} s)`);
}

function printSummary() {
  const compared = summary.some((s) => s.ratio) || ceilings.length > 0;
  log('');
  log(`== summary${compared ? `: ${ROUNDS} interleaved rounds of ${DURATION} s, medians; N = 1: each server alone on core 0, the backend and the client on ${coresName(clientCpus(1))}; N = ${CPUS}: nothing pinned` : ''}`);
  log('');
  log('| | nginx | Lucky | ratio | goal | Lucky (node engine) | Caddy |');
  log('|---|---|---|---|---|---|---|');
  for (const s of summary) log(`| ${s.row} | ${s.nginx ?? ''} | ${s.lucky} | ${s.ratio ?? ''} | ${s.goal} | ${s.node ?? ''} | ${s.caddy ?? ''} |`);
  if (ceilings.length) log(`| ceiling on core 0: HTTP/1.1 text answer, ${CONNS} conns (nginx return 200 / bare node:http) | ${ceilings[0]} | node:http ${ceilings[1]} | | reference | | |`);
  if (compared) {
    log('');
    log(`* the server's core(s) were below ${pct(BUSY_ENOUGH)} busy (median of the rounds): the client side limited that figure, not the server under test.`);
    log('† core 0 was busy but the server itself used less than 0.7 of it: other processes took it (a machine not quiet).');
  }
}

/** Seconds the chosen parts take, roughly, so that a reader sees it before it starts. */
function estimate() {
  const targets = LEVELS.length * ROLES.length;
  const perCompare = targets * (ROUNDS * (DURATION + 0.4) + WARM + 0.4) + 20;
  const compares = ['h1', 'c1000', 'tls'].filter((p) => PARTS.has(p)).length + (PARTS.has('h2') ? 2 : 0) + (PARTS.has('fixed') ? 1 : 0);
  return 60 + compares * perCompare + (PARTS.has('ref') ? 2 * (ROUNDS + 1) * (DURATION + 0.4) : 0) + (PARTS.has('move') ? 30 + 2 * MOVE_SECONDS + MOVE_IDLE : 0);
}

async function main() {
  const t0 = Date.now();
  requireBenchPackages('web');
  log(`versions: ${execFileSync('sh', ['-c', 'nginx -v 2>&1; caddy version 2>&1 | head -1; wrk -v 2>&1 | head -1; h2load --version 2>&1 | head -1; node -v'], { encoding: 'utf8' }).trim().replace(/\n/g, ' | ')}`);
  log(`cpus: ${CPUS}; load average ${loadavg().map((n) => n.toFixed(1)).join(' ')}; ${DURATION} s runs, ${ROUNDS} rounds; parts ${[...PARTS].join(',')}; about ${Math.ceil(estimate() / 60)} min`);
  if (!PINNING) log('WARNING: one CPU only: the server under test cannot have a core of its own; nothing is pinned.');

  // The daemon as `npm start` runs it: contracts and daemon built from this tree.
  log('building (npm run build) ...');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 900_000 });
  ctx.daemonMain = join(ROOT, 'apps', 'daemon', 'dist', 'main.js');
  if (!existsSync(ctx.daemonMain)) throw new Error('daemon build failed');
  ctx.nodeOptions = (await import(pathToFileURL(join(ROOT, 'apps', 'daemon', 'dist', 'nodeoptions.js')).href)).DAEMON_NODE_OPTIONS;

  // One self-signed ECDSA P-256 certificate for every TLS server.
  ctx.certFile = join(tmp, 'cert.pem');
  ctx.keyFile = join(tmp, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', ctx.keyFile, '-out', ctx.certFile, '-days', '2', '-subj', '/CN=bench.test'], { stdio: 'ignore' });

  // The backend: a tiny fixed answer, one worker per core, placed with the client at each level.
  ctx.pBackend = await freePort();
  const backend = startNginxProcess('backend', join(tmp, 'backend'), `  server { listen 127.0.0.1:${ctx.pBackend}; ${textLocation()} }`, CPUS, ALL_CPUS);
  await waitPort(ctx.pBackend);
  backendPid = backend.pid;
  placeShared(1);

  const compared = ['h1', 'c1000', 'tls', 'h2', 'fixed'].some((p) => PARTS.has(p));
  if (compared || PARTS.has('ref')) {
    const refs = await startReferences();
    const servers = {};
    if (compared) {
      for (const n of LEVELS) servers[n] = { nginx: await startNginx(n), caddy: await startCaddy(n), lucky: await startLucky(n), luckyNode: await startLucky(n, 'node') };
      // What each server answers, before any figure is taken.
      for (const n of LEVELS) {
        for (const role of ROLES) {
          for (const [kind, port] of Object.entries(servers[n][role].ports)) {
            const body = await getBody(`${kind === 'h1' ? 'http' : 'https'}://127.0.0.1:${port}/`);
            if (body !== BODY) throw new Error(`${label(role, n)} ${kind} answered ${JSON.stringify(body)}`);
          }
        }
      }
    }
    if (PARTS.has('h1')) await compare('h1', servers);
    if (PARTS.has('c1000')) await compare('c1000', servers);
    if (PARTS.has('tls')) {
      await checkFullHandshakes(refs.probe);
      await compare('tls', servers);
    }
    if (PARTS.has('h2')) {
      await compare('h2text', servers);
      await compare('h2proxy', servers);
    }
    if (PARTS.has('ref')) await ceilingPart(refs);
    if (PARTS.has('fixed')) await fixedPart(servers);
    // Core 0 and the memory free for the move part.
    await Promise.all(children.filter((c) => c !== backend && c.exitCode === null && c.signalCode === null).map((c) => stopChild(c)));
  }
  if (PARTS.has('move')) await movePart();
  printSummary();
  log(`\ntotal ${Math.round((Date.now() - t0) / 1000)} s`);
}

async function cleanup() {
  for (const t of tools) t.kill('SIGKILL');
  await Promise.all(children.filter((c) => c.exitCode === null && c.signalCode === null).map((c) => stopChild(c)));
  rmSync(tmp, { recursive: true, force: true });
}

process.on('SIGINT', () => {
  log('interrupted: stopping');
  void cleanup().finally(() => process.exit(130));
});

const guard = setTimeout(
  () => {
    log('benchmark took too long: stopping');
    void cleanup().finally(() => process.exit(1));
  },
  25 * 60_000,
);
guard.unref();

main()
  .catch((err) => {
    console.error(`benchmark failed: ${err.stack ?? err}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    clearTimeout(guard);
    await cleanup();
  });
