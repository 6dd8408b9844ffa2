// Remote storage benchmark: a large file GET and PUT through Lucky's WebDAV over a remote WebDAV
// storage, against `rclone serve webdav` serving the same remote (rclone's own WebDAV backend, no VFS
// cache: bytes streamed through as ours are), MB/s, rounds interleaved (ROUNDS, default 3, median of
// the per-round ratios Lucky / rclone) after a round not counted (warm-up), and each proxy's CPU
// seconds per GB (its process, every thread: Lucky's relay thread included). Loopback only, temp dirs only.
// The remote (the origin) is `rclone serve webdav` of a temp directory; beside the figures, the
// origin asked directly is the ceiling: what the two proxies could at most pass on.
// Equal cores: Lucky's daemon and the reference rclone on SERVER_CPU (default 1), the origin and curl
// (the client) on CLIENT_CPU (default 0). Lucky's RSS is sampled every 100 ms during its transfers.
// Needs the built daemon (npm run build), rclone and curl (Debian packages, installed when missing).
// Env: ROUNDS (3), LARGE_MB (256), SERVER_CPU (1), CLIENT_CPU (0).
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSecondsOf, freePort, median, printTable, reaper, rssOf, sleep, startBenchDaemon, waitForOutput } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

requireBenchPackages('remotestorage');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LARGE = Number(process.env.LARGE_MB ?? 256) * 1024 * 1024;
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);
const USER = 'bench';
const PASS = 'bench-pass-1';

const { track, atExit } = reaper();
const work = mkdtempSync(join(tmpdir(), 'lucky-bench-remote-'));
atExit(() => rmSync(work, { recursive: true, force: true }));
const originDir = join(work, 'origin');
mkdirSync(originDir);
{
  const out = createWriteStream(join(originDir, 'big.bin'));
  for (let left = LARGE; left > 0; left -= 4 << 20) out.write(randomBytes(Math.min(4 << 20, left)));
  await new Promise((r) => out.end(r));
}
const src = join(work, 'src.bin');
spawnSync('cp', [join(originDir, 'big.bin'), src]);

async function rcloneServe(cpu, port, target, extra = []) {
  // taskset execs rclone: the child's pid is rclone's.
  const p = spawn('taskset', ['-c', cpu, 'rclone', 'serve', 'webdav', '--config', '/dev/null', '--dir-cache-time', '0s', '--addr', `127.0.0.1:${port}`, '--user', USER, '--pass', PASS, ...extra, target], { stdio: ['ignore', 'pipe', 'pipe'] });
  track(p);
  await waitForOutput(p, /WebDav Server started|Serving on/i);
  return p;
}

// The origin: the remote both proxies serve.
const originPort = await freePort();
await rcloneServe(CLIENT_CPU, originPort, originDir);
const originUrl = `http://127.0.0.1:${originPort}/`;

// The reference: rclone serving that remote through its WebDAV backend.
const obscured = spawnSync('rclone', ['obscure', PASS], { encoding: 'utf8' }).stdout.trim();
const rclonePort = await freePort();
const reference = await rcloneServe(SERVER_CPU, rclonePort, `:webdav,url='${originUrl}',user=${USER},pass=${obscured}:`);

// Lucky: a remote WebDAV storage on the origin, served by a WebDAV rule.
const daemon = await startBenchDaemon({ cpu: SERVER_CPU, dataDir: join(work, 'lucky'), password: 'bench-password-1' });
track(daemon.p);
const { key: storage } = await daemon.api('POST', '/api/storage/rules', { name: 'far', kind: 'webdav', webdav: { url: originUrl, username: USER, password: PASS } });
for (let i = 0; ; i++) {
  const { rule } = await daemon.api('GET', `/api/storage/rules/${storage}`);
  if (rule.status?.state === 'running') break;
  if (i > 400) throw new Error(`remote storage not running: ${JSON.stringify(rule.status)}`);
  await sleep(25);
}
await daemon.api('PUT', '/api/storage/configure', { users: [{ account: USER, password: PASS, permissions: { [storage]: { read: true, write: true, delete: true } } }], anonymous: { enable: false, storages: [] } });
const luckyPort = await freePort();
const { key: rule } = await daemon.api('POST', '/api/webdav/rules', { name: 'far', address: '127.0.0.1', port: luckyPort, mounts: [{ name: '', storage }] });
for (let i = 0; ; i++) {
  const { rule: v } = await daemon.api('GET', `/api/webdav/rules/${rule}`);
  if (v.status?.state === 'running') break;
  if (i > 400) throw new Error(`webdav rule not running: ${JSON.stringify(v.status)}`);
  await sleep(25);
}

