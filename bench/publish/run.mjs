#!/usr/bin/env node
/**
 * Publish benchmark, in the NAT lab (apps/daemon/src/test/publishlab.ts: network namespaces, a
 * router with nftables masquerade and miniupnpd, BIND and pebble on its WAN side, a WAN client
 * running dig and curl there). Needs root and network namespaces, as bench/stun does; it stops
 * saying so when the lab cannot be made. Nothing is sent beyond loopback and the lab's namespaces.
 *
 * Lucky: the time from "publish" (POST /api/publish/rules, direct mode) to the WAN client's first
 * HTTPS answer from the backend (200 and its body, verified against pebble's root): the router's
 * UPnP forwards of 443 and 80, the DDNS task's record at BIND, the web rule, the certificate ordered
 * by HTTP-01 through the router and swapped in. Then to the card's five green lights. Each service
 * is deleted before the next and its mappings are seen gone from the router.
 *
 * Caddy (Debian's), the tool users compare with for automatic HTTPS, as the reference peer: it does
 * neither DNS nor the router, so before each of its rounds the name's A record is set at BIND by
 * RFC 2136 and the router's 80 and 443 are mapped to its ports by upnpc (not timed); then the time
 * from its spawn to the WAN client's first 200 (fresh storage each round: a new ACME account and a
 * new order, as Lucky's first round; Lucky's later rounds reuse its account).
 *
 * Lucky and Caddy rounds interleaved (the order alternates), both pinned to core 0. The WAN client
 * is polled every POLL_MS between tries (a try is dig and curl in the WAN namespace, tens of ms);
 * each wait bounded at 60 s. Median, min and max of each, and the ratio of medians.
 * Installs pebble, BIND, miniupnpd, miniupnpc, caddy… when missing (bench/packages.mjs).
 * Usage: node bench/publish/run.mjs [--rounds 5]
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, importTestHelper, median, outputTail, printTable, reaper, requireBuiltDaemon, ROOT, sleep, startBenchDaemon, stop } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error('--rounds takes a whole number ≥ 1');
  process.exit(2);
}
const POLL_MS = 50;
const WAIT_MS = 60_000;
const CPU = '0';

const r = reaper();
const tmp = mkdtempSync(join(tmpdir(), 'lucky-bench-publish-'));
r.atExit(() => rmSync(tmp, { recursive: true, force: true }));
requireBenchPackages('publish');
requireBuiltDaemon();

const { createPublishLab, labSetup } = await importTestHelper(join(ROOT, 'apps/daemon/src/test/publishlab.ts'));
const { buildUpdate, exchange, parseMessage, signTsig, TYPE } = await import(join(ROOT, 'apps/daemon/dist/lib/dns/wire.js'));

let lab;
try {
  lab = await createPublishLab('bpub');
} catch (err) {
  console.error(`bench/publish needs root and network namespaces (it builds the NAT lab of apps/daemon/src/test/publishlab.ts); the lab could not be made:\n${err.message}`);
  process.exit(1);
}
// The lab's own removal is asynchronous: awaited at the end. On an exit before that (Ctrl-C) what
// the lab started is killed by its pid and its two namespaces deleted, synchronously
// (their veths and the route through them go with them).
let labRemoved = false;
const removeLab = async () => {
  if (labRemoved) return;
  await lab.remove();
  labRemoved = true;
};
r.atExit(() => {
  if (labRemoved) return;
  for (const ns of [lab.router.ns, lab.wan.ns]) {
    const pids = spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout?.split('\n').filter(Boolean) ?? [];
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    spawnSync('ip', ['netns', 'del', ns]);
  }
});

const versionOf = (cmd, args) => {
  const res = spawnSync(cmd, args, { encoding: 'utf8' });
  return `${res.stdout ?? ''}${res.stderr ?? ''}`.trim().split('\n')[0];
};
const debVersion = (pkg) => spawnSync('dpkg-query', ['-W', '-f', '${Version}', pkg], { encoding: 'utf8' }).stdout?.trim() || '?';

const fmt = (n) => (Number.isFinite(n) ? String(Math.round(n)) : 'n/a');
const row = (label, xs) => [label, fmt(median(xs)), fmt(Math.min(...xs)), fmt(Math.max(...xs))];

/** Polls `check` (a throw counts as not yet) every POLL_MS until it answers truthy; bounded. */
async function until(what, check, ms = WAIT_MS) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    const v = await check().catch((err) => {
      if (err.fatal) throw err;
      last = err;
      return undefined;
    });
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s${last ? ` (last: ${last.message})` : ''}`);
    await sleep(POLL_MS);
  }
}

let failed = false;
let d;
const lucky = { answer: [], green: [] };
const caddy = { answer: [] };
try {
  const root = await lab.pebble.root();
  const rootFile = join(tmp, 'pebble-tls-ca.pem');
  writeFileSync(rootFile, lab.pebble.tlsCa);

  const backend = createServer((req, res) => res.end(`backend, ${req.headers.host}\n`));
  await new Promise((done) => backend.listen(0, '127.0.0.1', done));
  r.atExit(() => backend.close());
  const backendPort = backend.address().port;
  /** The WAN client's HTTPS GET: true once it is the backend's answer through the router. */
  const answered = async (name) => {
    const res = await lab.wanClient.https(`https://${name}/`, { caPem: root });
    return res.status === 200 && res.body === `backend, ${name}\n`;
  };

  const password = 'bench-password-1';
  d = await startBenchDaemon({ cpu: CPU, dataDir: join(tmp, 'lucky'), password });
  r.track(d.p);
  const { api } = d;
  // As publish.lab.test.ts: pebble's automatic certificates, checks every 5 s, the user's task for the zone.
  const setup = labSetup(lab);
  await api('PUT', '/api/acme/configure', setup.acme);
  await api('PUT', '/api/publish/configure', setup.publish);
  const { key: template } = await api('POST', '/api/ddns/rules', setup.template);

  console.log(`Publish benchmark, ${ROUNDS} rounds each, ${cpus().length} cores; Lucky and Caddy on core ${CPU}, the lab's peers anywhere`);
  console.log(
    `Node ${process.version} | caddy ${versionOf('caddy', ['version'])} | pebble ${debVersion('pebble')} (Debian) | ${versionOf('miniupnpd', ['--version'])} | ${/^BIND \S+/.exec(versionOf('named', ['-v']))?.[0] ?? 'BIND ?'} | curl ${versionOf('curl', ['--version']).split(' ')[1]}`,
  );

  async function luckyRound(i) {
    const name = `r${i}.lab.test`;
    const [httpsPort, httpPort] = [await freePort(), await freePort()];
    const t0 = Date.now();
    const { key } = await api('POST', '/api/publish/rules', {
      name: `round ${i}`,
      target: `http://127.0.0.1:${backendPort}`,
      names: [name],
      dnsTask: template,
      httpsPort,
      httpPort,
      upnpUrl: lab.upnpUrl,
    });
    await until(`Lucky ${name}: the WAN client's first answer`, () => answered(name));
    const answer = Date.now() - t0;
    await until(`Lucky ${name}: five green lights`, async () => {
      const { rule } = await api('GET', `/api/publish/rules/${key}`);
      return rule.checks.length === 5 && rule.checks.every((c) => c.state === 'ok');
    });
    const green = Date.now() - t0;
    lucky.answer.push(answer);
    lucky.green.push(green);
    await api('DELETE', `/api/publish/rules/${key}`);
    await until(`Lucky ${name}: its router mappings gone`, async () => !(await lab.upnpList()).includes('Lucky publish'), 15_000);
    console.log(`  round ${i} Lucky  ${name}: first WAN answer ${answer} ms, card all green ${green} ms`);
  }

  /** `name A addr` at the lab's BIND by a TSIG-signed RFC 2136 update (publishlab.test.ts's setA). */
  async function setA(name, addr) {
    const tsig = { name: lab.bind.keyName, algorithm: 'hmac-sha256', secret: lab.bind.secret };
    const msg = buildUpdate({ zone: lab.bind.zone, name, type: TYPE.A, ttl: 60, ips: [addr] });
    const answer = parseMessage(await exchange({ host: lab.bind.host, port: lab.bind.port }, signTsig(msg, tsig).signed, 4000));
    if (answer.rcode !== 0) throw new Error(`RFC 2136 update of ${name}: rcode ${answer.rcode}`);
  }
  const upnpc = (...args) => execFileSync('upnpc', ['-u', lab.upnpUrl, ...args], { encoding: 'utf8', timeout: 10_000 });
  const CADDY_MAPPING = 'bench caddy';

  async function caddyRound(i) {
    const name = `c${i}.lab.test`;
    const dir = join(tmp, `caddy-${i}`);
    mkdirSync(dir, { recursive: true });
    const [httpsPort, httpPort] = [await freePort(), await freePort()];
    // By hand, before the clock: the record and the router's forwards.
    await setA(name, lab.routerWanAddr());
    if ((await lab.wanClient.resolve(name))[0] !== lab.routerWanAddr()) throw new Error(`${name} does not resolve to the router at BIND`);
    upnpc('-e', CADDY_MAPPING, '-a', lab.lanAddr, String(httpsPort), '443', 'TCP');
    upnpc('-e', CADDY_MAPPING, '-a', lab.lanAddr, String(httpPort), '80', 'TCP');
    if (!upnpc('-l').includes(CADDY_MAPPING)) throw new Error('the router does not list the forwards to Caddy');
    writeFileSync(
      join(dir, 'Caddyfile'),
      `{
\tadmin off
\tacme_ca ${lab.pebble.directory}
\tacme_ca_root ${rootFile}
\thttp_port ${httpPort}
\thttps_port ${httpsPort}
\tdefault_bind ${lab.lanAddr}
\tstorage file_system ${join(dir, 'storage')}
\tskip_install_trust
}
${name} {
\treverse_proxy 127.0.0.1:${backendPort}
}
`,
    );
    // Its config and data homes in the round's folder too (autosave.json, nothing left in ~).
    const home = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
    const t0 = Date.now();
    const p = r.track(spawn('taskset', ['-c', CPU, 'caddy', 'run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...home } }));
    const tail = outputTail(p, 6000);
    try {
      await until(`Caddy ${name}: the WAN client's first answer`, async () => {
        if (p.exitCode !== null) throw Object.assign(new Error(`caddy exited ${p.exitCode}`), { fatal: true });
        return answered(name);
      });
      caddy.answer.push(Date.now() - t0);
    } catch (err) {
      throw new Error(`${err.message}\ncaddy's output:\n${tail()}`);
    } finally {
      await stop(p);
      upnpc('-d', '443', 'TCP');
      upnpc('-d', '80', 'TCP');
    }
    await until(`Caddy ${name}: its router mappings gone`, async () => !(await lab.upnpList()).includes(CADDY_MAPPING), 15_000);
    console.log(`  round ${i} Caddy  ${name}: first WAN answer ${caddy.answer.at(-1)} ms`);
  }

  for (let i = 1; i <= ROUNDS; i++) {
    if (i % 2) {
      await luckyRound(i);
      await caddyRound(i);
    } else {
      await caddyRound(i);
      await luckyRound(i);
    }
  }

  printTable(`Publishing a LAN service in the NAT lab, ${ROUNDS} rounds each (ms)`, [
    ['', 'median', 'min', 'max'],
    row('Lucky: publish → first WAN answer', lucky.answer),
    row('Lucky: publish → card all green', lucky.green),
    row('Caddy: start → first WAN answer', caddy.answer),
    ['ratio of medians, Lucky/Caddy (first WAN answer)', (median(lucky.answer) / median(caddy.answer)).toFixed(2), '', ''],
  ]);
  console.log(`
  Lucky "publish → first WAN answer": from the POST of the published service to the WAN client's
    first 200 with the backend's body over HTTPS verified against pebble's root; includes the
    router's UPnP forwards (443, 80), the A record sent to BIND through the DDNS task, the web rule,
    and the certificate ordered by HTTP-01 through the router (account reused after round 1).
  Lucky "publish → card all green": the same POST to all five checks of the card being ok.
  Caddy "start → first WAN answer": from spawning caddy (fresh storage: new account and order,
    HTTP-01 or TLS-ALPN-01 through the router) to the WAN client's first 200; the A record and the
    router's forwards were made by hand beforehand and are not counted.
  A try of the WAN client is dig at BIND and curl in the WAN namespace, ${POLL_MS} ms apart.`);
} catch (err) {
  failed = true;
  console.error(`\nbenchmark failed: ${err.stack ?? err}`);
  if (lucky.answer.length || caddy.answer.length) console.error(`figures so far: Lucky ${JSON.stringify(lucky)}, Caddy ${JSON.stringify(caddy)}`);
} finally {
  // The daemon first: nothing of it asks the router once the lab is going.
  if (d) await stop(d.p);
  await removeLab().catch((err) => console.error(`the lab's removal: ${err.message}`));
}
process.exit(failed ? 1 : 0);
