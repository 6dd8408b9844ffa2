/**
 * What only the native data plane does: each request served natively or passed to the rule's Node
 * server, per request on one connection, and counted as such in the rule's figures; the access log
 * kept by the edge for both; the Node engine (LUCKY_WEB_ENGINE=node) reporting no such split.
 * (Everything a web rule does is tested on every engine by the other web tests.)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { freePort } from '../../test/harness.js';
import { onLoopback, runEngine, waitFor, type EngineRunner } from './testing/runner.js';

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({ name: 'edge', address: '127.0.0.1', ...input });
}

/** Several requests on one kept-alive connection, in order; what came back once the last answer ends with `last`. */
function onOneConnection(port: number, requests: string[], last = 'done'): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1');
    let got = '';
    const t = setTimeout(() => {
      s.destroy();
      resolve(got);
    }, 3000);
    s.on('data', (d) => {
      got += d.toString();
      if ((got.match(/HTTP\/1\.1 /g) ?? []).length === requests.length && /\r\n\r\n[^]*$/.test(got) && got.endsWith(last)) {
        clearTimeout(t);
        s.destroy();
        resolve(got);
      }
    });
    s.on('error', reject);
    s.write(requests.join(''));
  });
}

describe('the native data plane', () => {
  let engine: EngineRunner;
  let dir: string;
  let port: number;
  let backend: Awaited<ReturnType<typeof onLoopback>>;

  beforeAll(async () => {
    engine = runEngine(1, { engine: 'native' });
    expect(engine.engine.native).toBe(true);
    dir = mkdtempSync(join(tmpdir(), 'lucky-web-edge-'));
    mkdirSync(join(dir, 'www'));
    writeFileSync(join(dir, 'www', 'f.txt'), 'from a file');
    backend = await onLoopback(createServer((_req, res) => res.end('from the backend')));
    port = await freePort();
    await engine.start(
      'mix',
      rule({
        port,
        defaultService: { type: 'proxy', targets: [`http://127.0.0.1:${backend.port}`] },
        subRules: [
          { domains: ['files.test'], service: { type: 'file', root: join(dir, 'www') } },
          { domains: ['text.test'], service: { type: 'text', body: 'done' } },
        ],
      }),
    );
  });
  afterAll(async () => {
    await engine.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves each request natively or through Node, on one connection, and counts which', async () => {
    const before = await engine.figures('mix');
    const got = await onOneConnection(port, [
      'GET /a HTTP/1.1\r\nHost: proxied.test\r\n\r\n',
      'GET /f.txt HTTP/1.1\r\nHost: files.test\r\n\r\n',
      'GET /b HTTP/1.1\r\nHost: proxied.test\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: text.test\r\n\r\n',
    ]);
    // Answers in order: proxied, from Node's file server, proxied again, then the text.
    const bodies = got.split(/HTTP\/1\.1 200 OK/).slice(1).map((a) => a.split('\r\n\r\n')[1]);
    expect(bodies).toEqual(['from the backend', 'from a file', 'from the backend', 'done']);
    await waitFor(async () => ((await engine.figures('mix')).engine?.node ?? 0) > (before.engine?.node ?? 0));
    const after = await engine.figures('mix');
    expect(after.engine!.native - (before.engine?.native ?? 0)).toBe(3);
    expect(after.engine!.node - (before.engine?.node ?? 0)).toBe(1);
    expect(after.codes['200']! - (before.codes['200'] ?? 0)).toBe(4);
    // The edge logs the request Node answered too, with the site that served it.
    const log = await engine.accessLog('mix', 10);
    const file = log.list.find((e) => e.path === '/f.txt');
    expect(file).toMatchObject({ status: 200, method: 'GET', host: 'files.test', sub: '#1', clientIP: '127.0.0.1' });
  });

  it('passes a large file from Node\'s file server whole, and a range of it', async () => {
    const { createHash, randomBytes } = await import('node:crypto');
    const { get: httpGet } = await import('node:http');
    const big = randomBytes(8 * 1024 * 1024 + 123);
    writeFileSync(join(dir, 'www', 'big.bin'), big);
    const fetch = (headers: Record<string, string>) =>
      new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        httpGet({ host: '127.0.0.1', port, path: '/big.bin', headers: { host: 'files.test', ...headers }, agent: false }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        }).on('error', reject);
      });
    const whole = await fetch({});
    expect(whole.status).toBe(200);
    expect(createHash('sha256').update(whole.body).digest('hex')).toBe(createHash('sha256').update(big).digest('hex'));
    const part = await fetch({ range: 'bytes=1000000-1000099' });
    expect(part.status).toBe(206);
    expect(part.body.equals(big.subarray(1000000, 1000100))).toBe(true);
  });

  it('tells Node the client\'s address, not the socketpair\'s', async () => {
    const p = await freePort();
    await engine.start('addr', rule({ port: p, defaultService: { type: 'file', root: join(dir, 'www') }, ipFilter: { mode: 'whitelist', list: ['127.0.0.2/32'] } }));
    try {
      // Refused natively by the filter before Node sees it; from the allowed address Node serves the file.
      const refused = await onOneConnection(p, ['GET /f.txt HTTP/1.1\r\nHost: x\r\n\r\n'], 'forbidden\n');
      expect(refused).toMatch(/^HTTP\/1\.1 403/);
      const served = await new Promise<string>((resolve, reject) => {
        const s = netConnect({ port: p, host: '127.0.0.1', localAddress: '127.0.0.2' });
        let got = '';
        s.on('data', (d) => {
          got += d.toString();
          if (got.endsWith('from a file')) {
            s.destroy();
            resolve(got);
          }
        });
        s.on('error', reject);
        s.write('GET /f.txt HTTP/1.1\r\nHost: x\r\nlucky-edge: 10.0.0.1 1 https\r\n\r\n');
      });
      expect(served).toMatch(/^HTTP\/1\.1 200/);
      const log = await engine.accessLog('addr', 10);
      expect(log.list.at(-1)).toMatchObject({ clientIP: '127.0.0.2', status: 200 });
    } finally {
      await engine.stop('addr');
    }
  });
});