/** curl on the client core; its wall time in seconds. */
async function curl(args) {
  const t0 = process.hrtime.bigint();
  const child = spawn('taskset', ['-c', CLIENT_CPU, 'curl', '-sS', '-f', '--max-time', '300', '-u', `${USER}:${PASS}`, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise((r) => child.on('close', r));
  if (code !== 0) throw new Error(`curl ${args.join(' ')}: ${err}`);
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

const servers = [
  { name: 'Lucky WebDAV over the remote', base: `http://127.0.0.1:${luckyPort}/`, pid: daemon.p.pid },
  { name: 'rclone serve webdav of the remote', base: `http://127.0.0.1:${rclonePort}/`, pid: reference.pid },
  { name: 'the remote itself (ceiling)', base: originUrl, pid: null },
];
// MB/s, and the proxy's CPU seconds per GB (what one core of it could pass at most: 1 / that).
const figures = new Map(servers.map((s) => [s.name, { get: [], put: [], getCpu: [], putCpu: [] }]));
const cpu = (s) => (s.pid ? cpuSecondsOf(s.pid) : 0);
let rssPeak = 0;
const rssStart = rssOf(daemon.p.pid);
const sampler = setInterval(() => {
  try {
    rssPeak = Math.max(rssPeak, rssOf(daemon.p.pid));
  } catch {}
}, 100);
// Round 0 is not counted: it warms each server up (JIT, connections, the origin's page cache).
for (let round = -1; round < ROUNDS; round++) {
  for (const s of servers) {
    const c0 = cpu(s);
    const get = await curl(['-o', '/dev/null', `${s.base}big.bin`]);
    const c1 = cpu(s);
    const put = await curl(['-T', src, `${s.base}up.bin`]);
    const c2 = cpu(s);
    if (statSync(join(originDir, 'up.bin')).size !== LARGE) throw new Error(`${s.name}: upload incomplete`);
    rmSync(join(originDir, 'up.bin'));
    if (round < 0) continue;
    figures.get(s.name).getCpu.push(((c1 - c0) * 1e9) / LARGE);
    figures.get(s.name).putCpu.push(((c2 - c1) * 1e9) / LARGE);
    figures.get(s.name).get.push(LARGE / get / 1e6);
    figures.get(s.name).put.push(LARGE / put / 1e6);
  }
}
clearInterval(sampler);

const ours = figures.get(servers[0].name);
const theirs = figures.get(servers[1].name);
const ratio = (dir) => median(ours[dir].map((v, i) => v / theirs[dir][i]));
printTable(`Remote WebDAV storage, ${LARGE / 1048576} MiB, ${ROUNDS} rounds (median MB/s), proxies on CPU ${SERVER_CPU}, origin and curl on CPU ${CLIENT_CPU}`, [
  ['server', 'GET MB/s', 'PUT MB/s', 'GET CPU s/GB', 'PUT CPU s/GB'],
  ...servers.map((s) => {
    const f = figures.get(s.name);
    return [s.name, median(f.get).toFixed(1), median(f.put).toFixed(1), s.pid ? median(f.getCpu).toFixed(2) : '-', s.pid ? median(f.putCpu).toFixed(2) : '-'];
  }),
  ['ratio Lucky / rclone', `${ratio('get').toFixed(2)}×`, `${ratio('put').toFixed(2)}×`, '', ''],
]);
console.log(`\nLucky's RSS: ${(rssStart / 1e6).toFixed(1)} MB at the start, ${(rssPeak / 1e6).toFixed(1)} MB at the peak of its transfers (${LARGE / 1048576} MiB each way per round)`);
process.exit(0);
