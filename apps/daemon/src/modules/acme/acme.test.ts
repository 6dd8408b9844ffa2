/**
 * The certificates module against a real ACME server: Debian's pebble on 127.0.0.1, resolving names
 * through a real BIND 9 of the test (A records sending the HTTP-01 names to 127.0.0.1; the DNS-01
 * TXT records written by the RFC 2136 provider of a DDNS task). Nothing leaves the machine.
 */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { buildUpdate, exchange, parseMessage, signTsig, TYPE } from '../../lib/dns/wire.js';
import { makeCert } from '../../test/certs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startPebble, type Pebble } from '../../test/pebble.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

interface RuleView {
  key: string;
  name: string;
  status: { state: string; message: string };
  certificate: { names: string[]; notAfter: number; issuer: string; fingerprint: string } | null;
  renewAt: number | null;
}

/** The PEM texts the store holds under a name. */
function stored(d: TestDaemon, name: string): { cert: string; key: string } | undefined {
  return d.runtime.db.prepare<[string], { cert: string; key: string }>('SELECT cert, key FROM certificates WHERE name = ?').get(name);
}

/** The certificates of a PEM chain, leaf first. */
function chainOf(pem: string): X509Certificate[] {
  return (pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));
}

function dig(b: Bind, name: string, type: string): string[] {
  const out = execFileSync('/usr/bin/dig', ['+short', '+time=2', '+tries=2', '-p', String(b.port), '@127.0.0.1', name, type], { encoding: 'utf8', timeout: 10_000 });
  return out.split('\n').map((s) => s.trim()).filter(Boolean);
}

