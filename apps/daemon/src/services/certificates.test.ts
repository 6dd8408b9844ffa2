/**
 * The certificate store on a real lucky.db, with real certificates made by openssl: put, get and
 * list, what a certificate says (names, expiry), refusals that store nothing (bad PEM, a key of
 * another certificate), change listeners, a rule's own certificates read from text and files, and a
 * real TLS server that takes a renewed certificate while a connection stays open.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type Server, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderMsg } from '@lucky/contracts';
import { openDb, type Db } from '../core/db.js';
import type { StoredCertificate } from '../core/services/certificates.js';
import { TlsError } from '../lib/tls/pem.js';
import { makeCert, type TestCert } from '../test/certs.js';
import { openCertificates } from './certificates.js';

let dir: string;
let db: Db;
const pem: Record<string, TestCert> = {};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'lucky-certs-'));
  db = openDb(dir);
  pem.a = makeCert(dir, 'a', ['a.test', 'www.a.test'], { days: 30 });
  pem.a2 = makeCert(dir, 'a2', ['a.test'], { days: 90 });
  pem.b = makeCert(dir, 'b', ['*.b.test']);
  pem.old = makeCert(dir, 'old', ['old.test'], { expired: true });
});
afterAll(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The TlsError `fn` throws, rendered in both languages. */
function refusal(fn: () => unknown): { en: string; zh: string; retry: boolean } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof TlsError)) throw err;
    return { en: renderMsg('en_US', err.msg), zh: renderMsg('zh_CN', err.msg), retry: err.retry };
  }
  throw new Error('not refused');
}

describe('the certificate store', () => {
  it('keeps a certificate with its key and says what it is for and until when', () => {
    const store = openCertificates(db);
    const before = Date.now();
    const info = store.put('site', pem.a!.cert, pem.a!.key);
    expect(info).toMatchObject({ name: 'site', names: ['a.test', 'www.a.test'], subject: 'CN=a.test' });
    expect(info.notBefore).toBeLessThanOrEqual(before);
    // openssl -days 30: valid until 30 days from now (to the second it was made).
    expect(Math.abs(info.notAfter - (before + 30 * 86_400_000))).toBeLessThan(120_000);
    expect(store.get('site')).toMatchObject({ name: 'site', cert: pem.a!.cert, key: pem.a!.key, notAfter: info.notAfter });
    expect(store.list().map((c) => c.name)).toEqual(['site']);
    // An expired certificate is kept too (it is what a renewal replaces); its date says so.
    expect(new Date(store.put('old', pem.old!.cert, pem.old!.key).notAfter).toISOString()).toBe('2020-02-01T00:00:00.000Z');
    // In lucky.db: a store opened again finds them.
    expect(openCertificates(db).list().map((c) => c.name)).toEqual(['old', 'site']);
  });

  it('refuses a key of another certificate, bad PEM and bad names, and changes nothing', () => {
    const store = openCertificates(db);
    const kept = store.get('site')!;
    const mismatch = refusal(() => store.put('site', pem.a2!.cert, pem.b!.key));
    expect(mismatch).toEqual({ en: 'the private key does not belong to the certificate', zh: '私钥与证书不匹配', retry: false });
    expect(store.get('site')).toEqual(kept);
    expect(refusal(() => store.put('x', 'not a certificate', pem.a!.key)).en).toMatch(/^the certificate is not valid PEM: /);
    expect(refusal(() => store.put('x', pem.a!.cert, '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')).zh).toMatch(/^私钥不是有效的 PEM：/);
    expect(refusal(() => store.put('bad name', pem.a!.cert, pem.a!.key)).en).toContain('a certificate name is');
    expect(store.get('x')).toBeUndefined();
    expect(store.list().map((c) => c.name)).toEqual(['old', 'site']);
  });

  it('tells its listeners of every change, and one that fails does not keep the others from hearing', () => {
    const store = openCertificates(db);
    const heard: Array<[string, StoredCertificate | null]> = [];
    store.onChange(() => {
      throw new Error('a broken listener');
    });
    const stop = store.onChange((name, now) => heard.push([name, now]));
    const first = store.get('site')!;
    const renewed = store.put('site', pem.a2!.cert, pem.a2!.key);
    expect(renewed.fingerprint).not.toBe(first.fingerprint);
    expect(renewed.created).toBe(first.created);
    store.put('b', pem.b!.cert, pem.b!.key);
    expect(store.remove('b')).toBe(true);
    expect(store.remove('b')).toBe(false);
    expect(heard).toEqual([
      ['site', renewed],
      ['b', expect.objectContaining({ names: ['*.b.test'] })],
      ['b', null],
    ]);
    stop();
    store.put('site', pem.a!.cert, pem.a!.key);
    expect(heard).toHaveLength(3);
  });
});

