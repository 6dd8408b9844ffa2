// File browser upload benchmark (module `filebrowser` over a storage of module `storage`), loopback only,
// temp dirs only: one large file (LARGE_MB, default 256 MiB) uploaded through the file browser's
// resumable uploads (create, PATCH chunks of CHUNK_MB, default 8 MiB = the console's FB_CHUNK, one after
// another as the console sends them, complete) vs a WebDAV PUT of the same file to our own WebDAV rule on
// the same storage. ROUNDS rounds (default 3), the order alternating, median MB/s; the ratio is the median
// of the per-round ratios filebrowser/WebDAV. The daemon (all its threads) is pinned to SERVER_CPU, this
// client to CLIENT_CPU; its RSS (VmRSS) is sampled every 100 ms during each upload: start, peak, end.
// Then the same file downloaded the same way: the file browser's download (sendfile on the console's
// keep-alive connection, through a hijacked Fastify reply) vs a WebDAV GET.
// Needs the built daemon (npm run build). Run: node bench/storage/filebrowser.mjs (bench/storage/run.mjs
// runs it after the WebDAV benchmark).
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, createReadStream, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, statSync, writeSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DAEMON_DIST, median, printTable, requireBuiltDaemon, shareOverWebdav, startBenchDaemon, stop, withRss } from '../lib.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LARGE = Number(process.env.LARGE_MB ?? 256) * 1024 * 1024;
const CHUNK = Number(process.env.CHUNK_MB ?? 8) * 1024 * 1024;
const SERVER_CPU = String(process.env.SERVER_CPU ?? (cpus().length > 1 ? 1 : 0));
const CLIENT_CPU = String(process.env.CLIENT_CPU ?? 0);
const PASSWORD = 'bench-password-1';
const USER = 'benchuser';
const USER_PASS = 'bench-dav-pass-1';

requireBuiltDaemon();
spawnSync('taskset', ['-a', '-p', '-c', CLIENT_CPU, String(process.pid)], { stdio: 'ignore' });
const { DAEMON_NODE_OPTIONS } = await import(pathToFileURL(join(DAEMON_DIST, 'nodeoptions.js')).href);

const work = mkdtempSync(join(tmpdir(), 'lucky-bench-fb-'));
const dataDir = mkdtempSync(join(tmpdir(), 'lucky-bench-fb-data-'));
mkdirSync(join(work, 'store'));
const dir = realpathSync(join(work, 'store'));
const src = join(work, 'source.bin');
let daemon;
process.on('exit', () => {
  daemon?.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});
process.on('SIGINT', () => process.exit(130));

function httpCall(agent, port, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    if (body === undefined) r.end();
    else if (Buffer.isBuffer(body) || typeof body === 'string') r.end(body);
    else body.pipe(r);
  });
}

