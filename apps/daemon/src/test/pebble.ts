/**
 * Debian's pebble (Let's Encrypt's test ACME server) for the certificates tests, on 127.0.0.1 and
 * free ports, asking the DNS server given (the tests' BIND, whose zone sends the HTTP-01 names to
 * 127.0.0.1 and holds the DNS-01 TXT records); HTTP-01 is validated on `httpPort`.
 * With `netns` it runs inside that network namespace (a NAT lab's WAN, publishlab.ts) on `host`,
 * with pebble's own default ports (the namespace is the test's own, so they are free there).
 * Its HTTPS certificate is made here with OpenSSL (the Debian package ships none) for the address
 * it listens on; `tlsCa` is the PEM the daemon must trust for the directory, `root()` the CA root
 * its certificates chain to. Throws (never skips) with the server's own output when it cannot start.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { freePort } from './harness.js';

export const PEBBLE = '/usr/bin/pebble';

interface Proc {
  output(): string;
  exited(): number | null | undefined;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): Proc {
  let out = '';
  const child: ChildProcess = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  child.stdout!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  child.stderr!.on('data', (b: Buffer) => (out = (out + b.toString()).slice(-20_000)));
  let code: number | null | undefined;
  child.on('exit', (c) => (code = c));
  return {
    output: () => out,
    exited: () => code,
    async stop() {
      if (code !== undefined) return;
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 5000);
      await gone;
      clearTimeout(t);
    },
  };
}

async function until(what: string, p: Proc, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (p.exited() !== undefined) throw new Error(`${what} exited with code ${p.exited()}:\n${p.output().slice(-4000)}`);
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within 20 s:\n${p.output().slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Pebble {
  /** The directory URL. */
  directory: string;
  /** PEM of the CA that signed pebble's own HTTPS certificate (the rule's `caRoot`). */
  tlsCa: string;
  /** Pebble's own HTTPS certificate and key (its `host`), for a test server the same `caRoot` trusts. */
  serverTls: { cert: string; key: string };
  /** PEM of the root its issued certificates chain to (new on every start). */
  root(): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** Where pebble validates HTTP-01 (our listener). */
  httpPort: number;
  /** host:port of the DNS pebble asks. */
  dnsServer: string;
  /** PEBBLE_WFE_NONCEREJECT: the share of good nonces refused (pebble's default is 5). */
  nonceReject?: number;
  /** External Account Binding required, with these key ids and base64url HMAC keys. */
  eabKeys?: Record<string, string>;
  /** Lifetime of the certificates it issues (pebble's default is five years). */
  validitySeconds?: number;
  /** A network namespace to run pebble in (through `ip netns exec`). */
  netns?: string;
  /** The IPv4 address to listen on (default 127.0.0.1); it must be reachable from the test's namespace (the readiness check asks from there). */
  host?: string;
  /** The directory's port. Default: 14000 inside `netns` (management on 15000, TLS-ALPN-01 validated on 443), free ports otherwise. */
  port?: number;
}

export async function startPebble(o: PebbleOptions): Promise<Pebble> {
  if (!existsSync(PEBBLE)) throw new Error(`${PEBBLE} is missing: install Debian's pebble (npm test installs it)`);
  const dir = mkdtempSync(join(tmpdir(), 'lucky-pebble-'));
  const host = o.host ?? '127.0.0.1';
  // A CA and pebble's server certificate for the address it listens on, made with OpenSSL.
  const ossl = (args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=lucky test pebble CA']);
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'key.pem', '-out', 'srv.csr', '-subj', `/CN=${host}`]);
  writeFileSync(join(dir, 'ext.cnf'), `subjectAltName=IP:${host},DNS:localhost\n`);
  ossl(['x509', '-req', '-in', 'srv.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'cert.pem', '-days', '2', '-extfile', 'ext.cnf']);
  const port = o.port ?? (o.netns ? 14_000 : await freePort());
  const mgmt = o.netns ? 15_000 : await freePort();
  const tlsPort = o.netns ? 443 : await freePort();
  writeFileSync(
    join(dir, 'pebble.json'),
    JSON.stringify({
      pebble: {
        listenAddress: `${host}:${port}`,
        managementListenAddress: `${host}:${mgmt}`,
        certificate: join(dir, 'cert.pem'),
        privateKey: join(dir, 'key.pem'),
        httpPort: o.httpPort,
        tlsPort,
        ocspResponderURL: '',
        externalAccountBindingRequired: !!o.eabKeys,
        ...(o.eabKeys ? { externalAccountMACKeys: o.eabKeys } : {}),
        ...(o.validitySeconds ? { certificateValidityPeriod: o.validitySeconds } : {}),
      },
    }),
  );
  const args = ['-config', join(dir, 'pebble.json'), '-dnsserver', o.dnsServer];
  // `ip netns exec` execs pebble in place (the environment passes through): stop() signals pebble itself.
  const [cmd, argv]: [string, string[]] = o.netns ? ['ip', ['netns', 'exec', o.netns, PEBBLE, ...args]] : [PEBBLE, args];
  const p = run(cmd, argv, {
    PEBBLE_VA_NOSLEEP: '1',
    // Every order validates afresh (a reused authorization would skip the challenge under test).
    PEBBLE_AUTHZREUSE: '0',
    PEBBLE_WFE_NONCEREJECT: String(o.nonceReject ?? 5),
  });
  const tlsCa = readFileSync(join(dir, 'ca.pem'), 'utf8');
  const agent = new Agent({ connect: { ca: tlsCa } });
  const get = async (url: string) => {
    const r = await request(url, { dispatcher: agent });
    return { status: r.statusCode, text: await r.body.text() };
  };
  const directory = `https://${host}:${port}/dir`;
  await until('pebble', p, async () => (await get(directory)).status === 200);
  return {
    directory,
    tlsCa,
    serverTls: { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') },
    root: async () => (await get(`https://${host}:${mgmt}/roots/0`)).text,
    output: p.output,
    async stop() {
      await p.stop();
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
