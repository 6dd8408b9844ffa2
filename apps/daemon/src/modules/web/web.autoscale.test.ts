/**
 * Automatic serving threads on real sockets: a rule starts on the main thread, moves to serving
 * threads when the main thread is busy, and no request fails on the way (the built worker is used:
 * run `npm run build` first).
 */
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { ZWebRule } from '@lucky/contracts';
import { afterEach, describe, expect, it } from 'vitest';
import { sayer } from '../../core/logs.js';
import { nativeAddon } from '../../core/native.js';
import { freePort } from '../../test/harness.js';
import { AutoServing, BusyWatch } from './web.autoscale.js';

const WORKER = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'dist', 'modules', 'web', 'web.worker.js');

function get(port: number, agent: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
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

describe.runIf(nativeAddon())('automatic serving threads', () => {
  let serving: AutoServing | undefined;
  afterEach(async () => {
    await serving?.close();
    serving = undefined;
  });

  it('starts on the main thread and moves to the threads when it stays busy, failing no request', async () => {
    let busy = false;
    serving = new AutoServing({ threads: 2, workerFile: WORKER, say: sayer(pino({ level: 'silent' })), watch: { sample: () => busy } });
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
