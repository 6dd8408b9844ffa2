/**
 * The certificates module over a certificate's life, against Debian's pebble and a real BIND 9:
 * External Account Binding, renewal by itself of short-lived certificates while a connection stays
 * open, the CA's renewal window (ARI, served by a small front of the test, since this pebble has
 * none), webhooks, export, certificate files read again when they change, and HTTP-01 answered by a
 * web rule on serving threads.
 */
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttps, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createSecureContext } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_HEADER } from '@lucky/contracts';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { receiver, waitFor, type Receiver } from '../../lib/dns/testing/fakes.js';
import { buildUpdate, exchange, parseMessage, signTsig, TYPE } from '../../lib/dns/wire.js';
import { makeCert } from '../../test/certs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { ariCertId } from './acme.ari.js';
import { startPebble, type Pebble } from '../../test/pebble.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };
const EAB_KID = 'kid-1';
const EAB_HMAC = 'zWNDZM6eQGHWpSRTPal5eIUYFTu7EajVIoguysqZ9wG44nMEtx3MUAsUDkMTQ12W';

interface RuleView {
  key: string;
  name: string;
  status: { state: string; message: string };
  certificate: { names: string[]; notBefore: number; notAfter: number; fingerprint: string } | null;
  renewAt: number | null;
}

/** The leaf of the PEM chain the store holds under a name. */
function leafOf(d: TestDaemon, name: string): X509Certificate | undefined {
  const row = d.runtime.db.prepare<[string], { cert: string }>('SELECT cert FROM certificates WHERE name = ?').get(name);
  return row ? new X509Certificate(row.cert) : undefined;
}

