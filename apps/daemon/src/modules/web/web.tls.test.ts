/**
 * TLS of HTTPS rules on every engine, with real peers on loopback: OCSP stapling against a real
 * responder (testing/ocsp.ts), resumption by session ticket, and the rotation of ticket keys (its
 * period shortened through setTicketRotation). On the native engine a rule without HTTP/2 is the
 * edge's and one with HTTP/2 is Node's; the Node engine serves both on the main thread and on
 * serving threads. Every wait is bounded; nothing asserts on timing. Needs `npm run build`.
 */
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebRule, type WebRule, type WebRuleInput } from '@lucky/contracts';
import { freePort } from '../../test/harness.js';
import { startOcspPki, type OcspLeaf, type OcspPki } from './testing/ocsp.js';
import { ENGINES, waitFor } from './testing/runner.js';
import { ocspStapling } from './web.ocsp.js';
import { setTicketRotation } from './web.tickets.js';

function rule(input: Partial<WebRuleInput> & { port: number }): WebRule {
  return ZWebRule.parse({ name: 'tls', address: '127.0.0.1', protocol: 'https', defaultService: { type: 'text', body: 'hello {host}' }, ...input });
}

interface Hello {
  ocsp: Buffer | null;
  reused: boolean;
  /** The last ticket the server sent. */
  session: Buffer | undefined;
  body: string;
}

