// WebDAV benchmark (module `webdav` over a storage of module `storage`), loopback only, temp dirs only.
// Prints, in one run, with the servers interleaved round after round (ROUNDS, median):
//   1. GET and PUT of one large file (LARGE_MB, default 256 MiB), MB/s;
//   2. GET and PUT of many small files (SMALL_COUNT files of SMALL_KB KiB, default 2000 x 4 KiB),
//      CONCURRENCY requests at a time (default 16), files/s;
// for Lucky's WebDAV rule vs `rclone serve webdav` vs nginx with ngx_http_dav_module (when the nginx
// installed has it: `nginx -V` shows --with-http_dav_module; never installed from here), all three on
// the same directory, with Basic auth on every request.
// Equal cores: each server (the daemon with all its threads, rclone, nginx with one worker) is pinned
// to SERVER_CPU (default 1), this process (the client: Node's http with a keep-alive agent, the same
// for every server) to CLIENT_CPU (default 0).
// The daemon's RSS (VmRSS) is sampled every 100 ms during its large transfers: start, peak, end.
// Each server's CPU time (utime + stime of its process and children, every thread) per GB moved or
// per 1000 files, which a busy machine disturbs far less than the rates.
// Ratios: median of the per-round ratios ours/rclone and ours/nginx, then the goals of issue 28
// (large GET >= 1.2x rclone and >= 0.85x nginx, small-file GET >= 1.4x rclone), met or not.
// Needs the built daemon (npm run build) and rclone (Debian package rclone, installed when missing:
// bench/packages.mjs).
// Env: ROUNDS (default 3), LARGE_MB (default 256), SMALL_COUNT (default 2000), SMALL_KB (default 4),
//      CONCURRENCY (default 16), SERVER_CPU (1), CLIENT_CPU (0), SKIP_NGINX=1,
//      STREAMED=1 (a second daemon with LUCKY_NATIVE_RELAY=0 in the rounds: bodies streamed, no sendfile),
//      CPU_PROF=large-get|large-put|small-get|small-put (the daemon runs with --cpu-prof; that phase
//      of ours runs PROF_REPEAT more times, default 5, and the top functions of the profile are printed).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuSecondsOf, DAEMON_DIST, freePort, median, outputTail, printTable, reaper, shareOverWebdav, sleep, startBenchDaemon, stop, withRss } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LARGE = Number(process.env.LARGE_MB ?? 256) * 1024 * 1024;
const SMALL_COUNT = Number(process.env.SMALL_COUNT ?? 2000);
const SMALL = Number(process.env.SMALL_KB ?? 4) * 1024;
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);
const CPU_PROF = process.env.CPU_PROF ?? '';
const STREAMED = process.env.STREAMED === '1';
const PROF_REPEAT = Number(process.env.PROF_REPEAT ?? 5);
const PASSWORD = 'bench-password-1';
const USER = 'benchuser';
const USER_PASS = 'bench-dav-pass-1';

const { track, atExit, finish } = reaper();

/** Whether an nginx with the DAV module is installed; the reason when not. */
function nginxDav() {
  if (process.env.SKIP_NGINX === '1') return { ok: false, why: 'SKIP_NGINX=1' };
  for (const bin of ['/usr/sbin/nginx', 'nginx']) {
    const r = spawnSync(bin, ['-V'], { encoding: 'utf8' });
    if (r.error) continue;
    const text = `${r.stdout}${r.stderr}`;
    const version = /nginx version: (\S+)/.exec(text)?.[1] ?? 'nginx';
    if (text.includes('--with-http_dav_module')) return { ok: true, bin, version };
    return { ok: false, why: `${version} is installed without ngx_http_dav_module (nginx -V); install nginx-extras to include it` };
  }
  return { ok: false, why: 'nginx is not installed (nginx-extras would bring ngx_http_dav_module); not installed by this benchmark' };
}

async function waitPort(port, ms = 15_000) {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise((resolve) => {
      const r = request({ host: '127.0.0.1', port, method: 'OPTIONS', path: '/', agent: false, timeout: 1000 }, (res) => {
        res.resume();
        resolve(true);
      });
      r.on('error', () => resolve(false));
      r.on('timeout', () => r.destroy());
      r.end();
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`nothing answers on port ${port}`);
    await sleep(50);
  }
}

// ------------------------------------------------------------------ the servers

