// Where sendfile starts to pay (core/filebody.ts NATIVE_MIN_BYTES): the same file bodies from one
// Node process through sendFileBody, on one port by sendfile on the relay thread (every size) and on
// another streamed (read into buffers, written through Node), for a range of sizes. Loopback only,
// temp dirs only.
// The server (a node:http server in a child process, with the built daemon's filebody.js) is pinned
// to SERVER_CPU (default 1) with all its threads, the client (this process: Node's http with a
// keep-alive agent, CONCURRENCY requests at a time, default 16) to CLIENT_CPU (default 0).
// Per size and way: requests/s, and the server's CPU time per request (utime + stime of the whole
// process from /proc, the relay thread included), the figure that stays put on a busy machine.
// Rounds interleave the two ways (ROUNDS, default 3; medians). Needs `npm run build`.
// Env: SIZES_KB (default 16,64,128,256,512,1024,4096), SECONDS per measurement (default 2),
//      ROUNDS, CONCURRENCY, SERVER_CPU, CLIENT_CPU.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuSecondsOf, DAEMON_DIST, median, printTable, reaper, requireBuiltDaemon, stop, waitForOutput } from '../lib.mjs';

const SIZES = (process.env.SIZES_KB ?? '16,64,128,256,512,1024,4096').split(',').map((k) => Number(k) * 1024);
const SECONDS = Number(process.env.SECONDS ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);

requireBuiltDaemon();
const { track, atExit, finish } = reaper();
spawnSync('taskset', ['-a', '-p', '-c', CLIENT_CPU, String(process.pid)], { stdio: 'ignore' });

const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-sendfile-'));
atExit(() => rmSync(dir, { recursive: true, force: true }));
for (const size of SIZES) writeFileSync(join(dir, `f${size}`), Buffer.alloc(size, 0x5a));

// The server: two listeners on the same files, one per way; every body through sendFileBody.
const serverJs = join(dir, 'server.mjs');
writeFileSync(
  serverJs,
  `import { createServer } from 'node:http';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
const { sendFileBody } = await import(${JSON.stringify(pathToFileURL(join(DAEMON_DIST, 'core', 'filebody.js')).href)});
// Idle keep-alive connections stay: Node's client agent ignores the server's keep-alive hint and
// reuses a connection the server closes at that moment (ECONNRESET) after a pause between runs.
const serve = (o) => createServer({ keepAliveTimeout: 60_000 }, async (req, res) => {
  const file = await open(join(${JSON.stringify(dir)}, req.url.slice(1)), 'r');
  const { size } = await file.stat();
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': size });
  const r = await sendFileBody(req, res, file, 0, size, o);
  if (!r.complete) console.error('a body was cut:', req.url, JSON.stringify(o));
});
const a = serve({ native: true, minNativeBytes: 0 }).listen(0, '127.0.0.1', () => {
  const b = serve({ native: false }).listen(0, '127.0.0.1', () => console.log('ports', a.address().port, b.address().port));
});
`,
);
const server = track(spawn('taskset', ['-c', SERVER_CPU, process.execPath, serverJs], { stdio: ['ignore', 'pipe', 'pipe'] }));
server.stderr.on('data', (c) => process.stderr.write(`server: ${c}`));
const [, nativePort, streamPort] = (await waitForOutput(server, /ports (\d+) (\d+)/)).match(/ports (\d+) (\d+)/).map(Number);

const agents = { sendfile: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }), streamed: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }) };

function get(agent, port, path) {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let n = 0;
      res.on('data', (c) => (n += c.length));
      res.on('end', () => resolve(n));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end();
  });
}

async function measure(way, size) {
  const port = way === 'sendfile' ? nativePort : streamPort;
  const agent = agents[way];
  // Warm: connections open, the file in the page cache.
  await Promise.all(Array.from({ length: CONCURRENCY }, () => get(agent, port, `/f${size}`)));
  const cpu0 = cpuSecondsOf(server.pid);
  const t0 = performance.now();
  const end = t0 + SECONDS * 1000;
  let n = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const got = await get(agent, port, `/f${size}`);
        if (got !== size) throw new Error(`${way}: ${got} bytes of ${size}`);
        n++;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  return { rps: n / s, cpuUs: ((cpuSecondsOf(server.pid) - cpu0) / n) * 1e6 };
}

console.log(`sendfile threshold: Node ${process.versions.node}; server on CPU ${SERVER_CPU}, client on CPU ${CLIENT_CPU}; ${CONCURRENCY} requests at a time, ${SECONDS} s per measurement, ${ROUNDS} rounds interleaved (median)`);
console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
const rows = [['size', 'sendfile req/s', 'streamed req/s', 'ratio', 'sendfile CPU/req', 'streamed CPU/req', 'CPU ratio']];
try {
  for (const size of SIZES) {
    const r = { sendfile: [], streamed: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const way of round % 2 ? ['streamed', 'sendfile'] : ['sendfile', 'streamed']) r[way].push(await measure(way, size));
    }
    const m = (way, k) => median(r[way].map((x) => x[k]));
    const kb = size >= 1048576 ? `${size / 1048576} MiB` : `${size / 1024} KiB`;
    rows.push([
      kb,
      m('sendfile', 'rps').toFixed(0),
      m('streamed', 'rps').toFixed(0),
      `${(m('sendfile', 'rps') / m('streamed', 'rps')).toFixed(2)}x`,
      `${m('sendfile', 'cpuUs').toFixed(0)} µs`,
      `${m('streamed', 'cpuUs').toFixed(0)} µs`,
      `${(m('sendfile', 'cpuUs') / m('streamed', 'cpuUs')).toFixed(2)}x`,
    ]);
    console.log(`  ${kb}: done`);
  }
  printTable('per size (medians); CPU/req: the server process, relay thread included (lower is better)', rows);
  console.log(`load average after: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  await stop(server);
  finish();
}