/** One request over a new TLS connection asking for the certificate's status; `session` to resume. */
function hello(port: number, servername: string, session?: Buffer): Promise<Hello> {
  return new Promise((resolve, reject) => {
    // requestOCSP is the TLSSocket's option, which tls.connect passes on (its typings leave it out).
    const options: ConnectionOptions & { requestOCSP: boolean } = { host: '127.0.0.1', port, servername, rejectUnauthorized: false, requestOCSP: true, ...(session ? { session } : {}) };
    const s = tlsConnect(options);
    let ocsp: Buffer | null = null;
    let reused = false;
    let ticket: Buffer | undefined;
    let data = '';
    const t = setTimeout(() => s.destroy(new Error('no answer in time')), 10_000);
    s.on('OCSPResponse', (r: Buffer) => (ocsp = r));
    s.on('session', (x: Buffer) => (ticket = x));
    s.on('secureConnect', () => {
      reused = s.isSessionReused();
      s.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
    });
    s.on('data', (d: Buffer) => (data += d.toString()));
    s.on('close', () => {
      clearTimeout(t);
      resolve({ ocsp, reused, session: ticket, body: data.split('\r\n\r\n')[1] ?? '' });
    });
    s.on('error', (e) => {
      clearTimeout(t);
      reject(e);
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pem = (l: OcspLeaf) => ({ source: 'pem' as const, cert: l.cert, key: l.key });

describe.each(ENGINES)('TLS of HTTPS rules (%s)', (kind, makeEngine) => {
  const engine = makeEngine();
  let pki: OcspPki;
  const asked = (l: OcspLeaf) => pki.requests.filter((r) => r.includes(l.serial)).length;

  beforeAll(async () => {
    pki = await startOcspPki();
  });
  afterAll(async () => {
    setTicketRotation(0);
    await engine.close();
    await pki?.close();
  });

  describe.each([false, true])('http2 %s', (http2) => {
    it('staples a good answer where the certificate names a responder, never a revoked one, and asks nothing without one', async () => {
      const port = await freePort();
      const key = `ocsp-${http2}`;
      await engine.start(key, rule({ port, http2, certs: [pem(pki.good), pem(pki.revoked), pem(pki.plain)] }));
      expect(engine.status(key).state).toBe('running');
      let good: Hello | null = null;
      // Fetched in the background: the first handshakes may come before the answer.
      await waitFor(async () => !!(good = await hello(port, 'good.test')).ocsp);
      expect(good!.body).toBe('hello good.test');
      expect(pki.verdict(good!.ocsp!, pki.good)).toBe('good');
      await waitFor(() => engine.logs(key).some((l) => l.includes('revoked')));
      const said = `OCSP: ${pki.url} answers that certificate #2 (revoked.test) is revoked; its status is not stapled`;
      expect(engine.logs(key).filter((l) => l.includes(said)), engine.logs(key).join('\n')).toHaveLength(1);
      const revoked = await hello(port, 'revoked.test');
      expect(revoked.body).toBe('hello revoked.test');
      expect(revoked.ocsp).toBeNull();
      const plain = await hello(port, 'plain.test');
      expect(plain.body).toBe('hello plain.test');
      expect(plain.ocsp).toBeNull();
      expect(asked(pki.plain)).toBe(0);

      // A save makes new contexts: they staple at once, from the answer already fetched.
      const before = asked(pki.good);
      await engine.start(key, rule({ port, http2, certs: [pem(pki.good), pem(pki.revoked), pem(pki.plain)], defaultService: { type: 'text', body: 'saved {host}' } }));
      const saved = await hello(port, 'good.test');
      expect(saved.body).toBe('saved good.test');
      expect(saved.ocsp && pki.verdict(saved.ocsp, pki.good)).toBe('good');
      expect(asked(pki.good)).toBe(before);
      // What the rule's log was told is not told again for the new version.
      expect(engine.logs(key).filter((l) => l.includes(said))).toHaveLength(1);

      await engine.stop(key);
      // The rule's watch ended with it (serving threads too: the main thread fetches for them).
      expect(ocspStapling().size).toBe(0);
    });

    it('resumes a session by its ticket', async () => {
      const port = await freePort();
      const key = `resume-${http2}`;
      await engine.start(key, rule({ port, http2, certs: [pem(pki.plain)] }));
      const first = await hello(port, 'plain.test');
      expect(first.reused).toBe(false);
      expect(first.session).toBeDefined();
      // Several times: with serving threads the kernel spreads them over the threads, which share the key.
      for (let i = 0; i < 4; i++) {
        const again = await hello(port, 'plain.test', first.session);
        expect(again.reused).toBe(true);
        expect(again.body).toBe('hello plain.test');
      }
      await engine.stop(key);
    });
  });

  it('rotates session ticket keys', async () => {
    const port = await freePort();
    await engine.start('rotate', rule({ port, http2: false, certs: [pem(pki.plain)] }));
    const period = 1500;
    try {
      if (kind === 'native') {
        // A key born now (the edge replaces one that is due when it is next used), then the period under test.
        setTicketRotation(1);
        await hello(port, 'plain.test');
        setTicketRotation(period);
        const a = await hello(port, 'plain.test');
        await sleep(period * 1.3);
        // Sealed one period ago: the previous key still opens it.
        const b = await hello(port, 'plain.test', a.session);
        expect(b.reused).toBe(true);
        await sleep(period * 1.0);
        // More than two periods old: a full handshake.
        const c = await hello(port, 'plain.test', a.session);
        expect(c.reused).toBe(false);
        expect(c.body).toBe('hello plain.test');
        // Its new ticket resumes.
        expect((await hello(port, 'plain.test', c.session)).reused).toBe(true);
      } else {
        setTicketRotation(period);
        const a = await hello(port, 'plain.test');
        await sleep(period * 1.3);
        // The key of now stays for the rest of the test.
        setTicketRotation(0);
        // Node keeps one key per server: a ticket from before a rotation needs a full handshake...
        const b = await hello(port, 'plain.test', a.session);
        expect(b.reused).toBe(false);
        // ...and gets one under the new key, which resumes (on every serving thread).
        for (let i = 0; i < 3; i++) expect((await hello(port, 'plain.test', b.session)).reused).toBe(true);
      }
    } finally {
      setTicketRotation(0);
      await engine.stop('rotate');
    }
  });
});
