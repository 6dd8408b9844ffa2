// STUN module benchmark, bounded in time, nothing sent beyond loopback and the NAT lab's namespaces.
// Prints, in one run:
//   1. Time from a rule's start to its published public address (stun.publicAddr non-null in
//      GET /api/stun/rules), UDP and TCP, inside the NAT lab (apps/daemon/src/test/natlab.ts:
//      router namespace with masquerade + miniupnpd, coturn in a WAN namespace). The
//      first start of each protocol is POST /api/stun/rules (enable true), the others are the
//      enable switch (PUT .../enable false, then true); median of START_ROUNDS starts.
//      src/test/ is not compiled into dist: natlab.ts and coturn.ts are transpiled here with the
//      repo's typescript (as bench/lib.mjs importTestHelper does, for two files that import each other).
//   2. UDP packets/s (iperf3 -u flood) and TCP throughput (iperf3) on loopback to one iperf3 server,
//      through a STUN rule in forward mode (a UDP and a TCP rule on the same port: iperf3's control
//      connection is TCP), through a port forwarding rule (tcp4+udp4) and through socat, plus direct;
//      figures and per-round ratios stun/portforward and stun/socat. Equal cores: the daemon and
//      socat are pinned to the same single CPU (taskset), iperf3 to the others.
// Needs root (network namespaces), iperf3, socat, coturn (turnserver), miniupnpd, nft (installed when
// missing, bench/packages.mjs); the built
// daemon (npm run build) with its native addon (TCP STUN rules need SO_REUSEPORT from it).
// Env: DURATION (s per iperf3 run, default 3), ROUNDS (default 3), START_ROUNDS (default 5),
//      UDP_LEN (datagram bytes, default 512), SKIP_LAB=1 (only part 2).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DAEMON_DIST, freePort, median, printTable, ROOT, sleep, startBenchDaemon, stop } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const TEST_SRC = join(ROOT, 'apps/daemon/src/test');
const DURATION = Number(process.env.DURATION ?? 3);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const START_ROUNDS = Number(process.env.START_ROUNDS ?? 5);
const UDP_LEN = Number(process.env.UDP_LEN ?? 512);
const SKIP_LAB = process.env.SKIP_LAB === '1';
const PASSWORD = 'bench-password-1';
const NCPU = cpus().length;
// The forwarders (daemon, socat) on the last CPU, the load (iperf3 client and server) on the others.
const RELAY_CPU = String(NCPU - 1);
const LOAD_CPUS = NCPU > 1 ? `0-${NCPU - 2}` : '0';

const children = new Set();
const groups = [];
const cleanups = [];
function track(p) {
  children.add(p);
  p.once('exit', () => children.delete(p));
  return p;
}
function killAll() {
  for (const p of children) p.kill('SIGKILL');
  for (const kill of groups) kill();
}
process.on('exit', killAll);
process.on('SIGINT', () => process.exit(130));

/** natlab.ts and coturn.ts (test helpers, never compiled into dist), transpiled side by side. */
async function importLab() {
  const ts = (await import('typescript')).default;
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-stun-helper-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}');
  for (const name of ['natlab', 'coturn']) {
    const file = join(TEST_SRC, `${name}.ts`);
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      fileName: file,
    });
    writeFileSync(join(dir, `${name}.js`), out.outputText);
  }
  const natlab = await import(pathToFileURL(join(dir, 'natlab.js')).href);
  const coturn = await import(pathToFileURL(join(dir, 'coturn.js')).href);
  return { createNatLab: natlab.createNatLab, startCoturn: coturn.startCoturn };
}

// ------------------------------------------------------------------ the daemon

