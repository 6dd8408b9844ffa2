/**
 * An HTTPS rule naming a certificate of the store that is not there yet (ACME is ordering it) waits
 * for it instead of failing: its status is `waiting` (never `error`), nothing listens, and it serves
 * as soon as the store has the certificate, on the store change event rather than a retry timer
 * (the runner's retries are ten minutes apart). On every engine: the native data plane and Node's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { makeCert } from '../../test/certs.js';
import { freePort } from '../../test/harness.js';
import { ENGINES, type EngineRunner } from './testing/runner.js';

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({
    name: 'late',
    protocol: 'https',
    address: '127.0.0.1',
    defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'hello\n' },
    ...input,
  });
}

/** One request over TLS: the name on the certificate served and the answer's body. */
function tlsGet(port: number, servername: string): Promise<{ cn: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
    s.setTimeout(5000, () => s.destroy(new Error('tls timeout')));
    let body = '';
    s.on('secureConnect', () => s.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`));
    s.on('data', (d: Buffer) => (body += d.toString()));
    s.on('end', () => resolve({ cn: String(s.getPeerCertificate().subject?.CN ?? ''), body: body.split('\r\n\r\n')[1] ?? '' }));
    s.on('error', reject);
  });
}

/** Every state the rule shows, polled every few ms until `stop()`. */
function watchStates(r: EngineRunner, key: string): { states: string[]; stop(): Promise<void> } {
  const states: string[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      const s = r.status(key).state;
      if (states.at(-1) !== s) states.push(s);
      await sleep(2);
    }
  })();
  return {
    states,
    stop: async () => {
      on = false;
      await loop;
    },
  };
}

describe.each(ENGINES)('a store certificate that comes later (%s)', (_kind, makeEngine) => {
  let r: EngineRunner;
  let dir: string;
  beforeAll(async () => {
    r = makeEngine();
    dir = mkdtempSync(join(tmpdir(), 'lucky-certwait-'));
    // Serving threads start with the first rule (a second or more on a busy machine): a plain rule
    // starts them here, so the figure below is the wait for the certificate alone.
    await r.start('warm', rule({ name: 'warm', protocol: 'http', port: await freePort() }));
    expect(r.status('warm').state).toBe('running');
  });
  afterAll(async () => {
    await r?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('waits, never in error, and serves it on the store change event (no retry timer runs while it waits; timings are in the issue note, not asserted)', async () => {
    const port = await freePort();
    const watch = watchStates(r, 'late');
    await r.start('late', rule({ port, certs: [{ source: 'store', cert: 'late-cert' }] }));
    expect(r.status('late')).toMatchObject({ state: 'waiting', message: expect.stringMatching(/^waiting for certificate late-cert: not in the store yet/) });
    expect(r.status('late', 'zh_CN').message).toMatch(/^等待证书 late-cert/);
    await expect(tlsGet(port, 'late.example.test')).rejects.toThrow(/ECONNREFUSED/);
    // Another certificate of the store changing is not the one it waits for.
    const other = makeCert(dir, 'other', ['other.example.test']);
    r.certificates.put('other-cert', other.cert, other.key);
    await sleep(200);
    expect(r.status('late').state).toBe('waiting');

    const cert = makeCert(dir, 'late', ['late.example.test']);
    const issued = Date.now();
    r.certificates.put('late-cert', cert.cert, cert.key);
    let served: { cn: string; body: string } | undefined;
    while (!served && Date.now() - issued < 10_000) served = await tlsGet(port, 'late.example.test').catch(() => sleep(5).then(() => undefined));
    await watch.stop();
    expect(served).toEqual({ cn: 'late.example.test', body: 'hello\n' });
    expect(r.status('late').state).toBe('running');
    expect(watch.states).not.toContain('error');
    expect(watch.states.slice(watch.states.indexOf('waiting'))).toEqual(['waiting', 'running']);
    const log = r.logs('late');
    expect(log.some((l) => l.includes('not started yet: waiting for certificate late-cert'))).toBe(true);
    expect(log.some((l) => l.includes('could not start'))).toBe(false);
    await r.stop('late');
  });

  it('a waiting rule stopped is not started by the certificate coming after', async () => {
    const port = await freePort();
    await r.start('gone', rule({ port, certs: [{ source: 'store', cert: 'gone-cert' }] }));
    expect(r.status('gone').state).toBe('waiting');
    await r.stop('gone');
    const cert = makeCert(dir, 'gone', ['gone.example.test']);
    r.certificates.put('gone-cert', cert.cert, cert.key);
    await sleep(200);
    expect(r.status('gone').state).toBe('stopped');
    await expect(tlsGet(port, 'gone.example.test')).rejects.toThrow(/ECONNREFUSED/);
    expect(r.ports.list().filter((c) => c.owner.key === 'gone')).toEqual([]);
  });

  it('two certificates of the store: it waits until both are there', async () => {
    const port = await freePort();
    await r.start('two', rule({ port, certs: [{ source: 'store', cert: 'two-a' }, { source: 'store', cert: 'two-b' }] }));
    expect(r.status('two').message).toMatch(/^waiting for certificate two-a, two-b/);
    const a = makeCert(dir, 'two-a', ['a.two.example.test']);
    r.certificates.put('two-a', a.cert, a.key);
    await sleep(200);
    expect(r.status('two').state).toBe('waiting');
    const b = makeCert(dir, 'two-b', ['b.two.example.test']);
    r.certificates.put('two-b', b.cert, b.key);
    let served: { cn: string } | undefined;
    const end = Date.now() + 5000;
    while (!served && Date.now() < end) served = await tlsGet(port, 'b.two.example.test').catch(() => sleep(5).then(() => undefined));
    expect(served?.cn).toBe('b.two.example.test');
    expect(r.status('two').state).toBe('running');
    await r.stop('two');
  });
});
