/**
 * Automatic HTTPS on a web rule, against a real ACME server (Debian's pebble) that resolves the
 * rule's names through a real BIND 9 of the test (A records to 127.0.0.1): the rule serves at once
 * with a self-signed stand-in, its plain-HTTP companion answers the CA's HTTP-01 check and sends
 * browsers on to HTTPS, the issued certificate is swapped in, names added extend it, a failed order
 * shows on the rule with the CA's reason while the last good certificate stays, and deleting the
 * rule deletes its certificate rule. Nothing leaves the machine.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBind, type Bind } from '../../lib/dns/testing/bind.js';
import { waitFor } from '../../lib/dns/testing/fakes.js';
import { buildUpdate, exchange, parseMessage, signTsig, TYPE } from '../../lib/dns/wire.js';
import { freePort, startTestDaemon, type TestDaemon } from '../../test/harness.js';
import { startPebble, type Pebble } from '../../test/pebble.js';
import { tlsGet as visit } from '../../test/tlsget.js';

const EN = { headers: { 'lucky-lang': 'en_US' } };

interface Status {
  state: string;
  message: string;
}

/** A plain-HTTP GET with its own Host header (fetch does not let one set it): status and Location. */
function get(port: number, path: string, host: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      res.resume();
      res.once('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('automatic HTTPS on a web rule (pebble, BIND)', () => {
  let bind: Bind;
  let pebble: Pebble;
  let d: TestDaemon;
  /** Where pebble checks HTTP-01: the rule's plain-HTTP companion. */
  let httpPort: number;
  let port: number;
  let key: string;
  let root: string;

  const webRule = async () => (await d.call<{ rule: { status: Status; certs: unknown[] } }>('GET', `/api/web/rules/${key}`, undefined, EN)).rule;
  const acmeRules = async () => (await d.call<{ list: Array<{ key: string; name: string; domains: string[]; status: Status; note: string }> }>('GET', '/api/acme/rules', undefined, EN)).list;
  const body = (names: string[][], over: Record<string, unknown> = {}) => ({
    name: 'auto site',
    protocol: 'https',
    address: '127.0.0.1',
    port,
    httpRedirectPort: httpPort,
    certs: [{ source: 'auto' }],
    subRules: names.map((domains, i) => ({ name: `s${i}`, domains, service: { type: 'text', status: 200, body: `hello ${domains[0]}\n` } })),
    ...over,
  });

  beforeAll(async () => {
    bind = await startBind('example.test');
    const tsig = { name: bind.keyName, algorithm: 'hmac-sha256' as const, secret: bind.secret };
    for (const name of ['auto.example.test', 'more.example.test']) {
      const msg = buildUpdate({ zone: 'example.test', name, type: TYPE.A, ttl: 60, ips: ['127.0.0.1'] });
      expect(parseMessage(await exchange({ host: '127.0.0.1', port: bind.port }, signTsig(msg, tsig).signed, 4000)).rcode).toBe(0);
    }
    httpPort = await freePort();
    port = await freePort();
    pebble = await startPebble({ httpPort, dnsServer: `127.0.0.1:${bind.port}` });
    root = await pebble.root();
    d = await startTestDaemon();
    const set = await d.call('PUT', '/api/acme/configure', { auto: { ca: 'custom', directoryUrl: pebble.directory, caRoot: pebble.tlsCa, email: 'admin@example.test' } }, EN);
    expect(set.ret, set.msg).toBe(0);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
    await pebble?.stop();
    await bind?.stop();
  });

  it('refuses what cannot work, naming why, and stores nothing', async () => {
    const noNames = await d.call('POST', '/api/web/rules', body([['*.example.test']]), EN);
    expect(noNames).toMatchObject({ ret: 1, msg: expect.stringMatching(/automatic certificate needs names/) });
    const samePort = await d.call('POST', '/api/web/rules', body([['auto.example.test']], { httpRedirectPort: port }), EN);
    expect(samePort).toMatchObject({ ret: 1, msg: `the HTTP redirect port cannot be the HTTPS port ${port}` });
    const dnsWithoutTask = await d.call('POST', '/api/web/rules', body([['auto.example.test']], { certs: [{ source: 'auto', challenge: 'dns-01' }] }), EN);
    expect(dnsWithoutTask.ret).toBe(1);
    expect((await d.call<{ list: unknown[] }>('GET', '/api/web/rules')).list).toEqual([]);
    expect(await acmeRules()).toEqual([]);
  });

  it('serves at once with a stand-in, gets the certificate through its companion, and swaps it in', async () => {
    const created = await d.call<{ key: string }>('POST', '/api/web/rules', body([['auto.example.test']]), EN);
    expect(created.ret, created.msg).toBe(0);
    key = created.key;
    // The companion's port is the rule's: another rule cannot have it.
    const taken = await d.call('POST', '/api/web/rules', { name: 'other', protocol: 'http', address: '127.0.0.1', port: httpPort }, EN);
    expect(taken.ret).not.toBe(0);

    // The certificate rule the module keeps for it, marked as the web rule's.
    const order = await waitFor('the certificate rule', async () => (await acmeRules()).find((r) => r.name === `auto-web-${key}`));
    expect(order).toMatchObject({ domains: ['auto.example.test'], note: 'web: auto site' });

    // Issued by pebble and swapped in: the chain verifies against pebble's root.
    const issued = await waitFor('the issued certificate served', async () => {
      const v = await visit(port, 'auto.example.test', root);
      return v.authorized ? v : undefined;
    }, 30_000);
    expect(issued.cert.subjectAltName).toBe('DNS:auto.example.test');
    expect(issued.answer).toMatch(/^HTTP\/1\.1 200[\s\S]*hello auto\.example\.test\n$/);
    await waitFor('a clean status', async () => {
      const s = (await webRule()).status;
      return s.state === 'running' && s.message === '' ? s : undefined;
    });

    // The companion sends browsers on, path and query kept; the CA's path is not redirected.
    expect(await get(httpPort, '/a/b?c=1', 'auto.example.test')).toEqual({ status: 308, location: `https://auto.example.test:${port}/a/b?c=1` });
    expect(await get(httpPort, '/.well-known/acme-challenge/none', 'auto.example.test:80')).toEqual({ status: 404, location: undefined });
  }, 60_000);

  it('a name added to the rule extends the certificate', async () => {
    const saved = await d.call('PUT', `/api/web/rules/${key}`, body([['auto.example.test'], ['more.example.test']]), EN);
    expect(saved.ret, saved.msg).toBe(0);
    const both = await waitFor('the extended certificate served', async () => {
      const v = await visit(port, 'more.example.test', root);
      return v.authorized && v.cert.subjectAltName?.includes('more.example.test') ? v : undefined;
    }, 30_000);
    expect(both.cert.subjectAltName).toBe('DNS:auto.example.test, DNS:more.example.test');
    expect(both.answer).toMatch(/hello more\.example\.test\n$/);
  }, 60_000);

  it('a failed order shows on the rule with the CA\'s reason; the last good certificate stays', async () => {
    const before = await visit(port, 'auto.example.test', root);
    // No record for this name at BIND: pebble cannot validate it.
    const saved = await d.call('PUT', `/api/web/rules/${key}`, body([['auto.example.test'], ['more.example.test'], ['missing.example.test']]), EN);
    expect(saved.ret, saved.msg).toBe(0);
    const status = await waitFor('the failure on the web rule', async () => {
      const s = (await webRule()).status;
      return s.message.includes('could not be ordered') ? s : undefined;
    }, 30_000);
    expect(status.state).toBe('error');
    expect(status.message).toMatch(/the automatic certificate could not be ordered \(the current one stays in use\): .*missing\.example\.test/);
    const after = await visit(port, 'auto.example.test', root);
    expect(after.authorized).toBe(true);
    expect(after.cert.fingerprint256).toBe(before.cert.fingerprint256);
  }, 60_000);

  it('a rule whose first order fails serves a self-signed stand-in for its names, waiting, then says why', async () => {
    const other = await d.call<{ key: string }>('POST', '/api/web/rules', body([['missing.example.test']], { name: 'never issued', port: await freePort(), httpRedirectPort: await freePort() }), EN);
    expect(other.ret, other.msg).toBe(0);
    const url = (await d.call<{ rule: { port: number } }>('GET', `/api/web/rules/${other.key}`)).rule.port;
    const standIn = await visit(url, 'missing.example.test', root);
    expect(standIn.authorized).toBe(false);
    expect(standIn.cert.subjectAltName).toBe('DNS:missing.example.test');
    expect(standIn.cert.issuer).toBe(standIn.cert.subject);
    expect(standIn.answer).toMatch(/hello missing\.example\.test\n$/);
    const status = await waitFor('the failure', async () => {
      const s = (await d.call<{ rule: { status: Status } }>('GET', `/api/web/rules/${other.key}`, undefined, EN)).rule.status;
      return s.state === 'error' ? s : undefined;
    }, 30_000);
    expect(status.message).toMatch(/could not be ordered .*missing\.example\.test/);
    expect((await d.call('DELETE', `/api/web/rules/${other.key}?confirm=1`)).ret).toBe(0);
  }, 60_000);

  it('deleting the rule deletes its certificate rule and certificate', async () => {
    expect((await d.call('DELETE', `/api/web/rules/${key}?confirm=1`)).ret).toBe(0);
    await waitFor('the certificate rule gone', async () => ((await acmeRules()).length === 0 ? true : undefined));
    const stored = d.runtime.db.prepare('SELECT name FROM certificates WHERE name = ?').get(`auto-web-${key}`);
    expect(stored).toBeUndefined();
  });
});
