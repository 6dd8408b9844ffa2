/**
 * Websockets through a proxy rule, held: 1 000 real websocket clients (the `ws` library) through one
 * rule on serving threads to a real websocket echo server, for 30 s, every message checked; then a
 * rule's websocket idle timeout, which closes a quiet socket and spares a talking one. The memory
 * the held sockets cost is printed for the closing figures, not asserted.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { freePort } from '../../test/harness.js';
import { runEngine, waitFor } from './testing/runner.js';

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({ name: 'ws', address: '127.0.0.1', ...input });
}

function open(port: number, path: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${path}`, { headers: { host: 'ws.test' } });
    const t = setTimeout(() => reject(new Error('websocket did not open')), 15_000);
    ws.once('open', () => {
      clearTimeout(t);
      resolve(ws);
    });
    ws.once('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
}

const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;

describe('websockets through a proxy rule', () => {
  const engine = runEngine(2);
  let wss: WebSocketServer;
  let wsPort: number;

  beforeAll(async () => {
    if (engine.engine.servingThreads !== 2) throw new Error('serving threads need `npm run build` (native addon and worker)');
    // Echoes text as is, binary as its SHA-256 (so that a corrupted byte shows).
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, backlog: 1024 });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    wss.on('connection', (ws) =>
      ws.on('message', (m, binary) => ws.send(binary ? createHash('sha256').update(m as Buffer).digest('hex') : `echo:${m.toString()}`)),
    );
    wsPort = (wss.address() as { port: number }).port;
  });
  afterAll(async () => {
    await engine.close();
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
  });

  it('holds 1 000 websockets for 30 s with every message intact', { timeout: 120_000 }, async () => {
    const port = await freePort();
    await engine.start('held', rule({ port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${wsPort}`] } }));
    const before = process.memoryUsage();
    const sockets: WebSocket[] = [];
    for (let i = 0; i < 1000; i += 100) sockets.push(...(await Promise.all(Array.from({ length: 100 }, (_, j) => open(port, `/s${i + j}`)))));
    let closed = 0;
    let wrong = 0;
    let right = 0;
    const expected = new Map<WebSocket, string[]>();
    for (const ws of sockets) {
      expected.set(ws, []);
      ws.on('close', () => closed++);
      ws.on('message', (m) => {
        const want = expected.get(ws)!.shift();
        if (m.toString() === want) right++;
        else wrong++;
      });
    }
    await waitFor(async () => (await engine.figures('held')).connections >= 1000, 15_000);
    const held = process.memoryUsage();
    const blob = Buffer.alloc(64 * 1024);
    for (let i = 0; i < blob.length; i++) blob[i] = (i * 31) & 0xff;
    const blobHash = createHash('sha256').update(blob).digest('hex');
    // Ten rounds over 30 s: each socket says its name and round; every tenth also sends 64 KiB.
    const started = Date.now();
    let sent = 0;
    for (let round = 0; round < 10; round++) {
      sockets.forEach((ws, i) => {
        const text = `s${i}:r${round}`;
        expected.get(ws)!.push(`echo:${text}`);
        ws.send(text);
        sent++;
        if (i % 10 === round) {
          expected.get(ws)!.push(blobHash);
          ws.send(blob);
          sent++;
        }
      });
      await new Promise((r) => setTimeout(r, Math.max(0, started + (round + 1) * 3000 - Date.now())));
    }
    await waitFor(() => right + wrong >= sent, 15_000);
    const end = process.memoryUsage();
    console.info(
      `1000 websockets: rss ${mb(before.rss)} → ${mb(held.rss)} MB when open (${mb((held.rss - before.rss) / 1000 * 1024)} KB each, both ends and the backend in this process), ${mb(end.rss)} MB after 30 s; ${sent} messages`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(29_000);
    expect(wrong).toBe(0);
    expect(right).toBe(sent);
    expect(closed).toBe(0);
    expect((await engine.figures('held')).codes['101']).toBe(1000);
    for (const ws of sockets) ws.close();
    await waitFor(async () => (await engine.figures('held')).connections === 0, 15_000);
    await engine.stop('held');
  });

  it('closes a websocket quiet for the rule\'s idle timeout and spares one that talks', { timeout: 30_000 }, async () => {
    const port = await freePort();
    await engine.start('idle', rule({ port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${wsPort}`], websocketIdleSeconds: 1 } }));
    const quiet = await open(port, '/quiet');
    const talker = await open(port, '/talker');
    const quietClosed = new Promise<number>((r) => quiet.once('close', () => r(Date.now())));
    let talkerClosed = false;
    talker.once('close', () => (talkerClosed = true));
    const opened = Date.now();
    const timer = setInterval(() => talker.send('still here'), 300);
    try {
      const at = await Promise.race([quietClosed, new Promise<number>((r) => setTimeout(() => r(-1), 10_000))]);
      expect(at).toBeGreaterThan(0);
      expect(at - opened).toBeGreaterThanOrEqual(900);
      // The talker outlives the quiet one by more than the timeout.
      await new Promise((r) => setTimeout(r, 2000));
      expect(talkerClosed).toBe(false);
    } finally {
      clearInterval(timer);
      talker.close();
    }
    await engine.stop('idle');
  });
});
