// A rule's limits per client address, on the native edge and on the Node path: requests past the
// rate and its burst get 429 with Retry-After while another address goes on; a connection past the
// limit gets 429 and a closed one frees its place; a body past the limit gets 413 whether its length
// is announced or it comes chunked; both codes show in the rule's figures.
import { connect, type Socket } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENV } from '../../core/env.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { hit } from '../../test/httphit.js';


/** A kept-alive connection that asks once and stays open; resolves with its answer's status line. */
function holdOpen(port: number): Promise<{ socket: Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString();
      const m = /^HTTP\/1\.1 (\d+)/.exec(text);
      if (m && text.includes('\r\n\r\n')) resolve({ socket, status: Number(m[1]) });
    });
    socket.on('error', reject);
  });
}

const SETUPS = [
  { name: 'native edge', env: { ...DEFAULT_ENV, webEngine: 'native' as const } },
  { name: 'Node path', env: { ...DEFAULT_ENV, webEngine: 'node' as const } },
];

describe.each(SETUPS)('limits per client address ($name)', ({ env }) => {
  let d: TestDaemon;
  let backend: Server;
  let backendPort: number;
  const rules: Record<string, { port: number; key: string }> = {};

  const rule = async (name: string, limits: Record<string, number>) => {
    const port = await freePort();
    const made = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name,
      protocol: 'http',
      address: '127.0.0.1',
      port,
      limits,
      defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backendPort}`] },
    });
    expect(made.ret, made.msg).toBe(0);
    for (let i = 0; i < 200 && (await hit(port).catch(() => ({ status: 0 }))).status === 0; i++) await new Promise((r) => setTimeout(r, 25));
    rules[name] = { port, key: made.key };
  };

  beforeAll(async () => {
    // The app says how much body it got.
    backend = createServer((req, res) => {
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => res.end(`got ${n}\n`));
    });
    await new Promise<void>((r) => backend.listen(0, '127.0.0.1', r));
    backendPort = (backend.address() as AddressInfo).port;
    d = await startTestDaemon({ env });
    // Slow enough that the test never waits for a token to come back.
    await rule('rate', { rate: 0.05, burst: 3 });
    await rule('connections', { connections: 2 });
    await rule('body', { maxBodyBytes: 100 });
  }, 30_000);
  afterAll(async () => {
    await d?.close();
    backend?.close();
  });

  it('answers requests past the rate and its burst with 429 and Retry-After; another address goes on', async () => {
    const { port } = rules.rate!;
    // The rule's start asked once already; the burst allows three more (four in all).
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await hit(port)).status);
    expect(seen).toEqual([200, 200, 200, 429]);
    const refused = await hit(port);
    expect(refused.status).toBe(429);
    expect(refused.body).toBe('too many requests\n');
    // One token every 20 s.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(20);
    expect((await hit(port, { from: '127.0.0.2' })).status).toBe(200);
  });

  it('answers a connection past the limit with 429, and a closed one frees its place', async () => {
    const { port } = rules.connections!;
    const a = await holdOpen(port);
    const b = await holdOpen(port);
    expect([a.status, b.status]).toEqual([200, 200]);
    const third = await hit(port);
    expect(third.status).toBe(429);
    expect(third.body).toBe('too many connections\n');
    a.socket.destroy();
    let again = await hit(port);
    for (let i = 0; i < 40 && again.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 25));
      again = await hit(port);
    }
    expect(again.status).toBe(200);
    b.socket.destroy();
  });

  it('answers a body past the limit with 413, announced or chunked', async () => {
    const { port } = rules.body!;
    expect((await hit(port, { method: 'POST', body: 'x'.repeat(100) })).body).toBe('got 100\n');
    expect((await hit(port, { method: 'POST', body: 'x'.repeat(101) })).status).toBe(413);
    expect((await hit(port, { method: 'POST', body: 'x'.repeat(50), chunked: true })).body).toBe('got 50\n');
    const chunked = await hit(port, { method: 'POST', body: 'x'.repeat(4000), chunked: true }).catch(() => ({ status: 413, headers: {}, body: 'reset' }));
    expect(chunked.status).toBe(413);
  });

  it('counts the refusals in the rule’s figures (on the edge, refused by the edge itself)', async () => {
    type Figures = { codes: Record<string, number>; engine?: { native: number; node: number } };
    const figures = async (name: string) => (await d.call<{ rule: { figures: Figures } }>('GET', `/api/web/rules/${rules[name]!.key}`)).rule.figures;
    const rate = await figures('rate');
    expect(rate.codes['429']).toBeGreaterThanOrEqual(2);
    if (env.webEngine === 'native') expect(rate.engine).toEqual({ native: 7, node: 0 });
    expect((await figures('connections')).codes['429']).toBeGreaterThanOrEqual(1);
    expect((await figures('body')).codes['413']).toBeGreaterThanOrEqual(1);
  });
});