describe('a certificate\'s life with pebble (ACME)', () => {
  let bind: Bind;
  /** EAB required, certificates of 30 s. */
  let shortLived: Pebble;
  /** Five-year certificates, no EAB. */
  let pebble: Pebble;
  let d: TestDaemon;
  let hook: Receiver;
  let httpPort: number;
  let dir: string;

  const logs = async (key: string) => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/acme/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log);
  const view = async (key: string) => (await d.call<{ rule: RuleView }>('GET', `/api/acme/rules/${key}`, undefined, EN)).rule;
  const create = async (body: Record<string, unknown>) => {
    const r = await d.call<{ key: string }>('POST', '/api/acme/rules', body, EN);
    expect(r.ret, r.msg).toBe(0);
    return r.key;
  };
  const remove = async (key: string) => expect((await d.call('DELETE', `/api/acme/rules/${key}?confirm=1`)).ret).toBe(0);
  const acme = (ca: Pebble, name: string, over: Record<string, unknown> = {}) => ({
    name,
    source: 'acme',
    ca: 'custom',
    directoryUrl: ca.directory,
    caRoot: ca.tlsCa,
    challenge: 'http-01',
    httpAddress: '127.0.0.1',
    httpPort,
    domains: ['life.example.test'],
    ...over,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-acme-life-'));
    bind = await startBind('example.test');
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    for (const name of ['life.example.test', 'ari.example.test', 'threads.example.test', 'one.example.test', 'two.example.test']) {
      const msg = buildUpdate({ zone: 'example.test', name, type: TYPE.A, ttl: 60, ips: ['127.0.0.1'] });
      expect(parseMessage(await exchange({ host: '127.0.0.1', port: bind.port }, signTsig(msg, key).signed, 4000)).rcode).toBe(0);
    }
    httpPort = await freePort();
    const dnsServer = `127.0.0.1:${bind.port}`;
    [shortLived, pebble] = await Promise.all([
      startPebble({ httpPort, dnsServer, eabKeys: { [EAB_KID]: EAB_HMAC }, validitySeconds: 30 }),
      startPebble({ httpPort, dnsServer }),
    ]);
    hook = await receiver();
    d = await startTestDaemon();
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await Promise.all([shortLived?.stop(), pebble?.stop(), bind?.stop(), hook?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('External Account Binding: refused without it and with a wrong key, the account is made with the right one', async () => {
    const k = await create(acme(shortLived, 'eab-cert'));
    const without = await d.call('POST', `/api/acme/rules/${k}/renew`, undefined, EN);
    expect(without.ret).toBe(6);
    expect(without.msg).toMatch(/requires External Account Binding/);
    const wrong = Buffer.alloc(48, 7).toString('base64url');
    expect((await d.call('PUT', `/api/acme/rules/${k}`, acme(shortLived, 'eab-cert', { eabKid: EAB_KID, eabHmac: wrong }))).ret).toBe(0);
    const refused = await d.call('POST', `/api/acme/rules/${k}/renew`, undefined, EN);
    expect(refused.ret).toBe(6);
    expect(refused.msg).toMatch(/the CA answered 4\d\d/);
    expect(leafOf(d, 'eab-cert')).toBeUndefined();
    expect((await d.call('PUT', `/api/acme/rules/${k}`, acme(shortLived, 'eab-cert', { eabKid: EAB_KID, eabHmac: EAB_HMAC }))).ret).toBe(0);
    const ok = await d.call('POST', `/api/acme/rules/${k}/renew`, undefined, EN);
    expect(ok.ret, ok.msg).toBe(0);
    expect((await logs(k)).some((l) => /ACME account registered/.test(l))).toBe(true);
    // The HMAC key is a secret: masked in the answer.
    const answer = await d.call<{ rule: Record<string, unknown> }>('GET', `/api/acme/rules/${k}`);
    expect(JSON.stringify(answer)).not.toContain(EAB_HMAC);
    await remove(k);
  }, 60_000);

  it('a short-lived certificate renews by itself a third before its end; a connection opened before carries on', async () => {
    const k = await create(acme(shortLived, 'short-cert', { eabKid: EAB_KID, eabHmac: EAB_HMAC }));
    const first = await waitFor('first certificate', () => leafOf(d, 'short-cert'), 30_000);
    const life = Date.parse(first.validTo) - Date.parse(first.validFrom);
    expect(life).toBeLessThanOrEqual(31_000);
    const port = await freePort();
    const site = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'short-site',
      protocol: 'https',
      address: '127.0.0.1',
      port,
      certs: [{ source: 'store', cert: 'short-cert' }],
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'short\n' },
    });
    expect(site.ret, site.msg).toBe(0);
    const held = connect({ host: '127.0.0.1', port, servername: 'life.example.test', rejectUnauthorized: false });
    await new Promise((r) => held.once('secureConnect', r));
    expect(held.getPeerCertificate().fingerprint256).toBe(first.fingerprint256);
    // Due at two thirds of its 30 s: renewed with no one asking, well before it ends.
    const next = await waitFor('renewed certificate', () => {
      const now = leafOf(d, 'short-cert');
      return now && now.fingerprint256 !== first.fingerprint256 ? now : undefined;
    }, 40_000);
    expect(Date.parse(next.validFrom)).toBeLessThan(Date.parse(first.validTo));
    const lines = await logs(k);
    expect(lines.some((l) => /the certificate expires at .*: renewing/.test(l)), lines.join('\n')).toBe(true);
    const answer = await new Promise<string>((resolve, reject) => {
      let got = '';
      held.on('data', (b: Buffer) => {
        got += b.toString();
        if (got.includes('short\n')) resolve(got);
      });
      held.once('error', reject);
      held.write('GET / HTTP/1.1\r\nHost: life.example.test\r\n\r\n');
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    held.destroy();
    expect((await d.call('DELETE', `/api/web/rules/${site.key}?confirm=1`)).ret).toBe(0);
    await remove(k);
  }, 90_000);

  it('the CA\'s renewal window (ARI): a window ahead is followed, a window already open renews now', async () => {
    // A directory like pebble's plus `renewalInfo`, on pebble's own certificate (the rule's caRoot trusts it).
    let window = { start: '', end: '' };
    const asked: string[] = [];
    const front: Server = createHttps(pebble.serverTls, (req, res) => {
      if (req.url === '/dir') {
        void fetchJson(pebble).then((dirJson) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ...dirJson, renewalInfo: `https://127.0.0.1:${(front.address() as AddressInfo).port}/ari` }));
        });
        return;
      }
      if (req.url?.startsWith('/ari/')) {
        asked.push(req.url.slice('/ari/'.length));
        res.writeHead(200, { 'content-type': 'application/json', 'retry-after': '21600' });
        res.end(JSON.stringify({ suggestedWindow: window }));
        return;
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    try {
      const directoryUrl = `https://127.0.0.1:${(front.address() as AddressInfo).port}/dir`;
      const body = acme(pebble, 'ari-cert', { directoryUrl, domains: ['ari.example.test'] });
      const k = await create(body);
      const first = await waitFor('first certificate', () => leafOf(d, 'ari-cert'), 30_000);
      const id = ariCertId(first.toString());
      // A window tomorrow: the renewal is planned inside it, nothing ordered now.
      const day = 86_400_000;
      window = { start: new Date(Date.now() + day).toISOString(), end: new Date(Date.now() + 2 * day).toISOString() };
      const restart = async () => {
        expect((await d.call('PUT', `/api/acme/rules/${k}/enable`, { enable: false })).ret).toBe(0);
        expect((await d.call('PUT', `/api/acme/rules/${k}/enable`, { enable: true })).ret).toBe(0);
      };
      await restart();
      const planned = await waitFor('renewal planned in the window', async () => {
        const v = await view(k);
        return v.renewAt && v.renewAt >= Date.parse(window.start) && v.renewAt <= Date.parse(window.end) ? v.renewAt : undefined;
      });
      expect(planned).toBeGreaterThan(Date.now());
      expect(asked).toContain(id);
      expect((await logs(k)).some((l) => /the CA suggests renewing between/.test(l))).toBe(true);
      expect(leafOf(d, 'ari-cert')!.fingerprint256).toBe(first.fingerprint256);
      // A window open since yesterday (the CA wants it replaced): renewed at once, years before the rule's own days.
      window = { start: new Date(Date.now() - day).toISOString(), end: new Date(Date.now() - day / 2).toISOString() };
      await restart();
      const renewed = await waitFor('renewed on the CA\'s word', () => {
        const now = leafOf(d, 'ari-cert');
        return now && now.fingerprint256 !== first.fingerprint256 ? now : undefined;
      }, 30_000);
      expect(renewed.subjectAltName).toBe('DNS:ari.example.test');
      await remove(k);
    } finally {
      await new Promise((r) => front.close(r));
    }
  }, 90_000);

  it('webhook: a failed renewal and a certificate near its end are announced with their values', async () => {
    const settings = {
      checkHours: 12,
      warnDays: 7,
      webhook: { enable: true, url: `${hook.url}/cert`, method: 'POST', body: '{"name":"#{name}","event":"#{event}","days":"#{daysLeft}","error":"#{error}"}' },
      webhookEvents: ['expiring', 'failed'],
    };
    const put = await d.call('PUT', '/api/acme/configure', settings, EN);
    expect(put.ret, put.msg).toBe(0);
    // An order nobody can answer (our listener is elsewhere than where pebble looks).
    const k = await create(acme(pebble, 'failing-cert', { httpPort: await freePort() }));
    const failed = await waitFor('failure announced', () => hook.calls.find((c) => c.body.includes('"name":"failing-cert"')));
    expect(JSON.parse(failed.body)).toMatchObject({ event: 'failed', error: expect.stringMatching(/the certificate order failed/) });
    expect((await logs(k)).some((l) => /webhook \(failed\)/.test(l))).toBe(true);
    await remove(k);
    // A pasted certificate that ends tomorrow: inside a quarter of its life and the 7 days.
    const soon = makeCert(dir, 'soon', ['soon.example.test'], { days: 1 });
    const old = makeCert(dir, 'old', ['old.example.test'], { expired: true });
    const k2 = await create({ name: 'soon-cert', source: 'pem', cert: soon.cert, privateKey: soon.key });
    const k3 = await create({ name: 'old-cert', source: 'pem', cert: old.cert, privateKey: old.key });
    const expiring = await waitFor('expiry announced', () => hook.calls.find((c) => c.body.includes('"name":"old-cert"')));
    expect(JSON.parse(expiring.body)).toMatchObject({ event: 'expiring', days: '0' });
    expect((await logs(k3)).some((l) => /the certificate expires at .* \(0 days left\) and is not renewed yet/.test(l))).toBe(true);
    // Two days of a two-day certificate left: more than a quarter of its life, quiet.
    expect(hook.calls.some((c) => c.body.includes('"name":"soon-cert"'))).toBe(false);
    await remove(k2);
    await remove(k3);
    // A bad webhook in the settings is refused and nothing changes.
    const bad = await d.call('PUT', '/api/acme/configure', { ...settings, webhook: { enable: true, url: '' } }, EN);
    expect(bad.ret).toBe(1);
    expect((await d.call<{ configure: { webhook: { url: string } } }>('GET', '/api/acme/configure')).configure.webhook.url).toBe(`${hook.url}/cert`);
    expect((await d.call('PUT', '/api/acme/configure', { checkHours: 12 })).ret).toBe(0);
  }, 60_000);

  it('export: PEM files and a PFX the TLS stack loads; a PFX without a password and a rule without a certificate are refused', async () => {
    const cert = makeCert(dir, 'exp', ['exp.example.test'], { days: 30 });
    const k = await create({ name: 'exp-cert', source: 'pem', cert: cert.cert, privateKey: cert.key });
    const exportAs = (body: unknown, key = k) =>
      d.runtime.app.inject({ method: 'POST', url: `/api/acme/rules/${key}/export`, headers: { [TOKEN_HEADER]: d.token, 'content-type': 'application/json', 'lucky-lang': 'en_US' }, payload: JSON.stringify(body) });
    const full = await exportAs({ format: 'fullchain' });
    expect(full.headers['content-disposition']).toBe('attachment; filename="exp-cert.fullchain.pem"');
    expect(new X509Certificate(full.body).fingerprint256).toBe(new X509Certificate(cert.cert).fingerprint256);
    expect(full.body).not.toContain('PRIVATE KEY');
    const pfx = await exportAs({ format: 'pfx', password: 'export-pass-1' });
    expect(pfx.headers['content-type']).toBe('application/x-pkcs12');
    expect(() => createSecureContext({ pfx: pfx.rawPayload, passphrase: 'export-pass-1' })).not.toThrow();
    const noPass = await exportAs({ format: 'pfx' });
    expect(noPass.json()).toMatchObject({ ret: 1, msg: expect.stringMatching(/a PFX file needs a password/) });
    // The program log says who took the key, never the password.
    const program = (await d.call<{ logs: Array<{ log: string }> }>('GET', '/api/logs?pre=0', undefined, EN)).logs.map((l) => l.log);
    expect(program.some((l) => l.includes('certificate exp-cert exported (pfx)')), program.join('\n')).toBe(true);
    expect(program.join('\n')).not.toContain('export-pass-1');
    const empty = await create(acme(pebble, 'never-issued', { enable: false }));
    expect((await exportAs({ format: 'key' }, empty)).json()).toMatchObject({ ret: 6, msg: 'there is no certificate yet' });
    await remove(k);
    await remove(empty);
  }, 30_000);

  it('certificate files: read again when they are replaced', async () => {
    const a = makeCert(dir, 'file-a', ['files.example.test']);
    const b = makeCert(dir, 'file-b', ['files.example.test']);
    const certPath = join(dir, 'site.crt');
    const keyPath = join(dir, 'site.key');
    writeFileSync(certPath, a.cert);
    writeFileSync(keyPath, a.key);
    const k = await create({ name: 'file-cert', source: 'file', certPath, keyPath });
    await waitFor('first read', () => leafOf(d, 'file-cert')?.fingerprint256 === new X509Certificate(a.cert).fingerprint256);
    // The key first, then the certificate, as a renewal tool writes them.
    writeFileSync(keyPath, b.key);
    writeFileSync(certPath, b.cert);
    await waitFor('read again', () => leafOf(d, 'file-cert')?.fingerprint256 === new X509Certificate(b.cert).fingerprint256, 15_000);
    // Back at once, the sizes unchanged: seen by what the files hold, whatever their timestamps say.
    writeFileSync(keyPath, a.key);
    writeFileSync(certPath, a.cert);
    await waitFor('read a third time', () => leafOf(d, 'file-cert')?.fingerprint256 === new X509Certificate(a.cert).fingerprint256, 15_000);
    expect((await logs(k)).some((l) => l.includes('the certificate files changed: read again'))).toBe(true);
    expect((await view(k)).status.state).toBe('running');
    await remove(k);
  }, 30_000);

  it('two certificates ordered at the same time on the same HTTP-01 port share one listener', async () => {
    const [a, b] = await Promise.all([create(acme(pebble, 'one-cert', { domains: ['one.example.test'] })), create(acme(pebble, 'two-cert', { domains: ['two.example.test'] }))]);
    const [one, two] = await Promise.all([waitFor('one', () => leafOf(d, 'one-cert'), 30_000), waitFor('two', () => leafOf(d, 'two-cert'), 30_000)]);
    expect([one.subjectAltName, two.subjectAltName]).toEqual(['DNS:one.example.test', 'DNS:two.example.test']);
    expect((await view(a)).status.state).toBe('running');
    expect((await view(b)).status.state).toBe('running');
    // Closed and let go once both orders ended.
    await waitFor('port released', () => d.runtime.ports.list().every((c) => c.owner.module !== 'acme'));
    await remove(a);
    await remove(b);
  }, 60_000);

  it('HTTP-01 answered by a web rule running on serving threads', async () => {
    const put = await d.call('PUT', '/api/web/configure', { servingThreads: 2 });
    expect(put.ret, put.msg).toBe(0);
    const web = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'threads80',
      protocol: 'http',
      address: '127.0.0.1',
      port: httpPort,
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'site\n' },
    });
    expect(web.ret, web.msg).toBe(0);
    try {
      const k = await create(acme(pebble, 'threads-cert', { domains: ['threads.example.test'] }));
      const issued = await waitFor('issued through the threads', () => leafOf(d, 'threads-cert'), 30_000);
      expect(issued.subjectAltName).toBe('DNS:threads.example.test');
      const lines = await logs(k);
      expect(lines.some((l) => l.includes('answered by the web services rule(s) threads80')), lines.join('\n')).toBe(true);
      await remove(k);
    } finally {
      expect((await d.call('DELETE', `/api/web/rules/${web.key}?confirm=1`)).ret).toBe(0);
      expect((await d.call('PUT', '/api/web/configure', { servingThreads: 0 })).ret).toBe(0);
    }
  }, 60_000);
});

async function fetchJson(p: Pebble): Promise<Record<string, unknown>> {
  const { Agent, request } = await import('undici');
  const agent = new Agent({ connect: { ca: p.tlsCa } });
  try {
    const r = await request(p.directory, { dispatcher: agent });
    return (await r.body.json()) as Record<string, unknown>;
  } finally {
    await agent.close();
  }
}
