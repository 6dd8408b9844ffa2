/**
 * Backups carry certificates: a certificate ordered from Debian's pebble (names in a real BIND 9)
 * and served by an HTTPS web rule, backed up with secrets and restored onto a new daemon on a fresh
 * data directory, is served again the same (one fingerprint over real TLS), with the CA gone and the
 * same ACME account key; a backup without secrets holds no private key at all.
 */
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { waitFor } from '../../lib/dns/testing/fakes.js';
import { buildUpdate, exchange, parseMessage, signTsig, TYPE } from '../../lib/dns/wire.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startPebble, type Pebble } from '../../test/pebble.js';

const EN = { 'lucky-lang': 'en_US' };
const NAME = 'kept.example.test';

interface Backup {
  secrets: boolean;
  stores?: { certificates?: Array<{ name: string; cert: string; key: string }>; acmeAccounts?: Array<{ directory: string; key: string }> };
}

const leafOf = (d: TestDaemon, name: string) => {
  const row = d.runtime.db.prepare<[string], { cert: string }>('SELECT cert FROM certificates WHERE name = ?').get(name);
  return row ? new X509Certificate(row.cert) : undefined;
};
const accountKeys = (d: TestDaemon) => d.runtime.db.prepare<[], { directory: string; key_pem: string }>('SELECT directory, key_pem FROM acme_accounts').all();

/** The certificate an HTTPS listener presents, by its SHA-256 fingerprint. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: NAME, rejectUnauthorized: false }, () => {
      const fp = s.getPeerCertificate().fingerprint256;
      s.end();
      resolve(fp);
    });
    s.once('error', reject);
  });
}

async function download(d: TestDaemon, secrets: boolean): Promise<string> {
  const res = await d.runtime.app.inject({ method: 'GET', url: `/api/configure?secrets=${secrets ? 1 : 0}`, headers: { 'lucky-admin-token': d.token } });
  expect(res.statusCode).toBe(200);
  return res.body;
}

async function upload(d: TestDaemon, text: string) {
  const boundary = '----lucky' + Math.random().toString(16).slice(2);
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="backup.json"\r\nContent-Type: application/json\r\n\r\n`),
    Buffer.from(text),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await d.runtime.app.inject({
    method: 'POST',
    url: '/api/configure',
    payload,
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'lucky-admin-token': d.token, ...EN },
  });
  return res.json() as { ret: number; msg?: string; key?: string; summary?: { stores: Record<string, number> } };
}

describe('backups carry the certificate store and the ACME account keys', () => {
  let bind: Bind;
  let pebble: Pebble | undefined;
  let a: TestDaemon | undefined;
  let b: TestDaemon | undefined;
  let httpPort: number;

  beforeAll(async () => {
    bind = await startBind('example.test');
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    const msg = buildUpdate({ zone: 'example.test', name: NAME, type: TYPE.A, ttl: 60, ips: ['127.0.0.1'] });
    expect(parseMessage(await exchange({ host: '127.0.0.1', port: bind.port }, signTsig(msg, key).signed, 4000)).rcode).toBe(0);
    httpPort = await freePort();
    pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}` });
    a = await startTestDaemon();
  }, 60_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await Promise.all([pebble?.stop(), bind?.stop()]);
  });

  it('restored onto a fresh data directory, a new daemon serves the same certificate, with the CA gone', async () => {
    const made = await a!.call<{ key: string }>('POST', '/api/acme/rules', {
      name: 'kept-cert',
      source: 'acme',
      ca: 'custom',
      directoryUrl: pebble!.directory,
      caRoot: pebble!.tlsCa,
      challenge: 'http-01',
      httpAddress: '127.0.0.1',
      httpPort,
      domains: [NAME],
    });
    expect(made.ret, made.msg).toBe(0);
    const leaf = await waitFor('certificate issued', () => leafOf(a!, 'kept-cert'), 30_000);
    const webPort = await freePort();
    const site = await a!.call('POST', '/api/web/rules', {
      name: 'kept-site',
      protocol: 'https',
      address: '127.0.0.1',
      port: webPort,
      certs: [{ source: 'store', cert: 'kept-cert' }],
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'kept\n' },
    });
    expect(site.ret, site.msg).toBe(0);
    const before = await waitFor('served by a', () => servedFingerprint(webPort).catch(() => undefined));
    expect(before).toBe(leaf.fingerprint256);
    const accounts = accountKeys(a!);
    expect(accounts).toHaveLength(1);

    // Without secrets: no store, no private key anywhere in the file.
    const plain = await download(a!, false);
    expect(plain).not.toMatch(/PRIVATE KEY/);
    expect((JSON.parse(plain) as Backup).stores).toBeUndefined();
    // With secrets: the certificate with its key, and the account key.
    const text = await download(a!, true);
    const full = JSON.parse(text) as Backup;
    expect(full.stores!.certificates!.map((c) => c.name)).toEqual(['kept-cert']);
    expect(new X509Certificate(full.stores!.certificates![0]!.cert).fingerprint256).toBe(leaf.fingerprint256);
    expect(full.stores!.acmeAccounts).toEqual([expect.objectContaining({ directory: pebble!.directory, key: accounts[0]!.key_pem })]);

    // The old machine is gone, and so is the CA: a new order could not be made.
    await a!.close();
    a = undefined;
    await pebble!.stop();
    pebble = undefined;
    b = await startTestDaemon();
    const staged = await upload(b, text);
    expect(staged.ret, staged.msg).toBe(0);
    expect(staged.summary!.stores).toEqual({ certificates: 1, acmeAccounts: 1 });
    const done = await b.call('GET', `/api/restoreconfigureconfirm?key=${staged.key!}`, undefined, { headers: EN });
    expect(done).toEqual({ ret: 0, msg: 'Configuration restored' });

    const after = await waitFor('served by b', () => servedFingerprint(webPort).catch(() => undefined), 20_000);
    expect(after).toBe(before);
    expect(accountKeys(b)).toEqual(accounts);
    const rule = await b.call<{ rule: { status: { state: string }; certificate: { fingerprint: string } | null } }>('GET', `/api/acme/rules/${made.key}`, undefined, { headers: EN });
    expect(rule.rule.status.state).toBe('running');
    expect(rule.rule.certificate).not.toBeNull();
  }, 90_000);

  it('refuses a backup whose stored certificate is not its key\'s, naming it; nothing is written', async () => {
    b ??= await startTestDaemon();
    const text = await download(b, true);
    const file = JSON.parse(text) as Backup & { stores: { certificates: Array<{ key: string }> } };
    const other = (await import('node:crypto')).generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const cert = b.runtime.db.prepare<[], { cert: string }>("SELECT cert FROM certificates WHERE name = 'kept-cert'").get()!.cert;
    file.stores.certificates[0]!.key = other;
    const r = await upload(b, JSON.stringify(file));
    expect(r.ret).toBe(1);
    expect(r.msg).toMatch(/stores\.certificates\[0\]: kept-cert: /);
    // Claimed without secrets, a file with stores is refused as well.
    const claimed = await upload(b, JSON.stringify({ ...JSON.parse(text), secrets: false }));
    expect(claimed.ret).toBe(1);
    expect(claimed.msg).toMatch(/stores\.certificates: only a backup with secrets carries it/);
    expect(b.runtime.db.prepare<[], { cert: string }>("SELECT cert FROM certificates WHERE name = 'kept-cert'").get()!.cert).toBe(cert);
  });
});
