/**
 * Every TLS listener that names a certificate of the store (web services, WebDAV, FTPS, port
 * forwarding) waits for one that is not there yet instead of failing, and starts from the store's
 * change event the moment a certificate rule puts it there — through the real daemon, the real
 * `certificates` service, and a TLS handshake on the rule's port.
 */
import { rmSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { connect } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCert } from '../test/certs.js';
import { freePort, startTestDaemon, type TestDaemon } from '../test/harness.js';
import { EN, makeStorage, tempDir } from '../test/storages.js';

/** The common name of the certificate a TLS handshake on the port gets. */
function handshake(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'wait.example.test', rejectUnauthorized: false });
    s.setTimeout(5000, () => s.destroy(new Error('tls timeout')));
    s.once('secureConnect', () => {
      resolve(String(s.getPeerCertificate().subject?.CN ?? ''));
      s.destroy();
    });
    s.once('error', reject);
  });
}

type Status = { state: string; message: string };

describe('a TLS listener naming a store certificate that comes later', () => {
  let d: TestDaemon;
  let dir: string;
  let storage: string;
  // Port forwarding's target: one that takes the connection, so that the handshake is not raced by a
  // refused target closing the client (which of the two comes first differs between Node 20 and 26).
  let target: Server;
  let targetPort = 0;
  beforeAll(async () => {
    target = createServer((s) => s.on('error', () => undefined));
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as AddressInfo).port;
    d = await startTestDaemon();
    dir = tempDir('certwait');
    storage = await makeStorage(d, { name: 'wait-files' });
  });
  afterAll(async () => {
    await d?.close();
    target?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: Array<[string, (port: number, cert: string) => Record<string, unknown>]> = [
    ['web', (port, cert) => ({ name: 'w', protocol: 'https', address: '127.0.0.1', port, certs: [{ source: 'store', cert }] })],
    ['webdav', (port, cert) => ({ name: 'dav', address: '127.0.0.1', port, tls: true, certs: [{ source: 'store', cert }], mounts: [{ name: '', storage }] })],
    ['ftpserver', (port, cert) => ({ name: 'ftps', address: '127.0.0.1', port, tls: 'implicit', certs: [{ source: 'store', cert }], mounts: [{ name: '', storage }] })],
    [
      'portforward',
      (port, cert) => ({ name: 'pf', types: ['tcp4'], listenHost: '127.0.0.1', listenPorts: String(port), targets: ['127.0.0.1'], targetPorts: String(targetPort), tls: { listen: true, certSource: 'store', certNames: [cert] } }),
    ],
  ];

  it.each(cases)('%s: waiting (never error) until the certificate rule stores it, then serving it on the store change event', async (module, body) => {
    const port = await freePort();
    const name = `wait-${module}`;
    const created = await d.call<{ key: string }>('POST', `/api/${module}/rules`, body(port, name), EN);
    expect(created.ret, created.msg).toBe(0);
    const status = async () => (await d.call<{ rule: { status: Status } }>('GET', `/api/${module}/rules/${created.key}`, undefined, EN)).rule.status;
    expect(await status()).toMatchObject({ state: 'waiting', message: expect.stringMatching(new RegExp(`^waiting for certificate ${name}:`)) });
    await expect(handshake(port)).rejects.toThrow(/ECONNREFUSED/);
    const states: string[] = [];
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const s = (await status()).state;
        if (states.at(-1) !== s) states.push(s);
        await sleep(5);
      }
    })();

    const cert = makeCert(dir, name, ['wait.example.test']);
    const stored = await d.call<{ key: string }>('POST', '/api/acme/rules', { name, source: 'pem', cert: cert.cert, privateKey: cert.key }, EN);
    expect(stored.ret, stored.msg).toBe(0);
    const at = Date.now();
    let cn: string | undefined;
    while (!cn && Date.now() - at < 10_000) cn = await handshake(port).catch(() => sleep(5).then(() => undefined));
    watching = false;
    await watch;
    expect(cn).toBe('wait.example.test');
    expect((await status()).state).toBe('running');
    expect(states).not.toContain('error');
    expect(states.at(-1)).toBe('running');
    expect((await d.call('DELETE', `/api/${module}/rules/${created.key}?confirm=1`)).ret).toBe(0);
    expect((await d.call('DELETE', `/api/acme/rules/${stored.key}?confirm=1`)).ret).toBe(0);
  });
});
