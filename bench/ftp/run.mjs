// FTP benchmark (module `ftpserver` over a storage of module `storage`), loopback only, temp dirs only.
// Download (RETR) and upload (STOR) of one large file (LARGE_MB, default 256 MiB), MB/s, for Lucky's
// FTP rule vs vsftpd on the same directory, rounds interleaved (ROUNDS, default 3, median).
// The client is curl for both (passive, EPSV), writing to /dev/null or reading the source file.
// Equal cores: each server is pinned to SERVER_CPU (default 1), curl to CLIENT_CPU (default 0).
// The daemon's RSS (VmRSS) is sampled every 100 ms during its transfers: start, peak, end.
// Where the daemon's CPU time goes (perf is not always there): CPU ms per thread name (/proc/<pid>/task),
// per direction, summed over the rounds: the event loop (`node`), the relay thread (`lucky-relay`),
// libuv's pool, V8's workers. LUCKY_NATIVE_RELAY=0 in the environment benches the JavaScript path.
// CPU_PROFILE=<dir>: the daemon writes a V8 CPU profile there when it exits (open it in Chrome DevTools).
// Ratios: median of the per-round ratios ours/vsftpd (≥ 1 means ours is as fast or faster).
// Two rates: the whole curl command (login, EPSV, transfer), and the data alone (curl's time_total
// minus time_pretransfer: from the RETR/STOR to the 226). They differ by the login: Lucky checks a
// storage user's password with scrypt (tens of ms of CPU, and its 32 MiB of memory, on the pinned
// core), vsftpd here is anonymous (its local users need root).
// Needs the built daemon (npm run build), curl and vsftpd (Debian packages, installed when missing:
// bench/packages.mjs).
// Env: ROUNDS (3), LARGE_MB (256), SERVER_CPU (1), CLIENT_CPU (0).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { adminApi, CLK_TCK, freePort, mb, median, printTable, reaper, rssOf, sleep, waitForOutput } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const DIST = join(root, 'apps/daemon/dist');
const MAIN = join(DIST, 'main.js');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LARGE = Number(process.env.LARGE_MB ?? 256) * 1024 * 1024;
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);
const PASSWORD = 'bench-password-1';
const USER = 'benchuser';
const USER_PASS = 'bench-ftp-pass-1';
const VSFTPD = '/usr/sbin/vsftpd';

const { track, atExit } = reaper();

/** Free consecutive ports for a passive range. */
async function range(n) {
  const { createServer } = await import('node:net');
  const free = (port) => new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
  for (;;) {
    const base = 30000 + Math.floor(Math.random() * 30000);
    const ok = await Promise.all(Array.from({ length: n }, (_, i) => free(base + i)));
    if (ok.every(Boolean)) return [base, base + n - 1];
  }
}

async function startDaemon(dir) {
  if (!existsSync(MAIN)) {
    console.error(`${MAIN} is missing: run npm run build first`);
    process.exit(1);
  }
  const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(DIST, 'nodeoptions.js')).href);
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'lucky-bench-ftp-data-'));
  atExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const p = track(
    spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...(process.env.CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', process.env.CPU_PROFILE] : []), MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LUCKY_ADMIN_PASSWORD: PASSWORD, LUCKY_ADMIN_USER: 'admin', NODE_ENV: 'production', NODE_OPTIONS: DAEMON_NODE_OPTIONS },
    }),
  );
  let tail = '';
  const keep = (c) => (tail = (tail + c).slice(-3000));
  p.stdout.on('data', keep);
  p.stderr.on('data', keep);
  await waitForOutput(p, /listening on/);
  const { api } = await adminApi(`http://127.0.0.1:${port}`, PASSWORD, { context: () => `; daemon output:\n${tail}`, timeoutMs: 15_000 });
  const { key: storage } = await api('POST', '/api/storage/rules', { name: 'bench', path: dir });
  await api('PUT', '/api/storage/configure', {
    users: [{ account: USER, password: USER_PASS, permissions: { [storage]: { read: true, write: true, delete: true } } }],
    anonymous: { enable: false, storages: [] },
  });
  const ftpPort = await freePort();
  const [pasvMin, pasvMax] = await range(20);
  const { key } = await api('POST', '/api/ftpserver/rules', { name: 'bench', address: '127.0.0.1', port: ftpPort, pasvMin, pasvMax, mounts: [{ name: '', storage }] });
  await api('PUT', '/api/ftpserver/configure', { accessLog: true });
  for (let i = 0; ; i++) {
    const { rule } = await api('GET', `/api/ftpserver/rules/${key}`);
    if (rule.status?.state === 'running') break;
    if (rule.status?.state === 'error' || i > 200) throw new Error(`ftp rule not running: ${JSON.stringify(rule.status)}`);
    await sleep(25);
  }
  return {
    name: 'lucky',
    port: ftpPort,
    auth: ['-u', `${USER}:${USER_PASS}`],
    pid: p.pid,
    async close() {
      p.kill('SIGTERM');
      await Promise.race([new Promise((r) => p.once('exit', r)), sleep(5000)]);
      p.kill('SIGKILL');
    },
  };
}