describe('basic auth on the native data plane', () => {
  it('lets Node check a password once, then accepts that login itself', async () => {
    const { hashSecrets } = await import('../../core/secrets.js');
    const engine = runEngine(1, { engine: 'native' });
    try {
      const port = await freePort();
      await engine.start(
        'login',
        await hashSecrets(ZWebRule, rule({ port, defaultService: { type: 'text', body: 'done' }, basicAuth: { enable: true, users: [{ user: 'alice', password: 'wonderland' }] } }), undefined),
      );
      const good = `Basic ${Buffer.from('alice:wonderland').toString('base64')}`;
      const bad = `Basic ${Buffer.from('alice:guess').toString('base64')}`;
      const ask = (auth: string) => onOneConnection(port, [`GET / HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n\r\n`], auth === good ? 'done' : 'unauthorized\n');
      expect(await ask(bad)).toMatch(/^HTTP\/1\.1 401/);
      expect(await ask(good)).toMatch(/^HTTP\/1\.1 200/);
      const first = (await engine.figures('login')).engine!;
      // Node verified it once: the same login is now the edge's; a wrong one still goes to Node.
      for (let i = 0; i < 3; i++) expect(await ask(good)).toMatch(/^HTTP\/1\.1 200/);
      expect(await ask(bad)).toMatch(/^HTTP\/1\.1 401/);
      // A request is counted when its exchange ends on the edge's thread, which may be just after the
      // client has read the answer.
      await expect
        .poll(async () => {
          const after = (await engine.figures('login')).engine!;
          return [after.native - first.native, after.node - first.node];
        })
        .toEqual([3, 1]);
    } finally {
      await engine.close();
    }
  });
});

describe('the Node engine', () => {
  it('serves without the native split in its figures', async () => {
    const engine = runEngine('main', { engine: 'node' });
    try {
      expect(engine.engine.native).toBe(false);
      const port = await freePort();
      await engine.start('plain', rule({ port, defaultService: { type: 'text', body: 'done' } }));
      await onOneConnection(port, ['GET / HTTP/1.1\r\nHost: x\r\n\r\n']);
      const f = await engine.figures('plain');
      expect(f.requests).toBe(1);
      expect(f.engine).toBeUndefined();
    } finally {
      await engine.close();
    }
  });
});
