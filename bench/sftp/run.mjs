// SFTP benchmark (module `sftpserver` over a storage of module `storage`), loopback only, temp dirs only.
// Download and upload of one large file (LARGE_MB, default 256 MiB) with OpenSSH's sftp client, MB/s,
// for Lucky's SFTP rule vs OpenSSH's own sftp-server run by an sshd of the bench's own (its config,
// host key and authorized_keys in a temp directory, on a free loopback port), rounds interleaved
// (ROUNDS, default 3, median of the per-round ratios ours/sftp-server).
// Equal cores: the daemon and sshd (with the sshd session and sftp-server it forks) are pinned to
// SERVER_CPU (default 1), the client to CLIENT_CPU (default 0).
// Equal cipher: both are asked for aes128-gcm@openssh.com (CIPHER), since OpenSSH's client would
// otherwise pick chacha20-poly1305 with sshd and AES with Lucky (which does not offer ChaCha: ssh2's
// Poly1305 without its native binding is JavaScript).
// The ceiling beside: AES-128-GCM alone in this Node on one core, sealing 32 KiB packets (what every
// byte of an SFTP transfer costs the daemon at least), and the daemon's RSS peak during its transfers.
// Needs the built daemon (npm run build), OpenSSH's client and server (Debian packages, installed
// when missing: bench/packages.mjs). sshd as root wants its privilege separation directory
// (/run/sshd): made when missing, as the package's own service would.
// Env: ROUNDS (3), LARGE_MB (256), SERVER_CPU (1), CLIENT_CPU (0), CIPHER.
import { spawn, spawnSync } from 'node:child_process';
import { createCipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, createWriteStream, existsSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, median, printTable, reaper, rssOf, sleep, startBenchDaemon } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

requireBenchPackages('sftp');
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LARGE = Number(process.env.LARGE_MB ?? 256) * 1024 * 1024;
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);
const CIPHER = process.env.CIPHER ?? 'aes128-gcm@openssh.com';
const SFTP_SERVER = ['/usr/lib/openssh/sftp-server', '/usr/libexec/openssh/sftp-server'].find((p) => existsSync(p));

const { track, atExit } = reaper();
const work = mkdtempSync(join(tmpdir(), 'lucky-bench-sftp-'));
atExit(() => rmSync(work, { recursive: true, force: true }));
const store = join(work, 'store');
mkdirSync(store);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// One client key for both servers.
run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(work, 'client')]);
const clientPub = readFileSync(join(work, 'client.pub'), 'utf8').trim();

// The big file, written once into the storage (downloads read it; uploads send it).
const big = join(store, 'big.bin');
{
  const out = createWriteStream(big);
  for (let left = LARGE; left > 0; left -= 4 << 20) out.write(randomBytes(Math.min(4 << 20, left)));
  await new Promise((r) => out.end(r));
}

// ------------------------------------------------------------------ Lucky
const daemon = await startBenchDaemon({ cpu: SERVER_CPU, dataDir: join(work, 'lucky'), password: 'bench-password-1' });
track(daemon.p);
const { key: storage } = await daemon.api('POST', '/api/storage/rules', { name: 'bench', path: store });
await daemon.api('PUT', '/api/storage/configure', {
  users: [{ account: 'bench', password: 'bench-pass-1', permissions: { [storage]: { read: true, write: true, delete: true } }, publicKeys: clientPub }],
  anonymous: { enable: false, storages: [] },
});
const luckyPort = await freePort();
const { key: rule } = await daemon.api('POST', '/api/sftpserver/rules', { name: 'bench', address: '127.0.0.1', port: luckyPort, mounts: [{ name: '', storage }] });
for (let i = 0; ; i++) {
  const { rule: v } = await daemon.api('GET', `/api/sftpserver/rules/${rule}`);
  if (v.status?.state === 'running') break;
  if (i > 400) throw new Error(`sftp rule not running: ${JSON.stringify(v.status)}`);
  await sleep(25);
}