/**
 * vsftpd (Debian package vsftpd) on the same directory, started as this user
 * (run_as_launching_user: no root needed, no PAM), anonymous with uploads (its local users need root).
 */
async function startVsftpd(dir, work) {
  const port = await freePort();
  const [pasvMin, pasvMax] = await range(20);
  const conf = join(work, 'vsftpd.conf');
  writeFileSync(
    conf,
    [
      'listen=YES', 'listen_address=127.0.0.1', `listen_port=${port}`, 'run_as_launching_user=YES', 'background=NO', 'seccomp_sandbox=NO',
      'anonymous_enable=YES', 'local_enable=NO', `anon_root=${dir}`, 'no_anon_password=YES', 'write_enable=YES', 'anon_upload_enable=YES',
      'anon_other_write_enable=YES', 'anon_umask=022', 'pasv_enable=YES', `pasv_min_port=${pasvMin}`, `pasv_max_port=${pasvMax}`, 'xferlog_enable=NO',
      'allow_writeable_chroot=YES',
    ].join('\n') + '\n',
  );
  const p = track(spawn('taskset', ['-c', SERVER_CPU, VSFTPD, conf], { stdio: ['ignore', 'pipe', 'pipe'] }));
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', () => (s.destroy(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    await sleep(50);
  }
  return {
    name: 'vsftpd',
    port,
    pid: p.pid,
    auth: [],
    async close() {
      p.kill('SIGTERM');
      await Promise.race([new Promise((r) => p.once('exit', r)), sleep(5000)]);
      p.kill('SIGKILL');
    },
  };
}

/** One curl transfer pinned to the client core; its seconds in all, and those of the data alone. */
function curl(auth, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('taskset', ['-c', CLIENT_CPU, 'curl', '-sS', '--max-time', '600', '-w', '\n%{time_pretransfer} %{time_total}\n', ...auth, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (err += c));
    p.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`curl ${args.join(' ')}: exit ${code} ${err}`));
      const [pre, total] = out.trim().split('\n').pop().split(' ').map(Number);
      resolve({ all: Number(process.hrtime.bigint() - t0) / 1e9, data: total - pre });
    });
  });
}

function sampler(pid) {
  if (!pid) return { stop: () => null };
  const xs = [rssOf(pid)];
  const t = setInterval(() => xs.push(rssOf(pid)), 100);
  return {
    stop() {
      clearInterval(t);
      xs.push(rssOf(pid));
      return { start: xs[0], peak: Math.max(...xs), end: xs[xs.length - 1] };
    },
  };
}

/** CPU ticks (user + system) per thread name of a process. */
function threadTicks(pid) {
  const out = new Map();
  let tasks = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const t of tasks) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      // The event loop apart from the other threads that keep the name `node` (libuv's pool on Node 20).
      const name = t === String(pid) ? `${comm} (event loop)` : comm;
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime are fields 14 and 15 of stat, 12 and 13 after "pid (comm) ".
      out.set(name, (out.get(name) ?? 0) + Number(f[11]) + Number(f[12]));
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

const TICK_MS = 1000 / CLK_TCK;

function addTicks(sum, before, after) {
  for (const [name, t] of after) sum.set(name, (sum.get(name) ?? 0) + (t - (before.get(name) ?? 0)) * TICK_MS);
}

function sha256(file) {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file).on('data', (c) => h.update(c)).on('end', () => resolve(h.digest('hex'))).on('error', reject);
  });
}

