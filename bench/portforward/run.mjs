// Port forwarding benchmark, loopback only, bounded durations. Prints, in one run:
//   1. TCP bulk throughput (iperf3): direct, through socat, through Lucky; ratios.
//   2. UDP packets/s (iperf3 -u, flood): through socat vs through Lucky.
//   3. Concurrent idle TCP connections through one rule: how many are held, RSS per connection.
// Installs iperf3 and socat when missing (bench/packages.mjs). Needs the built daemon (npm run build); the
// figures are those of the native relay when dist/native/node-v<abi>/relay.node was built (LUCKY_NATIVE_RELAY=0
// in the environment measures the JavaScript relay instead).
// Variants run interleaved, round after round, so that load from elsewhere hits them alike; the
// table shows medians and the median of the per-round ratios.
// Beside each TCP path, the machine's CPU seconds per GB carried: with the client, the relay and the
// server on the same cores, cores / (CPU per GB) is the most that path can carry here.
// Env: DURATION (s per iperf3 run, default 4), ROUNDS (default 5), IDLE_CONNS (default 10000),
//      UDP_LEN (datagram bytes, default 512), SKIP_THROUGHPUT=1 (only the idle connections).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { adminApi, CLK_TCK, freePort, median, printTable, rssOf, sleep, waitForOutput } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const MAIN = join(root, 'apps/daemon/dist/main.js');
const DURATION = Number(process.env.DURATION ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const IDLE_CONNS = Number(process.env.IDLE_CONNS ?? 10_000);
const UDP_LEN = Number(process.env.UDP_LEN ?? 512);
const SKIP_THROUGHPUT = process.env.SKIP_THROUGHPUT === '1';
const PASSWORD = 'bench-password-1';

const children = new Set();
/** Killers of process groups (socat with fork). */
const groups = [];
function track(p) {
  children.add(p);
  p.once('exit', () => children.delete(p));
  return p;
}
async function cleanup() {
  for (const p of children) p.kill('SIGKILL');
  for (const kill of groups) kill();
}
process.on('exit', () => {
  for (const p of children) p.kill('SIGKILL');
  for (const kill of groups) kill();
});
process.on('SIGINT', () => process.exit(130));

// ------------------------------------------------------------------ the daemon

async function startDaemon() {
  if (!existsSync(MAIN)) {
    console.error(`${MAIN} is missing: run npm run build first`);
    process.exit(1);
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-pf-'));
  const p = track(
    spawn(process.execPath, [MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LUCKY_ADMIN_PASSWORD: PASSWORD, LUCKY_ADMIN_USER: 'admin' },
    }),
  );
  p.stdout.resume();
  p.stderr.resume();
  await waitForOutput(p, /listening on/);
  const base = `http://127.0.0.1:${port}`;
  const { api } = await adminApi(base, PASSWORD);
  return {
    pid: p.pid,
    api,
    async close() {
      p.kill('SIGTERM');
      await Promise.race([new Promise((r) => p.once('exit', r)), sleep(5000)]);
      p.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function addRule(daemon, body) {
  const { key } = await daemon.api('POST', '/api/portforward/rules', body);
  const { rule } = await daemon.api('GET', `/api/portforward/rules/${key}`);
  if (rule.status.state !== 'running') throw new Error(`rule ${body.name} is not running: ${rule.status.message}`);
  return key;
}

// ------------------------------------------------------------------ peers

async function iperfServer() {
  const port = await freePort();
  const p = track(spawn('iperf3', ['-s', '-p', String(port), '-B', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] }));
  p.stderr.resume();
  // iperf3 buffers its output when it is not a terminal: wait until the port answers instead.
  for (let i = 0; i < 100 && !(await canConnect(port)); i++) await sleep(100);
  return { port, kill: () => p.kill('SIGKILL') };
}

/** One iperf3 client run; a run that fails (iperf3 gives up now and then under a flood) is retried once. */
const CPUS = Number(spawnSync('nproc', { encoding: 'utf8' }).stdout.trim()) || 1;

/** The machine's CPU time so far, in seconds: busy (user, system, interrupts) and in all. */
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = f;
  return { busy: (user + nice + system + irq + softirq + steal) / CLK_TCK, total: (user + nice + system + idle + iowait + irq + softirq + steal) / CLK_TCK };
}

function iperf(port, extra = [], omit = true) {
  try {
    return iperfOnce(port, extra, omit);
  } catch (err) {
    process.stdout.write(`  (retrying: ${err.message})\n`);
    spawnSync('sleep', ['1']);
    return iperfOnce(port, extra, omit);
  }
}

function iperfOnce(port, extra, omit) {
  const r = spawnSync('iperf3', ['-c', '127.0.0.1', '-p', String(port), '-t', String(DURATION), ...(omit ? ['-O', '1'] : []), '-J', ...extra], {
    encoding: 'utf8',
    timeout: (DURATION + 30) * 1000,
  });
  let j;
  try {
    j = JSON.parse(r.stdout);
  } catch {
    throw new Error(`iperf3 gave no JSON (status ${r.status}): ${r.stderr || r.stdout}`);
  }
  if (j.error) throw new Error(`iperf3: ${j.error}`);
  return j;
}

async function socat(args) {
  // Its own process group: with `fork` it leaves children that must go with it.
  const p = track(spawn('socat', args, { stdio: 'ignore', detached: true }));
  await sleep(300);
  if (p.exitCode !== null) throw new Error(`socat ${args.join(' ')} exited`);
  const kill = () => {
    try {
      process.kill(-p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  groups.push(kill);
  return { kill };
}

function canConnect(port) {
  return new Promise((resolve) => {
    const s = connect({ port, host: '127.0.0.1' });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const gbps = (bps) => `${(bps / 1e9).toFixed(2)} Gbit/s`;
const x = (a, b) => `${(a / b).toFixed(2)}x`;

// ------------------------------------------------------------------ 1 + 2: throughput

async function throughput(daemon) {
  const srv = await iperfServer();
  const socatPort = await freePort();
  const ourPort = await freePort();
  const tcpSocat = await socat([`TCP4-LISTEN:${socatPort},bind=127.0.0.1,reuseaddr,fork`, `TCP4:127.0.0.1:${srv.port}`]);
  const udpSocat = await socat([`UDP4-LISTEN:${socatPort},bind=127.0.0.1,reuseaddr,fork`, `UDP4:127.0.0.1:${srv.port}`]);
  await addRule(daemon, {
    name: 'iperf',
    types: ['tcp4', 'udp4'],
    listenHost: '127.0.0.1',
    listenPorts: String(ourPort),
    targets: ['127.0.0.1'],
    targetPorts: String(srv.port),
  });

  const paths = [
    ['direct', srv.port],
    ['socat', socatPort],
    ['lucky', ourPort],
  ];
  /** `measure(port)` for every path, ROUNDS rounds interleaved: the figures by path. */
  const interleaved = (label, measure) => {
    const by = { direct: [], socat: [], lucky: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, port] of paths) {
        const [value, text] = measure(port);
        by[name].push(value);
        process.stdout.write(`  ${label} ${name} round ${i + 1}: ${text}\n`);
      }
    }
    return by;
  };

  // One stream, then eight in parallel (iperf3 -P 8): each through its own relayed connection.
  // The whole machine's CPU time per byte is taken beside each run: with every process on the same
  // cores, it bounds what a path can carry (cores / CPU seconds per byte).
  const t = {};
  for (const streams of [1, 8]) {
    const cpuPerGB = { direct: [], socat: [], lucky: [] };
    const tcp = interleaved(`tcp x${streams}`, (port) => {
      const before = machineCpu();
      const j = iperf(port, streams > 1 ? ['-P', String(streams)] : []);
      const after = machineCpu();
      const name = paths.find((p) => p[1] === port)[0];
      const busy = after.busy - before.busy;
      // Every byte of the run, the omitted first second's too: the CPU time covers all of it.
      const moved = j.intervals.reduce((a, iv) => a + iv.sum.bytes, 0);
      cpuPerGB[name].push(busy / (moved / 1e9));
      const bps = j.end.sum_received.bits_per_second;
      return [bps, `${gbps(bps)}, ${((busy / (after.total - before.total)) * CPUS).toFixed(2)} of ${CPUS} cores busy`];
    });
    const r = Object.fromEntries(Object.entries(tcp).map(([k, v]) => [k, median(v)]));
    r.cpu = Object.fromEntries(Object.entries(cpuPerGB).map(([k, v]) => [k, median(v)]));
    r.luckyVsSocat = median(tcp.lucky.map((v, i) => v / tcp.socat[i]));
    r.luckyVsDirect = median(tcp.lucky.map((v, i) => v / tcp.direct[i]));
    r.socatVsDirect = median(tcp.socat.map((v, i) => v / tcp.direct[i]));
    t[streams] = r;
  }

  // UDP: the client floods (-b 0); what reaches the server per second is what the relay can carry.
  const udp = interleaved('udp', (port) => {
    const j = iperf(port, ['-u', '-b', '0', '-l', String(UDP_LEN)], false);
    const r = j.end.sum_received;
    const sent = j.end.sum_sent;
    const delivered = r.bytes / UDP_LEN / r.seconds;
    return [delivered, `${Math.round(delivered)} packets/s delivered of ${Math.round(sent.packets / sent.seconds)} sent`];
  });
  const u = Object.fromEntries(Object.entries(udp).map(([k, v]) => [k, median(v)]));
  u.luckyVsSocat = median(udp.lucky.map((v, i) => v / udp.socat[i]));
  tcpSocat.kill();
  udpSocat.kill();
  srv.kill();
  return { t, u };
}

// ------------------------------------------------------------------ 3: idle connections

function lineReader(p) {
  const rl = createInterface({ input: p.stdout });
  const queue = [];
  const waiters = [];
  rl.on('line', (l) => (waiters.length ? waiters.shift()(l) : queue.push(l)));
  return (ms = 120_000) =>
    queue.length
      ? Promise.resolve(queue.shift())
      : new Promise((resolve, reject) => {
          const t = setTimeout(() => reject(new Error('helper did not answer')), ms);
          waiters.push((l) => {
            clearTimeout(t);
            resolve(l);
          });
        });
}

function fdLimitOf(pid) {
  const m = /Max open files\s+(\d+)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
  return m ? Number(m[1]) : Infinity;
}
const fdsOf = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** Opens `count` connections through the rule, measures, closes them; the helpers hold the other ends. */
async function holdIdle(daemon, key, port, backendPort, count) {
  await daemon.api('GET', '/api/execgc').catch(() => undefined);
  await sleep(1000);
  const before = rssOf(daemon.pid);
  const clients = track(spawn(process.execPath, [join(here, 'peers.mjs'), 'clients', String(port), String(count)], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const readClients = lineReader(clients);
  const t0 = performance.now();
  const opened = await readClients(300_000);
  const openMs = performance.now() - t0;
  await sleep(2000);
  await daemon.api('GET', '/api/execgc').catch(() => undefined);
  await sleep(1000);
  clients.stdin.write('\n');
  const still = Number((await readClients()).split(' ')[1]);
  const after = rssOf(daemon.pid);
  const fds = fdsOf(daemon.pid);
  const stats = await daemon
    .api('GET', `/api/portforward/rules/${key}`)
    .then((r) => r.rule.stats)
    .catch((err) => ({ error: err.cause?.code ?? err.message }));
  clients.kill('SIGKILL');
  // Afterwards the daemon must answer again and have let every connection go.
  let recovered = false;
  for (let i = 0; i < 100 && !recovered; i++) {
    await sleep(200);
    const r = await daemon.api('GET', `/api/portforward/rules/${key}`).catch(() => null);
    recovered = r !== null && r.rule.stats.tcpConnections === 0;
  }
  return { opened, openMs, still, stats, before, after, fds, recovered };
}

async function idleConnections(daemon) {
  const backend = track(spawn(process.execPath, [join(here, 'peers.mjs'), 'backend'], { stdio: ['pipe', 'pipe', 'inherit'] }));
  const readBackend = lineReader(backend);
  const backendPort = Number((await readBackend()).split(' ')[1]);
  const port = await freePort();
  const key = await addRule(daemon, {
    name: 'idle',
    types: ['tcp4'],
    listenHost: '127.0.0.1',
    listenPorts: String(port),
    targets: ['127.0.0.1'],
    targetPorts: String(backendPort),
  });
  // Each relayed connection costs the daemon 2 file descriptors. When the process limit cannot take
  // IDLE_CONNS, phase A caps the module's global limit so that the admin API keeps some descriptors
  // (the excess is refused and counted); phase B then asks for all of them without a cap.
  const limit = fdLimitOf(daemon.pid);
  const fit = Math.floor((limit - fdsOf(daemon.pid) - 64) / 2);
  const phases = [];
  if (fit < IDLE_CONNS) {
    await daemon.api('PUT', '/api/portforward/configure', { tcpMaxConnections: fit });
    phases.push({ name: `A: global limit ${fit} (fd limit ${limit})`, r: await holdIdle(daemon, key, port, backendPort, IDLE_CONNS) });
    await daemon.api('PUT', '/api/portforward/configure', { tcpMaxConnections: 0 });
    await sleep(1000);
    phases.push({ name: 'B: no limit', r: await holdIdle(daemon, key, port, backendPort, IDLE_CONNS) });
  } else {
    phases.push({ name: 'no limit', r: await holdIdle(daemon, key, port, backendPort, IDLE_CONNS) });
  }
  backend.kill('SIGKILL');
  return { phases, limit, fit };
}

// ------------------------------------------------------------------ main

requireBenchPackages('portforward');
const nofile = spawnSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).stdout.trim();
console.log(`port forwarding benchmark: Node ${process.versions.node}, ${DURATION} s per iperf3 run, ${ROUNDS} rounds (median), fd limit ${nofile}`);
console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} on ${CPUS} CPUs`);
const daemon = await startDaemon();
try {
  if (!SKIP_THROUGHPUT) {
  const { t, u } = await throughput(daemon);
  for (const [streams, r] of Object.entries(t)) {
    printTable(`TCP bulk throughput (iperf3, ${streams === '1' ? 'one stream' : `-P ${streams}`}, loopback)`, [
      ['path', 'median', 'vs direct', 'vs socat', 'per-round ratios (median): vs direct, vs socat'],
      ['direct', gbps(r.direct), '1.00x', '', ''],
      ['socat', gbps(r.socat), x(r.socat, r.direct), '1.00x', `${r.socatVsDirect.toFixed(2)}x`],
      ['lucky', gbps(r.lucky), x(r.lucky, r.direct), x(r.lucky, r.socat), `${r.luckyVsDirect.toFixed(2)}x, ${r.luckyVsSocat.toFixed(2)}x`],
    ]);
    console.log(`goal lucky >= 0.8x direct (${streams} stream${streams === '1' ? '' : 's'}): ${r.luckyVsDirect >= 0.8 ? 'met' : 'NOT met'} (${r.luckyVsDirect.toFixed(2)}x)`);
    // What the machine spends per byte on each path, and what that lets ${CPUS} cores carry at most.
    const ceiling = (name) => (CPUS / r.cpu[name]) * 8;
    console.log(
      `  machine CPU per GB carried: direct ${r.cpu.direct.toFixed(2)} s, socat ${r.cpu.socat.toFixed(2)} s, lucky ${r.cpu.lucky.toFixed(2)} s` +
        ` (lucky/direct ${(r.cpu.lucky / r.cpu.direct).toFixed(2)}x); with every core busy lucky's path carries at most ${ceiling('lucky').toFixed(1)} Gbit/s` +
        ` = ${(ceiling('lucky') / (r.direct / 1e9)).toFixed(2)}x direct's measured rate`,
    );
  }
  printTable(`UDP packets/s delivered (iperf3 -u -b 0 -l ${UDP_LEN})`, [
    ['path', 'packets/s', 'vs socat', 'per-round ratio (median)'],
    ['direct', Math.round(u.direct), x(u.direct, u.socat), ''],
    ['socat', Math.round(u.socat), '1.00x', ''],
    ['lucky', Math.round(u.lucky), x(u.lucky, u.socat), `${u.luckyVsSocat.toFixed(2)}x`],
  ]);
  console.log(`goal lucky >= 1.5x socat in UDP packets/s: ${u.luckyVsSocat >= 1.5 ? 'met' : 'NOT met'} (${u.luckyVsSocat.toFixed(2)}x)`);
  }
  const idle = await idleConnections(daemon);
  idle.phases.forEach(({ name, r }, i) => {
    const held = r.stats.tcpConnections ?? NaN;
    printTable(`Idle TCP connections through one rule, asking for ${IDLE_CONNS} (${name})`, [
      ['', ''],
      ['clients', `${r.opened} (opening took ${(r.openMs / 1000).toFixed(1)} s), still open 3 s later: ${r.still}`],
      ['held by the rule', r.stats.error ? `${r.still} by the clients' count; the admin API had no descriptor left (${r.stats.error})` : String(held)],
      ['refused by limit / accepted', r.stats.error ? '' : `${r.stats.refusedByLimit} / ${r.stats.totalConnections} (cumulative)`],
      ['daemon fds in use', String(r.fds)],
      ['daemon RSS before / after', `${(r.before / 1e6).toFixed(1)} MB / ${(r.after / 1e6).toFixed(1)} MB`],
      ['RSS per held connection', i === 0 && held > 0 ? `${((r.after - r.before) / held / 1024).toFixed(1)} KiB` : 'see the first table (the heap has grown since)'],
      ['daemon answers again, all released', r.recovered ? 'yes' : 'NO'],
    ]);
  });
  if (idle.fit < IDLE_CONNS) {
    console.log(
      `\n  note: a relayed connection takes 2 file descriptors in the daemon; the process limit here is ${idle.limit}` +
        ` (hard limit, cannot be raised in this container), so ${IDLE_CONNS} cannot all be held at once: raise LimitNOFILE / ulimit -n.`,
    );
  }
} finally {
  await daemon.close();
  await cleanup();
}
