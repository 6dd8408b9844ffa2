#!/usr/bin/env node
/**
 * Publish benchmark, in the NAT lab (apps/daemon/src/test/publishlab.ts: network namespaces, a
 * router with miniupnpd, BIND and pebble on its WAN side); needs root, as bench/stun does.
 *
 * The time from "publish" (the POST that creates a published service, direct mode) to the WAN
 * client's first HTTPS answer from the backend, verified against pebble's root: the router's UPnP
 * forwards, the DDNS task and its record at BIND, the web rule, the certificate ordered by HTTP-01
 * through the router and swapped in. Then to the card's five green lights. `--rounds` services,
 * each deleted before the next (its mappings gone from the router). Median, min and max.
 * Caddy as the reference peer (start → first answer, DNS and forwards by hand) is to come.
 * Usage: node bench/publish/run.mjs [--rounds 5]
 */
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, importTestHelper, median, printTable, reaper, ROOT, sleep, startBenchDaemon } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' } } });
const ROUNDS = Number(values.rounds);

const r = reaper();
const tmp = mkdtempSync(join(tmpdir(), 'lucky-bench-publish-'));
r.atExit(() => rmSync(tmp, { recursive: true, force: true }));
requireBenchPackages('publish');

const { createPublishLab } = await importTestHelper(join(ROOT, 'apps/daemon/src/test/publishlab.ts'));
let lab;
try {
  lab = await createPublishLab('bpub');
} catch (err) {
  console.error(`bench/publish needs root and network namespaces (the NAT lab could not be made): ${err.message}`);
  process.exit(1);
}
// A failure on the way (an uncaught error, Ctrl-C) must not leave the lab behind either.
const failed = async (err) => {
  console.error(err?.stack ?? String(err));
  await lab.remove().catch(() => undefined);
  process.exit(1);
};
process.on('uncaughtException', failed);
process.on('unhandledRejection', failed);
process.once('SIGINT', () => void failed(new Error('interrupted')));
const root = await lab.pebble.root();

const backend = createServer((req, res) => res.end(`backend, ${req.headers.host}\n`));
await new Promise((done) => backend.listen(0, '127.0.0.1', done));
r.atExit(() => backend.close());

const password = 'bench-password-1';
const d = await startBenchDaemon({ cpu: '0', dataDir: join(tmp, 'lucky'), password });
r.track(d.p);
const { api } = d;
await api('PUT', '/api/acme/configure', { auto: { ca: 'custom', directoryUrl: lab.pebble.directory, caRoot: lab.pebble.tlsCa } });
await api('PUT', '/api/publish/configure', { checkInterval: 5 });
const { key: template } = await api('POST', '/api/ddns/rules', {
  name: 'lab zone',
  provider: 'rfc2136',
  recordType: 'A',
  credentials: { id: lab.bind.keyName, secret: lab.bind.secret, server: `${lab.bind.host}:${lab.bind.port}` },
  domains: ['home.lab.test'],
  ipv4: { type: 'command', command: 'echo 192.0.2.1' },
  ttl: 60,
});

console.log(`Publish benchmark, Node ${process.version}, ${cpus().length} cores; the daemon on core 0, the lab's peers anywhere`);
const until = async (what, check, ms = 60_000) => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check().catch(() => undefined);
    if (v) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`);
    await sleep(50);
  }
};

const answer = [];
const green = [];
for (let i = 1; i <= ROUNDS; i++) {
  const name = `r${i}.lab.test`;
  const t0 = Date.now();
  const { key } = await api('POST', '/api/publish/rules', {
    name: `round ${i}`,
    target: `http://127.0.0.1:${backend.address().port}`,
    names: [name],
    dnsTask: template,
    httpsPort: await freePort(),
    httpPort: await freePort(),
    upnpUrl: lab.upnpUrl,
  });
  await until('the first WAN answer', async () => {
    const res = await lab.wanClient.https(`https://${name}/`, { caPem: root });
    return res.status === 200 && res.body === `backend, ${name}\n`;
  });
  answer.push(Date.now() - t0);
  await until('five green lights', async () => {
    const { rule } = await api('GET', `/api/publish/rules/${key}`);
    return rule.checks.length === 5 && rule.checks.every((c) => c.state === 'ok');
  });
  green.push(Date.now() - t0);
  await api('DELETE', `/api/publish/rules/${key}`);
  await until('its router mappings gone', async () => !(await lab.upnpList()).includes('Lucky publish'), 15_000);
}

const row = (label, xs) => [label, String(median(xs)), String(Math.min(...xs)), String(Math.max(...xs))];
// The lab's namespaces, processes and route outlive this process unless removed before it ends.
await lab.remove();
printTable(`Published service, ${ROUNDS} rounds (ms from the POST)`, [
  ['', 'median', 'min', 'max'],
  row('→ WAN client\'s first HTTPS answer (forwards, DNS, certificate included)', answer),
  row('→ the card all green', green),
]);
process.exit(0);
