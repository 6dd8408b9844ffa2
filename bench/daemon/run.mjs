// Daemon start-up time and idle memory, next to a bare Node HTTP server measured in the same run.
// Usage: npm run build && node bench/daemon/run.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, mb, printTable, rssOf, sleep, waitForOutput } from '../lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(root, 'apps/daemon/dist/main.js');
const RUNS = Number(process.env.RUNS ?? 5);

async function measure(makeArgs, ready) {
  const times = [];
  const rss = [];
  for (let i = 0; i < RUNS; i++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'lucky-bench-'));
    const t0 = performance.now();
    const p = spawn(process.execPath, makeArgs(port, dir), {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, LUCKY_ADMIN_PASSWORD: 'bench-password' },
    });
    await waitForOutput(p, ready);
    times.push(performance.now() - t0);
    await sleep(3000); // idle: let start-up garbage settle
    rss.push(rssOf(p.pid));
    p.kill('SIGKILL');
    await new Promise((r) => p.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
  return { start: median(times), rss: median(rss) };
}

const bare = await measure(
  (port) => ['-e', `require('http').createServer((q,s)=>s.end('ok')).listen(${port},'127.0.0.1',()=>console.log('listening'))`],
  /listening/,
);
// First start includes creating lucky_base.lkcf (scrypt) and lucky.db; later starts only open them.
const lucky = await measure((port, dir) => [MAIN, '--port', String(port), '--host', '127.0.0.1', '--data-dir', dir], /listening on/);

printTable(`Daemon start-up and idle RSS (median of ${RUNS} first starts, Node ${process.versions.node})`, [
  ['', 'start-up', 'idle RSS'],
  ['bare node http server', `${bare.start.toFixed(0)} ms`, mb(bare.rss)],
  ['lucky daemon', `${lucky.start.toFixed(0)} ms`, mb(lucky.rss)],
  ['ratio lucky/bare', `${(lucky.start / bare.start).toFixed(2)}x`, `${(lucky.rss / bare.rss).toFixed(2)}x`],
]);