async function startDaemon(dir, { name = 'lucky', env = {} } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'lucky-bench-dav-data-'));
  atExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const profDir = mkdtempSync(join(tmpdir(), 'lucky-bench-dav-prof-'));
  atExit(() => rmSync(profDir, { recursive: true, force: true }));
  const nodeArgs = CPU_PROF && name === 'lucky' ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [];
  const { p, api, nodeOptions } = await startBenchDaemon({ cpu: SERVER_CPU, dataDir, password: PASSWORD, nodeArgs, env });
  track(p);
  const { key, port } = await shareOverWebdav(api, dir, USER, USER_PASS);
  await waitPort(port);
  return {
    name,
    port,
    pid: p.pid,
    nodeOptions,
    figures: async () => (await api('GET', `/api/webdav/rules/${key}`)).rule.figures,
    close: () => stop(p),
    profiles: () => (existsSync(profDir) ? readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profDir, f)) : []),
  };
}

async function startRclone(dir) {
  const port = await freePort();
  const p = track(
    spawn('taskset', ['-c', SERVER_CPU, 'rclone', 'serve', 'webdav', dir, '--addr', `127.0.0.1:${port}`, '--user', USER, '--pass', USER_PASS, '--config', '/dev/null'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const tail = outputTail(p);
  await waitPort(port).catch((e) => Promise.reject(new Error(`${e.message}; rclone: ${tail()}`)));
  return { name: 'rclone', port, pid: p.pid, close: () => stop(p, 'SIGTERM', 3000) };
}

async function startNginx(bin, dir) {
  const port = await freePort();
  const conf = mkdtempSync(join(tmpdir(), 'lucky-bench-dav-nginx-'));
  atExit(() => rmSync(conf, { recursive: true, force: true }));
  writeFileSync(join(conf, 'htpasswd'), `${USER}:{PLAIN}${USER_PASS}\n`);
  mkdirSync(join(conf, 'body'));
  const asRoot = process.getuid?.() === 0;
  writeFileSync(
    join(conf, 'nginx.conf'),
    `${asRoot ? 'user root;\n' : ''}worker_processes 1;
daemon off;
pid ${join(conf, 'nginx.pid')};
error_log ${join(conf, 'error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 100000;
  client_body_temp_path ${join(conf, 'body')};
  proxy_temp_path ${join(conf, 'body')};
  fastcgi_temp_path ${join(conf, 'body')};
  uwsgi_temp_path ${join(conf, 'body')};
  scgi_temp_path ${join(conf, 'body')};
  server {
    listen 127.0.0.1:${port};
    root ${dir};
    client_max_body_size 0;
    dav_methods PUT DELETE MKCOL COPY MOVE;
    create_full_put_path on;
    dav_access user:rw group:r all:r;
    auth_basic bench;
    auth_basic_user_file ${join(conf, 'htpasswd')};
    autoindex on;
  }
}
`,
  );
  // The master and its one worker on the server CPU.
  const p = track(spawn('taskset', ['-c', SERVER_CPU, bin, '-p', conf, '-c', join(conf, 'nginx.conf'), '-e', join(conf, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const tail = outputTail(p);
  await waitPort(port).catch((e) => Promise.reject(new Error(`${e.message}; nginx: ${tail()}`)));
  return { name: 'nginx', port, pid: p.pid, close: () => stop(p, 'SIGQUIT', 3000) };
}

/** CPU seconds (user + system) of a process and its children (nginx's worker), every thread counted. */
function cpuTree(pid) {
  let total = 0;
  try {
    total += cpuSecondsOf(pid);
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)) total += cpuTree(Number(child));
    }
  } catch {
    // gone meanwhile
  }
  return total;
}

// ------------------------------------------------------------------ the client

const AUTH = `Basic ${Buffer.from(`${USER}:${USER_PASS}`).toString('base64')}`;

function call(agent, port, method, path, body, expect) {
  return new Promise((resolve, reject) => {
    const headers = { authorization: AUTH };
    if (typeof body === 'number') headers['content-length'] = String(body);
    else if (body) headers['content-length'] = String(body.length);
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      let n = 0;
      res.on('data', (c) => (n += c.length));
      res.on('end', () => {
        if (!expect.includes(res.statusCode)) reject(new Error(`${method} ${path}: status ${res.statusCode}`));
        else resolve(n);
      });
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body === undefined || body === null) r.end();
    else if (Buffer.isBuffer(body)) r.end(body);
    else body.pipe(r); // a stream; content-length given as the number
  });
}

/** Large GET: bytes received / s. */
async function largeGet(srv, agent) {
  const t0 = performance.now();
  const n = await call(agent, srv.port, 'GET', '/large.bin', undefined, [200]);
  const s = (performance.now() - t0) / 1000;
  if (n !== LARGE) throw new Error(`${srv.name}: GET large.bin gave ${n} bytes of ${LARGE}`);
  return LARGE / s / 1e6;
}

/** Large PUT from the source file (page cache) to a new name; checked on disk, then removed. */
async function largePut(srv, agent, dir, src, tag) {
  const name = `up-large-${tag}.bin`;
  const t0 = performance.now();
  await call(agent, srv.port, 'PUT', `/${name}`, Object.assign(createReadStream(src, { highWaterMark: 256 * 1024 }), { length: LARGE }), [200, 201, 204]);
  const s = (performance.now() - t0) / 1000;
  const size = statSync(join(dir, name)).size;
  if (size !== LARGE) throw new Error(`${srv.name}: PUT ${name} left ${size} bytes of ${LARGE}`);
  rmSync(join(dir, name));
  return LARGE / s / 1e6;
}

async function pool(n, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(CONCURRENCY, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

async function smallGet(srv, agent) {
  let bytes = 0;
  const t0 = performance.now();
  await pool(SMALL_COUNT, async (i) => {
    const n = await call(agent, srv.port, 'GET', `/small/f${i}.bin`, undefined, [200]);
    bytes += n;
  });
  const s = (performance.now() - t0) / 1000;
  if (bytes !== SMALL_COUNT * SMALL) throw new Error(`${srv.name}: small GETs gave ${bytes} bytes of ${SMALL_COUNT * SMALL}`);
  return SMALL_COUNT / s;
}

async function smallPut(srv, agent, dir, payload, tag) {
  const folder = `up-small-${tag}`;
  await call(agent, srv.port, 'MKCOL', `/${folder}/`, undefined, [201]);
  const t0 = performance.now();
  await pool(SMALL_COUNT, (i) => call(agent, srv.port, 'PUT', `/${folder}/f${i}.bin`, payload, [200, 201, 204]));
  const s = (performance.now() - t0) / 1000;
  const names = readdirSync(join(dir, folder));
  if (names.length !== SMALL_COUNT) throw new Error(`${srv.name}: ${names.length} small files on disk of ${SMALL_COUNT}`);
  if (statSync(join(dir, folder, names[0])).size !== SMALL) throw new Error(`${srv.name}: a small file has the wrong size`);
  rmSync(join(dir, folder), { recursive: true, force: true });
  return SMALL_COUNT / s;
}

// ------------------------------------------------------------------ main

const t0 = performance.now();
requireBenchPackages('storage');
// The client (this process, all its threads) on CLIENT_CPU.
spawnSync('taskset', ['-a', '-p', '-c', CLIENT_CPU, String(process.pid)], { stdio: 'ignore' });
const ngx = nginxDav();
const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(DAEMON_DIST, 'nodeoptions.js')).href);
const rcloneVersion = spawnSync('rclone', ['version'], { encoding: 'utf8' }).stdout.split('\n')[0];
console.log(`WebDAV benchmark: Node ${process.versions.node}, daemon NODE_OPTIONS "${DAEMON_NODE_OPTIONS}"${CPU_PROF ? ` --cpu-prof (${CPU_PROF})` : ''}; ${rcloneVersion}; ${ngx.ok ? `${ngx.version} with ngx_http_dav_module` : `nginx skipped: ${ngx.why}`}`);
console.log(`${cpus().length} CPUs: each server pinned to CPU ${SERVER_CPU}, the client (Node http, keep-alive agent) to CPU ${CLIENT_CPU}; Basic auth on every request`);
console.log(`large: one ${LARGE / 1048576} MiB file; small: ${SMALL_COUNT} files of ${SMALL / 1024} KiB, ${CONCURRENCY} at a time; ${ROUNDS} rounds interleaved (median)`);
console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

const work = mkdtempSync(join(tmpdir(), 'lucky-bench-dav-'));
atExit(() => rmSync(work, { recursive: true, force: true }));
mkdirSync(join(work, 'share'));
const dir = realpathSync(join(work, 'share'));
const src = join(work, 'source-large.bin');
let failed = false;
const servers = [];
try {
  // The data: a large random-ish file (served for GET; the PUT source lives outside the served dir), small files.
  {
    const block = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
    const { openSync, writeSync, closeSync, copyFileSync } = await import('node:fs');
    const fd = openSync(src, 'w');
    for (let off = 0; off < LARGE; off += block.length) writeSync(fd, block, 0, Math.min(block.length, LARGE - off));
    closeSync(fd);
    copyFileSync(src, join(dir, 'large.bin'));
    mkdirSync(join(dir, 'small'));
    const payload = Buffer.alloc(SMALL, 0x61);
    for (let i = 0; i < SMALL_COUNT; i++) writeFileSync(join(dir, 'small', `f${i}.bin`), payload);
  }
  const payload = Buffer.alloc(SMALL, 0x62);

  const lucky = await startDaemon(dir);
  servers.push(lucky);
  // The same build with its file bodies streamed through Node (as before sendfile), for the effect.
  if (STREAMED) servers.push(await startDaemon(dir, { name: 'lucky-streamed', env: { LUCKY_NATIVE_RELAY: '0' } }));
  servers.push(await startRclone(dir));
  if (ngx.ok) servers.push(await startNginx(ngx.bin, dir));
  const names = servers.map((s) => s.name);
  const phases = ['large GET', 'large PUT', 'small GET', 'small PUT'];
  const res = Object.fromEntries(phases.map((ph) => [ph, Object.fromEntries(names.map((n) => [n, []]))]));
  const rss = { 'large GET': [], 'large PUT': [] };
  // CPU seconds of each server per phase and round, and the units moved (GB or thousands of files).
  const cpu = Object.fromEntries(phases.map((ph) => [ph, Object.fromEntries(names.map((n) => [n, []]))]));
  const units = (ph) => (ph.startsWith('large') ? LARGE / 1e9 : SMALL_COUNT / 1000);
  const agents = Object.fromEntries(names.map((n) => [n, new Agent({ keepAlive: true, maxSockets: CONCURRENCY })]));

  // Warm-up, not counted: a small GET, a PROPFIND and a large GET from each server. The large one
  // matters: the first large body this new client process reads comes at a fraction of the later
  // speed (its JIT, its heap still growing), and round 1's first server, always ours, paid for it.
  for (const srv of servers) {
    await call(agents[srv.name], srv.port, 'GET', '/small/f0.bin', undefined, [200]);
    await call(agents[srv.name], srv.port, 'PROPFIND', '/', undefined, [207]).catch(() => {});
    await largeGet(srv, agents[srv.name]);
  }

  for (let round = 1; round <= ROUNDS; round++) {
    // Rotate the order each round: no server always runs first (or after the same one).
    const order = servers.map((_, i) => servers[(i + round - 1) % servers.length]);
    for (const ph of phases) {
      const line = [];
      for (const srv of order) {
        const agent = agents[srv.name];
        const tag = `${srv.name}-${round}`;
        const run = () =>
          ph === 'large GET' ? largeGet(srv, agent) : ph === 'large PUT' ? largePut(srv, agent, dir, src, tag) : ph === 'small GET' ? smallGet(srv, agent) : smallPut(srv, agent, dir, payload, tag);
        let v;
        const cpu0 = cpuTree(srv.pid);
        if (srv === lucky && rss[ph]) {
          const r = await withRss(lucky.pid, run);
          v = r.value;
          rss[ph].push(r.samples);
        } else v = await run();
        cpu[ph][srv.name].push((cpuTree(srv.pid) - cpu0) / units(ph));
        res[ph][srv.name].push(v);
        line.push(`${srv.name} ${ph.startsWith('large') ? `${v.toFixed(0)} MB/s` : `${v.toFixed(0)} files/s`}`);
      }
      console.log(`  round ${round} ${ph.padEnd(9)}: ${line.join(', ')}`);
    }
  }

  const unit = (ph, v) => (ph.startsWith('large') ? `${v.toFixed(0)} MB/s` : `${v.toFixed(0)} files/s`);
  const ratio = (a, b) => median(a.map((v, i) => v / b[i]));
  const xr = (r) => `${r.toFixed(2)}x`;
  printTable(`figures (median of ${ROUNDS})`, [['', ...names], ...phases.map((ph) => [ph, ...names.map((n) => unit(ph, median(res[ph][n])))])]);
  printTable('ratios (median of per-round ratios; goal ours/rclone >= 1x)', [
    ['', 'ours/rclone', ...(ngx.ok ? ['ours/nginx'] : []), ...(STREAMED ? ['ours/streamed'] : [])],
    ...phases.map((ph) => [
      ph,
      xr(ratio(res[ph].lucky, res[ph].rclone)),
      ...(ngx.ok ? [xr(ratio(res[ph].lucky, res[ph].nginx))] : []),
      ...(STREAMED ? [xr(ratio(res[ph].lucky, res[ph]['lucky-streamed']))] : []),
    ]),
  ]);
  printTable(`server CPU (user + system, all threads and processes; median of ${ROUNDS}): seconds per GB (large), per 1000 files (small); lower is better`, [
    ['', ...names],
    ...phases.map((ph) => [ph, ...names.map((n) => `${median(cpu[ph][n]).toFixed(2)} s`)]),
  ]);
  // Issue 28, "files at the wire's pace".
  const goals = [
    ['large GET', 'rclone', 1.2],
    ['large GET', 'nginx', 0.85],
    ['small GET', 'rclone', 1.4],
  ];
  printTable('goals', [
    ['', 'goal', 'measured', ''],
    ...goals.map(([ph, peer, want]) => {
      if (!res[ph][peer]) return [`${ph} ours/${peer}`, `>= ${want}x`, '-', `${peer} not run`];
      const got = ratio(res[ph].lucky, res[ph][peer]);
      return [`${ph} ours/${peer}`, `>= ${want}x`, xr(got), got >= want ? 'met' : 'NOT met'];
    }),
  ]);
  const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
  printTable(`daemon RSS (VmRSS every 100 ms) during its ${LARGE / 1048576} MiB transfers, per round (goal: flat)`, [
    ['', 'start', 'peak', 'end', 'samples'],
    ...Object.entries(rss).flatMap(([ph, rounds]) => rounds.map((s, i) => [`${ph} round ${i + 1}`, mib(s[0]), mib(Math.max(...s)), mib(s[s.length - 1]), s.length])),
  ]);
  if (!ngx.ok) console.log(`\nnginx skipped: ${ngx.why}`);
  const f = await lucky.figures();
  console.log(`\nLucky rule figures after the runs: ${f.requests} requests, ${f.connections} connections, ${mib(f.bytesIn)} in, ${mib(f.bytesOut)} out, ${f.denied} denied`);

  if (CPU_PROF) {
    const ph = { 'large-get': 'large GET', 'large-put': 'large PUT', 'small-get': 'small GET', 'small-put': 'small PUT' }[CPU_PROF];
    if (!ph) throw new Error(`CPU_PROF: one of large-get, large-put, small-get, small-put`);
    for (let i = 0; i < PROF_REPEAT; i++) {
      const agent = agents.lucky;
      if (ph === 'large GET') await largeGet(lucky, agent);
      else if (ph === 'large PUT') await largePut(lucky, agent, dir, src, `prof${i}`);
      else if (ph === 'small GET') await smallGet(lucky, agent);
      else await smallPut(lucky, agent, dir, payload, `prof${i}`);
    }
    await lucky.close(); // writes the profile
    const [file] = lucky.profiles();
    if (!file) throw new Error('no .cpuprofile written');
    topFunctions(JSON.parse(readFileSync(file, 'utf8')), `daemon CPU profile (whole run, ${ph} of ours repeated ${PROF_REPEAT} more times), top self time`);
  }
} catch (err) {
  failed = true;
  console.error(`\nbenchmark failed: ${err.stack ?? err}`);
} finally {
  for (const s of servers) await s.close().catch(() => {});
  finish();
}

/** Self time per function of a .cpuprofile, top 25. */
function topFunctions(prof, title) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = prof.timeDeltas;
  let total = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const d = dt[i] ?? 0;
    total += d;
    const cf = n.callFrame;
    const k = `${cf.functionName || '(anonymous)'} ${cf.url ? `${cf.url.replace(/^.*\/(apps|node_modules)\//, '$1/')}:${cf.lineNumber + 1}` : ''}`;
    self.set(k, (self.get(k) ?? 0) + d);
  }
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  printTable(title, [['self ms', '%', 'function'], ...rows.map(([k, d]) => [(d / 1000).toFixed(0), ((100 * d) / total).toFixed(1), k])]);
}

console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s; everything torn down`);
// The file browser's upload vs a WebDAV PUT of the same file (its own script).
if (process.env.SKIP_FILEBROWSER !== '1' && spawnSync(process.execPath, [join(here, 'filebrowser.mjs')], { stdio: 'inherit' }).status !== 0) failed = true;
process.exit(failed ? 1 : 0);