async function main() {
  requireBenchPackages('ftp');
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'lucky-bench-ftp-')));
  atExit(() => rmSync(work, { recursive: true, force: true }));
  const dir = join(work, 'served');
  mkdirSync(dir);
  const src = join(work, 'source.bin');
  // Random bytes, written in 4 MiB pieces: nothing is compressible, nothing held whole.
  await new Promise((resolve, reject) => {
    const ws = createWriteStream(src);
    let left = LARGE;
    const more = () => {
      while (left > 0) {
        const n = Math.min(left, 4 * 1024 * 1024);
        left -= n;
        if (!ws.write(randomBytes(n))) return ws.once('drain', more);
      }
      ws.end(resolve);
    };
    ws.on('error', reject);
    more();
  });
  const want = await sha256(src);
  spawnSync('cp', [src, join(dir, 'large.bin')]);

  const servers = [await startDaemon(dir), await startVsftpd(dir, work)];
  const results = Object.fromEntries(servers.map((s) => [s.name, { get: [], put: [], getData: [], putData: [], rss: [] }]));
  const cpu = { get: new Map(), put: new Map() };
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of servers) {
      const url = `ftp://127.0.0.1:${s.port}`;
      const lucky = s.name === 'lucky';
      const rss = lucky ? sampler(s.pid) : sampler(null);
      const t0 = lucky ? threadTicks(s.pid) : null;
      const get = await curl(s.auth, ['-o', '/dev/null', `${url}/large.bin`]);
      const t1 = lucky ? threadTicks(s.pid) : null;
      const name = `up-${s.name}-${round}.bin`;
      const put = await curl(s.auth, ['-T', src, `${url}/${name}`]);
      if (lucky) {
        addTicks(cpu.get, t0, t1);
        addTicks(cpu.put, t1, threadTicks(s.pid));
      }
      const r = rss.stop();
      if (r) results[s.name].rss.push(r);
      if (statSync(join(dir, name)).size !== LARGE) throw new Error(`${s.name}: the upload is ${statSync(join(dir, name)).size} bytes`);
      if (round === 0 && (await sha256(join(dir, name))) !== want) throw new Error(`${s.name}: the upload differs from the source`);
      rmSync(join(dir, name));
      results[s.name].get.push(LARGE / get.all / 1e6);
      results[s.name].put.push(LARGE / put.all / 1e6);
      results[s.name].getData.push(LARGE / get.data / 1e6);
      results[s.name].putData.push(LARGE / put.data / 1e6);
    }
  }
  for (const s of servers) await s.close();

  const ratio = (k) => median(results.lucky[k].map((v, i) => v / results.vsftpd[k][i]));
  const version = (spawnSync('dpkg-query', ['-W', '-f', '${Version}', 'vsftpd'], { encoding: 'utf8' }).stdout || '').trim();
  printTable(`FTP, ${LARGE / 1024 / 1024} MiB file, ${ROUNDS} rounds (median MB/s), curl client on CPU ${CLIENT_CPU}, servers on CPU ${SERVER_CPU}`, [
    ['', 'download (RETR)', 'upload (STOR)'],
    ['lucky', median(results.lucky.get).toFixed(0), median(results.lucky.put).toFixed(0)],
    [`vsftpd ${version}`, median(results.vsftpd.get).toFixed(0), median(results.vsftpd.put).toFixed(0)],
    ['ratio lucky/vsftpd', ratio('get').toFixed(2), ratio('put').toFixed(2)],
  ]);
  printTable('The data alone (RETR/STOR to 226, without the login), median MB/s', [
    ['', 'download (RETR)', 'upload (STOR)'],
    ['lucky', median(results.lucky.getData).toFixed(0), median(results.lucky.putData).toFixed(0)],
    [`vsftpd ${version}`, median(results.vsftpd.getData).toFixed(0), median(results.vsftpd.putData).toFixed(0)],
    ['ratio lucky/vsftpd', ratio('getData').toFixed(2), ratio('putData').toFixed(2)],
  ]);
  const names = [...new Set([...cpu.get.keys(), ...cpu.put.keys()])].filter((n) => (cpu.get.get(n) ?? 0) + (cpu.put.get(n) ?? 0) > 0);
  printTable(`Lucky daemon CPU per thread, ms over ${ROUNDS} rounds (transfers took ${(ROUNDS * LARGE / 1e6 / median(results.lucky.get) * 1000).toFixed(0)} ms down, ${(ROUNDS * LARGE / 1e6 / median(results.lucky.put) * 1000).toFixed(0)} ms up)`, [
    ['thread', 'download', 'upload'],
    ...names.map((n) => [n, (cpu.get.get(n) ?? 0).toFixed(0), (cpu.put.get(n) ?? 0).toFixed(0)]),
  ]);
  const r = results.lucky.rss;
  printTable('Lucky daemon RSS during its transfers (per round: start / peak / end)', [['round', 'start', 'peak', 'end'], ...r.map((x, i) => [String(i + 1), mb(x.start), mb(x.peak), mb(x.end)])]);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