describe("a rule's own certificates", () => {
  const store = () => openCertificates(db);

  it('are read from text and from files, named by their domains or by what they say', async () => {
    const certs = await store().resolve([
      { source: 'pem', cert: pem.a!.cert, key: pem.a!.key, domains: [] },
      { source: 'file', cert: pem.b!.certFile, key: pem.b!.keyFile, domains: ['x.b.test'] },
    ]);
    expect(certs.map((c) => c.names)).toEqual([['a.test', 'www.a.test'], ['x.b.test']]);
    expect(certs[1]!.cert).toBe(pem.b!.cert);
  });

  it('name the certificate that cannot be used; a missing file may come later, bad text never mends', async () => {
    const failure = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => null,
        (e: unknown) => e,
      );
      if (!(err instanceof TlsError)) throw new Error(`not a TlsError: ${String(err)}`);
      return { en: renderMsg('en_US', err.msg), retry: err.retry };
    };
    const s = store();
    const missing = await failure(s.resolve([{ source: 'pem', cert: pem.a!.cert, key: pem.a!.key, domains: [] }, { source: 'file', cert: join(dir, 'none.crt'), key: join(dir, 'none.key'), domains: [] }]));
    expect(missing.en).toMatch(/^certificate 2 cannot be read: .*ENOENT/);
    expect(missing.retry).toBe(true);
    const mismatch = await failure(s.resolve([{ source: 'pem', cert: pem.a!.cert, key: pem.b!.key, domains: [] }]));
    expect(mismatch).toEqual({ en: 'certificate 1: the private key does not belong to the certificate', retry: false });
    expect((await failure(s.serverTls([], '1.2'))).en).toBe('https needs at least one certificate');
  });

  it('serve a real TLS server by name; a renewed stored certificate is swapped in while a connection stays open', async () => {
    const s = store();
    s.put('live', pem.a!.cert, pem.a!.key);
    const sources = () => {
      const c = s.get('live')!;
      return [
        { source: 'pem' as const, cert: c.cert, key: c.key, domains: [] },
        { source: 'pem' as const, cert: pem.b!.cert, key: pem.b!.key, domains: [] },
      ];
    };
    let tls = await s.serverTls(sources(), '1.2');
    const server: Server = createServer({ ...tls.options, SNICallback: (name, cb) => cb(null, tls.context(name)) }, (sock) => sock.on('data', (d) => sock.write(d)));
    const swapped: Promise<void>[] = [];
    // What a listener does with a renewal: new contexts for the next handshakes, the old connections untouched.
    s.onChange((name) => {
      if (name !== 'live') return;
      swapped.push(
        s.serverTls(sources(), '1.2').then((next) => {
          tls = next;
          server.setSecureContext(next.options);
        }),
      );
    });
    const port = await new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)));
    const open = (servername: string) =>
      new Promise<TLSSocket>((resolve, reject) => {
        const c = connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false }, () => resolve(c));
        c.on('error', reject);
      });
    const echo = (c: TLSSocket, text: string) => new Promise<string>((r) => (c.once('data', (d) => r(d.toString())), c.write(text)));
    try {
      const before = await open('a.test');
      expect(before.getPeerCertificate().fingerprint256).toBe(s.get('live')!.fingerprint);
      expect((await open('x.b.test')).getPeerCertificate().subject.CN).toBe('*.b.test');

      const renewed = s.put('live', pem.a2!.cert, pem.a2!.key);
      await Promise.all(swapped);
      const after = await open('a.test');
      expect(after.getPeerCertificate().fingerprint256).toBe(renewed.fingerprint);
      // The connection made before the renewal carries on.
      expect(await echo(before, 'still here')).toBe('still here');
      for (const c of [before, after]) c.destroy();
    } finally {
      server.close();
    }
  });
});