/** A TLS connection kept open: each `get` sends one HTTP/1.1 request on it and reads the answer. */
async function tlsClient(port: number, servername: string, ca: string): Promise<{ socket: TLSSocket; get(): Promise<string>; fingerprint: string }> {
  const socket = connect({ host: '127.0.0.1', port, servername, ca });
  await new Promise<void>((resolve, reject) => {
    socket.once('secureConnect', resolve);
    socket.once('error', reject);
  });
  const get = () =>
    new Promise<string>((resolve, reject) => {
      let got = '';
      const onData = (b: Buffer) => {
        got += b.toString();
        const m = /content-length: (\d+)\r\n[\s\S]*?\r\n\r\n([\s\S]*)$/i.exec(got);
        if (m && Buffer.byteLength(m[2]!) >= Number(m[1])) {
          socket.off('data', onData);
          resolve(got);
        }
      };
      socket.on('data', onData);
      socket.once('error', reject);
      socket.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\n\r\n`);
    });
  return { socket, get, fingerprint: socket.getPeerCertificate().fingerprint256 };
}

describe('certificates from pebble (ACME)', () => {
  let bind: Bind;
  let pebble: Pebble;
  let d: TestDaemon;
  let httpPort: number;
  let dir: string;

  const logs = async (key: string) => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/acme/rules/${key}/logs`, undefined, EN)).logs.map((l) => l.log);
  const rule = async (key: string) => (await d.call<{ rule: RuleView }>('GET', `/api/acme/rules/${key}`, undefined, EN)).rule;
  const count = async () => (await d.call<{ list: unknown[] }>('GET', '/api/acme/rules')).list.length;
  const acme = (name: string, over: Record<string, unknown> = {}) => ({
    name,
    source: 'acme',
    ca: 'custom',
    directoryUrl: pebble.directory,
    caRoot: pebble.tlsCa,
    email: 'admin@example.test',
    challenge: 'http-01',
    httpAddress: '127.0.0.1',
    httpPort,
    ...over,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lucky-acme-'));
    bind = await startBind('example.test');
    // The HTTP-01 names point at 127.0.0.1, where pebble's validation then finds our listener.
    const key = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    for (const name of ['web.example.test', 'nonce.example.test', 'site.example.test']) {
      const msg = buildUpdate({ zone: 'example.test', name, type: TYPE.A, ttl: 60, ips: ['127.0.0.1'] });
      expect(parseMessage(await exchange({ host: '127.0.0.1', port: bind.port }, signTsig(msg, key).signed, 4000)).rcode).toBe(0);
    }
    httpPort = await freePort();
    pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}` });
    d = await startTestDaemon();
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await pebble?.stop();
    await bind?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('HTTP-01: the order completes, every step is logged, and the certificate chains to pebble\'s root', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/acme/rules', acme('web-cert', { domains: ['web.example.test'] }), EN);
    expect(created.ret, created.msg).toBe(0);
    const renewed = await d.call<{ msg: string }>('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
    expect(renewed.ret, renewed.msg).toBe(0);
    expect(renewed.msg).toMatch(/^certificate issued, valid until \d{4}-/);

    const view = await rule(created.key);
    expect(view.status.state).toBe('running');
    expect(view.certificate).toMatchObject({ names: ['web.example.test'] });
    expect(view.certificate!.issuer).toMatch(/Pebble/);
    expect(view.renewAt).toBe(view.certificate!.notAfter - 30 * 86_400_000);

    const pem = stored(d, 'web-cert')!;
    const [leaf, ...rest] = chainOf(pem.cert);
    expect(leaf!.subjectAltName).toBe('DNS:web.example.test');
    expect(leaf!.publicKey.asymmetricKeyType).toBe('ec');
    const root = new X509Certificate(await pebble.root());
    // leaf ← intermediate(s) ← pebble's root of this run
    const chain = [leaf!, ...rest];
    for (let i = 0; i + 1 < chain.length; i++) expect(chain[i]!.verify(chain[i + 1]!.publicKey)).toBe(true);
    expect(chain.at(-1)!.verify(root.publicKey)).toBe(true);
    expect(leaf!.verify(root.publicKey)).toBe(false);

    // The temporary listener's port was claimed while it was open, and let go after.
    expect(d.runtime.ports.list().filter((c) => c.owner.module === 'acme')).toEqual([]);
    const lines = await logs(created.key);
    for (const step of [/reading the ACME directory https:\/\/127\.0\.0\.1/, /ACME account registered: https:/, /order created for web\.example\.test/, /HTTP-01|http-01 challenge ready/, /web\.example\.test is validated/, /sending the certificate signing request \(ec256\)/, /certificate issued: web\.example\.test/]) {
      expect(lines.some((l) => step.test(l)), `${step} in\n${lines.join('\n')}`).toBe(true);
    }
  }, 60_000);

  it('HTTP-01 answered by the web services rule already on the port (past its login), gone once the order is done', async () => {
    const web = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'plain80',
      protocol: 'http',
      address: '127.0.0.1',
      port: httpPort,
      basicAuth: { enable: true, users: [{ user: 'u', password: 'secret-pass-1' }] },
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'site\n' },
    });
    expect(web.ret, web.msg).toBe(0);
    try {
      const created = await d.call<{ key: string }>('POST', '/api/acme/rules', acme('site-cert', { domains: ['site.example.test'] }), EN);
      expect(created.ret, created.msg).toBe(0);
      const renewed = await d.call('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
      expect(renewed.ret, renewed.msg).toBe(0);
      const lines = await logs(created.key);
      expect(lines.some((l) => l.endsWith(`HTTP-01: site.example.test answered by the web services rule(s) plain80 on port ${httpPort}`)), lines.join('\n')).toBe(true);
      expect(lines.some((l) => l.includes('HTTP-01: temporary listener'))).toBe(false);
      expect(chainOf(stored(d, 'site-cert')!.cert)[0]!.subjectAltName).toBe('DNS:site.example.test');
      // After the order the path is the rule's again: its login answers.
      const res = await fetch(`http://127.0.0.1:${httpPort}/.well-known/acme-challenge/anything`, { headers: { host: 'site.example.test' } });
      expect(res.status).toBe(401);
    } finally {
      expect((await d.call('DELETE', `/api/web/rules/${web.key}?confirm=1`)).ret).toBe(0);
    }
  }, 60_000);

  it('a web rule picks the certificate by name and serves it by SNI; a renewal swaps it in while an open connection carries on', async () => {
    const root = await pebble.root();
    const port = await freePort();
    const site = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'site',
      protocol: 'https',
      address: '127.0.0.1',
      port,
      certs: [{ source: 'store', cert: 'web-cert' }],
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'hello acme\n' },
    });
    expect(site.ret, site.msg).toBe(0);
    const first = await tlsClient(port, 'web.example.test', root);
    expect(first.socket.authorized).toBe(true);
    const issued = new X509Certificate(stored(d, 'web-cert')!.cert);
    expect(first.fingerprint).toBe(issued.fingerprint256);
    expect(await first.get()).toMatch(/^HTTP\/1\.1 200[\s\S]*hello acme\n$/);

    const list = (await d.call<{ list: RuleView[] }>('GET', '/api/acme/rules')).list;
    const key = list.find((r) => r.name === 'web-cert')!.key;
    const renewed = await d.call('POST', `/api/acme/rules/${key}/renew`, undefined, EN);
    expect(renewed.ret, renewed.msg).toBe(0);
    const now = new X509Certificate(stored(d, 'web-cert')!.cert);
    expect(now.fingerprint256).not.toBe(issued.fingerprint256);
    const webLog = async () => (await d.call<{ logs: Array<{ log: string }> }>('GET', `/api/web/rules/${site.key}/logs`, undefined, EN)).logs.map((l) => l.log);
    const { waitFor } = await import('../../lib/dns/testing/fakes.js');
    await waitFor('swap noted', async () => (await webLog()).some((l) => l.includes('certificate web-cert was replaced')));
    const second = await tlsClient(port, 'web.example.test', root);
    expect(second.socket.authorized).toBe(true);
    expect(second.fingerprint).toBe(now.fingerprint256);
    // The connection opened before the renewal still answers.
    expect(await first.get()).toMatch(/^HTTP\/1\.1 200[\s\S]*hello acme\n$/);
    first.socket.destroy();
    second.socket.destroy();
    expect((await d.call('DELETE', `/api/web/rules/${site.key}?confirm=1`)).ret).toBe(0);
  }, 60_000);

  it('a web rule naming a certificate before it is ordered waits for it (never in error) and serves it as soon as it is issued', async () => {
    const root = await pebble.root();
    const port = await freePort();
    const site = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'early-site',
      protocol: 'https',
      address: '127.0.0.1',
      port,
      certs: [{ source: 'store', cert: 'early-cert' }],
      defaultService: { type: 'text', status: 200, contentType: 'text/plain', body: 'early\n' },
    });
    expect(site.ret, site.msg).toBe(0);
    const webStatus = async () => (await d.call<{ rule: { status: { state: string; message: string } } }>('GET', `/api/web/rules/${site.key}`, undefined, EN)).rule.status;
    expect(await webStatus()).toMatchObject({ state: 'waiting', message: expect.stringMatching(/^waiting for certificate early-cert/) });
    const states: string[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const s = (await webStatus()).state;
        if (states.at(-1) !== s) states.push(s);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    try {
      const created = await d.call<{ key: string }>('POST', '/api/acme/rules', acme('early-cert', { domains: ['web.example.test'] }), EN);
      expect(created.ret, created.msg).toBe(0);
      const renewed = await d.call('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
      expect(renewed.ret, renewed.msg).toBe(0);
      const issuedAt = Date.now();
      let client: Awaited<ReturnType<typeof tlsClient>> | undefined;
      while (!client && Date.now() - issuedAt < 5000) client = await tlsClient(port, 'web.example.test', root).catch(() => new Promise<undefined>((r) => setTimeout(r, 5)));
      const ms = Date.now() - issuedAt;
      expect(client, 'the rule serves').toBeDefined();
      expect(ms, `served ${ms} ms after the order answered`).toBeLessThan(1000);
      expect(client!.fingerprint).toBe(new X509Certificate(stored(d, 'early-cert')!.cert).fingerprint256);
      expect(await client!.get()).toMatch(/^HTTP\/1\.1 200[\s\S]*early\n$/);
      client!.socket.destroy();
      watching = false;
      await watch;
      expect(states).not.toContain('error');
      expect(states.at(0)).toBe('waiting');
      expect(states.at(-1)).toBe('running');
      expect((await d.call('DELETE', `/api/acme/rules/${created.key}?confirm=1`)).ret).toBe(0);
    } finally {
      watching = false;
      await watch;
      expect((await d.call('DELETE', `/api/web/rules/${site.key}?confirm=1`)).ret).toBe(0);
    }
  }, 60_000);

  it('a challenge that cannot be answered: error status, logged, the old certificate stays', async () => {
    const list = (await d.call<{ list: RuleView[] }>('GET', '/api/acme/rules')).list;
    const key = list.find((r) => r.name === 'web-cert')!.key;
    const before = stored(d, 'web-cert')!;
    // Our listener now opens on another port than the one pebble validates on: nobody answers there.
    const other = await freePort();
    expect((await d.call('PUT', `/api/acme/rules/${key}`, acme('web-cert', { domains: ['web.example.test'], httpPort: other, renewBeforeDays: 1 }))).ret).toBe(0);
    const failed = await d.call('POST', `/api/acme/rules/${key}/renew`, undefined, EN);
    expect(failed.ret, `${failed.msg}\n${(await logs(key)).slice(-12).join('\n')}`).toBe(6);
    expect(failed.msg).toMatch(/the certificate order failed: web\.example\.test failed validation/);
    const view = await rule(key);
    expect(view.status.state).toBe('error');
    expect(view.status.message).toMatch(/the certificate order failed/);
    expect(stored(d, 'web-cert')).toEqual(before);
    const lines = await logs(key);
    expect(lines.some((l) => /the previous certificate stays in use \(valid until/.test(l))).toBe(true);
    expect(lines.some((l) => /retrying in 5 min/.test(l))).toBe(true);
  }, 60_000);

  it('HTTP-01 on a port another rule owns: the order fails naming the owner, nothing is opened', async () => {
    const port = await freePort();
    const tls = makeCert(dir, 'owner', ['owner.example.test']);
    const owner = await d.call<{ key: string }>('POST', '/api/web/rules', {
      name: 'owner-site',
      protocol: 'https',
      address: '127.0.0.1',
      port,
      certs: [{ source: 'pem', cert: tls.cert, key: tls.key }],
    });
    expect(owner.ret, owner.msg).toBe(0);
    try {
      const created = await d.call<{ key: string }>('POST', '/api/acme/rules', acme('blocked-cert', { domains: ['web.example.test'], httpPort: port }), EN);
      expect(created.ret, created.msg).toBe(0);
      const failed = await d.call('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
      expect(failed.ret).toBe(6);
      expect(failed.msg).toMatch(/owner-site/);
      expect(stored(d, 'blocked-cert')).toBeUndefined();
      expect(d.runtime.ports.list().filter((c) => c.owner.module === 'acme')).toEqual([]);
      expect((await d.call('DELETE', `/api/acme/rules/${created.key}?confirm=1`)).ret).toBe(0);
    } finally {
      expect((await d.call('DELETE', `/api/web/rules/${owner.key}?confirm=1`)).ret).toBe(0);
    }
  }, 60_000);

  it('DNS-01 with a wildcard through the RFC 2136 provider of a DDNS task and a real BIND; the records are removed after', async () => {
    const task = await d.call<{ key: string }>('POST', '/api/ddns/rules', {
      name: 'bind',
      enable: false,
      provider: 'rfc2136',
      credentials: { id: bind.keyName, secret: bind.secret, server: `127.0.0.1:${bind.port}` },
      // The zone named as `sub:zone`: the TXT lines are split the same way.
      domains: ['www:example.test'],
    });
    expect(task.ret, task.msg).toBe(0);
    const created = await d.call<{ key: string }>(
      'POST',
      '/api/acme/rules',
      acme('wild-cert', { challenge: 'dns-01', dnsTask: task.key, domains: ['example.test', '*.example.test'], keyType: 'rsa2048' }),
      EN,
    );
    expect(created.ret, created.msg).toBe(0);
    const renewed = await d.call('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
    expect(renewed.ret, renewed.msg).toBe(0);
    const view = await rule(created.key);
    expect(view.certificate!.names.sort()).toEqual(['*.example.test', 'example.test']);
    const [leaf] = chainOf(stored(d, 'wild-cert')!.cert);
    expect(leaf!.publicKey.asymmetricKeyType).toBe('rsa');
    expect(leaf!.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    const lines = await logs(created.key);
    expect(lines.filter((l) => l.includes('DNS-01: TXT record _acme-challenge.example.test written'))).toHaveLength(2);
    // The task's own server is the one asked before the CA looks.
    expect(lines.filter((l) => l.includes(`DNS-01: the TXT record _acme-challenge.example.test is at 127.0.0.1:${bind.port} (after`))).toHaveLength(2);
    expect(lines.filter((l) => l.includes('DNS-01: TXT record _acme-challenge.example.test removed'))).toHaveLength(2);
    expect(dig(bind, '_acme-challenge.example.test', 'TXT')).toEqual([]);
  }, 90_000);

  it('pebble refusing most nonces: the client retries with the fresh nonce and the order completes', async () => {
    const port = await freePort();
    const picky = await startPebble({ httpPort: port, dnsServer: `127.0.0.1:${bind.port}`, nonceReject: 60 });
    try {
      const created = await d.call<{ key: string }>(
        'POST',
        '/api/acme/rules',
        acme('nonce-cert', { directoryUrl: picky.directory, caRoot: picky.tlsCa, httpPort: port, domains: ['nonce.example.test'] }),
        EN,
      );
      expect(created.ret, created.msg).toBe(0);
      const renewed = await d.call('POST', `/api/acme/rules/${created.key}/renew`, undefined, EN);
      expect(renewed.ret, renewed.msg).toBe(0);
      const lines = await logs(created.key);
      expect(lines.filter((l) => /the CA refused the nonce: retrying/.test(l)).length).toBeGreaterThan(0);
      expect(chainOf(stored(d, 'nonce-cert')!.cert)[0]!.subjectAltName).toBe('DNS:nonce.example.test');
    } finally {
      await picky.stop();
    }
  }, 90_000);

  it('bad input is refused with a clear error and nothing is saved', async () => {
    const n = await count();
    const notDomain = await d.call('POST', '/api/acme/rules', acme('bad1', { domains: ['not a domain'] }), EN);
    expect(notDomain.ret).toBe(1);
    expect(notDomain.msg).toMatch(/is not a name a certificate can be issued for/);
    const wildHttp = await d.call('POST', '/api/acme/rules', acme('bad2', { domains: ['*.example.test'] }), EN);
    expect(wildHttp.ret).toBe(1);
    expect(wildHttp.msg).toMatch(/a wildcard name can only be validated with DNS-01/);
    const a = makeCert(dir, 'a', ['a.example.test']);
    const b = makeCert(dir, 'b', ['b.example.test']);
    const mismatch = await d.call('POST', '/api/acme/rules', { name: 'bad3', source: 'pem', cert: a.cert, privateKey: b.key }, EN);
    expect(mismatch.ret).toBe(1);
    expect(mismatch.msg).toMatch(/the private key does not belong to the certificate/);
    const badName = await d.call('POST', '/api/acme/rules', acme('has space', { domains: ['web.example.test'] }), EN);
    expect(badName.ret).toBe(1);
    expect(await count()).toBe(n);
    expect(stored(d, 'bad3')).toBeUndefined();

    // The good pair is stored under the rule's name.
    const good = await d.call<{ key: string }>('POST', '/api/acme/rules', { name: 'pasted', source: 'pem', cert: a.cert, privateKey: a.key }, EN);
    expect(good.ret, good.msg).toBe(0);
    expect(stored(d, 'pasted')).toEqual({ cert: a.cert, key: a.key });
  }, 60_000);
});
