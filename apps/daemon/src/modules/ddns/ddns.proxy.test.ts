/** Proxies (HTTP CONNECT with auth, SOCKS5 with auth) and HTTPS with skipped certificate checks. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZDdnsIpSource } from '@lucky/contracts';
import { fakeIpServer, type FakeIpServer } from '../../lib/dns/testing/fakes.js';
import { HttpClients } from '../../lib/http/clients.js';
import { httpConnectProxy, socks5Proxy, type TestProxy } from '../../lib/http/testing/proxies.js';
import { getIp } from './ddns.ipsource.js';

describe('proxies and TLS', () => {
  let ip: FakeIpServer;
  let httpProxy: TestProxy;
  let socks: TestProxy;
  let tls: Server;
  let tlsUrl: string;
  /** The server name each TLS client asked for (false: none). */
  const names: Array<string | false> = [];
  let dir: string;
  const clients = new HttpClients();
  const auth = { user: 'proxyuser', password: 'proxy-pass' };

  beforeAll(async () => {
    ip = await fakeIpServer('203.0.113.44', '2001:db8::44');
    httpProxy = await httpConnectProxy(auth);
    socks = await socks5Proxy(auth);
    dir = mkdtempSync(join(tmpdir(), 'lucky-ddns-tls-'));
    execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore', timeout: 20_000 });
    tls = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (_req, res) => res.end('tls says 192.0.2.200'));
    tls.on('secureConnection', (s) => names.push(s.servername));
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await clients.close();
    await httpProxy.close();
    await socks.close();
    await ip.close();
    tls.closeAllConnections();
    await new Promise((r) => tls.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const src = (url: string) => ZDdnsIpSource.parse({ urls: [url] });

  it('goes through an HTTP proxy with basic auth, and fails clearly with a wrong password', async () => {
    const http = clients.client({ timeoutMs: 5000, proxy: { type: 'http', address: httpProxy.address, ...auth } });
    expect((await getIp('ipv4', src(`${ip.url}/`), { http })).ip).toBe('203.0.113.44');
    expect(httpProxy.tunnels).toContain(ip.url.replace('http://', ''));
    const bad = clients.client({ timeoutMs: 5000, proxy: { type: 'http', address: httpProxy.address, user: 'proxyuser', password: 'nope' } });
    await expect(getIp('ipv4', src(`${ip.url}/`), { http: bad })).rejects.toThrow(/407|Proxy/i);
  });

  it('goes through a SOCKS5 proxy with username/password', async () => {
    const http = clients.client({ timeoutMs: 5000, proxy: { type: 'socks5', address: socks.address, ...auth } });
    expect((await getIp('ipv6', src(`${ip.url}/v6`), { http })).ip).toBe('2001:db8::44');
    expect(socks.tunnels).toContain(ip.url.replace('http://', ''));
    // HTTPS through SOCKS5, with the certificate check skipped.
    const lax = clients.client({ timeoutMs: 5000, skipVerify: true, proxy: { type: 'socks5', address: socks.address, ...auth } });
    names.length = 0;
    expect((await getIp('ipv4', src(tlsUrl), { http: lax })).ip).toBe('192.0.2.200');
    // An address is no server name (RFC 6066; Node 26 refuses to send one), a host name is.
    expect(names).toEqual([false]);
    const named = tlsUrl.replace('127.0.0.1', 'localhost');
    expect((await getIp('ipv4', src(named), { http: lax })).ip).toBe('192.0.2.200');
    expect(names).toEqual([false, 'localhost']);
    expect(socks.tunnels).toContain(named.replace('https://', '').replace('/', ''));
    const bad = clients.client({ timeoutMs: 5000, proxy: { type: 'socks5', address: socks.address, user: 'proxyuser', password: 'nope' } });
    await expect(getIp('ipv4', src(`${ip.url}/`), { http: bad })).rejects.toThrow(/no IPv4 address/);
  });

  it('refuses a self-signed certificate unless certificate checks are skipped', async () => {
    const strict = clients.client({ timeoutMs: 5000 });
    await expect(getIp('ipv4', src(tlsUrl), { http: strict })).rejects.toThrow(/certificate|self.signed/i);
    const lax = clients.client({ timeoutMs: 5000, skipVerify: true });
    expect((await getIp('ipv4', src(tlsUrl), { http: lax })).ip).toBe('192.0.2.200');
  });
});