async function startDaemon() {
  const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-stun-'));
  // On the relay CPU with every thread it has (native relay threads included): equal cores with socat.
  const { p, api, tail, nodeOptions } = await startBenchDaemon({ cpu: RELAY_CPU, dataDir: dir, password: PASSWORD });
  track(p);
  return {
    pid: p.pid,
    api: (...a) =>
      api(...a)
        // A pooled keep-alive connection the daemon closed while idle (long iperf3 runs): a GET asks again.
        .catch((err) => (a[0] === 'GET' && err.cause?.code === 'UND_ERR_SOCKET' ? api(...a) : Promise.reject(err)))
        .catch((err) => {
        const state = p.exitCode !== null || p.signalCode !== null ? `daemon exited (${p.exitCode ?? p.signalCode})` : 'daemon still running';
        throw new Error(`${a[0]} ${a[1]}: ${err.message} ${err.cause ? `(${err.cause.code ?? err.cause.message})` : ''}; ${state}; its output:\n${tail()}`);
      }),
    nodeOptions,
    async close() {
      await stop(p);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const stunRule = async (daemon, key) => (await daemon.api('GET', '/api/stun/rules')).list.find((r) => r.key === key);

/** Polls GET /api/stun/rules until pred(view) is true; returns the view. */
async function pollRule(daemon, key, pred, ms = 20_000, every = 10) {
  const end = performance.now() + ms;
  for (;;) {
    const v = await stunRule(daemon, key);
    if (v && pred(v)) return v;
    if (performance.now() > end) throw new Error(`rule ${key}: timed out; last view ${JSON.stringify(v?.status)} ${JSON.stringify(v?.stun)}`);
    await sleep(every);
  }
}

// ------------------------------------------------------------------ 1: time to a public address

async function timeToAddress(createNatLab) {
  const lab = await createNatLab('bst');
  cleanups.push(() => lab.remove());
  const stun = await lab.startStun();
  const kaHost = lab.wan.addrs[2];
  const ka = track(lab.wan.spawn(process.execPath, ['-e', `require('node:http').createServer((q, s) => s.end('ok')).listen(8080, '${kaHost}')`]));
  ka.stdout.resume();
  ka.stderr.resume();
  const daemon = await startDaemon();
  const results = {};
  try {
    // Before any rule: the module's default list names public servers.
    await daemon.api('PUT', '/api/stun/configure', { stunServers: [stun.server], keepaliveInterval: 30, keepaliveUrl: `http://${kaHost}:8080/` });
    // The keepalive server answers before the TCP rule needs it.
    const probe = `const c = require('node:net').connect(8080, '${kaHost}', () => process.exit(0)); c.on('error', () => process.exit(1));`;
    for (let i = 0; i < 50; i++) {
      if (await lab.wan.exec(process.execPath, ['-e', probe], 2000).then(() => true, () => false)) break;
      await sleep(100);
    }
    for (const protocol of ['udp', 'tcp']) {
      const ms = [];
      let key;
      let addr;
      for (let i = 0; i < START_ROUNDS; i++) {
        const t0 = performance.now();
        if (i === 0) {
          ({ key } = await daemon.api('POST', '/api/stun/rules', {
            name: `start-${protocol}`,
            enable: true,
            protocol,
            listenHost: lab.lanAddr,
            localPort: 0,
            mode: 'forward',
            targetHost: '127.0.0.1',
            targetPort: 9,
          }));
        } else await daemon.api('PUT', `/api/stun/rules/${key}/enable`, { enable: true });
        const v = await pollRule(daemon, key, (r) => r.stun.publicAddr !== null && r.stun.publicAddr !== undefined);
        ms.push(performance.now() - t0);
        addr = v.stun.publicAddr;
        await daemon.api('PUT', `/api/stun/rules/${key}/enable`, { enable: false });
        await pollRule(daemon, key, (r) => !r.stun.publicAddr, 10_000, 20);
        await sleep(200);
      }
      const wanOk = addr.startsWith(`${lab.routerWanAddr()}:`);
      console.log(
        `  ${protocol}: ${ms.map((m) => m.toFixed(0)).join(', ')} ms; published ${addr} (${wanOk ? 'the router WAN address' : 'NOT the router WAN address'})`,
      );
      results[protocol] = { ms, median: median(ms), addr };
      await daemon.api('DELETE', `/api/stun/rules/${key}`);
    }
  } finally {
    await daemon.close();
    ka.kill('SIGKILL');
    await stun.stop();
    await lab.remove();
  }
  return results;
}

// ------------------------------------------------------------------ 2: throughput

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

async function iperfServer() {
  const port = await freePort();
  const p = track(spawn('taskset', ['-c', LOAD_CPUS, 'iperf3', '-s', '-p', String(port), '-B', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'pipe'] }));
  p.stderr.resume();
  for (let i = 0; i < 100 && !(await canConnect(port)); i++) await sleep(100);
  return { port, kill: () => p.kill('SIGKILL') };
}

function iperfOnce(port, extra, omit) {
  const r = spawnSync(
    'taskset',
    ['-c', LOAD_CPUS, 'iperf3', '-c', '127.0.0.1', '-p', String(port), '-t', String(DURATION), ...(omit ? ['-O', '1'] : []), '-J', ...extra],
    { encoding: 'utf8', timeout: (DURATION + 30) * 1000 },
  );
  let j;
  try {
    j = JSON.parse(r.stdout);
  } catch {
    throw new Error(`iperf3 gave no JSON (status ${r.status}): ${r.stderr || r.stdout}`);
  }
  if (j.error) throw new Error(`iperf3: ${j.error}`);
  return j;
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

async function socat(args) {
  // Its own process group (fork leaves children), on the daemon's CPU.
  const p = track(spawn('taskset', ['-c', RELAY_CPU, 'socat', ...args], { stdio: 'ignore', detached: true }));
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

async function throughput(startCoturn) {
  const coturn = await startCoturn({ listen: ['127.0.0.1'] });
  const kaServer = createHttpServer((q, s) => s.end('ok'));
  await new Promise((r) => kaServer.listen(0, '127.0.0.1', r));
  const daemon = await startDaemon();
  const srv = await iperfServer();
  const kills = [];
  try {
    await daemon.api('PUT', '/api/stun/configure', {
      stunServers: [`127.0.0.1:${coturn.port}`],
      keepaliveInterval: 30,
      keepaliveUrl: `http://127.0.0.1:${kaServer.address().port}/`,
    });
    // STUN: a UDP and a TCP rule on one port (iperf3 -u keeps its control connection on TCP).
    const stunPort = await freePort();
    const keys = [];
    for (const protocol of ['udp', 'tcp']) {
      const { key } = await daemon.api('POST', '/api/stun/rules', {
        name: `fwd-${protocol}`,
        enable: true,
        protocol,
        listenHost: '127.0.0.1',
        localPort: stunPort,
        mode: 'forward',
        targetHost: '127.0.0.1',
        targetPort: srv.port,
      });
      keys.push(key);
      const v = await pollRule(daemon, key, (r) => !!r.stun.publicAddr, 20_000, 50);
      if (v.status.state !== 'running') throw new Error(`STUN rule ${protocol}: ${v.status.state} ${v.status.message}`);
    }
    const pfPort = await freePort();
    const { key: pfKey } = await daemon.api('POST', '/api/portforward/rules', {
      name: 'iperf',
      types: ['tcp4', 'udp4'],
      listenHost: '127.0.0.1',
      listenPorts: String(pfPort),
      targets: ['127.0.0.1'],
      targetPorts: String(srv.port),
    });
    const { rule: pf } = await daemon.api('GET', `/api/portforward/rules/${pfKey}`);
    if (pf.status.state !== 'running') throw new Error(`port forwarding rule is not running: ${pf.status.message}`);
    const socatPort = await freePort();
    kills.push((await socat([`TCP4-LISTEN:${socatPort},bind=127.0.0.1,reuseaddr,fork`, `TCP4:127.0.0.1:${srv.port}`])).kill);
    kills.push((await socat([`UDP4-LISTEN:${socatPort},bind=127.0.0.1,reuseaddr,fork`, `UDP4:127.0.0.1:${srv.port}`])).kill);

    const variants = [
      ['direct', srv.port],
      ['stun', stunPort],
      ['portforward', pfPort],
      ['socat', socatPort],
    ];
    const tcp = Object.fromEntries(variants.map(([n]) => [n, []]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, port] of variants) {
        const j = iperf(port);
        tcp[name].push(j.end.sum_received.bits_per_second);
        process.stdout.write(`  tcp ${name.padEnd(11)} round ${i + 1}: ${gbps(j.end.sum_received.bits_per_second)}\n`);
      }
    }
    const udp = Object.fromEntries(variants.map(([n]) => [n, []]));
    const sent = Object.fromEntries(variants.map(([n]) => [n, []]));
    for (let i = 0; i < ROUNDS; i++) {
      for (const [name, port] of variants) {
        const j = iperf(port, ['-u', '-b', '0', '-l', String(UDP_LEN)], false);
        const r = j.end.sum_received;
        const s = j.end.sum_sent;
        const delivered = r.bytes / UDP_LEN / r.seconds;
        udp[name].push(delivered);
        sent[name].push(s.packets / s.seconds);
        process.stdout.write(`  udp ${name.padEnd(11)} round ${i + 1}: ${Math.round(delivered)} packets/s delivered of ${Math.round(s.packets / s.seconds)} sent\n`);
      }
    }
    // The rule's own counters: the traffic went through the STUN rules.
    const list = (await daemon.api('GET', '/api/stun/rules')).list;
    const counted = list.map((r) => `${r.protocol} ${r.stun.bytesIn} B in / ${r.stun.bytesOut} B out, ${r.stun.totalConnections} connections or sessions`);
    return { tcp, udp, sent, counted, stunPort, pfPort, socatPort };
  } finally {
    for (const k of kills) k();
    srv.kill();
    await daemon.close();
    kaServer.close();
    await coturn.stop();
  }
}

const gbps = (bps) => `${(bps / 1e9).toFixed(2)} Gbit/s`;
const kpps = (pps) => `${(pps / 1000).toFixed(1)} kpps`;
const ratio = (a, b) => median(a.map((v, i) => v / b[i]));
const x = (r) => `${r.toFixed(2)}x`;

// ------------------------------------------------------------------ main

requireBenchPackages('stun');
const { createNatLab, startCoturn } = await importLab();
const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(DAEMON_DIST, 'nodeoptions.js')).href);
const native = existsSync(join(DAEMON_DIST, `native/node-v${process.versions.modules}/relay.node`));
console.log(`STUN benchmark: Node ${process.versions.node}, daemon NODE_OPTIONS "${DAEMON_NODE_OPTIONS}", native addon ${native ? 'present' : 'MISSING'}`);
console.log(`${NCPU} CPUs: daemon and socat pinned to CPU ${RELAY_CPU}, iperf3 to CPU ${LOAD_CPUS}; ${DURATION} s per iperf3 run, ${ROUNDS} rounds (median), ${START_ROUNDS} starts per protocol`);
console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const t0 = performance.now();
let failed = false;
try {
  let starts = null;
  if (!SKIP_LAB) {
    console.log('\n1. rule start -> published address, inside the NAT lab (router namespace: masquerade; coturn in the WAN namespace)');
    starts = await timeToAddress(createNatLab);
  }
  console.log('\n2. forwarding on loopback to one iperf3 server');
  const r = await throughput(startCoturn);

  if (starts) {
    printTable(`time from a rule's start to a published address (NAT lab, median of ${START_ROUNDS}; start 1 = POST, others = enable switch)`, [
      ['protocol', 'median', 'min', 'max'],
      ...['udp', 'tcp'].map((p) => [p, `${starts[p].median.toFixed(0)} ms`, `${Math.min(...starts[p].ms).toFixed(0)} ms`, `${Math.max(...starts[p].ms).toFixed(0)} ms`]),
    ]);
  }
  const m = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, median(v)]));
  const t = m(r.tcp);
  const u = m(r.udp);
  const s = m(r.sent);
  printTable(`TCP throughput, iperf3, ${DURATION} s runs (median of ${ROUNDS})`, [
    ['path', 'throughput'],
    ...Object.keys(t).map((k) => [k, gbps(t[k])]),
  ]);
  printTable(`UDP packets/s delivered, iperf3 -u -b 0 -l ${UDP_LEN}, ${DURATION} s runs (median of ${ROUNDS})`, [
    ['path', 'delivered', 'sent'],
    ...Object.keys(u).map((k) => [k, kpps(u[k]), kpps(s[k])]),
  ]);
  printTable('ratios (median of per-round ratios; forwarders on one CPU each run)', [
    ['', 'TCP', 'UDP'],
    ['stun/portforward', x(ratio(r.tcp.stun, r.tcp.portforward)), x(ratio(r.udp.stun, r.udp.portforward))],
    ['stun/socat', x(ratio(r.tcp.stun, r.tcp.socat)), x(ratio(r.udp.stun, r.udp.socat))],
    ['portforward/socat', x(ratio(r.tcp.portforward, r.tcp.socat)), x(ratio(r.udp.portforward, r.udp.socat))],
    ['stun/direct', x(ratio(r.tcp.stun, r.tcp.direct)), x(ratio(r.udp.stun, r.udp.direct))],
  ]);
  console.log(`\nSTUN rule counters after the runs: ${r.counted.join('; ')}`);
} catch (err) {
  failed = true;
  console.error(`\nbenchmark failed: ${err.stack ?? err}`);
} finally {
  for (const c of cleanups) await c().catch(() => {});
  killAll();
}
console.log(`\ntotal ${((performance.now() - t0) / 1000).toFixed(0)} s; everything torn down`);
process.exit(failed ? 1 : 0);