// ------------------------------------------------------------------ sshd + sftp-server
const sshdPort = await freePort();
run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(work, 'sshd_host')]);
writeFileSync(join(work, 'authorized_keys'), `${clientPub}\n`);
chmodSync(join(work, 'authorized_keys'), 0o600);
writeFileSync(
  join(work, 'sshd_config'),
  [
    `Port ${sshdPort}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(work, 'sshd_host')}`,
    `AuthorizedKeysFile ${join(work, 'authorized_keys')}`,
    'PidFile none',
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PermitRootLogin prohibit-password',
    `Subsystem sftp ${SFTP_SERVER}`,
    'LogLevel ERROR',
    '',
  ].join('\n'),
);
if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
const sshd = spawn('taskset', ['-c', SERVER_CPU, '/usr/sbin/sshd', '-D', '-e', '-f', join(work, 'sshd_config')], { stdio: ['ignore', 'pipe', 'pipe'] });
track(sshd);
for (let i = 0; i < 100; i++) {
  const probe = spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${sshdPort}`]);
  if (probe.status === 0) break;
  await sleep(50);
}
const user = spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();

// ------------------------------------------------------------------ transfers
const knownHosts = join(work, 'known_hosts');
writeFileSync(knownHosts, '');

/** One sftp batch against a server; its wall time in seconds (async: the RSS sampler runs meanwhile). */
async function transfer(port, login, commands) {
  const batch = join(work, 'batch');
  writeFileSync(batch, `${commands.join('\n')}\n`);
  const t0 = process.hrtime.bigint();
  const child = spawn(
    'taskset',
    ['-c', CLIENT_CPU, 'sftp', '-F', '/dev/null', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'StrictHostKeyChecking=no', '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-i', join(work, 'client'), '-c', CIPHER, '-P', String(port), '-b', batch, `${login}@127.0.0.1`],
    { cwd: work, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  if (code !== 0) throw new Error(`sftp on port ${port} failed: ${err}`);
  return s;
}

const servers = [
  { name: 'Lucky', port: luckyPort, login: 'bench', path: '/big.bin', up: '/up.bin' },
  { name: 'OpenSSH sftp-server', port: sshdPort, login: user, path: big, up: join(store, 'up.bin') },
];
// A copy to upload from, outside the storage.
const src = join(work, 'src.bin');
writeFileSync(src, readFileSync(big));

const figures = new Map(servers.map((s) => [s.name, { get: [], put: [] }]));
let rssPeak = 0;
const sampler = setInterval(() => {
  try {
    rssPeak = Math.max(rssPeak, rssOf(daemon.p.pid));
  } catch {}
}, 100);
const rssStart = rssOf(daemon.p.pid);
for (let round = 0; round < ROUNDS; round++) {
  for (const s of servers) {
    const get = await transfer(s.port, s.login, [`get ${s.path} /dev/null`]);
    const put = await transfer(s.port, s.login, [`put ${src} ${s.up}`]);
    if (statSync(join(store, 'up.bin')).size !== LARGE) throw new Error(`${s.name}: upload incomplete`);
    rmSync(join(store, 'up.bin'));
    figures.get(s.name).get.push(LARGE / get / 1e6);
    figures.get(s.name).put.push(LARGE / put / 1e6);
  }
}
clearInterval(sampler);

// ------------------------------------------------------------------ the ceiling: AES-128-GCM alone
function gcmCeiling() {
  const key = randomBytes(16);
  const packet = randomBytes(32 * 1024);
  const iv = randomBytes(12);
  const t0 = process.hrtime.bigint();
  let bytes = 0;
  while (Number(process.hrtime.bigint() - t0) < 1e9) {
    const c = createCipheriv('aes-128-gcm', key, iv);
    c.setAAD(packet.subarray(0, 4));
    c.update(packet);
    c.final();
    c.getAuthTag();
    bytes += packet.length;
  }
  return bytes / (Number(process.hrtime.bigint() - t0) / 1e9) / 1e6;
}
const ceiling = Number(spawnSync('taskset', ['-c', SERVER_CPU, process.execPath, '-e', `(${gcmCeiling.toString()})().toString()`, '-p'], { encoding: 'utf8' }).stdout.trim() || gcmCeiling());

const ours = figures.get('Lucky');
const theirs = figures.get('OpenSSH sftp-server');
const ratio = (dir) => median(ours[dir].map((v, i) => v / theirs[dir][i]));
printTable(`SFTP, ${LARGE / 1048576} MiB, ${ROUNDS} rounds (median MB/s), ${CIPHER}, server on CPU ${SERVER_CPU}, client on CPU ${CLIENT_CPU}`, [
  ['server', 'get MB/s', 'put MB/s'],
  ...servers.map((s) => [s.name, median(figures.get(s.name).get).toFixed(1), median(figures.get(s.name).put).toFixed(1)]),
  ['ratio Lucky / sftp-server', `${ratio('get').toFixed(2)}×`, `${ratio('put').toFixed(2)}×`],
  ['ceiling: AES-128-GCM alone in Node, one core', ceiling.toFixed(1), ceiling.toFixed(1)],
]);
console.log(`\nLucky's RSS: ${(rssStart / 1e6).toFixed(1)} MB at the start, ${(rssPeak / 1e6).toFixed(1)} MB at the peak of its transfers`);
process.exit(0);
