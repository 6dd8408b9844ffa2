/**
 * Automatic serving threads on real sockets: a rule starts on the main thread, moves to serving
 * threads when the main thread is busy and back once they are quiet, and no request fails on the
 * way (the built worker is used: run `npm run build` first).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { ZWebRule } from '@lucky/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { sayer } from '../../core/logs.js';
import { nativeAddon } from '../../core/native.js';
import { makeCert } from '../../test/certs.js';
import { freePort } from '../../test/harness.js';
import { loadClient } from './testing/load.js';
import { AutoServing, BusyWatch, QuietWatch } from './web.autoscale.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'modules', 'web', 'web.worker.js');

function get(port: number, agent: Agent | false, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Waits for `done` (checked every 20 ms) for at most `ms`; whether it came. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
  return done();
}

describe('the main thread watch', () => {
  it('says busy after five busy seconds in a row, and a quiet second starts over', () => {
    const w = new BusyWatch({ utilization: 0.6, seconds: 5 });
    for (let i = 0; i < 4; i++) expect(w.sample(0.9)).toBe(false);
    expect(w.sample(0.2)).toBe(false);
    for (let i = 0; i < 4; i++) expect(w.sample(0.7)).toBe(false);
    expect(w.sample(0.6)).toBe(true);
  });
});

describe('the serving threads watch', () => {
  it('says quiet after enough quiet seconds in a row, and a busy second starts over', () => {
    const w = new QuietWatch({ utilization: 0.2, seconds: 3 });
    expect(w.sample(0.1)).toBe(false);
    expect(w.sample(0.19)).toBe(false);
    expect(w.sample(0.2)).toBe(false);
    for (let i = 0; i < 2; i++) expect(w.sample(0)).toBe(false);
    expect(w.sample(0.05)).toBe(true);
    w.reset();
    expect(w.sample(0)).toBe(false);
  });
});

describe.runIf(nativeAddon())('automatic serving threads', () => {
  let serving: AutoServing | undefined;
  afterEach(async () => {
    await serving?.close();
    serving = undefined;
  });

  const say = sayer(pino({ level: 'silent' }));
  /** Never moves on its own: the test moves it. */
  const still = { watch: { sample: () => false }, quiet: { utilization: 0, seconds: 1 } };

  it('moves to the threads and back under hundreds of connections through a proxy, failing no request', async () => {
    const client = await loadClient();
    try {
      serving = new AutoServing({ threads: 2, workerFile: WORKER, say, ...still });
      const port = await freePort();
      const rule = ZWebRule.parse({ name: 'moves', address: '127.0.0.1', port, defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${client.backend}`] } });
      await serving.open('m1', { rule, certs: [] }, { note: () => undefined });

      // Kept-alive connections carrying requests back to back (a request may be on its way
      // whenever a side stops accepting), and clients connecting anew for each request
      // (connections may wait in an accept queue whenever a side stops accepting).
      client.start(port, 250, 40);
      const answered = () => client.counts.ok + client.counts.failed;
      /** Until every kind of client got answers since the last mark (about two per kept-alive connection). */
      let mark = { all: 0, fresh: 0 };
      const progress = async () => {
        const from = mark;
        expect(await until(() => answered() >= from.all + 500 && client.counts.fresh >= from.fresh + 10, 60_000)).toBe(true);
        mark = { all: answered(), fresh: client.counts.fresh };
      };
      await progress();
      await serving.moveToThreads();
      expect(serving.threads).toBe(2);
      await progress();
      await serving.moveToMain();
      expect(serving.threads).toBe(1);
      await progress();
      await serving.moveToThreads();
      await progress();
      await serving.moveToMain();
      await progress();
      const counts = await client.stop();
      expect(counts.failed, JSON.stringify(counts.why)).toBe(0);
      // Counted once, wherever served: what each side served before it gave up carries over.
      await serving.released();
      expect(serving.threadsAlive).toBe(0);
      const figures = await serving.figures('m1');
      expect(figures.requests).toBe(counts.ok);
      expect(figures.codes['200']).toBe(counts.ok);
    } finally {
      client.kill();
    }
  });

  it('moves back to the main thread once the threads stay quiet, and the threads end', async () => {
    serving = new AutoServing({ threads: 2, workerFile: WORKER, say, watch: { sample: () => false }, quiet: { utilization: 0.5, seconds: 2 } });
    const port = await freePort();
    const rule = ZWebRule.parse({ name: 'quiet', address: '127.0.0.1', port, defaultService: { type: 'text', status: 200, body: 'quiet' } });
    await serving.open('q1', { rule, certs: [] }, { note: () => undefined });
    await serving.moveToThreads();
    expect(serving.threadsAlive).toBe(2);
    const agent = new Agent({ keepAlive: true });
    for (let i = 0; i < 5; i++) expect((await get(port, agent)).body).toBe('quiet');
    expect(await until(() => !serving!.moved, 20_000)).toBe(true);
    expect(serving.threads).toBe(1);
    // The kept-alive connection served by a thread closes after its next answer; then the main thread serves.
    for (let i = 0; i < 5; i++) expect((await get(port, agent)).body).toBe('quiet');
    agent.destroy();
    await serving.released();
    expect(serving.threadsAlive).toBe(0);
    for (let i = 0; i < 5; i++) expect((await get(port, false)).body).toBe('quiet');
    expect((await serving.figures('q1')).requests).toBe(15);
  });

  it('serves HTTPS on every socket of the port after moving back, and stops listening when the rule stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lucky-web-auto-'));
    try {
      const c = makeCert(dir, 'a', ['a.test']);
      serving = new AutoServing({ threads: 2, workerFile: WORKER, say, ...still });
      const port = await freePort();
      const rule = ZWebRule.parse({ name: 'tls', address: '127.0.0.1', port, protocol: 'https', certs: [{ source: 'pem', cert: c.cert, key: c.key }], defaultService: { type: 'text', status: 200, body: 'tls' } });
      await serving.open('t1', { rule, certs: [{ cert: c.cert, key: c.key, names: ['a.test'], notAfter: Date.now() + 86_400_000 }] }, { note: () => undefined });
      const tlsGet = () =>
        new Promise<string>((resolve, reject) => {
          // A new connection each time: the kernel spreads them over the port's sockets.
          const req = httpsRequest({ host: '127.0.0.1', port, path: '/', servername: 'a.test', rejectUnauthorized: false, agent: new HttpsAgent({ keepAlive: false }) }, (res) => {
            let body = '';
            res.on('data', (d) => (body += d));
            res.on('end', () => resolve(body));
          });
          req.on('error', reject);
          req.end();
        });
      for (let i = 0; i < 10; i++) expect(await tlsGet()).toBe('tls');
      await serving.moveToThreads();
      for (let i = 0; i < 10; i++) expect(await tlsGet()).toBe('tls');
      await serving.moveToMain();
      for (let i = 0; i < 20; i++) expect(await tlsGet()).toBe('tls');
      await serving.stop('t1');
      await expect(tlsGet()).rejects.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts on the main thread and moves to the threads when it stays busy, failing no request', async () => {
    let busy = false;
    serving = new AutoServing({ threads: 2, workerFile: WORKER, say, watch: { sample: () => busy } });
    const port = await freePort();
    const rule = ZWebRule.parse({ name: 'auto', address: '127.0.0.1', port, defaultService: { type: 'text', status: 200, body: 'hello' } });
    await serving.open('r1', { rule, certs: [] }, { note: () => undefined });
    expect(serving.threads).toBe(1);

    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    let sent = 0;
    let failed = 0;
    const answers: Promise<void>[] = [];
    const fire = () => {
      sent++;
      answers.push(
        get(port, agent).then(
          (r) => {
            if (r.status !== 200 || r.body !== 'hello') failed++;
          },
          () => void failed++,
        ),
      );
    };
    // Keep-alive connections in use on the main thread while the watch decides.
    for (let i = 0; i < 40; i++) fire();
    await Promise.all(answers.splice(0));
    busy = true;
    const t0 = Date.now();
    while (serving.threads === 1 && Date.now() - t0 < 10_000) {
      for (let i = 0; i < 8; i++) fire();
      await Promise.all(answers.splice(0));
    }
    expect(serving.threads).toBe(2);
    // Requests go on across the move and after it, over the same agent.
    for (let round = 0; round < 30; round++) {
      for (let i = 0; i < 8; i++) fire();
      await Promise.all(answers.splice(0));
    }
    agent.destroy();
    expect(failed).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    const figures = await serving.figures('r1');
    // Counted once, wherever served: the main thread's share carries over.
    expect(figures.requests).toBe(sent);
    expect(figures.codes['200']).toBe(sent);
  });

  it('on one CPU, moves to one serving thread and serves on', async () => {
    serving = new AutoServing({ threads: 1, workerFile: WORKER, say: sayer(pino({ level: 'silent' })), watch: { sample: () => false } });
    const port = await freePort();
    const rule = ZWebRule.parse({ name: 'one', address: '127.0.0.1', port, defaultService: { type: 'text', status: 200, body: 'one' } });
    await serving.open('r3', { rule, certs: [] }, { note: () => undefined });
    const agent = new Agent({ keepAlive: false });
    expect((await get(port, agent)).body).toBe('one');
    expect(serving.moved).toBe(false);
    await serving.moveToThreads();
    expect(serving.moved).toBe(true);
    expect(serving.threads).toBe(1);
    for (let i = 0; i < 5; i++) expect((await get(port, agent)).body).toBe('one');
    expect((await serving.figures('r3')).requests).toBe(6);
  });

  it('keeps a rule that starts after the move on the threads, and stops it there', async () => {
    serving = new AutoServing({ threads: 2, workerFile: WORKER, say: sayer(pino({ level: 'silent' })), watch: { sample: () => false } });
    await serving.moveToThreads();
    const port = await freePort();
    const rule = ZWebRule.parse({ name: 'late', address: '127.0.0.1', port, defaultService: { type: 'text', status: 200, body: 'late' } });
    await serving.open('r2', { rule, certs: [] }, { note: () => undefined });
    const agent = new Agent({ keepAlive: false });
    expect((await get(port, agent)).body).toBe('late');
    expect((await serving.figures('r2')).requests).toBe(1);
    await serving.stop('r2');
    await expect(get(port, agent)).rejects.toThrow();
  });
});
