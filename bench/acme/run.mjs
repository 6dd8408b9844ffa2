#!/usr/bin/env node
/**
 * Certificates benchmark, loopback only, bounded in time.
 *
 * 1. Time to a certificate: the built daemon orders from Debian's pebble (validation without its
 *    random sleeps) `--rounds` times for HTTP-01 (the module's own listener) and for DNS-01 (a TXT
 *    record written through the RFC 2136 provider of a DDNS task on a real BIND 9, then seen on it),
 *    ECDSA P-256 and RSA 2048. Each is a forced renewal through the API, timed from the request to
 *    the answer; median, min and max.
 * 2. TLS handshakes per second on a web rule (text answer) with the ECDSA and with the RSA
 *    certificate just issued, next to nginx with the same certificate files exported through the
 *    API (`return 200`): one serving thread against one nginx worker on core 0, wrk on core 1 with
 *    `Connection: close` so every request is a new TLS connection. Interleaved rounds; the ratio is
 *    the median of per-round ratios.
 * Installs pebble, named (bind9), nginx and wrk when missing (bench/packages.mjs).
 * Usage: node bench/acme/run.mjs [--rounds 5] [--duration 5] [--connections 32]
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, importTestHelper, median, outputTail, printTable, reaper, ROOT, sleep, startBenchDaemon } from '../lib.mjs';
import { requireBenchPackages } from '../packages.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '32' },
  },
});
const ROUNDS = Number(values.rounds);
const DURATION = Number(values.duration);
const CONNS = Number(values.connections);

const r = reaper();
const tmp = mkdtempSync(join(tmpdir(), 'lucky-bench-acme-'));
r.atExit(() => rmSync(tmp, { recursive: true, force: true }));

requireBenchPackages('acme');
const { startBind } = await importTestHelper(join(ROOT, 'apps/daemon/src/lib/dns/testing/bind.ts'));
const { startPebble } = await importTestHelper(join(ROOT, 'apps/daemon/src/test/pebble.ts'));
const { buildUpdate, exchange, signTsig, TYPE } = await import(join(ROOT, 'apps/daemon/dist/lib/dns/wire.js'));

const fmt = (n, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
console.log(`Certificates benchmark, Node ${process.version}, ${cpus().length} cores; ${execFileSync('sh', ['-c', 'nginx -v 2>&1; wrk -v 2>&1 | head -1'], { encoding: 'utf8' }).trim().replace(/\n/g, ' | ')}`);

const bind = await startBind('example.test');
r.atExit(() => void bind.stop());
const tsig = { name: bind.keyName, algorithm: 'hmac-sha256', secret: bind.secret };
for (const name of ['ec.example.test', 'rsa.example.test']) {
  const msg = buildUpdate({ zone: 'example.test', name, type: TYPE.A, ttl: 60, ips: ['127.0.0.1'] });
  await exchange({ host: '127.0.0.1', port: bind.port }, signTsig(msg, tsig).signed, 4000);
}
const httpPort = await freePort();
const pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}`, nonceReject: 0 });
r.atExit(() => void pebble.stop());

const password = 'bench-password-1';
const d = await startBenchDaemon({ cpu: '0', dataDir: join(tmp, 'lucky'), password, env: { LUCKY_WEB_THREADS: '1' } });
r.track(d.p);
const { api } = d;

// ---- 1. time to a certificate ----
const { key: task } = await api('POST', '/api/ddns/rules', {
  name: 'bind',
  enable: false,
  provider: 'rfc2136',
  credentials: { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` },
  domains: ['www:example.test'],
});
const base = { source: 'acme', ca: 'custom', directoryUrl: pebble.directory, caRoot: pebble.tlsCa, httpAddress: '127.0.0.1', httpPort };
const specs = {
  'HTTP-01 ec256': { name: 'bench-ec', domains: ['ec.example.test'], challenge: 'http-01', keyType: 'ec256' },
  'HTTP-01 rsa2048': { name: 'bench-rsa', domains: ['rsa.example.test'], challenge: 'http-01', keyType: 'rsa2048' },
  'DNS-01 ec256 (wildcard)': { name: 'bench-dns', domains: ['*.example.test'], challenge: 'dns-01', dnsTask: task, keyType: 'ec256' },
};
const rules = {};
for (const [label, spec] of Object.entries(specs)) rules[label] = { name: spec.name, key: (await api('POST', '/api/acme/rules', { ...base, ...spec })).key };
const times = Object.fromEntries(Object.keys(rules).map((k) => [k, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, { key }] of Object.entries(rules)) {
    const t = performance.now();
    await api('POST', `/api/acme/rules/${key}/renew`);
    times[label].push(performance.now() - t);
  }
}
printTable(`Time to a certificate from pebble, ${ROUNDS} orders each (ms; account known, order → challenge → finalize → chain)`, [
  ['order', 'median', 'min', 'max'],
  ...Object.entries(times).map(([label, xs]) => [label, fmt(median(xs)), fmt(Math.min(...xs)), fmt(Math.max(...xs))]),
]);

// ---- 2. TLS handshakes per second ----
const exportPem = async (key, format) => {
  const res = await fetch(`${d.base}/api/acme/rules/${key}/export`, {
    method: 'POST',
    headers: { 'lucky-admin-token': d.token, 'content-type': 'application/json' },
    body: JSON.stringify({ format }),
  });
  return res.text();
};
const sites = [];
for (const [kind, label] of [['ECDSA P-256', 'HTTP-01 ec256'], ['RSA 2048', 'HTTP-01 rsa2048']]) {
  const rule = rules[label];
  const dir = join(tmp, `nginx-${sites.length}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'cert.pem'), await exportPem(rule.key, 'fullchain'));
  writeFileSync(join(dir, 'key.pem'), await exportPem(rule.key, 'key'));
  const [pNginx, pLucky, pNode] = [await freePort(), await freePort(), await freePort()];
  // Reference only: the ceiling of one Node thread here, node:https answering the same text itself.
  r.track(
    spawn('taskset', ['-c', '0', process.execPath, '-e', `const fs = require('node:fs'); require('node:https').createServer({ cert: fs.readFileSync(${JSON.stringify(join(dir, 'cert.pem'))}), key: fs.readFileSync(${JSON.stringify(join(dir, 'key.pem'))}) }, (q, s) => { s.writeHead(200, { 'content-type': 'text/plain', 'content-length': '12' }); s.end('hello world\\n'); }).listen(${pNode}, '127.0.0.1')`], { stdio: 'ignore' }),
  );
  // One process that serves (no master): one worker's worth, and gone with it when the run ends.
  const conf = `master_process off;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/body; proxy_temp_path ${dir}/proxy; fastcgi_temp_path ${dir}/fastcgi; uwsgi_temp_path ${dir}/uwsgi; scgi_temp_path ${dir}/scgi;
  server { listen 127.0.0.1:${pNginx} ssl; ssl_certificate ${dir}/cert.pem; ssl_certificate_key ${dir}/key.pem; location / { default_type text/plain; return 200 "hello world\\n"; } }
}
`;
  writeFileSync(join(dir, 'nginx.conf'), conf);
  const ng = r.track(spawn('taskset', ['-c', '0', 'nginx', '-c', join(dir, 'nginx.conf'), '-p', dir, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] }));
  const ngTail = outputTail(ng);
  await api('POST', '/api/web/rules', {
    name: `tls-${sites.length}`,
    protocol: 'https',
    address: '127.0.0.1',
    port: pLucky,
    certs: [{ source: 'store', cert: rule.name }],
    defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'hello world\n' },
  });
  sites.push({ kind, pNginx, pLucky, pNode, ngTail });
}
await sleep(1000);

/** wrk on core 1, every request on a new TLS connection; requests per second = handshakes per second. */
function wrk(port) {
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${CONNS}`, `-d${DURATION}s`, '-H', 'Connection: close', `https://127.0.0.1:${port}/`], { encoding: 'utf8', timeout: (DURATION + 30) * 1000 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const errors = /Non-2xx or 3xx responses: (\d+)|Socket errors: (.*)/.exec(out)?.[0] ?? '';
  return { rps, errors };
}
const hs = Object.fromEntries(sites.flatMap((s) => [[`nginx ${s.kind}`, []], [`lucky ${s.kind}`, []], [`node ${s.kind}`, []]]));
for (let round = 0; round < ROUNDS; round++) {
  for (const s of sites) {
    const order = [['nginx', s.pNginx], ['lucky', s.pLucky], ['node', s.pNode]];
    for (const [who, port] of round % 2 ? order.reverse() : order) {
      const m = wrk(port);
      if (m.errors) console.log(`  round ${round + 1} ${who} ${s.kind}: ${m.errors}`);
      hs[`${who} ${s.kind}`].push(m.rps);
    }
  }
}
printTable(`TLS handshakes per second, 1 serving thread vs 1 nginx worker on core 0, wrk -t1 -c${CONNS} on core 1, ${ROUNDS} rounds of ${DURATION} s (new connection per request)`, [
  ['certificate', 'nginx', 'lucky', 'lucky/nginx', 'node:https (ref)'],
  ...sites.map((s) => {
    const n = hs[`nginx ${s.kind}`];
    const l = hs[`lucky ${s.kind}`];
    return [s.kind, fmt(median(n)), fmt(median(l)), fmt(median(l.map((x, i) => x / n[i])), 2), fmt(median(hs[`node ${s.kind}`]))];
  }),
]);
const ecOverRsa = (who) => median(hs[`${who} ECDSA P-256`].map((x, i) => x / hs[`${who} RSA 2048`][i]));
console.log(`\nECDSA/RSA handshake rate: nginx ${fmt(ecOverRsa('nginx'), 2)}x, lucky ${fmt(ecOverRsa('lucky'), 2)}x (full handshakes make RSA's private-key operation show)`);
process.exit(0);