let failed = false;
try {
  // The source: a large file of non-repeating words, outside the storage (page cache after the first read).
  {
    const block = Buffer.alloc(4 * 1024 * 1024);
    for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
    const fd = openSync(src, 'w');
    for (let off = 0; off < LARGE; off += block.length) writeSync(fd, block, 0, Math.min(block.length, LARGE - off));
    closeSync(fd);
  }
  const started = await startBenchDaemon({ cpu: SERVER_CPU, dataDir, password: PASSWORD });
  daemon = started.p;
  const { port, api, token } = started;
  const { storage, port: davPort } = await shareOverWebdav(api, dir, USER, USER_PASS);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const AUTH = `Basic ${Buffer.from(`${USER}:${USER_PASS}`).toString('base64')}`;

  const fbUpload = async (name) => {
    const t0 = performance.now();
    const c = JSON.parse(
      (await httpCall(agent, port, 'POST', '/api/filebrowser/uploads', { 'lucky-admin-token': token, 'content-type': 'application/json' }, JSON.stringify({ storage, path: `/${name}`, size: LARGE }))).text,
    );
    if (c.ret !== 0) throw new Error(`upload create: ${c.msg}`);
    let offset = 0;
    while (offset < LARGE) {
      const end = Math.min(LARGE, offset + CHUNK);
      const r = JSON.parse(
        (
          await httpCall(
            agent,
            port,
            'PATCH',
            `/api/filebrowser/uploads/${c.upload.id}?offset=${offset}`,
            { 'lucky-admin-token': token, 'content-type': 'application/octet-stream', 'content-length': String(end - offset) },
            createReadStream(src, { start: offset, end: end - 1, highWaterMark: 1 << 20 }),
          )
        ).text,
      );
      if (r.ret !== 0) throw new Error(`chunk at ${offset}: ${r.msg}`);
      offset = r.upload.offset;
    }
    const done = JSON.parse((await httpCall(agent, port, 'POST', `/api/filebrowser/uploads/${c.upload.id}/complete`, { 'lucky-admin-token': token })).text);
    if (done.ret !== 0) throw new Error(`complete: ${done.msg}`);
    const s = (performance.now() - t0) / 1000;
    if (statSync(join(dir, name)).size !== LARGE) throw new Error('filebrowser upload: wrong size on disk');
    rmSync(join(dir, name));
    return LARGE / s / 1e6;
  };
  const davPut = async (name) => {
    const t0 = performance.now();
    const r = await httpCall(agent, davPort, 'PUT', `/${name}`, { authorization: AUTH, 'content-length': String(LARGE) }, createReadStream(src, { highWaterMark: 256 * 1024 }));
    if (r.status !== 201 && r.status !== 204) throw new Error(`WebDAV PUT: ${r.status}`);
    const s = (performance.now() - t0) / 1000;
    if (statSync(join(dir, name)).size !== LARGE) throw new Error('WebDAV PUT: wrong size on disk');
    rmSync(join(dir, name));
    return LARGE / s / 1e6;
  };

  console.log(`File browser upload benchmark: Node ${process.versions.node}, daemon NODE_OPTIONS "${DAEMON_NODE_OPTIONS}"`);
  console.log(`${cpus().length} CPUs: the daemon pinned to CPU ${SERVER_CPU}, the client to CPU ${CLIENT_CPU}; one ${LARGE / 1048576} MiB file, chunks of ${CHUNK / 1048576} MiB; ${ROUNDS} rounds (median)`);
  console.log(`load average before: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  // Warm-up, not counted: the code paths loaded, the source in the page cache.
  await fbUpload('warm-fb.bin');
  await davPut('warm-dav.bin');
  const res = { filebrowser: [], webdav: [] };
  const rss = { filebrowser: [], webdav: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 ? ['filebrowser', 'webdav'] : ['webdav', 'filebrowser'];
    const line = [];
    for (const who of order) {
      const r = await withRss(daemon.pid, () => (who === 'filebrowser' ? fbUpload(`fb-${round}.bin`) : davPut(`dav-${round}.bin`)));
      res[who].push(r.value);
      rss[who].push(r.samples);
      line.push(`${who} ${r.value.toFixed(0)} MB/s`);
    }
    console.log(`  round ${round}: ${line.join(', ')}`);
  }
  // Downloads: the same bytes through each, counted as they come.
  copyFileSync(src, join(dir, 'dl.bin'));
  const download = async (who) => {
    const t0 = performance.now();
    const [p, path, headers] =
      who === 'filebrowser'
        ? [port, `/api/filebrowser/download?${new URLSearchParams({ storage, path: '/dl.bin' })}`, { 'lucky-admin-token': token }]
        : [davPort, '/dl.bin', { authorization: AUTH }];
    const n = await new Promise((resolve, reject) => {
      const r = request({ host: '127.0.0.1', port: p, path, headers, agent }, (res) => {
        let got = 0;
        res.on('data', (c) => (got += c.length));
        res.on('end', () => resolve(got));
        res.on('error', reject);
      });
      r.on('error', reject);
      r.end();
    });
    if (n !== LARGE) throw new Error(`${who} download: ${n} bytes of ${LARGE}`);
    return LARGE / ((performance.now() - t0) / 1000) / 1e6;
  };
  await download('filebrowser');
  await download('webdav');
  const dl = { filebrowser: [], webdav: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    const line = [];
    for (const who of round % 2 ? ['filebrowser', 'webdav'] : ['webdav', 'filebrowser']) {
      const v = await download(who);
      dl[who].push(v);
      line.push(`${who} ${v.toFixed(0)} MB/s`);
    }
    console.log(`  download round ${round}: ${line.join(', ')}`);
  }
  const ratio = median(res.filebrowser.map((v, i) => v / res.webdav[i]));
  const mib = (b) => `${(b / 1048576).toFixed(1)} MiB`;
  printTable(`download of ${LARGE / 1048576} MiB (median of ${ROUNDS})`, [
    ['', 'MB/s'],
    ['file browser (API download)', median(dl.filebrowser).toFixed(0)],
    ['WebDAV GET (ours)', median(dl.webdav).toFixed(0)],
    ['ratio file browser / WebDAV', `${median(dl.filebrowser.map((v, i) => v / dl.webdav[i])).toFixed(2)}x`],
  ]);
  printTable(`upload of ${LARGE / 1048576} MiB (median of ${ROUNDS})`, [
    ['', 'MB/s'],
    ['file browser (chunked, resumable)', median(res.filebrowser).toFixed(0)],
    ['WebDAV PUT (ours)', median(res.webdav).toFixed(0)],
    ['ratio file browser / WebDAV', `${ratio.toFixed(2)}x`],
  ]);
  printTable('daemon RSS (VmRSS every 100 ms) during each upload (goal: flat)', [
    ['', 'start', 'peak', 'end', 'samples'],
    ...Object.entries(rss).flatMap(([who, rounds]) => rounds.map((s, i) => [`${who} round ${i + 1}`, mib(s[0]), mib(Math.max(...s)), mib(s[s.length - 1]), s.length])),
  ]);
} catch (err) {
  failed = true;
  console.error(`\nfile browser benchmark failed: ${err.stack ?? err}`);
} finally {
  if (daemon) await stop(daemon);
}
process.exit(failed ? 1 : 0);
