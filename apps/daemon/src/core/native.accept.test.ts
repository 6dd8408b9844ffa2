// acceptInBursts (native/sockets.c acceptTcp): connections that queued up while the event loop was
// busy are all taken in the next turn, where libuv alone takes one per turn. Real sockets on loopback;
// the connects come from a child process while this thread is blocked, so they wait in the kernel.
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { acceptInBursts, nativeAddon } from './native.js';

const QUEUED = 200;

/** Blocks this thread while a child opens `n` connections to `port` (they wait in the accept queue). */
function queueConnections(port: number, n: number): void {
  const child = `const net = require('node:net'); let up = 0;
    for (let i = 0; i < ${n}; i++) net.connect(${port}, '127.0.0.1').on('connect', () => { if (++up === ${n}) process.exit(0); }).on('error', () => process.exit(1));`;
  execFileSync(process.execPath, ['-e', child], { timeout: 20_000 });
}

/** Connections accepted per event-loop turn until `total` arrived: the counts of the turns that took some. */
function acceptedPerTurn(server: Server, total: number): Promise<number[]> {
  let seen = 0;
  let turn = 0;
  const turns: number[] = [];
  server.on('connection', () => seen++);
  return new Promise((resolve, reject) => {
    const end = Date.now() + 20_000;
    const tick = () => {
      if (seen > turn) turns.push(seen - turn);
      turn = seen;
      if (seen >= total) return resolve(turns);
      if (Date.now() > end) return reject(new Error(`only ${seen} of ${total} connections accepted`));
      setImmediate(tick);
    };
    setImmediate(tick);
  });
}

function listen(server: Server): Promise<number> {
  return new Promise((r) => server.listen(0, '127.0.0.1', 1024, () => r((server.address() as { port: number }).port)));
}

describe('acceptInBursts', () => {
  const open: Server[] = [];
  afterEach(async () => {
    for (const s of open.splice(0)) await new Promise((r) => s.close(r));
  });

  it('takes every queued connection in one turn, where libuv takes one per turn', async () => {
    // Built by `npm run build` on Linux: its absence is a failure here, not a skip.
    expect(nativeAddon()).not.toBeNull();
    const sockets: Socket[] = [];
    const keep = (s: Socket) => {
      sockets.push(s);
      s.on('error', () => undefined);
    };

    const plain = createServer(keep);
    open.push(plain);
    const plainPort = await listen(plain);
    queueConnections(plainPort, QUEUED);
    const plainTurns = await acceptedPerTurn(plain, QUEUED);

    const bursting = createServer(keep);
    acceptInBursts(bursting);
    open.push(bursting);
    const burstPort = await listen(bursting);
    queueConnections(burstPort, QUEUED);
    const burstTurns = await acceptedPerTurn(bursting, QUEUED);

    // libuv (1.45 and later): a connection per turn. Ours: the queue at once (128 per accept libuv
    // reports, so at most a few turns).
    expect(Math.max(...plainTurns)).toBeLessThanOrEqual(2);
    expect(burstTurns.length).toBeLessThanOrEqual(3);
    expect(burstTurns.reduce((a, b) => a + b, 0)).toBe(QUEUED);
    for (const s of sockets) s.destroy();
  });

  it('hands the connections it takes to an HTTP server, which answers them', async () => {
    const server = createHttpServer((req, res) => res.end(`${req.socket.remotePort}`));
    acceptInBursts(server);
    open.push(server);
    const port = await listen(server);
    // Forty requests held back by the blocked thread, then answered: every one of them gets its own port back.
    const child = `const http = require('node:http'); let ok = 0;
      for (let i = 0; i < 40; i++) http.get({ port: ${port}, host: '127.0.0.1', agent: false }, (res) => {
        let body = ''; res.on('data', (d) => (body += d));
        res.on('end', () => { if (body === String(res.socket.localPort)) ok++; if (ok === 40) process.exit(0); });
      }).on('error', () => process.exit(1));
      setTimeout(() => process.exit(2), 15000);`;
    const done = new Promise<number>((resolve) => {
      spawn(process.execPath, ['-e', child], { stdio: 'ignore' }).on('exit', (code) => resolve(code ?? -1));
    });
    // Give the child time to queue its connects behind a busy loop.
    const until = Date.now() + 300;
    while (Date.now() < until);
    expect(await done).toBe(0);
    server.closeAllConnections();
  });
});
